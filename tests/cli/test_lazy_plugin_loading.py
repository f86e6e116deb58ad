"""Specification of lazy plugin loading: installed plugin distributions are listed without importing them, so a
command whose profile names none of them runs none of their code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, RunCli, write

PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "acme-import-marker"
version = "1.0.0"

[project.entry-points."kubesched.plugins"]
Marker = "acme_marker:Marker"

[tool.setuptools]
py-modules = ["acme_marker"]
"""

# Module-level code that leaves a trace (as a plugin that monkeypatched a built-in at import would act).
MODULE = '''
import os
from kubesched import hookimpl, Plugin

with open(os.environ["ACME_MARKER"], "a", encoding="utf-8") as marker:
    marker.write("imported\\n")


class Marker(Plugin):
    name = "Marker"

    @hookimpl
    def filter(self, state, pod, node_info):
        return None
'''

PROFILE = '[[profiles]]\n[profiles.plugins.filter]\nenabled = [{ name = "Marker" }]\n'


@pytest.fixture(scope="module")
def marker_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The marker distribution, built and installed into a private site directory."""
    source = tmp_path_factory.mktemp("marker")
    write(source / "pyproject.toml", PYPROJECT)
    write(source / "acme_marker.py", MODULE)
    site = source / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)
    return site


@pytest.mark.slow
@pytest.mark.parametrize(("args", "imported"), [
    pytest.param(("profile", "check", "default"), False, id="profile-check-default"),
    pytest.param(("simulate", str(EXAMPLES / "quickstart.yaml")), False, id="simulate-default-profile"),
    pytest.param(("simulate", str(EXAMPLES / "quickstart.yaml"), "--profile", "{profile}"), True,
                 id="simulate-with-a-profile-naming-it"),
    pytest.param(("plugins",), True, id="plugins-lists-details"),
])
def test_a_plugins_module_runs_only_when_the_command_uses_it(
        run_cli: RunCli, marker_site: Path, tmp_path: Path, args: tuple[str, ...], imported: bool) -> None:
    """The plugin's module-level code runs for a profile naming it and for ``kubesched plugins``, not otherwise."""
    marker = tmp_path / "marker"
    profile = write(tmp_path / "marker.toml", PROFILE)
    done = run_cli(*(a.format(profile=profile) for a in args),
                   env={"PYTHONPATH": os.pathsep.join(p for p in (str(marker_site), os.environ.get("PYTHONPATH")) if p),
                        "ACME_MARKER": str(marker)})
    assert done.returncode == 0, done.stderr
    assert marker.exists() is imported

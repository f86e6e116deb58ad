"""A third-party plugin distribution, built and installed in a temporary directory, found through its
entry point, selected by a profile file, changes where pods land."""

from __future__ import annotations

import json
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
name = "acme-placement"
version = "0.3.1"

[project.entry-points."kubesched.plugins"]
{entry_points}

[tool.setuptools]
py-modules = ["acme_placement"]
"""

MODULE = '''
"""Acme's placement policy: only nodes in an allowed zone, preferring zone-b."""
import attrs
from kubesched import hookimpl, Plugin, Status


@attrs.frozen
class ZoneArgs:
    allowed: tuple[str, ...] = ("zone-b",)


class ZonePolicy(Plugin):
    name = "ZonePolicy"
    Args = ZoneArgs

    @hookimpl
    def filter(self, state, pod, node_info):
        zone = node_info.node.labels.get("topology.kubernetes.io/zone", "")
        if zone in self.args.allowed:
            return None
        return Status.unresolvable(f"node(s) outside the acme zones {list(self.args.allowed)}")


class Impostor(ZonePolicy):
    name = "NodeResourcesFit"


class Broken:
    name = "Broken"

    @hookimpl
    def filtr(self, state, pod, node_info):
        return None
'''

PROFILE = """
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugins.filter]
enabled = [{ name = "ZonePolicy" }]
"""


def install(tmp_path: Path, entry_points: str) -> Path:
    """Build and install the acme distribution into a private site directory; return it."""
    source = tmp_path / "acme"
    write(source / "pyproject.toml", PYPROJECT.format(entry_points=entry_points))
    write(source / "acme_placement.py", MODULE)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)
    return site


@pytest.fixture(scope="module")
def acme_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install(tmp_path_factory.mktemp("acme"), 'ZonePolicy = "acme_placement:ZonePolicy"')


def test_installed_plugin_is_listed_with_its_distribution(run_cli: RunCli, acme_site: Path) -> None:
    """`kubesched plugins` finds the plugin through its entry point and names its distribution."""
    done = run_cli("plugins", "--output", "json", env={"PYTHONPATH": str(acme_site)})
    assert done.returncode == 0, done.stderr
    plugin = next(p for p in json.loads(done.stdout)["plugins"] if p["name"] == "ZonePolicy")
    assert plugin["extensionPoints"] == ["Filter"]
    assert plugin["source"] == "acme-placement 0.3.1"


def test_profile_selecting_the_plugin_changes_placement(run_cli: RunCli, acme_site: Path, tmp_path: Path) -> None:
    """With the plugin enabled by a profile, pods only land in the allowed zone."""
    profile = write(tmp_path / "acme.toml", PROFILE)
    quickstart = str(EXAMPLES / "quickstart.yaml")
    env = {"PYTHONPATH": str(acme_site)}
    before = json.loads(run_cli("simulate", quickstart, "--output", "json", env=env).stdout)
    done = run_cli("simulate", quickstart, "--profile", str(profile), "--output", "json", env=env)
    assert done.returncode == 0, done.stderr
    after = json.loads(done.stdout)
    placed_before = {p["name"]: p["node"] for p in before["pods"]}
    placed_after = {p["name"]: p["node"] for p in after["pods"]}
    assert placed_before["web-2"] == "worker-a"
    assert {placed_after[n] for n in ("web-1", "web-2", "web-3")} == {"worker-b"}
    db = next(p for p in after["pods"] if p["name"] == "db")
    assert db["phase"] == "Pending"
    assert "node(s) outside the acme zones ['zone-b']" in db["message"]


def test_plugin_args_come_from_the_profile(run_cli: RunCli, acme_site: Path, tmp_path: Path) -> None:
    """plugin-config fills the plugin's attrs Args; unknown keys are rejected with the key path."""
    good = write(tmp_path / "good.toml", PROFILE + '[profiles.plugin-config.ZonePolicy]\nallowed = ["zone-a"]\n')
    done = run_cli("simulate", str(EXAMPLES / "quickstart.yaml"), "--profile", str(good), "--output", "json",
                   env={"PYTHONPATH": str(acme_site)})
    assert {p["node"] for p in json.loads(done.stdout)["pods"] if p["name"].startswith("web")} == {"worker-a"}
    bad = write(tmp_path / "bad.toml", PROFILE + '[profiles.plugin-config.ZonePolicy]\nallow = ["zone-a"]\n')
    done = run_cli("profile", "check", str(bad), env={"PYTHONPATH": str(acme_site)})
    assert done.returncode == 1
    assert done.stderr == (f"error: {bad}: profiles[0].plugin-config.ZonePolicy.allow: unknown key "
                           "(did you mean 'allowed'?)\n")


@pytest.mark.parametrize(("entry_point", "message"), [
    ('Broken = "acme_placement:Broken"', "unknown hook 'filtr' (did you mean 'filter'?)"),
    ('Ghost = "acme_missing_module:Ghost"', "cannot import acme_missing_module:Ghost: ModuleNotFoundError: No module "
                                            "named 'acme_missing_module'"),
    ('NodeResourcesFit = "acme_placement:Impostor"', "duplicate plugin name: provided by both builtin and "
                                                    "acme-placement 0.3.1"),
], ids=["hooks-do-not-match", "fails-to-import", "duplicate-name"])
def test_broken_plugin_is_an_error_naming_plugin_and_distribution(entry_point: str, message: str, run_cli: RunCli,
                                                                  tmp_path: Path) -> None:
    """A plugin whose hooks do not match the hookspecs, or that fails to import, stops the CLI with an error
    naming the plugin and its distribution."""
    site = install(tmp_path, entry_point)
    done = run_cli("plugins", env={"PYTHONPATH": str(site)})
    name = entry_point.split(" ")[0]
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"error: plugin '{name}' (from acme-placement): {message}\n"

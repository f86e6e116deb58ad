"""docs/writing-plugins.md works as written.

The page's ``<!-- file: PATH -->`` blocks are extracted into a fresh project directory, which is "installed"
without pip: its source folders (from the hatch ``packages`` setting) and a generated ``.dist-info`` whose
entry points come from the page's own ``pyproject.toml`` go on PYTHONPATH. Then the tutorial's tests run, and
every command whose output the page shows (``<!-- output: COMMAND -->``) prints exactly that output.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.testing.conformance.checks import CHECKS
from tests.conftest import REPO, RunCli

DOC = (REPO / "docs" / "writing-plugins.md").read_text(encoding="utf-8")
ENTRY_POINT_GROUP = "kubesched.plugins"


def _blocks(marker: str) -> list[tuple[str, str]]:
    """(argument, body) of each fenced block right under a ``<!-- marker: argument -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


FILES = dict(_blocks("file"))
OUTPUTS = _blocks("output")
ROWS = _blocks("output-rows")


def normalise(text: str) -> str:
    """Text without trailing whitespace on each line or trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@attrs.frozen
class Project:
    """The tutorial's project, extracted from the page, and the environment in which it is installed."""

    root: Path
    pyproject: dict[str, Any]
    env: dict[str, str]

    @property
    def entry_points(self) -> dict[str, str]:
        """The ``kubesched.plugins`` entry points the page's pyproject.toml declares."""
        return dict(self.pyproject["project"]["entry-points"][ENTRY_POINT_GROUP])


def install_without_pip(root: Path, pyproject: dict[str, Any], site: Path) -> list[Path]:
    """What ``pip install -e .`` gives, for kubesched's purposes: importable packages and a dist-info with the
    pyproject's entry points. Returns the folders to put on PYTHONPATH."""
    project = pyproject["project"]
    packages = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    source_roots = []
    for package in packages:
        package_dir = root / package
        assert (package_dir / "__init__.py").is_file(), f"pyproject.toml packages: {package} is not a package"
        source_roots.append(package_dir.parent)
    dist = re.sub(r"[-_.]+", "_", project["name"]).lower()
    info = site / f"{dist}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    lines = [f"{name} = {target}" for name, target in project["entry-points"][ENTRY_POINT_GROUP].items()]
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return [*dict.fromkeys(source_roots), site]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The page's files written into an empty directory, installed on a PYTHONPATH."""
    root = tmp_path_factory.mktemp("gpu-guard")
    for relative, body in FILES.items():
        path = root / relative
        assert path.resolve().is_relative_to(root.resolve()), f"{relative} is outside the project"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    pyproject = tomllib.loads(FILES["pyproject.toml"])
    paths = install_without_pip(root, pyproject, tmp_path_factory.mktemp("site"))
    pythonpath = os.pathsep.join([*map(str, paths), *filter(None, [os.environ.get("PYTHONPATH")])])
    return Project(root, pyproject, {"PYTHONPATH": pythonpath})


def run_shown(run_cli: RunCli, command: str, project: Project, cwd: Path | None = None) \
        -> subprocess.CompletedProcess[str]:
    """Run a command as the page shows it (``[VAR=value ...] kubesched ARGS``) in the project directory."""
    words = shlex.split(command)
    env = dict(project.env)
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "kubesched", f"not a kubesched command: {command}"
    return run_cli(*words[1:], env=env, cwd=cwd or project.root)


def test_the_page_gives_every_file_of_the_project() -> None:
    """The files the steps create, each once, and each also drawn in the layout of step 1."""
    assert len(FILES) == len(_blocks("file"))
    assert set(FILES) == {"pyproject.toml", "src/gpu_guard/__init__.py", "tests/test_gpu_guard.py",
                          "tests/test_conformance.py", "args.toml", "profile.toml", "cluster.yaml"}
    layout = re.search(r"^## Step 1.*?```text\n(.*?)```", DOC, flags=re.M | re.S)
    assert layout is not None
    for path in FILES:
        assert Path(path).name in layout.group(1), f"{path} is missing from the layout in step 1"


def test_pyproject_declares_the_build_backend_and_the_entry_point() -> None:
    """hatchling builds the project, and the plugin registers under its own name in kubesched.plugins."""
    pyproject = tomllib.loads(FILES["pyproject.toml"])
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    assert any(req.startswith("hatchling") for req in pyproject["build-system"]["requires"])
    assert "kubesched" in pyproject["project"]["dependencies"]
    assert pyproject["project"]["entry-points"][ENTRY_POINT_GROUP] == {"GpuGuard": "gpu_guard:GpuGuard"}
    assert 'name = "GpuGuard"' in FILES["src/gpu_guard/__init__.py"]


def test_the_tutorials_tests_pass_conformance_included(project: Project) -> None:
    """``python -m pytest`` in the project passes, runs every conformance check, and counts what the page says."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"], cwd=project.root,
                          env={**os.environ, **project.env}, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for check in CHECKS:
        test_name = "test_" + check.id.replace("-", "_")
        assert re.search(rf"::TestGpuGuardConformance::{test_name} (PASSED|SKIPPED)", done.stdout), test_name
    summary = re.search(r"(\d+) passed, (\d+) skipped", done.stdout)
    assert summary is not None, done.stdout
    assert f"pytest reports {summary.group(1)} passed and {summary.group(2)} skipped" in DOC


def test_the_installed_plugin_is_listed(run_cli: RunCli, project: Project) -> None:
    """``kubesched plugins`` lists GpuGuard from its distribution, and every row the page shows is real."""
    [(command, shown)] = ROWS
    done = run_shown(run_cli, command, project)
    assert done.returncode == 0, done.stderr

    def rows(table: str) -> list[str]:
        return [" ".join(line.split()) for line in table.splitlines() if line.startswith("│")]

    assert "│ GpuGuard │ PreFilter, Filter │ kubesched-gpu-guard 0.1.0 │" in rows(shown)
    assert set(rows(shown)) <= set(rows(done.stdout)), done.stdout


def settle_time_budget(report: str) -> str:
    """A conformance report with a time-budget warning turned into a pass: a slow machine may warn, which is
    not a failure and not what the page is about."""
    warned = re.search(r"^  WARN  (time-budget .*)\n {8}.*\n", report, flags=re.M)
    if warned is None:
        return report
    report = report.replace(warned.group(0), f"  PASS  {warned.group(1)}\n")
    return re.sub(r"(\d+) passed, 1 warned", lambda m: f"{int(m.group(1)) + 1} passed, 0 warned", report)


def test_the_page_shows_the_commands_of_every_step() -> None:
    """Conformance, the profile check and the simulation with the profile all have their output shown."""
    commands = [command for command, _ in OUTPUTS]
    assert "kubesched conformance GpuGuard --args args.toml --cluster cluster.yaml" in commands
    assert "kubesched profile check profile.toml" in commands
    assert "COLUMNS=110 kubesched simulate cluster.yaml --profile profile.toml" in commands


@pytest.mark.parametrize(("command", "shown"), OUTPUTS, ids=[command for command, _ in OUTPUTS])
def test_shown_output_is_what_the_command_prints(run_cli: RunCli, project: Project, command: str,
                                                 shown: str) -> None:
    """Each ``<!-- output: COMMAND -->`` block is exactly what COMMAND prints in the project (exit status 0)."""
    done = run_shown(run_cli, command, project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert normalise(settle_time_budget(done.stdout)) == normalise(shown)


def test_a_bad_arg_in_the_profile_is_reported_as_the_page_says(run_cli: RunCli, project: Project,
                                                                tmp_path: Path) -> None:
    """``max-other-pods = -1`` makes ``kubesched profile check`` fail with the line the page quotes."""
    profile = FILES["profile.toml"]
    assert "max-other-pods = 1\n" in profile
    (tmp_path / "profile.toml").write_text(profile.replace("max-other-pods = 1\n", "max-other-pods = -1\n"),
                                           encoding="utf-8")
    done = run_shown(run_cli, "kubesched profile check profile.toml", project, cwd=tmp_path)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert f"```text\n{line}\n```" in DOC


def test_the_hint_tests_pass_on_the_tutorials_plugin(project: Project, tmp_path: Path) -> None:
    """The tests of GpuGuard's events that the page shows pass against the tutorial's plugin."""
    section = re.search(r"^### Checking which events may help a rejected pod\n(.*?)^##", DOC, flags=re.M | re.S)
    assert section is not None
    (code,) = re.findall(r"^```python\n(.*?)^```", section.group(1), flags=re.M | re.S)
    (tmp_path / "test_gpu_guard_events.py").write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env={**os.environ, **project.env}, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout

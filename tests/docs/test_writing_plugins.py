"""docs/writing-plugins.md works as written.

The page builds its project in page order: a ``<!-- file: PATH -->`` block creates a file, a ``<!-- patch: PATH -->``
block (a diff of context, ``-`` and ``+`` lines, hunks separated by ``@@``) changes one. The project is written
into a fresh directory, which is "installed" without pip: its source folders (from the hatch ``packages`` setting)
and a generated ``.dist-info`` whose entry points come from the page's own ``pyproject.toml`` go on PYTHONPATH.
Wherever the page says what ``python -m pytest`` reports, the tutorial's tests run on the project as the page has
built it by then; every command whose output the page shows (``<!-- output: COMMAND -->``) prints exactly that
output in the finished project.
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


BUILDING_BLOCK = re.compile(r"^<!-- (file|patch): (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$", flags=re.M | re.S)
COUNT_CLAIM = re.compile(r"pytest reports (\d+) passed and (\d+) skipped")


def apply_patch(text: str, diff: str, path: str) -> str:
    """``text`` changed by ``diff``: hunks separated by ``@@`` lines, each of context lines (a space, or empty),
    ``-`` lines to remove and ``+`` lines to add; a hunk's context and removed lines occur in ``text`` exactly once,
    in a row."""
    lines = text.splitlines()
    for hunk in re.split(r"^@@.*\n", diff, flags=re.M):
        old: list[str] = []
        new: list[str] = []
        for line in hunk.splitlines():
            mark, rest = line[:1] or " ", line[1:]
            assert mark in " +-", f"patch of {path}: a line starts with neither a space, + nor -: {line!r}"
            if mark != "+":
                old.append(rest)
            if mark != "-":
                new.append(rest)
        assert old, f"patch of {path}: a hunk without context lines:\n{hunk}"
        starts = [i for i in range(len(lines) - len(old) + 1) if lines[i:i + len(old)] == old]
        assert len(starts) == 1, f"patch of {path}: the hunk's context occurs {len(starts)} times:\n{hunk}"
        lines[starts[0]:starts[0] + len(old)] = new
    return "\n".join(lines) + "\n"


def project_files(end: int | None = None) -> dict[str, str]:
    """The project's files as the page has built them by offset ``end`` (by its end when None)."""
    files: dict[str, str] = {}
    for match in BUILDING_BLOCK.finditer(DOC, 0, len(DOC) if end is None else end):
        kind, path, body = match.groups()
        if kind == "file":
            assert path not in files, f"{path} is created twice; change it with a patch block"
            files[path] = body
        else:
            assert path in files, f"{path} is patched before it is created"
            files[path] = apply_patch(files[path], body, path)
    return files


def heading_before(offset: int) -> str:
    """The ``## `` heading of the section holding ``offset``."""
    headings: list[str] = re.findall(r"^## (.+)$", DOC[:offset], flags=re.M)
    return headings[-1]


FILES = project_files()
OUTPUTS = _blocks("output")
#: (offset, command, rows) of each ``<!-- output-rows: COMMAND -->`` block.
ROWS = [(m.start(), m.group(1), m.group(2)) for m in
        re.finditer(r"^<!-- output-rows: (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$", DOC, flags=re.M | re.S)]


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


def make_project(root: Path, site: Path, files: dict[str, str]) -> Project:
    """``files`` written into the empty directory ``root``, installed on a PYTHONPATH (with ``site``)."""
    for relative, body in files.items():
        path = root / relative
        assert path.resolve().is_relative_to(root.resolve()), f"{relative} is outside the project"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    pyproject = tomllib.loads(files["pyproject.toml"])
    paths = install_without_pip(root, pyproject, site)
    pythonpath = os.pathsep.join([*map(str, paths), *filter(None, [os.environ.get("PYTHONPATH")])])
    return Project(root, pyproject, {"PYTHONPATH": pythonpath})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The finished project: every file of the page, as its patches leave it, installed on a PYTHONPATH."""
    return make_project(tmp_path_factory.mktemp("gpu-guard"), tmp_path_factory.mktemp("site"), FILES)


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
    """The files the steps create, each once, and each drawn in the layout the page shows before creating it."""
    assert set(FILES) == {"pyproject.toml", "src/gpu_guard/__init__.py", "tests/test_gpu_guard.py",
                          "tests/test_conformance.py", "args.toml", "profile.toml", "cluster.yaml",
                          "src/gpu_guard/packing.py", "tests/test_gpu_packing.py", "tests/test_gpu_packing_batch.py",
                          "packing.toml", "gpus.yaml"}
    layouts = [(m.start(), m.group(1)) for m in re.finditer(r"^```text\n(gpu-guard/\n.*?)```", DOC, flags=re.M | re.S)]
    assert [heading_before(offset).split(":")[0] for offset, _layout in layouts] == ["Step 1", "Step 9"]
    for match in re.finditer(r"^<!-- (file|patch): (.+?) -->", DOC, flags=re.M):
        layout = [text for offset, text in layouts if offset < match.start()][-1]
        assert Path(match.group(2)).name in layout, f"{match.group(2)} is missing from the layout before it"


def test_pyproject_declares_the_build_backend_and_the_entry_points() -> None:
    """hatchling builds the project; step 1 registers GpuGuard under its own name in kubesched.plugins, and the
    finished project GpuPacking too, each entry point's name being its class's ``name``."""
    first = tomllib.loads(dict(_blocks("file"))["pyproject.toml"])
    assert first["project"]["entry-points"][ENTRY_POINT_GROUP] == {"GpuGuard": "gpu_guard:GpuGuard"}
    pyproject = tomllib.loads(FILES["pyproject.toml"])
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    assert any(req.startswith("hatchling") for req in pyproject["build-system"]["requires"])
    assert {"kubesched", "attrs", "numpy"} <= set(pyproject["project"]["dependencies"])
    assert pyproject["project"]["entry-points"][ENTRY_POINT_GROUP] == {
        "GpuGuard": "gpu_guard:GpuGuard", "GpuPacking": "gpu_guard.packing:GpuPacking"}
    assert 'name = "GpuGuard"' in FILES["src/gpu_guard/__init__.py"]
    assert 'name = "GpuPacking"' in FILES["src/gpu_guard/packing.py"]


def test_a_patch_applies_only_where_its_context_is_unique() -> None:
    """A hunk replaces its context and ``-`` lines with its context and ``+`` lines; a context found twice or
    not at all is refused."""
    text = "a\nb\nc\nb\n"
    assert apply_patch(text, " a\n-b\n+B\n c\n", "f") == "a\nB\nc\nb\n"
    assert apply_patch(text, " a\n+x\n@@\n c\n+y\n", "f") == "a\nx\nb\nc\ny\nb\n"
    for ambiguous in (" b\n+x\n", " z\n+x\n"):
        with pytest.raises(AssertionError, match="context occurs"):
            apply_patch(text, ambiguous, "f")


CLAIMS = [pytest.param(m.start(), int(m.group(1)), int(m.group(2)), id=heading_before(m.start()))
          for m in COUNT_CLAIM.finditer(DOC)]


def test_the_page_says_what_pytest_reports_after_each_plugin() -> None:
    """The counts come after GpuGuard's tests, after GpuPacking's, and after its batch forms."""
    assert [heading_before(m.start()).split(":")[0] for m in COUNT_CLAIM.finditer(DOC)] == [
        "Step 5", "Step 11", "Step 12"]


@pytest.mark.parametrize(("offset", "passed", "skipped"), CLAIMS)
def test_the_tutorials_tests_pass_where_the_page_runs_them(offset: int, passed: int, skipped: int,
                                                           tmp_path: Path) -> None:
    """``python -m pytest`` in the project as the page has built it by then passes, runs every conformance check
    of each conformance class, and counts what the page says."""
    files = project_files(offset)
    project = make_project(tmp_path / "gpu-guard", tmp_path / "site", files)
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"], cwd=project.root,
                          env={**os.environ, **project.env}, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    classes = re.findall(r"^class (\w+)\(PluginConformance\):", files["tests/test_conformance.py"], flags=re.M)
    assert "TestGpuGuardConformance" in classes
    for class_name in classes:
        for check in CHECKS:
            test_name = "test_" + check.id.replace("-", "_")
            assert re.search(rf"::{class_name}::{test_name} (PASSED|SKIPPED)", done.stdout), (class_name, test_name)
    summary = re.search(r"(\d+) passed, (\d+) skipped", done.stdout)
    assert summary is not None, done.stdout
    assert (int(summary.group(1)), int(summary.group(2))) == (passed, skipped), done.stdout


@pytest.mark.parametrize(("offset", "command", "shown"), ROWS, ids=[f"rows-{i}" for i in range(len(ROWS))])
def test_the_installed_plugins_are_listed(run_cli: RunCli, offset: int, command: str, shown: str,
                                          tmp_path: Path) -> None:
    """``kubesched plugins`` in the project as the page has built it by then lists the tutorial's plugins from
    its distribution, and every plugin's rows the page shows (its FAST PATH lines included) are real."""
    project = make_project(tmp_path / "gpu-guard", tmp_path / "site", project_files(offset))
    done = run_shown(run_cli, command, project)
    assert done.returncode == 0, done.stderr
    printed = table_rows(done.stdout)
    assert "│ GpuGuard │ PreFilter, Filter │ kubesched-gpu-guard 0.1.0 │ no filter_nodes │" in table_rows(shown)
    for group in plugin_rows(table_rows(shown)):
        starts = [i for i, row in enumerate(printed) if row == group[0]]
        assert len(starts) == 1, (group[0], done.stdout)
        assert printed[starts[0]:starts[0] + len(group)] == group, done.stdout


def table_rows(table: str) -> list[str]:
    """A table's body lines with runs of spaces collapsed (column widths depend on the other rows)."""
    return [" ".join(line.split()) for line in table.splitlines() if line.startswith("│")]


def plugin_rows(rows: list[str]) -> list[list[str]]:
    """The rows grouped per plugin: its named row and the continuation rows under it (a wrapped cell)."""
    groups: list[list[str]] = []
    for row in rows:
        if row.startswith("│ │") and groups:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def test_the_score_plugin_is_listed_with_its_extension_points() -> None:
    """Step 9 shows GpuPacking's row, with PreScore and Score, and its Score still node by node."""
    shown = [" ".join(line.split()) for _offset, _command, table in ROWS for line in table.splitlines()]
    assert "│ GpuPacking │ PreScore, Score │ kubesched-gpu-guard 0.1.0 │ no score_nodes │" in shown


def settle_time_budget(report: str) -> str:
    """A conformance report with a time-budget warning turned into a pass: a slow machine may warn, which is
    not a failure and not what the page is about."""
    warned = re.search(r"^  WARN  (time-budget .*)\n {8}.*\n", report, flags=re.M)
    if warned is None:
        return report
    report = report.replace(warned.group(0), f"  PASS  {warned.group(1)}\n")
    return re.sub(r"(\d+) passed, 1 warned", lambda m: f"{int(m.group(1)) + 1} passed, 0 warned", report)


def test_the_page_shows_the_commands_of_every_step() -> None:
    """Conformance, the profile checks and the simulations with each profile all have their output shown."""
    commands = [command for command, _ in OUTPUTS]
    assert "kubesched conformance GpuGuard --args args.toml --cluster cluster.yaml" in commands
    assert "kubesched profile check profile.toml" in commands
    assert "COLUMNS=110 kubesched simulate cluster.yaml --profile profile.toml" in commands
    assert "kubesched profile check packing.toml" in commands
    assert "COLUMNS=110 kubesched simulate gpus.yaml" in commands
    assert "COLUMNS=110 kubesched simulate gpus.yaml --profile packing.toml --explain ml/train-2" in commands


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

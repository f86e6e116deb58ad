"""docs/sweep.md works as written: its example file is the repository's, its commands print what it shows, its
error lines are what kubesched reports, its plugin-arg labels are the ones made, and every flag of its Dask and
sweep command lines exists."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.cli.sweep import sweep
from kubesched.sweep import executors
from kubesched.sweep.profiles import variants
from kubesched.sweep.spec import load_sweep
from tests.conftest import EXAMPLES, REPO

DOC = (REPO / "docs" / "sweep.md").read_text(encoding="utf-8")


def blocks(marker: str) -> list[tuple[str, str]]:
    """(argument, body) of each fenced block right under a ``<!-- marker: argument -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


def section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n## ", start + 1)
    return DOC[start:] if end < 0 else DOC[start:end]


def fenced(text: str) -> list[str]:
    return re.findall(r"^```[\w-]*\n(.*?)^```", text, flags=re.M | re.S)


def run(command: str, cwd: Path, monkeypatch: pytest.MonkeyPatch, *, status: int = 0) -> tuple[str, str]:
    """Run ``kubesched ARGS`` in ``cwd`` in this process (the cells too: one job); its stdout and stderr."""
    words = shlex.split(command)
    assert words[0] == "kubesched"
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(executors, "default_jobs", lambda: 1)
    result = CliRunner().invoke(main, words[1:], catch_exceptions=False)
    assert result.exit_code == status, result.output
    return result.stdout, result.stderr


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder holding examples/sweep as the repository does."""
    shutil.copytree(EXAMPLES / "sweep", tmp_path / "examples" / "sweep")
    return tmp_path


def test_the_example_file_is_the_repositorys() -> None:
    ((path, shown),) = blocks("file")
    assert (REPO / path).read_text(encoding="utf-8") == shown


def test_the_worked_example_prints_the_summaries_shown(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table, the line on standard error, then the JSON summary of the finished file (--resume)."""
    ((command, shown),) = blocks("output")
    stdout, stderr = run(command, checkout, monkeypatch)
    assert [line.rstrip() for line in stdout.splitlines()] == shown.rstrip().splitlines()
    assert stderr.strip() == fenced(section("## A worked example"))[2].strip()
    ((command, shown),) = blocks("output-json")
    stdout, stderr = run(command, checkout, monkeypatch)
    assert json.loads(stdout) == json.loads(shown)
    assert "0 run, 24 reused" in stderr


BAD = """\
apiVersion: kubesched.io/v1alpha1
kind: Sweep
spec:
  inputs:
  - cluster.yaml
  - bench: {workload: Basic}
  profiles:
  - pluginArgs:
      NodeResourcesFit: {scoringStrategy.type: [MostAllocated, Most]}
  seeds: [0, 0]
"""
BAD_CLUSTER = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: web, resources: {requests: {cpu: 2x}}}]}
"""


def test_the_error_lines_are_what_kubesched_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ((command, shown),) = blocks("errors")
    (tmp_path / "bad.yaml").write_text(BAD)
    (tmp_path / "cluster.yaml").write_text(BAD_CLUSTER)
    _, stderr = run(command, tmp_path, monkeypatch, status=1)
    assert stderr.splitlines() == shown.strip().splitlines()


def test_the_plugin_args_example_gives_the_labels_shown(tmp_path: Path) -> None:
    example, labels = fenced(section("### Profiles"))[:2]
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "kubesched.io/v1alpha1", "kind": "Sweep",
                                    "spec": {"inputs": [{"bench": {"workload": "SchedulingBasic"}}],
                                             "profiles": yaml.safe_load(example)}}, sort_keys=False))
    (entry,) = load_sweep(path).profiles
    assert [v.label for v in variants(entry)] == labels.split()


def _options(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def test_every_flag_of_the_dask_and_sweep_lines_exists() -> None:
    """The Dask CLI's (scheduler and worker) and kubesched sweep's own parse the flags the page gives them."""
    from distributed.cli import dask_scheduler, dask_worker

    commands = {"dask scheduler": dask_scheduler.main, "dask worker": dask_worker.main}
    checked = 0
    for block in fenced(section("## On a Dask cluster")):
        for line in block.splitlines():
            words = shlex.split(line.split(" &")[0], comments=True)
            if words[:2] == ["kubesched", "sweep"]:
                sweep.make_context("sweep", words[2:])
                checked += 1
            elif " ".join(words[:2]) in commands:
                flags = {w.split("=")[0] for w in words[2:] if w.startswith("--")}
                assert flags <= _options(commands[" ".join(words[:2])]), line
                checked += 1
    assert checked == 8

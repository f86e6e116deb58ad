"""docs/scenarios.md works as written: its files, run with its commands, print what the page shows, and its error
examples are what kubesched reports; the README's day scenario output too."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import REPO

DOC = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(text: str, marker: str) -> list[tuple[str, str]]:
    """(argument, body) of each fenced block right under a ``<!-- marker: argument -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, text, flags=re.M | re.S)]


def invoke(command: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run ``[VAR=value ...] kubesched ARGS`` in ``cwd`` in-process; its standard output."""
    words = shlex.split(command)
    env = {}
    while "=" in words[0]:
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    assert words[0] == "kubesched"
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, words[1:], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The page's files, written out."""
    for name, body in blocks(DOC, "file"):
        (tmp_path / name).write_text(body, encoding="utf-8")
    return tmp_path


def test_page_has_its_example() -> None:
    """The page holds the worked example's two files and two outputs."""
    assert [name for name, _ in blocks(DOC, "file")] == ["nodes.yaml", "drain.yaml"]
    assert len(blocks(DOC, "output")) == 1
    assert len(blocks(DOC, "output-json-scenario")) == 1


def test_worked_example_prints_the_table_shown(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The drain example's table output is the page's, character for character."""
    ((command, shown),) = blocks(DOC, "output")
    assert normalise(invoke(command, example, monkeypatch)) == normalise(shown)


def test_worked_example_json_scenario_key(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON output's scenario key is the one the page shows."""
    ((command, shown),) = blocks(DOC, "output-json-scenario")
    assert json.loads(invoke(command, example, monkeypatch))["scenario"] == json.loads(shown)


SCENARIO = """\
apiVersion: kubesched.io/v1alpha1
kind: Scenario
spec:
  steps:
  - create:
      objects:
      - {kind: Node, metadata: {name: worker-a}}
      - {kind: Deployment, apiVersion: apps/v1, metadata: {name: web}, spec: {selector: {matchLabels: {app: w}},
         template: {metadata: {labels: {app: w}}, spec: {containers: [{name: c, resources: {requests: {cpu: CPU}}}]}}}}
  - {at: 1h, patch-node: {name: worker-a, unschedulable: true}}
  - {at: 2h, delete-node: {name: worker-a}}
  - {at: 2h, drain-node: {name: worker-a}}
  - {at: 2h, delete: {kind: Deployment, name: web}}
  - {at: AT, run-until: 4h}
"""


@pytest.mark.parametrize(("number", "cpu", "at"), [(0, "2x", "1h"), (1, "1", "3h")])
def test_validation_examples_are_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int, cpu: str,
                                      at: str) -> None:
    """The error lines the page shows come out of a scenario with those mistakes, all in one run."""
    shown = re.search(r"### Validation(.*?)## Workload", DOC, flags=re.S)
    assert shown is not None
    expected = re.findall(r"```text\n(.*?)```", shown.group(1), flags=re.S)[number]
    (tmp_path / "day.yaml").write_text(SCENARIO.replace("CPU", cpu).replace("AT", at), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["simulate", "day.yaml"], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == expected.strip().splitlines()


def piped(command: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run ``kubesched ... [| grep -E PATTERN] [| tail -n N]`` from the repository root, the pipes in Python."""
    first, *pipes = command.split(" | ")
    lines = invoke(first, REPO, monkeypatch).rstrip().splitlines()
    for pipe in pipes:
        words = shlex.split(pipe)
        if words[:2] == ["grep", "-E"]:
            lines = [line for line in lines if re.search(words[2], line)]
        else:
            assert words[:2] == ["tail", "-n"], pipe
            lines = lines[-int(words[2]):]
    return "\n".join(lines)


def test_readme_day_scenario_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's day-scenario commands print the lines the README shows."""
    shown_blocks = blocks(README, "scenario-output")
    assert len(shown_blocks) == 2
    for command, shown in shown_blocks:
        assert normalise(piped(command, monkeypatch)) == normalise(shown)

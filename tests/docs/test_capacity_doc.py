"""docs/capacity.md works as written: its files, run with its commands, print what the page shows."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import REPO

DOC = (REPO / "docs" / "capacity.md").read_text(encoding="utf-8")


def blocks(marker: str) -> list[tuple[str, str]]:
    """(argument, body) of each fenced block right under a ``<!-- marker: argument -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```[\w-]*\n(.*?)^```[ \t]*$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


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
    """Trailing spaces dropped (the page has none), and the final newline."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The page's files, written out."""
    for name, body in blocks("file"):
        (tmp_path / name).write_text(body, encoding="utf-8")
    return tmp_path


def test_the_page_has_its_examples() -> None:
    """Five files, four table outputs and one JSON answer."""
    assert [name for name, _ in blocks("file")] == ["cluster.yaml", "pod.yaml", "batch.yaml", "web.yaml",
                                                    "worker.yaml"]
    assert len(blocks("output")) == 4
    assert len(blocks("output-json")) == 1


@pytest.mark.parametrize(("command", "shown"), blocks("output"), ids=[c for c, _ in blocks("output")])
def test_each_table_is_what_the_command_prints(example: Path, monkeypatch: pytest.MonkeyPatch, command: str,
                                               shown: str) -> None:
    """The page's tables, character for character."""
    assert normalise(invoke(command, example, monkeypatch)) == normalise(shown)


def test_the_json_answer_is_what_the_command_prints(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's JSON document, value for value."""
    ((command, shown),) = blocks("output-json")
    assert json.loads(invoke(command, example, monkeypatch)) == json.loads(shown)


def test_the_first_example_is_cluster_capacitys_published_answer(example: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """cluster-capacity's README: 52 instances of its example pod, 13 on each of its four nodes."""
    document = json.loads(invoke("kubesched capacity pod.yaml cluster.yaml -o json", example, monkeypatch))
    assert (document["copies"], [n["copies"] for n in document["nodes"]]) == (52, [13, 13, 13, 13])

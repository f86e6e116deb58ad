"""docs/report.md works as written: its commands run from a copy of the repository's layout, print what the page
shows, and write the files it names; its markdown beginning and its error lines are the real output."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import REPO
from tests.report.conftest import write_sweep

DOC = (REPO / "docs" / "report.md").read_text(encoding="utf-8")


def blocks(marker: str) -> list[tuple[str, str]]:
    """(argument, body) of each fenced block right under a ``<!-- marker[: argument] -->`` line."""
    pattern = rf"^<!-- {marker}(?:: (.+?))? -->\n```\w*\n(.*?)^```$"
    return [(m.group(1) or "", m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


def run(line: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """``kubesched ARGS [> FILE]`` in ``folder``, in-process; its standard output (unless redirected) and error."""
    words = shlex.split(line)
    target = None
    if ">" in words:
        target = words[words.index(">") + 1]
        words = words[:words.index(">")]
    assert words[0] == "kubesched"
    monkeypatch.chdir(folder)
    outcome = CliRunner().invoke(main, words[1:], catch_exceptions=False)
    assert outcome.exit_code == 0, outcome.output
    if target is None:
        return outcome.stdout, outcome.stderr
    (folder / target).write_text(outcome.stdout, encoding="utf-8")
    return "", outcome.stderr


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The page's commands run in a folder holding the examples; the folder and what they wrote on stderr."""
    (tmp_path / "examples").symlink_to(REPO / "examples")
    ((_, commands),) = blocks("report-commands")
    said = "".join(run(line, tmp_path, monkeypatch)[1] for line in commands.splitlines())
    return tmp_path, said


def test_the_page_has_its_examples() -> None:
    """Three commands, what they say, and the markdown's beginning."""
    assert len(blocks("report-commands")[0][1].splitlines()) == 3
    assert len(blocks("report-stderr")) == 1
    assert len(blocks("report-markdown")) == 1


@pytest.mark.slow
def test_the_commands_write_the_files_and_say_what_the_page_shows(example: tuple[Path, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder, said = example
    ((_, shown),) = blocks("report-stderr")
    assert said == shown
    for name in ("preemption.json", "comparison.json", "comparison.html", "report.html"):
        assert (folder / name).stat().st_size > 0
    ((arguments, beginning),) = blocks("report-markdown")
    stdout, _ = run(f"kubesched {arguments}", folder, monkeypatch)
    assert stdout.startswith(beginning)


def test_the_error_lines_are_what_kubesched_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's errors come out of files with those problems."""
    (tmp_path / "old.json").write_text(
        '{"kind": "SimulationResult", "nodes": [{"name": "n1", "allocatable": {"cpu": "2x"}}], '
        '"analysis": {"series": {"time": [0, 1], "values": {"pods.pending": [1]}}}}', encoding="utf-8")
    (tmp_path / "notes.yaml").write_text("kind: Pod\n", encoding="utf-8")
    write_sweep(tmp_path / "cells.parquet", [{"input": "a", "seed": 0}])
    monkeypatch.chdir(tmp_path)
    outcome = CliRunner().invoke(main, ["report", "old.json", "notes.yaml", "cells.parquet"])
    assert outcome.exit_code == 1
    shown = re.search(r"## Errors\n.*?```text\n(.*?)```", DOC, flags=re.S)
    assert shown is not None
    assert outcome.stderr == shown.group(1)
    assert not (tmp_path / "report.html").exists()

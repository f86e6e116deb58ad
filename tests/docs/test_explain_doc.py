"""docs/explain.md shows what the commands print: its tables and its JSON block are the real output."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import REPO, RunCli

DOC = (REPO / "docs" / "explain.md").read_text(encoding="utf-8")


def blocks(marker: str) -> list[tuple[str, str]]:
    """(command arguments, body) of each fenced block right under a ``<!-- marker: arguments -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```\w*\n(.*?)^```$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


def explain_part(stdout: str) -> str:
    """The explain tables (from the first "Explain" line), trailing spaces removed as the page has them."""
    lines = [line.rstrip() for line in stdout.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("Explain "))
    return "\n".join(lines[start:]) + "\n"


def test_the_page_has_its_examples() -> None:
    """Three table outputs and one JSON block are checked below."""
    assert len(blocks("explain-output")) == 3
    assert len(blocks("explain-json")) == 1


@pytest.mark.parametrize(("arguments", "expected"), blocks("explain-output"))
def test_table_output_is_current(run_cli: RunCli, arguments: str, expected: str) -> None:
    """The page's explain tables are what the command prints at 110 columns."""
    done = run_cli(*shlex.split(arguments), env={"COLUMNS": "110"})
    assert done.returncode == 0, done.stderr
    assert explain_part(done.stdout) == expected


@pytest.mark.parametrize(("arguments", "expected"), blocks("explain-json"))
def test_json_block_is_current(run_cli: RunCli, arguments: str, expected: str) -> None:
    """The page's JSON block is the command's ``explain`` key, value for value."""
    done = run_cli(*shlex.split(arguments))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["explain"] == json.loads(expected)

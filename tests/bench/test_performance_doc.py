"""docs/performance.md documents every workload of ``kubesched bench`` and the command reproducing its figure."""

from __future__ import annotations

import re
import shlex

import pytest

from kubesched.bench import WORKLOADS
from tests.conftest import REPO

DOC = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")


def figure_rows() -> list[tuple[str, str]]:
    """(workload, command) of each row of the figures table (the rows whose second cell is a bench command)."""
    rows = []
    for line in DOC.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        command = re.fullmatch(r"`(kubesched bench [^`]+)`", cells[1]) if len(cells) > 1 else None
        name = re.match(r"`(\w+)`", cells[0])
        if command and name:
            rows.append((name.group(1), command.group(1)))
    return rows


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_workload_is_described(name: str) -> None:
    """The workloads table has a row for each workload."""
    assert re.search(rf"^\| `{name}` \|", DOC, re.MULTILINE)


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_every_workload_has_a_figure_and_its_command(name: str) -> None:
    """The figures table has a row for each workload whose command benchmarks that workload."""
    commands = [command for row, command in figure_rows() if row == name]
    assert commands, f"no figure row for {name}"
    assert all(shlex.split(command)[2] == name for command in commands)

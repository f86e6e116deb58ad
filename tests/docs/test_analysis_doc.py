"""docs/analysis.md shows what the command prints: its JSON blocks are the real ``analysis`` key and series."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import REPO, RunCli

DOC = (REPO / "docs" / "analysis.md").read_text(encoding="utf-8")


def blocks(marker: str) -> list[tuple[str, str]]:
    """(command arguments, body) of each fenced block right under a ``<!-- marker: arguments -->`` line."""
    pattern = rf"^<!-- {marker}: (.+?) -->\n```\w*\n(.*?)^```$"
    return [(m.group(1), m.group(2)) for m in re.finditer(pattern, DOC, flags=re.M | re.S)]


def test_the_page_has_its_examples() -> None:
    """One metrics block and one series block are checked below."""
    assert len(blocks("analysis-json")) == 1
    assert len(blocks("analysis-series")) == 1


@pytest.mark.parametrize(("arguments", "expected"), blocks("analysis-json"))
def test_metrics_block_is_current(run_cli: RunCli, arguments: str, expected: str) -> None:
    """The page's metrics are the command's ``analysis`` key without its series, value for value."""
    done = run_cli(*shlex.split(arguments))
    assert done.returncode == 0, done.stderr
    analysis = json.loads(done.stdout)["analysis"]
    del analysis["series"]
    assert analysis == json.loads(expected)


@pytest.mark.parametrize(("arguments", "expected"), blocks("analysis-series"))
def test_series_block_is_current(run_cli: RunCli, arguments: str, expected: str) -> None:
    """The page's series columns are the command's, and the page counts its columns right."""
    done = run_cli(*shlex.split(arguments))
    assert done.returncode == 0, done.stderr
    series = json.loads(done.stdout)["analysis"]["series"]
    shown = json.loads(expected)
    assert series["time"] == shown["time"]
    assert {name: series["values"][name] for name in shown["values"]} == shown["values"]
    assert f"of the {len(series['values'])} columns" in DOC


def test_the_compare_example_is_current(run_cli: RunCli) -> None:
    """The page's compare tables are what the command prints at 110 columns."""
    [(arguments, expected)] = blocks("compare-output")
    done = run_cli(*shlex.split(arguments), env={"COLUMNS": "110"})
    assert done.returncode == 0, done.stderr
    assert "\n".join(line.rstrip() for line in done.stdout.splitlines()) + "\n" == expected


def test_the_compare_json_excerpt_is_current(run_cli: RunCli) -> None:
    """The figures and the first placement the page's Comparison excerpt shows are the command's."""
    done = run_cli("compare", "default", "bin-packing", "-o", "json", "--", "examples/compare/cluster.yaml")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    excerpt = re.search(r'^\{"kind": "Comparison".*?^```', DOC, flags=re.M | re.S)
    assert excerpt is not None
    for name in ("pods.bound", "resources.cpu.nodes.max"):
        assert f'"{name}": {json.dumps(document["metrics"][name])}' in excerpt.group(0)
        assert f'"{name}": {json.dumps(document["differences"][name])}' in excerpt.group(0)
    first = document["placements"][0]
    assert f'"pod": "{first["pod"]}"' in excerpt.group(0)
    assert f'"nodes": {json.dumps(first["nodes"])}' in excerpt.group(0)

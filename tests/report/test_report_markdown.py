"""The markdown report, for pasting in a pull request: GitHub-flavoured tables (numbers right-aligned), long tables
folded, the plots named instead of drawn, and no plotting library needed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kubesched.errors import KubeschedError
from kubesched.report import Report, Section, Table, Text, build_report, read_results, render_html, render_markdown
from tests.report.conftest import kubesched_stdout

# Two equal nodes, n1 already half full: LeastAllocated (default) puts web on n2, MostAllocated (bin-packing) on n1.
CLUSTER = """
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
kind: Pod
metadata: {name: running}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
---
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
"""


def markdown(*paths: Path) -> str:
    return render_markdown(build_report(read_results([str(p) for p in paths])))


def test_a_table_is_a_gfm_table_with_numbers_right_aligned(results: dict[str, Path]) -> None:
    text = markdown(results["preemption.json"])
    assert "**Run metrics**\n\n| METRIC | VALUE |\n| --- | ---: |\n| pods.bound | 6 |\n| pods.pending | 1 |\n" in text


def test_a_long_table_is_folded(results: dict[str, Path]) -> None:
    text = markdown(results["preemption.json"])
    assert "<details><summary>Every figure (64)</summary>\n\n| METRIC | VALUE |\n| --- | ---: |\n" in text


def test_the_plots_are_named_where_they_stand(results: dict[str, Path]) -> None:
    text = markdown(results["preemption.json"])
    assert ("_Plots in the HTML report: Allocation over time; Pending pods over time; Allocation per node; "
            "Preemptions over time._") in text


def test_a_comparison_shows_the_differences_and_the_pods_placed_differently(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(CLUSTER, encoding="utf-8")
    result = tmp_path / "comparison.json"
    result.write_text(kubesched_stdout("compare", "default", "bin-packing", "-o", "json", "--", str(cluster)))
    text = markdown(result)
    assert "| METRIC | default | bin-packing | Δ bin-packing |\n| --- | ---: | ---: | ---: |\n" in text
    assert "| resources.cpu.nodes.max | 0.5 | 0.75 | +0.25 |" in text
    assert ("**Pods placed differently (1)**\n\n| POD | CHANGE | default | bin-packing |\n| --- | --- | --- | --- |\n"
            "| default/web | moved | n2 | n1 |\n") in text


def test_a_sweep_has_its_summary_tables(results: dict[str, Path]) -> None:
    text = markdown(results["sweep.parquet"])
    assert "**Mean by profile**\n\n| profile | CELLS | pods.bound |" in text
    assert "| default | 4 | 4.5 |" in text


@pytest.mark.parametrize(("cell", "shown"), [
    pytest.param("a|b", "a\\|b", id="pipe"),
    pytest.param("<b>", "\\<b\\>", id="html"),
    pytest.param("x\ny", "x y", id="newline"),
    pytest.param("", " ", id="empty"),
])
def test_cells_are_escaped(cell: str, shown: str) -> None:
    """A cell stays one cell on one line, shown as it is."""
    text = render_markdown(Report("r", (Section("s", (Table("t", ("H",), ((cell,),)),)),)))
    assert text.endswith(f"| H |\n| --- |\n| {shown} |\n")


def test_markdown_needs_no_plotting_library(results: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without plotly, markdown is written; HTML says how to install it."""
    for name in [m for m in sys.modules if m == "plotly" or m.startswith("plotly.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "plotly", None)
    report = build_report(read_results([str(results["preemption.json"])]))
    assert render_markdown(report).startswith("# kubesched report\n")
    with pytest.raises(KubeschedError, match=r"pip install 'kubesched\[report\]'"):
        render_html(report)


def test_text_blocks_are_paragraphs() -> None:
    text = render_markdown(Report("r", (Section("s", (Text("one *two*"),)),)))
    assert text == "# r\n\n## s\n\none \\*two\\*\n"

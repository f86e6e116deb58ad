"""What a report holds for each kind of result: the sections, tables and plots that kubesched report makes of a
simulation, a comparison, a sweep and several simulations together."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.report import Report, Table, Text, build_report, read_results
from tests.conftest import EXAMPLES
from tests.report.conftest import kubesched_stdout


def report_of(results: dict[str, Path], *names: str) -> Report:
    return build_report(read_results([str(results[name]) for name in names]))


def table_named(report: Report, title: str) -> Table:
    return next(t for t in report.tables() if t.title == title)


@pytest.mark.parametrize(("names", "sections", "plots"), [
    pytest.param(("preemption.json",), ["Simulation", "Explain default/critical"],
                 ["Allocation over time", "Pending pods over time", "Allocation per node", "Preemptions over time"],
                 id="simulation"),
    pytest.param(("comparison.json",), ["Comparison"],
                 ["Allocation over time (cpu)", "Allocation over time (memory)", "Allocation over time (pods)",
                  "Pending pods over time", "Preemptions over time"], id="comparison"),
    pytest.param(("sweep.parquet",), ["Sweep"],
                 ["Distribution by input", "Distribution by profile", "Distribution by seed"], id="sweep"),
])
def test_each_kind_of_result_has_its_sections_and_plots(results: dict[str, Path], names: tuple[str, ...],
                                                        sections: list[str], plots: list[str]) -> None:
    """One result: its sections (unnamed: there is one file) and its plots, in page order."""
    report = report_of(results, *names)
    assert [s.title for s in report.sections] == sections
    assert [p.title for p in report.plots()] == plots


def test_several_results_are_sections_one_after_another_named_by_file(results: dict[str, Path]) -> None:
    """Each section names its file; the two simulations are overlaid first, where the first of them stands."""
    report = report_of(results, "comparison.json", "preemption.json", "explain.json", "sweep.parquet")
    preemption, explain = results["preemption.json"], results["explain.json"]
    assert [s.title for s in report.sections if s.level == 2] == [
        f"Comparison: {results['comparison.json']}", "Simulations overlaid", f"Simulation: {preemption}",
        f"Simulation: {explain}", f"Sweep: {results['sweep.parquet']}"]


def test_overlaid_simulations_are_side_by_side_like_profiles(results: dict[str, Path]) -> None:
    """The overlay's metrics table has a column per file and the differences against the first; its plots draw
    every run on the same axes, one plot per resource."""
    report = report_of(results, "preemption.json", "explain.json")
    overlay = report.sections[0]
    metrics = next(b for b in overlay.blocks if isinstance(b, Table))
    first, second = str(results["preemption.json"]), str(results["explain.json"])
    assert metrics.header == ("METRIC", first, second, f"Δ {second}")
    assert metrics.rows[0] == ("pods.bound", "6", "2", "-4")
    allocation = next(p for p in report.plots() if p.title == "Allocation over time (cpu)").build()
    assert [trace.name for trace in allocation.data] == [first, second]


def test_a_simulation_shows_its_headline_metrics_and_every_figure(results: dict[str, Path]) -> None:
    """The headline table holds compare's figures in compare's order; every figure is in a folded table."""
    report = report_of(results, "preemption.json")
    headline = table_named(report, "Run metrics")
    assert headline.rows[:3] == (("pods.bound", "6"), ("pods.pending", "1"), ("pods.preempted", "1"))
    assert ("resources.cpu.ratio", "1") in headline.rows
    every = table_named(report, "Every figure")
    assert every.folded
    assert ("preemptions.lostRunTime.total", "10") in every.rows
    assert len(every.rows) > len(headline.rows)


def test_a_simulation_lists_its_preemptions(results: dict[str, Path]) -> None:
    """Time, preemptor, node and victims of each preemption."""
    preemptions = table_named(report_of(results, "preemption.json"), "Preemptions")
    assert preemptions.rows == (("0", "default/critical", "node-c", "default/batch-big"),)


def test_a_comparison_lists_the_metrics_per_profile_and_the_pods_placed_differently(results: dict[str, Path]) -> None:
    """The profiles' columns, then the difference of each later one; the placements table, or a line saying every
    pod has the same outcome."""
    report = report_of(results, "comparison.json")
    assert table_named(report, "Run metrics").header == ("METRIC", "default", "bin-packing", "Δ bin-packing")
    texts = [b.text for b in report.sections[0].blocks if isinstance(b, Text)]
    assert "Every pod has the same outcome and node under every profile." in texts


def test_a_comparison_without_nodes_says_so_instead_of_the_bars(results: dict[str, Path]) -> None:
    """Compare's document holds no nodes per run: no per-node plot, and a line saying why."""
    texts = [b.text for b in report_of(results, "comparison.json").sections[0].blocks if isinstance(b, Text)]
    assert "No per-node allocation for default, bin-packing: the document has no nodes." in texts


def test_explained_pods_get_the_explain_matrix(results: dict[str, Path]) -> None:
    """Per attempt: its line, the Filter matrix (nodes by plugin, ``-`` where a plugin did not run) and the Score
    table, as the terminal's explain tables show them."""
    report = report_of(results, "explain.json")
    explain_p = next(s for s in report.sections if s.title == "Explain default/p")
    blocks = explain_p.blocks
    assert blocks[0] == Text("Attempt 1 at 0 s (profile default-scheduler): selected n2")
    matrix, scores = blocks[1], blocks[2]
    assert isinstance(matrix, Table)
    assert isinstance(scores, Table)
    assert matrix.header == ("NODE", "NodeUnschedulable", "NodeName", "TaintToleration", "NodeResourcesFit")
    assert matrix.rows == (("n2", "passed", "passed", "passed", "passed"),
                           ("n3", "passed", "passed", "passed", "passed"),
                           ("n1", "passed", "passed", "node(s) had untolerated taint {dedicated: gpu}", "-"))
    assert scores.header == ("NODE", "TaintToleration", "NodeResourcesFit", "NodeResourcesBalancedAllocation",
                             "ImageLocality", "TOTAL")
    assert scores.rows == (("n2", "0/100/300", "75/75/75", "100/100/100", "0/0/0", "475"),
                           ("n3", "0/100/300", "43/43/43", "81/81/81", "0/0/0", "424"))


def test_an_unschedulable_attempt_shows_the_fit_error_and_postfilter(results: dict[str, Path]) -> None:
    """The FitError line and what PostFilter did follow the matrix."""
    report = report_of(results, "explain.json")
    texts = [b.text for b in next(s for s in report.sections if s.title == "Explain default/big").blocks
             if isinstance(b, Text)]
    assert texts[0] == "Attempt 1 at 0 s (profile default-scheduler): unschedulable"
    assert texts[1].startswith("FitError: 0/3 nodes are available: 1 node(s) had untolerated taint")
    assert texts[2].startswith("PostFilter DefaultPreemption: Unschedulable: preemption: 0/3 nodes are available")


def test_a_preemptors_attempts_show_the_candidates_and_the_nodes_not_tried(results: dict[str, Path]) -> None:
    """The candidates table says which one was chosen and why each other lost; the second attempt counts the
    nodes not tried."""
    section = next(s for s in report_of(results, "preemption.json").sections
                   if s.title == "Explain default/critical")
    candidates = next(b for b in section.blocks if isinstance(b, Table) and b.title == "Preemption candidates")
    assert candidates.rows[0] == ("node-c", "default/batch-big", "0", "chosen")
    assert candidates.rows[2][3] == "lost: more PDB violations (1 against 0)"
    last_filter = [b for b in section.blocks if isinstance(b, Table) and b.title == "Filter"][-1]
    assert last_filter.rows[-1][:2] == ("2 node(s)", "not tried: the pod's nominated node fits")


def test_a_result_without_analysis_says_it_has_no_metrics(tmp_path: Path) -> None:
    """A result an older kubesched wrote (no analysis key) still reports its nodes, and says what is missing."""
    path = tmp_path / "old.json"
    path.write_text('{"kind": "SimulationResult", "seed": 0, "pods": [], "preemptions": [], '
                    '"nodes": [{"name": "n1", "allocatable": {"cpu": "4"}, "requested": {"cpu": "1"}}]}')
    report = build_report(read_results([str(path)]))
    texts = [b.text for b in report.sections[0].blocks if isinstance(b, Text)]
    assert any("no analysis key" in text for text in texts)
    assert [p.title for p in report.plots()] == ["Allocation per node"]


def test_a_yaml_result_reads_as_its_json(tmp_path: Path, results: dict[str, Path]) -> None:
    """simulate -o yaml and -o json of the same run make the same report."""
    path = tmp_path / "preemption.yaml"
    path.write_text(kubesched_stdout("simulate", str(EXAMPLES / "preemption"), "--explain", "critical", "-o", "yaml"))
    assert report_of({"yaml": path}, "yaml") == report_of(results, "preemption.json")

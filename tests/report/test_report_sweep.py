"""A sweep's Parquet results: which columns are parameters and which metrics, which parameters are plotted, and
the figures over cells and per parameter value (failed cells left out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.report import Table, Text, build_report, read_results
from kubesched.report.sweep import SweepDocument, read_sweep
from kubesched.sweep.columns import ARGS_PREFIX, PARAMETER_COLUMNS
from tests.report.conftest import SWEEP_METRICS, sweep_rows, write_sweep


def sweep(path: Path) -> SweepDocument:
    (document,) = read_results([str(path)])
    assert isinstance(document, SweepDocument)
    return document


def tables(path: Path) -> dict[str, Table]:
    report = build_report(read_results([str(path)]))
    return {t.title: t for t in report.tables()}


def test_dotted_numeric_columns_are_metrics_and_the_rest_parameters(results: dict[str, Path]) -> None:
    """A plugin arg column is dotted but text: a parameter."""
    document = sweep(results["sweep.parquet"])
    assert document.metrics == SWEEP_METRICS
    assert "args.NodeResourcesFit.scoringStrategy.type" in document.parameters
    assert "seed" in document.parameters


def test_the_plotted_parameters_vary_and_group_the_cells_differently(results: dict[str, Path]) -> None:
    """Bookkeeping (cell, digests, run seed, version), constant parameters and a column grouping the cells as an
    earlier one (the varied arg, as its profile does) are not plotted."""
    assert sweep(results["sweep.parquet"]).varied() == ["input", "profile", "seed"]


def test_the_summary_counts_the_cells_and_names_what_is_constant(results: dict[str, Path]) -> None:
    report = build_report(read_results([str(results["sweep.parquet"])]))
    summary = report.sections[0].blocks[0]
    assert summary == Text("8 cell(s), 6 metric column(s); 1 cell(s) failed (their error column set) and are left "
                           "out of the figures. Varied: input, profile, seed. The same in every cell: inputKind = "
                           "manifests, repetition = 0.")


def test_figures_over_all_cells_leave_failed_cells_out(results: dict[str, Path]) -> None:
    """pods.bound is 2 + the cell's number: 2 to 8 without cell 7, which failed (with it: median 5.5, max 9)."""
    overall = tables(results["sweep.parquet"])["Figures over all cells"]
    assert overall.header == ("METRIC", "CELLS", "MIN", "MEDIAN", "MEAN", "MAX")
    assert ("pods.bound", "7", "2", "5", "5", "8") in overall.rows


def test_the_mean_by_parameter_value_per_headline_figure(results: dict[str, Path]) -> None:
    """Per value of the parameter: its cells and each headline figure's mean."""
    by_profile = tables(results["sweep.parquet"])["Mean by profile"]
    assert by_profile.header[:3] == ("profile", "CELLS", "pods.bound")
    assert [row[:3] for row in by_profile.rows] == [("default", "4", "4.5"),
                                                    ("packing[type=MostAllocated]", "3", "5.667")]


@pytest.mark.parametrize(("values", "order"), [
    pytest.param(["10", "9", "100"], ["9", "10", "100"], id="numbers-by-value"),
    pytest.param(["b", "a", "1"], ["1", "a", "b"], id="numbers-then-text"),
])
def test_parameter_values_are_in_reading_order(tmp_path: Path, values: list[str], order: list[str]) -> None:
    rows = sweep_rows(failed=())[:3]
    for row, value in zip(rows, values, strict=True):
        row["input"] = value
    path = write_sweep(tmp_path / "s.parquet", rows)
    assert [row[0] for row in tables(path)["Mean by input"].rows] == order


def test_each_distribution_plot_has_a_box_per_headline_figure(results: dict[str, Path]) -> None:
    """One box trace per figure, each cell one point at its parameter value."""
    report = build_report(read_results([str(results["sweep.parquet"])]))
    plot = next(p for p in report.plots() if p.title == "Distribution by profile")
    figure = plot.build()
    assert [t.name for t in figure.data] == ["pods.bound", "pods.pending", "resources.cpu.ratio",
                                             "resources.memory.ratio", "pendingTime.p95", "fragmentation.copies"]
    bound = figure.data[0]
    assert bound.boxpoints == "all"
    assert sorted(zip(bound.x, bound.y, strict=True)) == [
        ("default", 2.0), ("default", 3.0), ("default", 6.0), ("default", 7.0),
        ("packing[type=MostAllocated]", 4.0), ("packing[type=MostAllocated]", 5.0),
        ("packing[type=MostAllocated]", 8.0)]


def test_a_real_sweeps_metrics_are_not_taken_for_parameters(tmp_path: Path) -> None:
    """On kubesched sweep's own file, attempts and endTime (numbers without a dot) are metrics, and the
    parameters are the sweep's parameter columns and its varied plugin args."""
    parquet = tmp_path / "packing.parquet"
    outcome = CliRunner().invoke(main, ["sweep", "examples/sweep/packing.yaml", "--jobs", "1", "-q",
                                        "--parquet", str(parquet)])
    assert outcome.exit_code == 0, outcome.output
    sweep, problems = read_sweep(parquet, str(parquet))
    assert not problems
    assert sweep is not None
    assert {"attempts", "endTime"} <= set(sweep.metrics)
    assert all(p in PARAMETER_COLUMNS or p.startswith(ARGS_PREFIX) for p in sweep.parameters)

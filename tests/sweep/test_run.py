"""Specification of a sweep's run: one row per cell in matrix order whatever order the cells finish in, the same
row for the same cell, and a sweep stopped part way resuming to the file an uninterrupted run writes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

from kubesched.errors import KubeschedError
from kubesched.runtime import PluginRegistry
from kubesched.sweep.cell import run_cell
from kubesched.sweep.executors import Done, run_local
from kubesched.sweep.matrix import Cell, Plan, plan
from kubesched.sweep.run import Execute, run_sweep
from kubesched.sweep.store import ResultStore, read_rows
from tests.sweep.helpers import TINY, sweep_folder


class StoppedError(Exception):
    """Stands for the sweep's process being stopped."""


def in_process(cells: Sequence[Cell], done: Done) -> None:
    run_local(cells, 1, done)


def backwards(cells: Sequence[Cell], done: Done) -> None:
    """Cells finishing in the reverse of the matrix's order."""
    run_local(list(reversed(cells)), 1, done)


def stopping_after(count: int) -> tuple[list[int], Execute]:
    """An executor that stops the sweep once ``count`` cells finished; the indexes of those that did."""
    ran: list[int] = []

    def execute(cells: Sequence[Cell], done: Done) -> None:
        for cell in cells:
            if len(ran) == count:
                raise StoppedError
            done(cell, run_cell(cell))
            ran.append(cell.index)

    return ran, execute


@pytest.fixture
def small(tmp_path: Path, registry: PluginRegistry) -> Plan:
    return plan(sweep_folder(tmp_path / "in", TINY), registry)


def test_rows_are_in_matrix_order_whatever_order_cells_finish_in(small: Plan, tmp_path: Path) -> None:
    """The same cells finished in opposite orders write byte-identical files."""
    forwards = ResultStore(tmp_path / "a.parquet")
    run_sweep(small, forwards, in_process, resume=False)
    reverse = ResultStore(tmp_path / "b.parquet")
    run_sweep(small, reverse, backwards, resume=False)
    assert [r["cell"] for r in read_rows(forwards.path)] == list(range(12))
    assert forwards.path.read_bytes() == reverse.path.read_bytes()


def test_a_row_holds_the_cells_parameters_and_run_metrics(small: Plan, tmp_path: Path) -> None:
    """The MostAllocated cells of the two-node input put the pod on the busier node: its cpu spread is wider."""
    finished = run_sweep(small, ResultStore(tmp_path / "a.parquet"), in_process, resume=False)
    by_profile = {r["profile"].rpartition("=")[2]: r for r in finished.rows if r["input"] == "two-nodes"}
    assert by_profile["MostAllocated]"]["resources.cpu.nodes.cv"] > by_profile["LeastAllocated]"][
        "resources.cpu.nodes.cv"]
    assert by_profile["default"]["resources.cpu.nodes.cv"] == by_profile["LeastAllocated]"]["resources.cpu.nodes.cv"]
    row = finished.rows[0]
    assert (row["pods.bound"], row["pods.pending"], row["error"]) == (2.0, 0.0, None)
    assert (finished.ran, finished.reused) == (12, 0)


def test_a_stopped_sweep_resumes_to_the_file_an_uninterrupted_run_writes(small: Plan, tmp_path: Path) -> None:
    whole = ResultStore(tmp_path / "whole.parquet")
    run_sweep(small, whole, in_process, resume=False)
    store = ResultStore(tmp_path / "stopped.parquet")
    _, execute = stopping_after(5)
    with pytest.raises(StoppedError):
        run_sweep(small, store, execute, resume=False)
    assert (store.journalled(), store.path.exists()) == (5, False)
    resumed = run_sweep(small, store, backwards, resume=True)
    assert (resumed.reused, resumed.ran) == (5, 7)
    assert store.path.read_bytes() == whole.path.read_bytes()
    assert not store.journal.exists()


def test_resuming_a_finished_sweep_runs_nothing(small: Plan, tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "a.parquet")
    run_sweep(small, store, in_process, resume=False)
    before = store.path.read_bytes()
    again = run_sweep(small, store, in_process, resume=True)
    assert (again.ran, again.reused) == (0, 12)
    assert store.path.read_bytes() == before


def test_a_journal_is_not_thrown_away_without_resume(small: Plan, tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "stopped.parquet")
    _, execute = stopping_after(2)
    with pytest.raises(StoppedError):
        run_sweep(small, store, execute, resume=False)
    with pytest.raises(KubeschedError, match=r"stopped\.parquet\.cells holds 2 finished cell\(s\) of an interrupted "
                                             r"sweep: pass --resume to reuse them, or delete it to start afresh"):
        run_sweep(small, store, in_process, resume=False)


def test_a_cell_whose_input_changed_is_run_again_on_resume(tmp_path: Path, registry: PluginRegistry) -> None:
    """The key holds the input's digest: rows of other bytes are not reused."""
    sweep = sweep_folder(tmp_path / "in", TINY)
    store = ResultStore(tmp_path / "a.parquet")
    run_sweep(plan(sweep, registry), store, in_process, resume=False)
    cluster = tmp_path / "in" / "cluster.yaml"
    cluster.write_text(cluster.read_text().replace('cpu: "1"', 'cpu: "5"'))
    again = run_sweep(plan(sweep, registry), store, in_process, resume=True)
    assert (again.ran, again.reused) == (6, 6)
    assert all(r["pods.pending"] == 1.0 for r in again.rows if r["input"] == "two-nodes")


def test_a_cell_whose_input_no_longer_loads_gives_a_row_with_its_error(small: Plan) -> None:
    """The error column says why; a run that never started has no metrics."""
    cell = small.cells[0]
    broken = cell.input.paths[0] + ".gone"
    outcome = run_cell(attrs.evolve(cell, input=attrs.evolve(cell.input, paths=(broken,))))
    assert outcome.row["error"] == f"{broken}: no such file or directory"
    assert "pods.bound" not in outcome.row


def test_a_manifest_cells_metrics_are_those_simulate_reports_with_its_run_seed(small: Plan,
                                                                              registry: PluginRegistry) -> None:
    """``kubesched simulate PATH --profile P --seed RUNSEED`` reproduces a row: its analysis holds the same metrics."""
    from kubesched.io.load import load
    from kubesched.profiles import load_config
    from kubesched.sim.simulate import simulate

    cell = next(c for c in small.cells if c.repetition == 1 and c.profile.label == "default")
    row = run_cell(cell).row
    result = simulate(load(cell.input.paths), load_config("default", registry), registry, seed=row["runSeed"])
    assert result.analysis is not None
    assert {k: v for k, v in row.items() if k not in cell.parameters() and k != "error"} == {
        k: float(v) for k, v in result.analysis.metrics.flat().items()}

"""A sweep from its plan to its file: the finished cells of an interrupted run reused (``--resume``), the others
run by an executor, each journalled as it finishes, then the file written in matrix order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from kubesched.errors import KubeschedError
from kubesched.sweep.cell import CellOutcome
from kubesched.sweep.executors import Done
from kubesched.sweep.matrix import Cell, Plan
from kubesched.sweep.store import ResultStore

#: Runs cells, handing each finished one to its second argument (an executor of kubesched.sweep.executors).
Execute = Callable[[Sequence[Cell], Done], None]


class CellProgress(Protocol):
    """Where a sweep reports how far it got (a progress bar on a terminal)."""

    def started(self, total: int, finished: int) -> None:
        """The sweep has ``total`` cells, ``finished`` of them reused."""

    def advance(self) -> None:
        """One more cell finished."""


@attrs.frozen
class SweepRun:
    """A finished sweep: every row in matrix order, how many cells were reused and run, the runs' warnings."""

    rows: tuple[dict[str, Any], ...]
    reused: int
    ran: int
    warnings: tuple[str, ...]


def run_sweep(plan: Plan, store: ResultStore, execute: Execute, *, resume: bool,
              progress: CellProgress | None = None) -> SweepRun:
    """Run the plan's cells not already finished, journalling each, and write the file."""
    journalled = store.journalled()
    if journalled and not resume:
        raise KubeschedError(f"{store.journal} holds {journalled} finished cell(s) of an interrupted sweep: pass "
                             "--resume to reuse them, or delete it to start afresh")
    finished = store.finished() if resume else {}
    rows: dict[int, dict[str, Any]] = {}
    todo = []
    for cell in plan.cells:
        row = finished.get(cell.key)
        if row is None:
            todo.append(cell)
        else:
            rows[cell.index] = {**row, "cell": cell.index}
    if progress is not None:
        progress.started(len(plan.cells), len(rows))
    known = {(c.cell_input.label, w) for c in plan.inputs for w in c.warnings}
    warnings: dict[str, None] = {}
    store.start()

    def done(cell: Cell, outcome: CellOutcome) -> None:
        store.record(outcome.row)
        rows[cell.index] = outcome.row
        for warning in outcome.warnings:
            if (cell.input.label, warning) not in known:
                warnings.setdefault(f"input {cell.input.label!r}, profile {cell.profile.label!r}: {warning}")
        if progress is not None:
            progress.advance()

    execute(todo, done)
    ordered = tuple(rows[cell.index] for cell in plan.cells)
    store.finish(ordered)
    return SweepRun(ordered, len(plan.cells) - len(todo), len(todo), tuple(warnings))

"""The progress bar of ``kubesched simulate`` on standard error: pods scheduled, simulated time, pods per second."""

from __future__ import annotations

import sys
from functools import cache
from types import TracebackType
from typing import TYPE_CHECKING

from kubesched.backend import Clock

if TYPE_CHECKING:  # rich is imported when a bar is drawn: a run without one does not pay for it
    from rich.console import Console
    from rich.progress import ProgressColumn, TaskID


@cache
def _rate_column() -> type[ProgressColumn]:
    """The column of pods bound per second of wall-clock time (a class made once, when a bar is first drawn)."""
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Pods bound per second of wall-clock time."""

        def render(self, task: Task) -> Text:
            """The current rate, or nothing before there is one."""
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} pods/s")

    return RateColumn


class SimulationBar:
    """A rich progress bar for a simulation (a :class:`~kubesched.sim.simulate.SimulationProgress`); it goes away
    when the run ends. Draw it only on a terminal (see :func:`wants_progress`)."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self._progress = Progress(TextColumn("scheduling"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("t={task.fields[virtual]}"), _rate_column()(),
                                  console=console or Console(stderr=True), transient=True)
        self._task: TaskID | None = None
        self._clock: Clock | None = None
        self._total = 0
        self._done = 0

    def __enter__(self) -> SimulationBar:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._progress.stop()

    def started(self, pods: int, clock: Clock) -> None:
        """The run starts with ``pods`` pods to schedule on simulated time ``clock``; a run made again (to explain
        the pods pending at the end) starts the bar afresh."""
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._clock = clock
        self._total = pods
        self._done = 0
        self._task = self._progress.add_task("scheduling", total=pods, virtual=_virtual(clock.now()))

    def pod_bound(self) -> None:
        """One more pod was bound (pods created during the run raise the total)."""
        if self._task is None or self._clock is None:
            return
        self._done += 1
        self._total = max(self._total, self._done)
        self._progress.update(self._task, completed=self._done, total=self._total,
                              virtual=_virtual(self._clock.now()))


def _virtual(seconds: float) -> str:
    """Simulated seconds as the bar shows them."""
    return f"{seconds:,.1f}s"


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal."""
    return sys.stderr.isatty()


def wants_progress(stderr_is_terminal: bool, quiet: bool) -> bool:
    """Whether to draw the progress bar: only on a terminal, and not with ``--quiet``."""
    return stderr_is_terminal and not quiet

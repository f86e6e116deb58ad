"""Time series of the run metrics in virtual time: one sample at every instant a metric changed (exact, as a
step function), and resampling on a regular grid for plots."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

import attrs


@attrs.frozen
class Series:
    """Sample times (seconds of virtual time, increasing) and, per metric, its value from each time until the
    next: the metrics' step functions, exactly."""

    time: tuple[float, ...]
    values: Mapping[str, tuple[float, ...]]

    def at(self, name: str, when: float) -> float:
        """The value of metric ``name`` at ``when`` (that of the last sample at or before it; 0 before the first)."""
        index = bisect.bisect_right(self.time, when) - 1
        return self.values[name][index] if index >= 0 else 0.0

    def resample(self, step: float, end: float | None = None) -> Series:
        """The series on the grid 0, step, 2*step... up to ``end`` (default: the last sample), each grid point
        taking the value the step function has there."""
        if step <= 0:
            raise ValueError("the resampling step must be positive")
        last = self.time[-1] if end is None and self.time else (end or 0.0)
        grid = tuple(i * step for i in range(int(last // step) + 1))
        indexes = [bisect.bisect_right(self.time, t) - 1 for t in grid]
        return Series(grid, {name: tuple(column[i] if i >= 0 else 0.0 for i in indexes)
                             for name, column in self.values.items()})

    def to_json(self) -> dict[str, object]:
        """``{"time": [...], "values": {metric: [...]}}``: one column per metric, aligned with ``time``."""
        return {"time": list(self.time), "values": {name: list(column) for name, column in self.values.items()}}

    @classmethod
    def from_json(cls, document: Mapping[str, object]) -> Series:
        """The series a result file holds (as :meth:`to_json` wrote it)."""
        time = document.get("time", [])
        values = document.get("values", {})
        if not isinstance(time, list) or not isinstance(values, dict):
            raise ValueError("series: expected a list under time and a map of lists under values")
        return cls(tuple(float(t) for t in time), {str(k): tuple(float(v) for v in vs) for k, vs in values.items()})


class SeriesBuilder:
    """Collects one row of metric values per instant, keeping only rows where a value changed; several rows at one
    instant keep the last (the state once everything at that instant happened)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._time: list[float] = []
        self._rows: list[tuple[float, ...]] = []

    def sample(self, when: float, row: Sequence[float]) -> None:
        """The values (in :attr:`names` order) at ``when``, not earlier than the previous sample."""
        values = tuple(row)
        if self._time and self._time[-1] == when:
            self._rows[-1] = values
            if len(self._rows) > 1 and self._rows[-2] == values:
                self._time.pop()
                self._rows.pop()
            return
        if self._rows and self._rows[-1] == values:
            return
        self._time.append(when)
        self._rows.append(values)

    def build(self) -> Series:
        """The series collected so far."""
        columns = list(zip(*self._rows, strict=True)) if self._rows else [() for _ in self.names]
        return Series(tuple(self._time), dict(zip(self.names, (tuple(c) for c in columns), strict=True)))

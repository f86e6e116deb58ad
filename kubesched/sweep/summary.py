"""The summary of a sweep's rows: grouped by the parameters asked for (``--by``), each group's cell count and,
per headline metric, the mean and spread over its cells; as a table or a document (``-o json|yaml``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs

#: The metrics the summary shows unless ``--metric`` names others.
HEADLINE = ("pods.bound", "pods.pending", "preemptions.count", "resources.cpu.ratio", "resources.cpu.nodes.cv",
            "fragmentation.copies", "pendingTime.p95")


@attrs.frozen
class Figures:
    """One metric over a group's cells: how many have it, their mean, sample standard deviation (0 for one cell),
    minimum and maximum."""

    count: int
    mean: float
    std: float
    min: float
    max: float

    def to_json(self) -> dict[str, float | int]:
        """The metric's entry of a group."""
        return {"count": self.count, "mean": self.mean, "std": self.std, "min": self.min, "max": self.max}


def figures(values: Sequence[float]) -> Figures | None:
    """The figures of ``values``, None when there are none."""
    if not values:
        return None
    n = len(values)
    mean = math.fsum(values) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return Figures(n, mean, std, min(values), max(values))


@attrs.frozen
class Group:
    """The cells sharing the values of the ``--by`` parameters."""

    values: tuple[Any, ...]
    cells: int
    failed: int
    metrics: dict[str, Figures | None]


@attrs.frozen
class Summary:
    """The groups, in the order their first cell comes in the matrix."""

    by: tuple[str, ...]
    metrics: tuple[str, ...]
    groups: tuple[Group, ...]
    cells: int
    failed: int

    def to_json(self) -> dict[str, object]:
        """The ``SweepSummary`` document."""
        return {"kind": "SweepSummary", "by": list(self.by), "metrics": list(self.metrics), "cells": self.cells,
                "failed": self.failed,
                "groups": [{"values": dict(zip(self.by, g.values, strict=True)), "cells": g.cells, "failed": g.failed,
                            "metrics": {name: None if f is None else f.to_json() for name, f in g.metrics.items()}}
                           for g in self.groups]}

    def lines(self) -> list[str]:
        """The table: a line per group, the metrics as mean ± std."""
        header = [*self.by, "cells", *self.metrics]
        body = []
        for group in self.groups:
            cells = str(group.cells) + (f" ({group.failed} failed)" if group.failed else "")
            body.append([*(_text(v) for v in group.values), cells, *(_shown(group.metrics[m]) for m in self.metrics)])
        widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
        return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                for row in [header, *body]]


def _text(value: object) -> str:
    return "-" if value is None else str(value)


def _number(value: float) -> str:
    """Four significant digits, but every digit of a whole number or of one of 1000 or more (never 1.1e+04)."""
    if math.isfinite(value) and (value.is_integer() or abs(value) >= 1000):
        return f"{value:.0f}" if value.is_integer() else f"{value:.1f}"
    return f"{value:.4g}"


def _shown(found: Figures | None) -> str:
    if found is None:
        return "-"
    return _number(found.mean) if found.count == 1 or found.std == 0 else \
        f"{_number(found.mean)} ± {_number(found.std)}"


def summarise(rows: Sequence[dict[str, Any]], by: Sequence[str], metrics: Sequence[str]) -> Summary:
    """Group ``rows`` (in matrix order) by the ``by`` columns; each group's figures of ``metrics``."""
    grouped: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(tuple(row.get(name) for name in by), []).append(row)
    groups = []
    for values, members in grouped.items():
        found = {name: figures([r[name] for r in members if r.get(name) is not None]) for name in metrics}
        groups.append(Group(values, len(members), sum(1 for r in members if r.get("error") is not None), found))
    return Summary(tuple(by), tuple(metrics), tuple(groups), len(rows),
                   sum(1 for r in rows if r.get("error") is not None))

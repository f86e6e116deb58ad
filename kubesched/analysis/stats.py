"""Summary statistics of the run metrics, each defined once (docs/analysis.md gives the formulas)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs


def nearest_rank(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values: the value at rank ceil(fraction * n); 0 when empty.
    Exact (no interpolation), so an integer input gives one of its own values."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@attrs.frozen
class Spread:
    """How a quantity spreads over nodes: mean, max, 95th percentile (nearest rank), coefficient of variation
    (population standard deviation over mean) and Jain's fairness index ((sum x)^2 / (n * sum x^2))."""

    count: int
    mean: float
    max: float
    p95: float
    cv: float
    jain: float

    def to_json(self) -> dict[str, float | int]:
        """The spread as the JSON's ``nodes`` entry of a resource."""
        return {"count": self.count, "mean": self.mean, "max": self.max, "p95": self.p95, "cv": self.cv,
                "jain": self.jain}


def spread(values: Sequence[float]) -> Spread:
    """The spread of ``values``; with no values every figure is 0; with all values 0 the CV is 0 and Jain's index
    1 (perfectly even)."""
    n = len(values)
    if n == 0:
        return Spread(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    total = math.fsum(values)
    squares = math.fsum(v * v for v in values)
    mean = total / n
    variance = max(squares / n - mean * mean, 0.0)
    cv = math.sqrt(variance) / mean if mean else 0.0
    jain = min(total * total / (n * squares), 1.0) if squares else 1.0
    ordered = sorted(values)
    return Spread(n, mean, ordered[-1], nearest_rank(ordered, 0.95), cv, jain)


@attrs.frozen
class Percentiles:
    """A distribution of per-pod figures: how many, the median, the 95th percentile and the maximum."""

    count: int
    p50: float
    p95: float
    max: float

    def to_json(self) -> dict[str, float | int]:
        """The distribution as JSON."""
        return {"count": self.count, "p50": self.p50, "p95": self.p95, "max": self.max}


def percentiles(values: Sequence[float]) -> Percentiles:
    """Nearest-rank p50 and p95 and the maximum of ``values`` (all 0 when there are none)."""
    ordered = sorted(values)
    return Percentiles(len(ordered), nearest_rank(ordered, 0.5), nearest_rank(ordered, 0.95),
                       ordered[-1] if ordered else 0.0)

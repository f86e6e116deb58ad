"""The scheduler's metrics as plain counters, gauges and histograms: cheap to update on the scheduling path, and
read out by the exporters (JSON, Prometheus text) only when asked."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence

import attrs

#: A label set, as (name, value) pairs in the metric's label order.
LabelValues = tuple[str, ...]


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """Prometheus' ExponentialBuckets: ``count`` upper bounds from ``start``, each ``factor`` times the last."""
    return tuple(start * factor**i for i in range(count))


class Histogram:
    """Observations of one label set: per-bucket counts (the last is +Inf), their number and sum."""

    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.count = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        """Count ``value`` in the first bucket whose upper bound is at least ``value`` (Prometheus' ``le``)."""
        self.counts[bisect_left(self.bounds, value)] += 1
        self.count += 1
        self.sum += value

    def cumulative(self) -> list[int]:
        """Cumulative counts per bucket, +Inf last, as Prometheus exposes them."""
        total = 0
        out = []
        for n in self.counts:
            total += n
            out.append(total)
        return out


@attrs.frozen
class MetricSpec:
    """A metric's name, kind, help text and label names as kube-scheduler declares it.

    ``real_time`` marks histograms of wall-clock durations: they differ from run to run, so the JSON output keeps
    only their counts (see docs/metrics.md).
    """

    name: str
    kind: str  # "counter", "gauge" or "histogram"
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()
    real_time: bool = False


class Family:
    """One metric: its spec and a value (or histogram) per label set, in the order label sets first appeared."""

    __slots__ = ("spec", "values")

    def __init__(self, spec: MetricSpec) -> None:
        self.spec = spec
        self.values: dict[LabelValues, float | Histogram] = {}

    def inc(self, labels: LabelValues = (), amount: float = 1) -> None:
        """Add ``amount`` to the counter of ``labels``."""
        values = self.values
        values[labels] = values.get(labels, 0) + amount  # type: ignore[operator]

    def observe(self, value: float, labels: LabelValues = ()) -> None:
        """Add an observation to the histogram of ``labels``."""
        histogram = self.values.get(labels)
        if histogram is None:
            histogram = self.values[labels] = Histogram(self.spec.buckets)
        histogram.observe(value)  # type: ignore[union-attr]

    def samples(self) -> list[tuple[LabelValues, float | Histogram]]:
        """Every label set with its value, sorted by label values (a stable order for output)."""
        return sorted(self.values.items())


#: A function giving a gauge's current values by label set, read when metrics are exported.
GaugeSource = Callable[[], Mapping[LabelValues, float]]

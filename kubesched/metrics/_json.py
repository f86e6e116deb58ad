"""The ``metrics`` key of the JSON output: every metric decided by the input and seed, in a stable shape."""

from __future__ import annotations

from kubesched.metrics._recorder import SchedulerMetrics
from kubesched.metrics._store import Family, Histogram, LabelValues

JsonSample = dict[str, object]


def samples(family: Family) -> list[tuple[LabelValues, float | Histogram]]:
    """The family's samples; a metric without labels always has one (zero before anything is recorded)."""
    found = family.samples()
    if not found and not family.spec.labels:
        zero: float | Histogram = Histogram(family.spec.buckets) if family.spec.kind == "histogram" else 0
        found = [((), zero)]
    return found


def bucket_label(bound: float) -> str:
    """A bucket's upper bound as prometheus-client writes ``le`` (``0.01``, ``1.0``, ``1e-05``): Python's repr of
    the float, which it uses for every bound below 10^6 (all of kube-scheduler's buckets)."""
    return repr(float(bound))


def metrics_json(metrics: SchedulerMetrics) -> dict[str, list[JsonSample]]:
    """Metric name -> samples: ``{"labels": {...}, "value": n}`` for counters and gauges, ``{"labels": {...},
    "buckets": {le: cumulative count}, "count": n, "sum": s}`` for histograms. Histograms of wall-clock durations
    are left out (they are in the Prometheus text), so the same input and seed give byte-identical output."""
    out: dict[str, list[JsonSample]] = {}
    for family in metrics.families():
        spec = family.spec
        if spec.real_time:
            continue
        rows: list[JsonSample] = []
        for labels, value in samples(family):
            row: JsonSample = {"labels": dict(zip(spec.labels, labels, strict=True))}
            if isinstance(value, Histogram):
                bounds = [*map(bucket_label, spec.buckets), "+Inf"]
                row["buckets"] = dict(zip(bounds, value.cumulative(), strict=True))
                row["count"] = value.count
                row["sum"] = value.sum
            else:
                row["value"] = value
            rows.append(row)
        out[spec.name] = rows
    return out

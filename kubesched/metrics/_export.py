"""The metrics out of a run: the ``metrics`` key of the JSON output, and the Prometheus text format written with
prometheus-client through a private registry (never the process-wide one)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.utils import floatToGoString

from kubesched.metrics._recorder import SchedulerMetrics
from kubesched.metrics._store import Family, Histogram, LabelValues

JsonSample = dict[str, object]


def _samples(family: Family) -> list[tuple[LabelValues, float | Histogram]]:
    """The family's samples; a metric without labels always has one (zero before anything is recorded)."""
    samples = family.samples()
    if not samples and not family.spec.labels:
        zero: float | Histogram = Histogram(family.spec.buckets) if family.spec.kind == "histogram" else 0
        samples = [((), zero)]
    return samples


def _le(bound: float) -> str:
    """A bucket's upper bound as Prometheus writes it (``0.001``, ``1e-05``, ``+Inf``)."""
    return str(floatToGoString(bound))  # type: ignore[no-untyped-call]


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
        for labels, value in _samples(family):
            row: JsonSample = {"labels": dict(zip(spec.labels, labels, strict=True))}
            if isinstance(value, Histogram):
                bounds = [*map(_le, spec.buckets), "+Inf"]
                row["buckets"] = dict(zip(bounds, value.cumulative(), strict=True))
                row["count"] = value.count
                row["sum"] = value.sum
            else:
                row["value"] = value
            rows.append(row)
        out[spec.name] = rows
    return out


class MetricsCollector(Collector):
    """A prometheus-client collector reading a :class:`SchedulerMetrics` at each collection (a scrape, a file)."""

    def __init__(self, metrics: SchedulerMetrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        """One metric family per kube-scheduler metric, with every label set."""
        for family in self._metrics.families():
            spec = family.spec
            out: CounterMetricFamily | GaugeMetricFamily | HistogramMetricFamily
            if spec.kind == "counter":
                out = CounterMetricFamily(spec.name, spec.help, labels=spec.labels)
            elif spec.kind == "gauge":
                out = GaugeMetricFamily(spec.name, spec.help, labels=spec.labels)
            else:
                out = HistogramMetricFamily(spec.name, spec.help, labels=spec.labels)
            for labels, value in _samples(family):
                if isinstance(value, Histogram):
                    bounds = [*map(_le, spec.buckets), "+Inf"]
                    assert isinstance(out, HistogramMetricFamily)
                    out.add_metric(list(labels), list(zip(bounds, value.cumulative(), strict=True)), value.sum)
                else:
                    assert not isinstance(out, HistogramMetricFamily)
                    out.add_metric(list(labels), value)
            yield out


def registry_for(metrics: SchedulerMetrics) -> CollectorRegistry:
    """A new private registry holding only ``metrics`` (serve it, or write it with :func:`prometheus_text`)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MetricsCollector(metrics))
    return registry


def prometheus_text(metrics: SchedulerMetrics) -> str:
    """``metrics`` in the Prometheus text exposition format (version 0.0.4)."""
    return generate_latest(registry_for(metrics)).decode("utf-8")

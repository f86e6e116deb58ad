"""The metrics in the Prometheus text format, through prometheus-client and a private registry (never the
process-wide one). Imported only when needed: prometheus-client takes a while to import."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector, CollectorRegistry

from kubesched.metrics._json import bucket_label, samples
from kubesched.metrics._recorder import SchedulerMetrics
from kubesched.metrics._store import Histogram


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
            for labels, value in samples(family):
                if isinstance(value, Histogram):
                    bounds = [*map(bucket_label, spec.buckets), "+Inf"]
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

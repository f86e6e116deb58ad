"""kube-scheduler's metrics for kubesched: a per-run registry the scheduler runtime writes to, exported as the
``metrics`` key of the JSON output, or in the Prometheus text format by :mod:`kubesched.metrics.prometheus`
(docs/metrics.md)."""

from kubesched.metrics._json import metrics_json
from kubesched.metrics._recorder import (
    PLUGIN_SAMPLE_PERIOD,
    RESULT_ERROR,
    RESULT_SCHEDULED,
    RESULT_UNSCHEDULABLE,
    SPECS,
    SchedulerMetrics,
    attempts_label,
)

__all__ = [
    "PLUGIN_SAMPLE_PERIOD",
    "RESULT_ERROR",
    "RESULT_SCHEDULED",
    "RESULT_UNSCHEDULABLE",
    "SPECS",
    "SchedulerMetrics",
    "attempts_label",
    "metrics_json",
]

"""Run metrics: one definition of every figure kubesched reports about a run (``simulate``'s ``analysis`` key,
``compare``, ``sweep`` rows and ``report`` plots), documented with its formula in docs/analysis.md."""

from kubesched.analysis.metrics import (
    OUTCOMES,
    Fragmentation,
    PreemptionMetrics,
    ResourceMetrics,
    RunAnalysis,
    RunMetrics,
)
from kubesched.analysis.nodes import copies_that_fit
from kubesched.analysis.recorder import PodLife, RunLog, RunRecorder
from kubesched.analysis.replay import analyse, default_reference
from kubesched.analysis.series import Series
from kubesched.analysis.stats import Percentiles, Spread, nearest_rank, percentiles, spread

__all__ = [
    "OUTCOMES",
    "Fragmentation",
    "Percentiles",
    "PodLife",
    "PreemptionMetrics",
    "ResourceMetrics",
    "RunAnalysis",
    "RunLog",
    "RunMetrics",
    "RunRecorder",
    "Series",
    "Spread",
    "analyse",
    "copies_that_fit",
    "default_reference",
    "nearest_rank",
    "percentiles",
    "spread",
]

"""Invariants of the metrics: histogram buckets, and attempts against the events of any small simulation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.io.load import ClusterInput
from kubesched.metrics._store import Histogram, exponential_buckets
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing import make_node, make_pod

REGISTRY = PluginRegistry.discover()
CONFIG = load_config("default", REGISTRY)


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False)))
def test_cumulative_buckets_count_values_at_most_each_bound(values: list[float]) -> None:
    """Bucket k holds the values at most bound k; +Inf holds them all; the sum is theirs."""
    bounds = exponential_buckets(0.01, 2, 20)
    histogram = Histogram(bounds)
    for value in values:
        histogram.observe(value)
    assert histogram.cumulative() == [sum(1 for v in values if v <= b) for b in bounds] + [len(values)]
    assert histogram.count == len(values)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 100)), min_size=1, max_size=8),
       st.integers(1, 3))
def test_attempts_match_the_scheduling_events(pods: list[tuple[int, int]], nodes: int) -> None:
    """Every attempt is one Scheduled or FailedScheduling event, the scheduled ones are the bindings, and the
    pending pods are the ones left in the queue."""
    cluster = ClusterInput(
        nodes=tuple(make_node(f"n{i}").capacity(cpu="2").obj() for i in range(nodes)),
        pods=tuple(make_pod(f"p{i}").req(cpu=f"{cpu}m").priority(priority).obj()
                   for i, (cpu, priority) in enumerate(pods)))
    result = simulate(cluster, CONFIG, REGISTRY)
    assert result.metrics is not None
    value = result.metrics.value
    scheduled = value("scheduler_schedule_attempts_total", result="scheduled", profile="default-scheduler")
    failed = sum(value("scheduler_schedule_attempts_total", result=r, profile="default-scheduler")
                 for r in ("unschedulable", "error"))
    reasons = [e.reason for e in result.events]
    # No pod starts on a node, so every Bound or Evicted (preempted after binding) pod was bound by an attempt.
    assert scheduled == reasons.count("Scheduled") == sum(1 for p in result.pods if p.phase in ("Bound", "Evicted"))
    assert failed == reasons.count("FailedScheduling")
    pending = sum(value("scheduler_pending_pods", queue=q) for q in ("active", "backoff", "unschedulable", "gated"))
    assert pending == sum(1 for p in result.pods if p.phase == "Pending")

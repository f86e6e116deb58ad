"""Specification of the scheduler metrics after a small known simulation, and of their JSON form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.io.load import ClusterInput
from kubesched.metrics import PLUGIN_SAMPLE_PERIOD, SchedulerMetrics, metrics_json
from kubesched.metrics._store import Histogram
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing import make_node, make_pod
from tests.metrics.scenario import run_known

ATTEMPTS = "scheduler_schedule_attempts_total"
INCOMING = "scheduler_queue_incoming_pods_total"
PENDING = "scheduler_pending_pods"


def document_of(registry: PluginRegistry) -> dict[str, Any]:
    """The ``metrics`` key of the known simulation's JSON output."""
    document: dict[str, Any] = run_known(registry).to_json()
    return dict(document["metrics"])


@pytest.fixture
def metrics(registry: PluginRegistry) -> SchedulerMetrics:
    result = run_known(registry)
    assert result.metrics is not None
    return result.metrics


@pytest.mark.parametrize(("result", "expected"), [("scheduled", 2), ("unschedulable", 4), ("error", 0)])
def test_attempts_are_counted_by_result_and_profile(metrics: SchedulerMetrics, result: str, expected: int) -> None:
    """hi and small bind on their second attempt; hi, small and huge fail at 0 s, huge again at 30 s."""
    assert metrics.value(ATTEMPTS, result=result, profile="default-scheduler") == expected


def test_every_postfilter_run_is_a_preemption_attempt(metrics: SchedulerMetrics) -> None:
    """Each of the four unschedulable attempts ran preemption (one of them preempted)."""
    assert metrics.value("scheduler_preemption_attempts_total") == 4


def test_preemption_victims_histogram_counts_the_one_victim(registry: PluginRegistry) -> None:
    """One preemption with one victim: count 1, sum 1, in the le=1 bucket (buckets 1, 2, 4 ... 64)."""
    document = document_of(registry)
    assert document["scheduler_preemption_victims"] == [{
        "labels": {}, "buckets": {"1.0": 1, "2.0": 1, "4.0": 1, "8.0": 1, "16.0": 1, "32.0": 1, "64.0": 1, "+Inf": 1},
        "count": 1, "sum": 1.0}]


@pytest.mark.parametrize(("queue", "expected"), [("active", 0), ("backoff", 0), ("unschedulable", 1), ("gated", 1)])
def test_pending_pods_by_queue_at_the_end(metrics: SchedulerMetrics, queue: str, expected: int) -> None:
    """At the end huge waits in the unschedulable pods and gated is gated; nothing is active or backing off."""
    assert metrics.value(PENDING, queue=queue) == expected


@pytest.mark.parametrize(("queue", "event", "expected"), [
    ("active", "UnschedulablePodAdd", 3),
    ("unschedulable", "UnschedulablePodAdd", 0),
    ("unschedulable", "UnschedulablePodUpdate", 3),
    ("unschedulable", "ScheduleAttemptFailure", 4),
    ("active", "AssignedPodDelete", 3),
    ("backoff", "ScheduleAttemptFailure", 0),
])
def test_incoming_pods_by_queue_and_event(metrics: SchedulerMetrics, queue: str, event: str, expected: int) -> None:
    """New pods enter activeQ (the gated one counts nowhere), failures the unschedulable pods, and low's deletion at
    30 s moves the three failed pods back to activeQ. Each status write to a pod waiting there counts it again as
    an UnschedulablePodUpdate: hi's nomination with its condition (one write, as kube-scheduler's updatePod),
    small's and huge's conditions; huge's second failure, with the same message, writes nothing."""
    assert metrics.value(INCOMING, queue=queue, event=event) == expected


def test_sli_duration_is_simulated_time_by_attempts(registry: PluginRegistry) -> None:
    """hi and small bind 30 simulated seconds after their first attempt, on attempt 2."""
    document = document_of(registry)
    [sample] = document["scheduler_pod_scheduling_sli_duration_seconds"]
    assert (sample["labels"], sample["count"], sample["sum"]) == ({"attempts": "2"}, 2, 60.0)
    assert sample["buckets"]["20.48"] == 0
    assert sample["buckets"]["40.96"] == 2


def test_json_leaves_out_wall_clock_histograms(registry: PluginRegistry) -> None:
    """The JSON holds only values that the input and seed decide; wall-clock durations are in the metrics file."""
    document = document_of(registry)
    assert list(document) == [ATTEMPTS, "scheduler_preemption_attempts_total", "scheduler_preemption_victims",
                              PENDING, "scheduler_pod_scheduling_sli_duration_seconds", INCOMING]


def test_json_is_byte_identical_across_runs(registry: PluginRegistry) -> None:
    """Two runs of the same input and seed give the same bytes, metrics included."""
    first = json.dumps(run_known(registry).to_json())
    assert json.dumps(run_known(registry).to_json()) == first


def test_fresh_metrics_have_zero_unlabelled_samples() -> None:
    """Before anything happens the unlabelled metrics read 0 and every pending queue is listed."""
    document = metrics_json(SchedulerMetrics())
    assert document["scheduler_preemption_attempts_total"] == [{"labels": {}, "value": 0}]
    assert [s["labels"] for s in document[PENDING]] == [{"queue": q} for q in ("active", "backoff", "gated",
                                                                                "unschedulable")]
    assert document[ATTEMPTS] == []


def _pods_on_big_nodes(count: int, registry: PluginRegistry) -> SchedulerMetrics:
    nodes: tuple[Node, ...] = tuple(make_node(f"n{i}").capacity(cpu="64", pods="200").obj() for i in range(3))
    pods = tuple(make_pod(f"p{i}").req(cpu="10m").obj() for i in range(count))
    result = simulate(ClusterInput(nodes=nodes, pods=pods), load_config("default", registry), registry)
    assert result.metrics is not None
    return result.metrics


def _timed_calls(metrics: SchedulerMetrics, plugin: str, point: str) -> int:
    family = next(f for f in metrics.families() if f.spec.name == "scheduler_plugin_execution_duration_seconds")
    return sum(h.count for labels, h in family.values.items()
               if isinstance(h, Histogram) and labels[:2] == (plugin, point))


@pytest.mark.parametrize(("pods", "sampled_cycles"), [(9, 0), (10, 1), (25, 2)])
def test_plugin_calls_are_timed_in_every_tenth_cycle(registry: PluginRegistry, pods: int, sampled_cycles: int) -> None:
    """Plugin durations are sampled as kube-scheduler's 10%, deterministically: cycles 10, 20, ... only."""
    metrics = _pods_on_big_nodes(pods, registry)
    assert _timed_calls(metrics, "NodeResourcesFit", "PreFilter") == sampled_cycles
    assert _timed_calls(metrics, "DefaultBinder", "Bind") == sampled_cycles


def test_batch_forms_are_timed_once_per_batch_call(registry: PluginRegistry) -> None:
    """On the fast path a plugin's batch Filter is one timed call per cycle, not one per node."""
    metrics = _pods_on_big_nodes(10, registry)
    assert _timed_calls(metrics, "NodeResourcesFit", "Filter") == 1


class Broken(Plugin):
    """A Filter plugin that always raises."""

    name = "Broken"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise RuntimeError("broken")


def test_attempts_failing_with_an_error_count_as_error(registry: PluginRegistry, tmp_path: Path) -> None:
    """A plugin error is an ``error`` attempt, not an unschedulable one, and its sampled call is status Error."""
    with_broken = registry.with_plugins(Broken)
    profile = tmp_path / "p.toml"
    profile.write_text('[[profiles]]\n[profiles.plugins.filter]\nenabled = [{ name = "Broken" }]\n', encoding="utf-8")
    nodes = (make_node("n1").capacity(cpu="4").obj(), make_node("n2").capacity(cpu="4").obj())
    pods = tuple(make_pod(f"p{i}").obj() for i in range(4))
    result = simulate(ClusterInput(nodes=nodes, pods=pods), load_config(str(profile), with_broken), with_broken)
    assert result.metrics is not None
    errors = result.metrics.value(ATTEMPTS, result="error", profile="default-scheduler")
    assert errors == sum(1 for e in result.events if e.reason == "FailedScheduling")
    assert errors >= PLUGIN_SAMPLE_PERIOD
    assert result.metrics.value(ATTEMPTS, result="unschedulable", profile="default-scheduler") == 0
    family = next(f for f in result.metrics.families() if f.spec.name == "scheduler_plugin_execution_duration_seconds")
    assert ("Broken", "Filter", "Error") in family.values

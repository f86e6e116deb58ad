"""Specification of the recording helpers: the SLI's attempts label, the labels of a timed plugin call, and which
calls are timed."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework._status import Status
from kubesched.metrics import PLUGIN_SAMPLE_PERIOD, SchedulerMetrics, attempts_label
from kubesched.metrics._store import Histogram
from kubesched.runtime import Scheduler
from kubesched.runtime._metrics import metered
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.runtime.test_scheduler import Hold, run, scheduler_on


@pytest.mark.parametrize(("attempts", "label"), [(1, "1"), (14, "14"), (15, "15+"), (40, "15+")])
def test_attempts_label_caps_at_15(attempts: int, label: str) -> None:
    """As kube-scheduler's getAttemptsLabel: the count, then "15+" from 15 attempts on."""
    assert attempts_label(attempts) == label


@pytest.mark.parametrize(("hook", "result", "labels"), [
    ("filter", None, ("P", "Filter", "Success")),
    ("filter", Status.unschedulable("full"), ("P", "Filter", "Unschedulable")),
    ("post_filter", (None, Status.unresolvable("no")), ("P", "PostFilter", "UnschedulableAndUnresolvable")),
    ("score", 7, ("P", "Score", "Success")),
    ("normalize_scores", None, ("P", "ScoreExtensionNormalize", "Success")),
])
def test_a_timed_call_is_labelled_by_extension_point_and_returned_code(hook: str, result: Any,
                                                                       labels: tuple[str, ...]) -> None:
    """The call's result passes through; it is observed once under kube-scheduler's extension point and the code
    of the Status it returned (PostFilter returns it second), Success when it returned none."""
    metrics = SchedulerMetrics()
    assert metered(metrics, "P", hook, lambda *args: result)("state", "pod") is result
    family = next(f for f in metrics.families() if f.spec.name == "scheduler_plugin_execution_duration_seconds")
    assert [(key, value.count) for key, value in family.values.items() if isinstance(value, Histogram)] == \
        [(labels, 1)]


def _timed_binds(scheduler: Scheduler) -> int:
    """How many Bind calls were timed so far."""
    family = next(f for f in scheduler.metrics.families()
                  if f.spec.name == "scheduler_plugin_execution_duration_seconds")
    return sum(h.count for labels, h in family.values.items() if isinstance(h, Histogram) and labels[1] == "Bind")


def test_a_resumed_binding_cycle_is_sampled_as_its_scheduling_cycle() -> None:
    """Pods held by Permit bind later; only the one whose scheduling cycle was sampled (the 10th) times its Bind."""
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Hold, points={"permit": ["Hold"]})
    cluster.add_node(make_node("n1").capacity(cpu="64", pods="100").obj())
    for i in range(PLUGIN_SAMPLE_PERIOD):
        cluster.add_pod(make_pod(f"p{i}").obj())
    run(scheduler)
    framework = scheduler.frameworks["default-scheduler"]
    timed = []
    for i in (0, PLUGIN_SAMPLE_PERIOD - 1):
        waiting = framework.handle.get_waiting_pod(f"default/p{i}-uid")
        assert waiting is not None
        waiting.allow("Hold")
        scheduler.process_waiting_pods()
        timed.append(_timed_binds(scheduler))
    assert timed == [0, 1]

"""Specification of the ``event`` label of scheduler_queue_incoming_pods_total and of when a pod counts, as the real
kube-scheduler v1.32 binary counts them (each case was scraped from its /metrics)."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._events import ASSIGNED_POD_DELETE, NODE_ADD, ActionType, ClusterEvent, node_events, pod_events
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.metrics import SchedulerMetrics
from kubesched.metrics._store import Histogram
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry, Scheduler, SchedulingQueue
from kubesched.runtime._queue import HintRunner, Strategy
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod

INCOMING = "scheduler_queue_incoming_pods_total"


def node_update_events(old: Node, new: Node) -> list[str]:
    """The labels of the Node update events from ``old`` to ``new``."""
    return [event.label for event in node_events(new, old)]


def unscheduled_pod_update_events(old: Pod, new: Pod) -> list[str]:
    """The labels of the pod update events from ``old`` to ``new`` (an unscheduled pod)."""
    return [event.label for event in pod_events(new, old)]
NODE = make_node("n1").capacity(cpu="2").label(zone="a").obj()
POD = make_pod("p").req(cpu="1").label(app="web").obj()
# The same container objects, with a pod overhead (or an init container) that a second version of the pod lowers.
WITH_OVERHEAD = attrs.evolve(POD, spec=attrs.evolve(
    POD.spec, overhead=make_pod("x").overhead(cpu="1").obj().spec.overhead))
WITH_INIT = attrs.evolve(POD, spec=attrs.evolve(
    POD.spec, init_containers=make_pod("x").req(cpu="3").obj().spec.containers))


def _annotated(node: Node) -> Node:
    return attrs.evolve(node, metadata=attrs.evolve(node.metadata, annotations={"note": "x"}))


@pytest.mark.parametrize(("new", "expected"), [
    (make_node("n1").capacity(cpu="2").label(zone="a").unschedulable().obj(), []),
    (make_node("n1").capacity(cpu="4").label(zone="a").obj(), ["NodeUpdateNodeAllocatable"]),
    (make_node("n1").capacity(cpu="2").label(zone="b").obj(), ["NodeUpdateNodeLabel"]),
    (make_node("n1").capacity(cpu="2").label(zone="a").taint("k").obj(), ["NodeUpdateNodeTaint"]),
    (_annotated(NODE), ["NodeUpdateNodeAnnotation"]),
    (make_node("n1").capacity(cpu="4").label(zone="b").obj(), ["NodeUpdateNodeAllocatable", "NodeUpdateNodeLabel"]),
    (NODE, []),
])
def test_node_update_events(new: Node, expected: list[str]) -> None:
    """A node update is one event per property kube-scheduler watches, in its order; cordoning is none."""
    assert node_update_events(NODE, new) == expected


def test_uncordoning_is_a_taint_event() -> None:
    """kube-scheduler labels a node leaving spec.unschedulable as NodeUpdateNodeTaint."""
    cordoned = make_node("n1").capacity(cpu="2").label(zone="a").unschedulable().obj()
    assert node_update_events(cordoned, NODE) == ["NodeUpdateNodeTaint"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    (POD, make_pod("p").req(cpu="1").label(app="db").obj(), ["UnschedulablePodUpdatePodLabel"]),
    (POD, make_pod("p").req(cpu="500m").label(app="web").obj(), ["UnschedulablePodUpdatePodScaleDown"]),
    (POD, make_pod("p").req(cpu="2").label(app="web").obj(), ["UnschedulablePodUpdate"]),
    (make_pod("p").req(cpu="1").label(app="web").scheduling_gates("g").obj(), POD,
     ["UnschedulablePodUpdatePodSchedulingGatesEliminated"]),
    (POD, make_pod("p").req(cpu="1").label(app="web").toleration("k").obj(), ["UnschedulablePodUpdatePodTolerations"]),
    (POD, POD.with_status(nominated_node_name="n1"), ["UnschedulablePodUpdate"]),
    (WITH_OVERHEAD, POD, ["UnschedulablePodUpdatePodScaleDown"]),
    (WITH_INIT, POD, ["UnschedulablePodUpdatePodScaleDown"]),
    (POD, make_pod("p").req(cpu="500m").label(app="db").obj(),
     ["UnschedulablePodUpdatePodLabel", "UnschedulablePodUpdatePodScaleDown"]),
])
def test_unscheduled_pod_update_events(old: Pod, new: Pod, expected: list[str]) -> None:
    """A pod update is one event per property kube-scheduler watches, in its order; UnschedulablePodUpdate else."""
    assert unscheduled_pod_update_events(old, new) == expected


def _gates(pod: Pod) -> Status | None:
    """PreEnqueue as SchedulingGates: a pod with gates is held."""
    return Status.unresolvable("waiting for scheduling gates").with_plugin("SchedulingGates") \
        if pod.spec.scheduling_gates else None


def _queue(hints: HintRunner | None = None) -> tuple[SchedulingQueue, SchedulerMetrics, VirtualClock]:
    """A queue gating pods by their scheduling gates, counting into new metrics, on a clock at 0; without
    ``hints``, every event may help every rejected pod."""
    metrics, clock = SchedulerMetrics(), VirtualClock()
    sort = PrioritySort(handle=None)  # type: ignore[arg-type]
    queue = SchedulingQueue(sort.queue_sort_less, clock=clock, pre_enqueue=_gates, hints=hints, metrics=metrics)
    return queue, metrics, clock


def _counts(metrics: SchedulerMetrics) -> dict[tuple[str, ...], float]:
    family = next(f for f in metrics.families() if f.spec.name == INCOMING)
    return {labels: value for labels, value in family.samples() if isinstance(value, int | float)}


def _unschedulable(queue: SchedulingQueue, pod: Pod) -> None:
    """Add ``pod``, pop it and reject it by NodeResourcesFit: it waits in the unschedulable pods."""
    queue.add(pod)
    info = queue.pop()
    assert info is not None
    info.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)


def test_a_new_gated_pod_counts_nothing() -> None:
    """A pod gated by PreEnqueue on its way to activeQ enters no queue count."""
    queue, metrics, _ = _queue()
    queue.add(make_pod("g").scheduling_gates("example.com/g").obj())
    assert _counts(metrics) == {}


def test_a_status_update_of_an_unschedulable_pod_counts_it_again() -> None:
    """The status write after a failure counts the pod entering the unschedulable pods as UnschedulablePodUpdate
    (when the rejecting plugin's hint says the write cannot help, as NodeResourcesFit's does)."""
    queue, metrics, _ = _queue(hints=lambda info, event, old, new: Strategy.SKIP)
    _unschedulable(queue, POD)
    queue.update(POD, POD.with_status(nominated_node_name="n1"))
    assert _counts(metrics) == {("active", "UnschedulablePodAdd"): 1,
                                ("unschedulable", "ScheduleAttemptFailure"): 1,
                                ("unschedulable", "UnschedulablePodUpdate"): 1}


def _gates_hint(info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
    """SchedulingGates' hint: only the removal of the pod's gates may help it."""
    eliminated = event.action_type & ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return Strategy.AFTER_BACKOFF if eliminated else Strategy.SKIP


def test_an_update_of_a_pod_that_stays_gated_counts_each_event() -> None:
    """A gated pod relabelled stays gated and counts as UnschedulablePodUpdatePodLabel."""
    queue, metrics, _ = _queue(hints=_gates_hint)
    gated = make_pod("g").scheduling_gates("example.com/g").obj()
    queue.add(gated)
    queue.update(gated, make_pod("g").scheduling_gates("example.com/g").label(x="y").obj())
    assert _counts(metrics) == {("unschedulable", "UnschedulablePodUpdatePodLabel"): 1}


def test_removing_the_gates_counts_the_pod_into_active() -> None:
    """An ungated pod enters activeQ as UnschedulablePodUpdatePodSchedulingGatesEliminated."""
    queue, metrics, _ = _queue(hints=_gates_hint)
    gated = make_pod("g").scheduling_gates("example.com/g").obj()
    queue.add(gated)
    queue.update(gated, make_pod("g").obj())
    assert _counts(metrics) == {("active", "UnschedulablePodUpdatePodSchedulingGatesEliminated"): 1}


def test_a_pod_an_event_sends_on_but_preenqueue_gates_again_counts_nothing() -> None:
    """As v1.32's moveToActiveQ: a gated pod whose plugin says Queue but that PreEnqueue still gates is not counted."""
    queue, metrics, _ = _queue(hints=lambda info, event, old, new: Strategy.AFTER_BACKOFF)
    gated = make_pod("g").scheduling_gates("example.com/g").obj()
    queue.add(gated)
    queue.update(gated, make_pod("g").scheduling_gates("example.com/g").label(x="y").obj())
    queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, POD, None)
    assert _counts(metrics) == {}


def _scheduler(registry: PluginRegistry) -> tuple[Scheduler, InMemoryCluster, VirtualClock]:
    clock = VirtualClock()
    cluster = InMemoryCluster(clock)
    scheduler = Scheduler(load_config("default", registry).profiles, registry, client=cluster, clock=clock,
                          rng=random.Random(0))
    cluster.subscribe(scheduler.events)
    return scheduler, cluster, clock


@pytest.mark.parametrize(("pod", "new", "expected"), [
    (make_pod("big").req(cpu="4").obj(), make_node("n1").capacity(cpu="8").label(zone="a").obj(),
     {("active", "NodeUpdateNodeAllocatable"): 1}),
    (make_pod("big").req(cpu="4").obj(), make_node("n1").capacity(cpu="2").label(zone="b").obj(), {}),
    (make_pod("b").node_selector(zone="b").obj(), make_node("n1").capacity(cpu="2").label(zone="b").obj(),
     {("active", "NodeUpdateNodeLabel"): 1}),
    (make_pod("big").req(cpu="4").obj(), make_node("n1").capacity(cpu="2").label(zone="a").unschedulable().obj(),
     {}),
])
def test_a_node_update_moves_the_pods_its_hints_queue_under_its_event(
        registry: PluginRegistry, pod: Pod, new: Node, expected: dict[tuple[str, ...], int]) -> None:
    """A node update moves a pod, counted under the event that moved it, when the rejecting plugin's hint queues
    it (NodeResourcesFit: more allocatable; NodeAffinity: a matching label); a cordon moves none."""
    scheduler, cluster, clock = _scheduler(registry)
    cluster.add_node(NODE)
    cluster.add_pod(pod)
    scheduler.schedule_one()
    clock.advance_to(60.0)  # past its backoff
    before = _counts(scheduler.metrics)
    scheduler.events.on_node_update(new)
    after = _counts(scheduler.metrics)
    assert {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)} == expected


def _moved_by(move: str) -> dict[tuple[str, ...], float]:
    """The counts after ``move`` takes a pod rejected at time 0 out of the unschedulable pods or backoffQ."""
    queue, metrics, clock = _queue()
    _unschedulable(queue, POD)
    if move == "backoff-by-event":
        queue.move_all_to_active_or_backoff(NODE_ADD)  # at once: the pod is still backing off
    elif move == "failure-after-move-request":
        queue.move_all_to_active_or_backoff(NODE_ADD)
        clock.advance_to(5.0)
        queue.flush_backoff_completed()
        info = queue.pop()
        assert info is not None
        queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, POD, None)  # during the attempt: nothing to move
        info.unschedulable_plugins = {"NodeResourcesFit"}
        queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    elif move == "flush":
        clock.advance_to(301.0)
        queue.flush_unschedulable_leftover()
    elif move == "activate":
        queue.activate([POD])
    counts = _counts(metrics)
    for first in (("active", "UnschedulablePodAdd"), ("unschedulable", "ScheduleAttemptFailure")):
        counts[first] -= 1
    return {labels: n for labels, n in counts.items() if n}


@pytest.mark.parametrize(("move", "expected"), [
    ("backoff-by-event", {("backoff", "NodeAdd"): 1}),
    ("failure-after-move-request", {("backoff", "NodeAdd"): 1, ("active", "BackoffComplete"): 1,
                                    ("backoff", "ScheduleAttemptFailure"): 1}),
    ("flush", {("active", "UnschedulableTimeout"): 1}),
    ("activate", {("active", "ForceActivate"): 1}),
])
def test_queue_moves_count_under_kube_schedulers_events(move: str, expected: dict[tuple[str, ...], int]) -> None:
    """Each queue move counts the pod in the queue it enters, under kube-scheduler's event for that move."""
    assert _moved_by(move) == expected


def test_pending_pods_count_each_queue() -> None:
    """scheduler_pending_pods: two pods active, one backing off, one unschedulable, one gated."""
    queue, _, _ = _queue()
    _unschedulable(queue, make_pod("u").obj())
    queue.add(make_pod("b").obj())
    info = queue.pop()
    assert info is not None
    info.unschedulable_plugins = set()  # an error: backoffQ
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    queue.add(make_pod("a1").obj())
    queue.add(make_pod("a2").obj())
    queue.add(make_pod("g").scheduling_gates("example.com/g").obj())
    assert queue.pending_counts() == {("active",): 2, ("backoff",): 1, ("unschedulable",): 1, ("gated",): 1}


def test_an_update_moving_a_pod_counts_under_its_first_event() -> None:
    """A relabelled and scaled-down pod leaves the unschedulable pods as UnschedulablePodUpdatePodLabel."""
    queue, metrics, clock = _queue()
    _unschedulable(queue, POD)
    clock.advance_to(60.0)
    queue.update(POD, make_pod("p").req(cpu="500m").label(app="db").obj())
    assert _counts(metrics)[("active", "UnschedulablePodUpdatePodLabel")] == 1


@pytest.mark.parametrize(("event", "expected"), [
    ("NodeAdd", {("active", "NodeAdd"): 1}),
    ("AssignedPodAdd", {("active", "AssignedPodAdd"): 1}),
    ("AssignedPodDelete", {("active", "AssignedPodDelete"): 1}),
])
def test_cluster_events_move_pods_under_their_label(registry: PluginRegistry, event: str,
                                                    expected: dict[tuple[str, ...], int]) -> None:
    """A node added, an assigned pod added (that the rejecting plugin's hint says may help) or deleted."""
    scheduler, cluster, clock = _scheduler(registry)
    cluster.add_node(NODE)
    running = make_pod("db").req(cpu="1500m").label(app="db").node("n1").obj()
    cluster.add_pod(running)
    affine = event == "AssignedPodAdd"
    pending = make_pod("web").req(cpu="100m").pod_affinity("kubernetes.io/hostname", app="cache") if affine \
        else make_pod("web").req(cpu="1")
    cluster.add_pod(pending.obj())
    scheduler.schedule_one()
    clock.advance_to(60.0)  # past its backoff
    before = _counts(scheduler.metrics)
    if event == "NodeAdd":
        cluster.add_node(make_node("n2").capacity(cpu="2").obj())
    elif affine:
        cluster.add_pod(make_pod("cache").label(app="cache").node("n1").obj())
    else:
        cluster.delete_pod(running)
        clock.advance_to(90.0)  # past its 30 s grace period
        cluster.fire_due_timers()
    after = _counts(scheduler.metrics)
    assert {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)} == expected


def test_sli_counts_from_the_first_attempt(registry: PluginRegistry) -> None:
    """A pod created at 10 s and bound on its first attempt observes 0 s, not the time since the run began."""
    scheduler, cluster, clock = _scheduler(registry)
    clock.advance_to(10.0)
    cluster.add_node(NODE)
    cluster.add_pod(make_pod("p").req(cpu="1").obj())
    scheduler.schedule_one()
    family = next(f for f in scheduler.metrics.families()
                  if f.spec.name == "scheduler_pod_scheduling_sli_duration_seconds")
    [(labels, histogram)] = family.samples()
    assert isinstance(histogram, Histogram)
    assert (labels, histogram.count, histogram.sum) == (("1",), 1, 0.0)

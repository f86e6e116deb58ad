"""The queue's read-only accessors (kube-scheduler's PodsInActiveQ, PodsInBackoffQ, UnschedulablePods, PendingPods,
GetPod): what each lists, in which order, and that nothing handed out can change the queue."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import SchedulingQueue
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import make_pod, new_queue, place

HIGH, LOW = make_pod("high").priority(10).obj(), make_pod("low").obj()
BACKOFF, LATER = make_pod("b").obj(), make_pod("later").obj()
UNSCHEDULABLE, GATED = make_pod("u").obj(), make_pod("g").scheduling_gates("example.com/g").obj()
FLYING = make_pod("f").obj()


def filled() -> SchedulingQueue:
    """A queue holding a pod in each place: two in activeQ, two in backoffQ, one unschedulable, one gated, one in
    flight."""
    queue = new_queue("SchedulingGates", "NodeAffinity", clock=VirtualClock())
    place(queue, GATED, "gated")
    place(queue, UNSCHEDULABLE, "unschedulable", rejected_by=("NodeAffinity",))
    place(queue, LATER, "backoff", attempts=2)
    place(queue, BACKOFF, "backoff")
    place(queue, FLYING, "in flight")
    place(queue, LOW, "active")
    place(queue, HIGH, "active")
    return queue


def names(infos: list[QueuedPodInfo]) -> list[str]:
    return [info.pod.name for info in infos]


def test_each_accessor_lists_its_queue_in_order() -> None:
    """activeQ in pop order, backoffQ by expiry, the unschedulable pods (gated included) as they came, the pods in
    flight, and every queued pod (not those in flight) in that order."""
    queue = filled()
    assert names(queue.active_pods()) == ["high", "low"]
    assert names(queue.backoff_pods()) == ["b", "later"]
    assert names(queue.unschedulable_pods()) == ["g", "u"]
    assert names(queue.in_flight()) == ["f"]
    assert names(queue.pending_pods()) == ["high", "low", "b", "later", "g", "u"]


@pytest.mark.parametrize(("name", "where"), [("high", "active"), ("b", "backoff"), ("u", "unschedulable"),
                                              ("g", "unschedulable"), ("f", "in flight"), ("x", None)])
def test_location_names_the_queue_holding_the_pod(name: str, where: str | None) -> None:
    """location(uid) says where a pod is, None for a pod the queue does not hold."""
    assert filled().location(make_pod(name).obj().uid) == where


def test_get_finds_a_queued_pod_by_namespace_and_name() -> None:
    """get looks in activeQ, backoffQ and the unschedulable pods, as GetPod does: not among the pods in flight."""
    queue = filled()
    found = {name: queue.get("default", name) for name in ("high", "b", "g", "f", "x")}
    assert {name: info.pod.name if info else None for name, info in found.items()} == \
        {"high": "high", "b": "b", "g": "g", "f": None, "x": None}
    assert queue.get("other", "high") is None


ACCESSORS: list[Callable[[SchedulingQueue], list[QueuedPodInfo]]] = [
    SchedulingQueue.active_pods, SchedulingQueue.backoff_pods, SchedulingQueue.unschedulable_pods,
    SchedulingQueue.in_flight, SchedulingQueue.pending_pods, lambda q: [i for i in [q.get("default", "u")] if i]]


@pytest.mark.parametrize("accessor", ACCESSORS, ids=["active", "backoff", "unschedulable", "in_flight", "pending",
                                                      "get"])
def test_what_an_accessor_hands_out_cannot_change_the_queue(accessor: Callable[[SchedulingQueue],
                                                                               list[QueuedPodInfo]]) -> None:
    """Changing every field of a handed-out QueuedPodInfo (plugin sets, attempts, times, requests) leaves what
    the queue reports unchanged."""
    queue = filled()

    def state() -> list[tuple[object, ...]]:
        return [(i.pod.name, i.attempts, i.timestamp, sorted(i.unschedulable_plugins), i.gating_plugin,
                 i.pod_info.requests.milli_cpu) for i in queue.pending_pods() + queue.in_flight()]

    before = state()
    for info in accessor(queue):
        info.unschedulable_plugins.add("Changed")
        info.pending_plugins.add("Changed")
        info.attempts += 5
        info.timestamp += 5
        info.gating_plugin = "Changed"
        info.pod_info.requests.milli_cpu += 5
    assert state() == before
    assert names(queue.backoff_pods()) == ["b", "later"]

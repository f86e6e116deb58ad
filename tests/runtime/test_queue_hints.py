"""Specification of the queue with queueing hints (kube-scheduler v1.32): which event moves which rejected pod,
where to, and when; on a virtual clock."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._events import (
    NODE_ADD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import SchedulingQueue
from kubesched.runtime._queue import POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import framework_of

NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)


def _big_nodes(pod: Pod, old: Node | None, new: Node | None) -> QueueingHint:
    return QueueingHint.QUEUE if new is not None and new.labels.get("size") == "big" else QueueingHint.QUEUE_SKIP


class Picky(Plugin):
    """Registers NodeAdd with a hint that queues only for nodes labelled size=big."""

    name = "Picky"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD, _big_nodes)]

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        return None


class Deaf(Plugin):
    """Registers no event at all."""

    name = "Deaf"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        return None


class Legacy(Plugin):
    """Has no events_to_register: interested in every event."""

    name = "Legacy"

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        return None


class Raising(Plugin):
    """A hint that raises."""

    name = "Raising"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        def hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
            raise RuntimeError("boom")
        return [ClusterEventWithHint(NODE_ADD, hint)]

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        return None


def new_queue(gate: str = "") -> tuple[SchedulingQueue, VirtualClock]:
    """A queue whose hints come from a framework of Picky, Deaf, Legacy and Raising; ``gate`` names a pod that
    Picky gates at PreEnqueue."""
    framework = framework_of({"filter": ["Picky", "Deaf", "Legacy", "Raising"]}, Picky, Deaf, Legacy, Raising)
    clock = VirtualClock()

    def pre_enqueue(pod: Pod) -> Status | None:
        if pod.name == gate and not pod.labels.get("released"):
            return Status.unresolvable("held").with_plugin("Picky")
        return None

    queue = SchedulingQueue(framework.queue_sort_less, clock=clock, pre_enqueue=pre_enqueue,
                            hints=framework.queueing_hint_strategy)
    return queue, clock


def rejected(queue: SchedulingQueue, name: str = "p", plugins: tuple[str, ...] = ("Picky",),
             pending: tuple[str, ...] = ()) -> QueuedPodInfo:
    """Add pod ``name``, pop it and fail it as rejected by ``plugins`` (Pending from ``pending``)."""
    queue.add(make_pod(name).obj())
    info = queue.pop()
    assert info is not None
    info.unschedulable_plugins = set(plugins)
    info.pending_plugins = set(pending)
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    return info


def where(queue: SchedulingQueue, name: str = "p") -> str:
    """Which queue holds pod ``name``."""
    if any(i.pod.name == name for i in queue.unschedulable_pods()):
        return "unschedulable"
    if any(i.pod.name == name for i in queue.backoff_pods()):
        return "backoff"
    if any(i.pod.name == name for i in queue.pending_pods()):
        return "active"
    return "none"


BIG = make_node("big").label(size="big").obj()
SMALL = make_node("small").obj()


@pytest.mark.parametrize(("plugins", "node", "expected"), [
    (("Picky",), BIG, "active"),
    (("Picky",), SMALL, "unschedulable"),
    (("Deaf",), BIG, "unschedulable"),
    (("Legacy",), SMALL, "active"),
    (("Deaf", "Picky"), BIG, "active"),
    (("Raising",), SMALL, "active"),
])
def test_an_event_moves_a_pod_only_if_a_rejecting_plugin_says_queue(plugins: tuple[str, ...], node: Node,
                                                                      expected: str) -> None:
    """Only the hints of the plugins that rejected the pod decide; no events_to_register means every event; a
    hint that raises counts as Queue."""
    queue, clock = new_queue()
    rejected(queue, plugins=plugins)
    clock.advance_to(5.0)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
    assert where(queue) == expected


def test_an_unregistered_event_leaves_the_pod() -> None:
    """An event no rejecting plugin registered (a node relabelled, for Picky) does not move the pod."""
    queue, clock = new_queue()
    rejected(queue)
    clock.advance_to(5.0)
    assert queue.move_all_to_active_or_backoff(NODE_LABEL, SMALL, BIG) == 0
    assert where(queue) == "unschedulable"


def test_a_queued_pod_still_backing_off_goes_to_backoff() -> None:
    """Queue from an Unschedulable plugin respects the pod's backoff: backoffQ until it expires."""
    queue, clock = new_queue()
    rejected(queue)
    clock.advance_to(0.5)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    assert where(queue) == "backoff"
    clock.advance_to(1.0)
    queue.flush_backoff_completed()
    assert where(queue) == "active"


def test_queue_from_a_pending_plugin_skips_the_backoff() -> None:
    """Queue from a plugin that returned Pending moves the pod straight to activeQ, backoff or not."""
    queue, clock = new_queue()
    rejected(queue, plugins=(), pending=("Picky",))
    clock.advance_to(0.1)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    assert where(queue) == "active"


def test_a_pod_rejected_by_no_plugin_goes_to_backoff() -> None:
    """An error (no rejecting plugin) sends the pod to backoffQ, whatever the events."""
    queue, _ = new_queue()
    rejected(queue, plugins=())
    assert where(queue) == "backoff"


@pytest.mark.parametrize(("node", "expected"), [(BIG, "backoff"), (SMALL, "unschedulable")])
def test_events_during_the_attempt_are_replayed_through_the_hints(node: Node, expected: str) -> None:
    """An event that arrived while the pod was in flight requeues it on failure only if the hints say Queue."""
    queue, _ = new_queue()
    queue.add(make_pod("p").obj())
    info = queue.pop()
    assert info is not None
    queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
    info.unschedulable_plugins = {"Picky"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert where(queue) == expected


def test_events_before_the_attempt_are_not_replayed() -> None:
    """Only events received after the pod was popped are replayed for it."""
    queue, _ = new_queue()
    queue.add(make_pod("other").obj())
    queue.add(make_pod("p").obj())
    first = queue.pop()
    assert first is not None
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)  # recorded: "other" is in flight
    info = queue.pop()
    assert info is not None
    assert info.pod.name == "p"
    info.unschedulable_plugins = {"Picky"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert where(queue) == "unschedulable"


def test_pods_unschedulable_for_five_minutes_are_flushed() -> None:
    """The flush retries a pod unschedulable for longer than 5 minutes, even one no event can move."""
    queue, clock = new_queue()
    rejected(queue, plugins=("Deaf",))
    clock.advance_to(POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION)
    assert queue.flush_unschedulable_leftover() == 0
    clock.advance_to(POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + 0.5)
    assert queue.flush_unschedulable_leftover() == 1
    assert where(queue) == "active"


def test_gated_pod_is_rechecked_on_its_plugins_events() -> None:
    """A pod gated by a PreEnqueue plugin re-runs PreEnqueue on the events that plugin registered (Queue)."""
    queue, _ = new_queue(gate="g")
    queue.add(make_pod("g").obj())
    assert where(queue, "g") == "unschedulable"
    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, SMALL) == 0
    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG) == 0  # re-checked, still gated
    assert where(queue, "g") == "unschedulable"
    pod = make_pod("g").obj()
    queue.update(pod, make_pod("g").label(released="yes").obj())  # Picky registered no pod event
    assert where(queue, "g") == "unschedulable"
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    assert where(queue, "g") == "active"


def test_status_only_update_of_a_rejected_pod_does_not_move_it() -> None:
    """A pod's own status write is an UpdatePodOther event, which Picky did not register."""
    queue, clock = new_queue()
    info = rejected(queue)
    clock.advance_to(5.0)
    queue.update(info.pod, info.pod.with_status(nominated_node_name=""))
    assert where(queue) == "unschedulable"


def test_force_activate_of_an_in_flight_pod_moves_it_when_it_fails() -> None:
    """Activating a pod in flight records ForceActivate: its failure sends it back to be retried."""
    queue, _ = new_queue()
    queue.add(make_pod("p").obj())
    info = queue.pop()
    assert info is not None
    queue.activate([info.pod])
    info.unschedulable_plugins = {"Deaf"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert where(queue) == "backoff"


def test_a_plugin_registering_node_add_also_gets_taint_updates() -> None:
    """As kube-scheduler's workaround for issue 109437, Node/Add without Node/UpdateNodeTaint adds UpdateNodeTaint,
    always Queue (the hint is not asked)."""
    queue, clock = new_queue()
    rejected(queue)
    clock.advance_to(5.0)
    taint = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
    assert queue.move_all_to_active_or_backoff(taint, SMALL, SMALL) == 1


def test_an_identical_pod_write_is_no_event() -> None:
    """The scheduler ignores a pod write that changes nothing (Kubernetes sends no watch event for it), so a pod
    rejected by a plugin interested in every event stays where it is."""
    import random

    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort
    from kubesched.runtime import PluginRegistry
    from kubesched.runtime._scheduler import Scheduler
    from kubesched.sim.cluster import InMemoryCluster
    from tests.framework.fakes import profile_of

    class RejectAll(Legacy):
        name = "RejectAll"

        @hookimpl
        def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
            return Status.unschedulable("no")

    cluster = InMemoryCluster(VirtualClock())
    scheduler = Scheduler([profile_of({"filter": ["RejectAll"]})],
                          PluginRegistry.of(PrioritySort, DefaultBinder, RejectAll), client=cluster,
                          clock=cluster.clock, rng=random.Random(0))
    cluster.subscribe(scheduler.events)
    cluster.add_node(make_node("n1").obj())
    cluster.add_pod(make_pod("p").obj())
    assert scheduler.schedule_one()  # fails; its own status write (a real change) sends it to backoff
    cluster.clock.advance_to(1.0)
    scheduler.queue.flush_backoff_completed()
    assert scheduler.schedule_one()  # fails again with the same status: no change, no event
    assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["p"]


def test_queue_from_a_pending_plugin_during_the_attempt_skips_the_backoff() -> None:
    """An in-flight event a Pending plugin says Queue to sends the failed pod straight to activeQ."""
    queue, _ = new_queue()
    queue.add(make_pod("p").obj())
    info = queue.pop()
    assert info is not None
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    info.pending_plugins = {"Picky"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert where(queue) == "active"


def test_force_activate_of_another_in_flight_pod_leaves_this_one() -> None:
    """ForceActivate names one pod: replayed for another pod in flight, it does not requeue that pod."""
    queue, _ = new_queue()
    queue.add(make_pod("p").obj())
    queue.add(make_pod("q").obj())
    first, second = queue.pop(), queue.pop()
    assert first is not None
    assert second is not None
    queue.activate([second.pod])
    first.unschedulable_plugins = {"Picky"}
    queue.add_unschedulable_if_not_present(first, queue.scheduling_cycle)
    assert where(queue, first.pod.name) == "unschedulable"


def test_a_pod_gated_after_a_failed_attempt_serves_its_backoff() -> None:
    """A pod a custom PreEnqueue plugin gates after a failed attempt is still backing off (kube-scheduler v1.32's
    isPodBackingoff makes no exception for gated pods): an event its gating plugin says Queue to sends it to backoffQ
    within its backoff, and PreEnqueue lets it into activeQ when the backoff ends."""
    queue, clock = new_queue(gate="g")
    released = make_pod("g").label(released="yes").obj()
    held = make_pod("g").obj()
    queue.add(released)
    info = queue.pop()
    assert info is not None
    info.unschedulable_plugins = {"Deaf"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)  # backoff until 1.0
    queue.update(released, held)
    clock.advance_to(0.2)
    queue.activate([held])  # PreEnqueue runs again: gated by Picky
    assert where(queue, "g") == "unschedulable"
    clock.advance_to(0.5)
    queue.update(held, released)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    assert where(queue, "g") == "backoff"
    clock.advance_to(1.0)
    assert queue.flush_backoff_completed() == 1
    assert where(queue, "g") == "active"


def test_a_pod_never_attempted_has_no_backoff_when_ungated() -> None:
    """A pod gated from its creation (as SchedulingGates gates) has made no attempt, so has no backoff: the event
    its gating plugin says Queue to sends it straight to activeQ."""
    queue, _ = new_queue(gate="g")
    held = make_pod("g").obj()
    queue.add(held)
    assert where(queue, "g") == "unschedulable"
    queue.update(held, make_pod("g").label(released="yes").obj())
    queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG)
    assert where(queue, "g") == "active"

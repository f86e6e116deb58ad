"""kubesched.testing's queue kit: new_queue wires plugins as the scheduler does, place puts a pod into a named
sub-queue through public methods only (or says why it cannot), where and contents read the queue back."""

from __future__ import annotations

import pytest

from kubesched.framework._events import NODE_ADD
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import QUEUES, contents, make_node, make_pod, new_queue, place, where

POD = make_pod("p").obj()
GATED = make_pod("g").scheduling_gates("example.com/g").obj()


@pytest.mark.parametrize("wanted", QUEUES)
def test_place_puts_the_pod_where_asked(wanted: str) -> None:
    """Each sub-queue can be filled: where and contents then name it."""
    queue = new_queue("SchedulingGates", "NodeAffinity")
    place(queue, GATED if wanted == "gated" else POD, wanted, rejected_by=("NodeAffinity",) * (wanted != "backoff"))
    name = "g" if wanted == "gated" else "p"
    assert (where(queue, make_pod(name)), contents(queue)) == (wanted, {wanted: [name]})


def test_a_pod_placed_after_attempts_has_their_backoff() -> None:
    """attempts=3 leaves the pod with three attempts, so backoffQ holds it for 4 s from now."""
    queue = new_queue()
    info = place(queue, POD, "backoff", attempts=3)
    assert (info.attempts, queue.backoff_expiry(info), queue.next_backoff_expiry()) == (3, 4.0, 4.0)


def test_a_pod_placed_unschedulable_is_moved_by_its_rejectors_hint() -> None:
    """A pod placed as NodeAffinity's rejection moves on the node that matches it, as a scheduled one would."""
    clock = VirtualClock()
    queue = new_queue("NodeAffinity", clock=clock)
    place(queue, make_pod("za").node_selector(zone="a"), "unschedulable", rejected_by=("NodeAffinity",))
    clock.advance_to(2.0)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, make_node("n").label(zone="b").obj())
    assert contents(queue) == {"unschedulable": ["za"]}
    queue.move_all_to_active_or_backoff(NODE_ADD, None, make_node("n").label(zone="a").obj())
    assert contents(queue) == {"active": ["za"]}


def test_a_pod_placed_in_flight_is_the_popped_one() -> None:
    """The QueuedPodInfo of a pod in flight is the one the queue popped: ending its attempt with it requeues it."""
    queue = new_queue("NodeAffinity")
    info = place(queue, POD, "in flight")
    info.unschedulable_plugins = {"NodeAffinity"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert contents(queue) == {"unschedulable": ["p"]}


def test_a_gated_pod_cannot_be_placed_in_active_q() -> None:
    """A pod PreEnqueue gates is reported with its gating plugin."""
    with pytest.raises(ValueError, match=r"^place: pod default/g went to gated \(PreEnqueue plugin SchedulingGates "
                                         r"gates it\), not active$"):
        place(new_queue("SchedulingGates"), GATED, "active")


def test_an_ungated_pod_cannot_be_placed_among_the_gated() -> None:
    """A pod no PreEnqueue plugin gates does not end gated."""
    with pytest.raises(ValueError, match=r"^place: pod default/p went to active, not gated$"):
        place(new_queue("SchedulingGates"), POD, "gated")


def test_an_unschedulable_pod_needs_its_rejectors() -> None:
    """Without rejecting plugins a failed attempt is an error, which goes to backoffQ: place says so first."""
    with pytest.raises(ValueError, match="needs rejected_by or pending plugins to be unschedulable"):
        place(new_queue(), POD, "unschedulable")


def test_a_pod_behind_others_in_active_q_cannot_be_popped() -> None:
    """Only the head of activeQ pops: placing a pod after active ones asks for the order."""
    queue = new_queue()
    place(queue, make_pod("high").priority(10), "active")
    with pytest.raises(ValueError, match="pod default/high is ahead of it in activeQ; place pods in activeQ last"):
        place(queue, POD, "in flight")


def test_a_rejected_pod_cannot_reach_backoff_q_past_pods_in_flight() -> None:
    """The event that moves a rejected pod to backoffQ would reach the pods in flight too: place refuses."""
    queue = new_queue("NodeAffinity")
    place(queue, make_pod("f"), "in flight")
    with pytest.raises(ValueError, match="place pods in flight last"):
        place(queue, POD, "backoff", rejected_by=("NodeAffinity",))


def test_an_unknown_queue_is_named() -> None:
    """A queue name outside QUEUES lists the valid ones."""
    with pytest.raises(ValueError, match="'waiting' is not a queue; one of: active, backoff, unschedulable, gated, "
                                         "in flight"):
        place(new_queue(), POD, "waiting")


def test_a_plugins_own_queue_sort_orders_active_q() -> None:
    """A plugin implementing QueueSort replaces PrioritySort in the queue's profile."""
    from kubesched.framework import Plugin, hookimpl
    from kubesched.framework._types import QueuedPodInfo

    class ByName(Plugin):
        name = "ByName"

        @hookimpl
        def queue_sort_less(self, pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
            return pod_info_a.pod.name < pod_info_b.pod.name

    queue = new_queue(ByName)
    for name in ("b", "c", "a"):
        place(queue, make_pod(name).priority(ord(name)), "active")
    assert contents(queue) == {"active": ["a", "b", "c"]}

"""The scheduling queue case by case, in the shape of kube-scheduler v1.32's scheduling_queue_test.go: each case is
one line of data (the pods and where they start, the operations, then what each sub-queue holds), run through the
public testing kit only, on a queue wired to SchedulingGates, NodeAffinity, TaintToleration and a custom PreEnqueue
plugin. Pods start at time 0 with one failed attempt behind them (backoff until 1.0) unless they are active or
gated."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest

from kubesched.api.pod import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    Plugin,
    QueueingHint,
    Status,
    hookimpl,
)
from kubesched.framework._events import ASSIGNED_POD_DELETE, NODE_ADD, NODE_TAINT_UPDATE
from kubesched.runtime import SchedulingQueue
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import contents, make_node, make_pod, new_queue, place

LABEL_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL)


class Hold(Plugin):
    """A custom PreEnqueue plugin: gates pods labelled hold=yes; the label's removal may release them."""

    name = "Hold"

    @hookimpl
    def pre_enqueue(self, pod: Pod) -> Status | None:
        return Status.unresolvable("on hold") if pod.labels.get("hold") == "yes" else None

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        def released(pod: Pod, old: Any, new: Any) -> QueueingHint:
            return QueueingHint.QUEUE if new.labels.get("hold") != "yes" else QueueingHint.QUEUE_SKIP
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL), released)]


POD = make_pod("p").obj()
POD_RELABELLED = make_pod("p").label(tier="gold").obj()
OTHER = make_pod("o").obj()
OTHER_HIGH = make_pod("o").priority(10).obj()
HIGH = make_pod("high").priority(10).obj()
GATED = make_pod("g").scheduling_gates("example.com/gate").obj()
GATED_RELABELLED = make_pod("g").scheduling_gates("example.com/gate").label(tier="gold").obj()
UNGATED = make_pod("g").obj()
ZONE_A = make_pod("za").node_selector(zone="a").obj()
ZONE_B = make_pod("zb").node_selector(zone="b").obj()
TOLERANT = make_pod("za").node_selector(zone="a").toleration("dedicated", "gpu", "NoSchedule").obj()
FREE = make_pod("h").obj()
HELD = make_pod("h").label(hold="yes").obj()
NODE_A = make_node("a").label(zone="a").obj()
NODE_B = make_node("b").label(zone="b").obj()


@attrs.frozen
class At:
    """Where one pod starts (see ``kubesched.testing.place``)."""

    pod: Pod
    where: str
    rejected_by: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    attempts: int = 1


def active(pod: Pod) -> At:
    return At(pod, "active")


def backoff(pod: Pod, attempts: int = 1) -> At:
    return At(pod, "backoff", attempts=attempts)


def unschedulable(pod: Pod, *plugins: str) -> At:
    return At(pod, "unschedulable", rejected_by=plugins)


def pending(pod: Pod, *plugins: str) -> At:
    return At(pod, "unschedulable", pending=plugins)


def gated(pod: Pod) -> At:
    return At(pod, "gated")


def in_flight(pod: Pod) -> At:
    return At(pod, "in flight")


Op = Callable[[SchedulingQueue, VirtualClock], object]


def at(seconds: float) -> Op:
    return lambda queue, clock: clock.advance_to(seconds)


def add(pod: Pod) -> Op:
    return lambda queue, clock: queue.add(pod)


def update(old: Pod, new: Pod) -> Op:
    return lambda queue, clock: queue.update(old, new)


def delete(pod: Pod) -> Op:
    return lambda queue, clock: queue.delete(pod)


def activate(pod: Pod) -> Op:
    return lambda queue, clock: queue.activate([pod])


def event(cluster_event: ClusterEvent, old: Any = None, new: Any = None) -> Op:
    return lambda queue, clock: queue.move_all_to_active_or_backoff(cluster_event, old, new)


def flush_backoff() -> Op:
    return lambda queue, clock: queue.flush_backoff_completed()


def flush_leftover() -> Op:
    return lambda queue, clock: queue.flush_unschedulable_leftover()


CASES: list[tuple[str, Sequence[At], Sequence[Op], dict[str, list[str]]]] = [
    # -- Add ----------------------------------------------------------------------------------------------------
    ("add: a new pod goes to activeQ", [], [add(POD)], {"active": ["p"]}),
    ("add: activeQ pops by priority", [active(POD)], [add(HIGH)], {"active": ["high", "p"]}),
    ("add: a pod PreEnqueue gates waits among the gated pods", [], [add(GATED)], {"gated": ["g"]}),
    ("add: a pod already in activeQ is there once", [active(POD)], [add(POD)], {"active": ["p"]}),
    ("add: a pod in backoffQ leaves it for activeQ", [backoff(POD)], [add(POD)], {"active": ["p"]}),
    ("add: an unschedulable pod leaves them for activeQ", [unschedulable(POD, "NodeAffinity")], [add(POD)],
     {"active": ["p"]}),
    ("add: a gated pod stays in backoffQ", [backoff(UNGATED)], [add(GATED)], {"backoff": ["g"]}),
    # -- Update -------------------------------------------------------------------------------------------------
    ("update: a pod in activeQ is re-sorted", [active(POD), active(OTHER)], [update(OTHER, OTHER_HIGH)],
     {"active": ["o", "p"]}),
    ("update: a pod in backoffQ stays there", [backoff(POD)], [update(POD, POD_RELABELLED)], {"backoff": ["p"]}),
    ("update: a pod in flight stays in flight", [in_flight(POD)], [update(POD, POD_RELABELLED)],
     {"in flight": ["p"]}),
    ("update: a change no rejector registered leaves the pod", [unschedulable(POD, "NodeAffinity")],
     [at(2), update(POD, POD_RELABELLED)], {"unschedulable": ["p"]}),
    ("update: a change the rejector's hint queues moves the pod after its backoff",
     [unschedulable(ZONE_A, "TaintToleration")], [at(2), update(ZONE_A, TOLERANT)], {"active": ["za"]}),
    ("update: ... to backoffQ within its backoff", [unschedulable(ZONE_A, "TaintToleration")],
     [at(0.5), update(ZONE_A, TOLERANT)], {"backoff": ["za"]}),
    ("update: removing the last gate releases a never-attempted pod to activeQ", [gated(GATED)],
     [update(GATED, UNGATED)], {"active": ["g"]}),
    ("update: another change leaves a gated pod gated", [gated(GATED)], [update(GATED, GATED_RELABELLED)],
     {"gated": ["g"]}),
    ("update: a pod in no queue goes to activeQ", [], [update(POD, POD_RELABELLED)], {"active": ["p"]}),
    ("update: a gated pod in no queue goes to the gated pods", [], [update(GATED, GATED_RELABELLED)],
     {"gated": ["g"]}),
    # -- Delete -------------------------------------------------------------------------------------------------
    ("delete: from activeQ", [active(POD), active(OTHER)], [delete(POD)], {"active": ["o"]}),
    ("delete: from backoffQ", [backoff(POD), active(OTHER)], [delete(POD)], {"active": ["o"]}),
    ("delete: from the unschedulable pods", [unschedulable(POD, "NodeAffinity")], [delete(POD)], {}),
    ("delete: from the gated pods", [gated(GATED)], [delete(GATED)], {}),
    ("delete: a pod in no queue changes nothing", [backoff(OTHER)], [delete(POD)], {"backoff": ["o"]}),
    # -- Activate -----------------------------------------------------------------------------------------------
    ("activate: an unschedulable pod goes to activeQ", [unschedulable(POD, "NodeAffinity")], [activate(POD)],
     {"active": ["p"]}),
    ("activate: a pod in backoffQ goes to activeQ", [backoff(POD)], [activate(POD)], {"active": ["p"]}),
    ("activate: a gated pod stays gated", [gated(GATED)], [activate(GATED)], {"gated": ["g"]}),
    ("activate: a pod in no queue is ignored", [], [activate(POD)], {}),
    ("activate: a pod in flight stays in flight", [in_flight(POD)], [activate(POD)], {"in flight": ["p"]}),
    # -- MoveAllToActiveOrBackoffQueue --------------------------------------------------------------------------
    ("event: Queue from the rejector's hint moves the pod to activeQ after its backoff",
     [unschedulable(ZONE_A, "NodeAffinity")], [at(2), event(NODE_ADD, None, NODE_A)], {"active": ["za"]}),
    ("event: ... to backoffQ within its backoff", [unschedulable(ZONE_A, "NodeAffinity")],
     [at(0.5), event(NODE_ADD, None, NODE_A)], {"backoff": ["za"]}),
    ("event: QueueSkip from the rejector's hint leaves the pod", [unschedulable(ZONE_A, "NodeAffinity")],
     [at(2), event(NODE_ADD, None, NODE_B)], {"unschedulable": ["za"]}),
    ("event: an event the rejector did not register leaves the pod", [unschedulable(ZONE_A, "NodeAffinity")],
     [at(2), event(ASSIGNED_POD_DELETE, make_pod("x").node("a").obj(), None)], {"unschedulable": ["za"]}),
    ("event: registering Node/Add brings taint updates, always Queue", [unschedulable(ZONE_A, "NodeAffinity")],
     [at(2), event(NODE_TAINT_UPDATE, NODE_B, NODE_B)], {"active": ["za"]}),
    ("event: Queue from a Pending plugin skips the backoff", [pending(ZONE_A, "NodeAffinity")],
     [at(0.5), event(NODE_ADD, None, NODE_A)], {"active": ["za"]}),
    ("event: only the pods the hint queues move",
     [unschedulable(ZONE_A, "NodeAffinity"), unschedulable(ZONE_B, "NodeAffinity")],
     [at(2), event(NODE_ADD, None, NODE_A)], {"active": ["za"], "unschedulable": ["zb"]}),
    ("event: a pod SchedulingGates gates stays gated", [gated(GATED)], [at(2), event(NODE_ADD, None, NODE_A)],
     {"gated": ["g"]}),
    ("event: a pod a custom plugin gated after an attempt serves its backoff when released",
     [unschedulable(FREE, "NodeAffinity")],
     [update(FREE, HELD), at(0.2), activate(HELD), at(0.5), update(HELD, FREE)], {"backoff": ["h"]}),
    ("event: ... and PreEnqueue lets it into activeQ when its backoff ends",
     [unschedulable(FREE, "NodeAffinity")],
     [update(FREE, HELD), at(0.2), activate(HELD), at(0.5), update(HELD, FREE), at(1), flush_backoff()],
     {"active": ["h"]}),
    ("event: ... or back to the gated pods if it gates it again",
     [unschedulable(FREE, "NodeAffinity")],
     [update(FREE, HELD), at(0.2), activate(HELD), event(LABEL_UPDATE, FREE, FREE), at(1), flush_backoff()],
     {"gated": ["h"]}),
    # -- flushBackoffQCompleted ---------------------------------------------------------------------------------
    ("backoff: a pod stays in backoffQ before its backoff ends", [backoff(POD)], [at(0.9), flush_backoff()],
     {"backoff": ["p"]}),
    ("backoff: it moves to activeQ when its backoff ends", [backoff(POD)], [at(1), flush_backoff()],
     {"active": ["p"]}),
    ("backoff: the backoff doubles with each attempt", [backoff(POD, attempts=3)], [at(3.9), flush_backoff()],
     {"backoff": ["p"]}),
    ("backoff: ... to 4 s after the third", [backoff(POD, attempts=3)], [at(4), flush_backoff()],
     {"active": ["p"]}),
    ("backoff: pods leave in expiry order", [backoff(POD, attempts=2), backoff(OTHER)], [at(1), flush_backoff()],
     {"active": ["o"], "backoff": ["p"]}),
    ("backoff: a pod PreEnqueue gates when its backoff ends waits gated", [backoff(UNGATED)],
     [update(UNGATED, GATED), at(1), flush_backoff()], {"gated": ["g"]}),
    # -- flushUnschedulablePodsLeftover -------------------------------------------------------------------------
    ("leftover: a pod unschedulable for 5 minutes stays", [unschedulable(POD, "NodeAffinity")],
     [at(300), flush_leftover()], {"unschedulable": ["p"]}),
    ("leftover: past 5 minutes it is retried", [unschedulable(POD, "NodeAffinity")], [at(300.5), flush_leftover()],
     {"active": ["p"]}),
    ("leftover: a gated pod runs PreEnqueue again and stays gated", [gated(GATED)], [at(301), flush_leftover()],
     {"gated": ["g"]}),
]

# Where pods can be placed only in this order: an event places a pod in backoffQ after it was unschedulable (pods
# in flight would see it), and a pod is popped only from the head of activeQ.
ORDER = ("gated", "unschedulable", "backoff", "in flight", "active")


@pytest.mark.parametrize(("name", "pods", "ops", "want"), CASES, ids=[case[0] for case in CASES])
def test_queue(name: str, pods: Sequence[At], ops: Sequence[Op], want: dict[str, list[str]]) -> None:
    """Each case: the pods placed at time 0, the operations run in order, then each sub-queue holds the pods
    listed (activeQ in pop order, backoffQ by expiry), and no other."""
    clock = VirtualClock()
    queue = new_queue("SchedulingGates", "NodeAffinity", "TaintToleration", Hold, clock=clock)
    for start in sorted(pods, key=lambda a: ORDER.index(a.where)):
        place(queue, start.pod, start.where, rejected_by=start.rejected_by, pending=start.pending,
              attempts=start.attempts)
    for op in ops:
        op(queue, clock)
    assert contents(queue) == want

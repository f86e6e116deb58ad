"""kube-scheduler v1.32's SchedulingGates tables (pkg/scheduler/framework/plugins/schedulinggates/
scheduling_gates_test.go: TestPreEnqueue, Test_isSchedulableAfterPodChange), case by case with kube's names and
expected values, written with the public testing kit only.

Not expressible with the kit (not translated): Test_isSchedulableAfterPodChange "backoff-wrong-old-object" and
"backoff-wrong-new-object". They pass a string where Go's interface{} wants a *v1.Pod and expect the type
assertion's error; the runtime hands kubesched's hints typed Pod objects, so there is no such input to give. (Later
versions keep one of the rows below as TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated.)
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint, Status
from kubesched.testing import hint, like, make_pod, new_queue, place, plugin_framework, where

NAME = "SchedulingGates"
PRE_ENQUEUE_CASES = [
    pytest.param(make_pod("p"), like(None), "active", id="pod does not carry scheduling gates"),
    pytest.param(make_pod("p").scheduling_gates("foo", "bar"),
                 like(Status.unresolvable("waiting for scheduling gates: [foo bar]")), "gated",
                 id="pod carries scheduling gates"),
]


@pytest.mark.parametrize(("pod", "want", "queue"), PRE_ENQUEUE_CASES)
def test_pre_enqueue(pod: Any, want: Any, queue: str) -> None:
    """PreEnqueue lets a pod without gates through and holds one with gates, naming them."""
    pre_enqueue = plugin_framework(NAME).hook(NAME, "pre_enqueue")
    assert pre_enqueue is not None
    assert pre_enqueue(pod.obj()) == want


@pytest.mark.parametrize(("pod", "want", "queue"), PRE_ENQUEUE_CASES)
def test_pre_enqueue_in_the_queue(pod: Any, want: Any, queue: str) -> None:
    """The scheduling queue puts a pod PreEnqueue holds among the gated pods, the others in activeQ."""
    scheduling_queue = new_queue(NAME)
    place(scheduling_queue, pod, queue)
    assert where(scheduling_queue, pod) == queue


GATES_ELIMINATED = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)


@pytest.mark.parametrize(("pod", "old", "new", "want"), [
    pytest.param(make_pod("p").scheduling_gates("foo", "bar").uid("uid0"),
                 make_pod("p1").scheduling_gates("foo", "bar").uid("uid1"),
                 make_pod("p1").scheduling_gates("foo").uid("uid1"), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-other-pod-updated"),
    pytest.param(make_pod("p").scheduling_gates("foo"), make_pod("p").scheduling_gates("foo"), make_pod("p"),
                 QueueingHint.QUEUE, id="queue-on-the-unsched-pod-updated"),
])
def test_is_schedulable_after_pod_change(pod: Any, old: Any, new: Any, want: QueueingHint) -> None:
    """The removal of the last gate requeues the gated pod itself, and no other."""
    assert hint(NAME, pod, GATES_ELIMINATED, old.obj(), new.obj()) is want

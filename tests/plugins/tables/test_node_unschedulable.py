"""kube-scheduler v1.32's NodeUnschedulable tables (pkg/scheduler/framework/plugins/nodeunschedulable/
node_unschedulable_test.go: TestNodeUnschedulable, TestIsSchedulableAfterNodeChange,
TestIsSchedulableAfterPodTolerationChange), case by case with kube's names and expected values, written with the
public testing kit only.

Not expressible with the kit (not translated): "error-wrong-new-object" and "error-wrong-old-object" of both hint
tables. They pass a string where Go's interface{} wants a *v1.Node or *v1.Pod and expect the type assertion's
error; the runtime hands kubesched's hints typed objects, so there is no such input to give.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import TAINT_NODE_UNSCHEDULABLE
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint, Status
from kubesched.testing import PATHS, hint, like, make_node, make_pod, plugin_framework

NAME = "NodeUnschedulable"
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "node", "want"), [
    pytest.param(make_pod("p"), make_node("node").unschedulable(),
                 like(Status.unresolvable("node(s) were unschedulable")),
                 id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"),
    pytest.param(make_pod("p"), make_node("node").unschedulable(False), like(None), id="Schedule pod to normal node"),
    pytest.param(make_pod("p").toleration(TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule"),
                 make_node("node").unschedulable(), like(None),
                 id="Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)"),
])
def test_filter(path: Any, pod: Any, node: Any, want: Any) -> None:
    """Filter rejects a cordoned node unless the pod tolerates node.kubernetes.io/unschedulable, on both paths."""
    assert plugin_framework(NAME, path=path, nodes=[node]).run_filter(pod) == {"node": want}


NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
NOT_READY = "node.kubernetes.io/not-ready"


@pytest.mark.parametrize(("event", "old", "new", "want"), [
    pytest.param(NODE_ADD, None, make_node("node").unschedulable(), QUEUE_SKIP,
                 id="skip-queue-on-unschedulable-node-added"),
    pytest.param(NODE_ADD, None, make_node("node"), QUEUE, id="queue-on-schedulable-node-added"),
    pytest.param(NODE_UPDATE, make_node("node").unschedulable(),
                 make_node("node").unschedulable().taint(NOT_READY, effect="NoExecute"), QUEUE_SKIP,
                 id="skip-unrelated-change-unschedulable-true"),
    pytest.param(NODE_UPDATE, make_node("node"), make_node("node").taint(NOT_READY, effect="NoExecute"), QUEUE_SKIP,
                 id="skip-unrelated-change-unschedulable-false"),
    pytest.param(NODE_UPDATE, make_node("node").unschedulable(), make_node("node"), QUEUE,
                 id="queue-on-unschedulable-field-change"),
])
def test_is_schedulable_after_node_change(event: ClusterEvent, old: Any, new: Any, want: QueueingHint) -> None:
    """A node requeues the pod when it is added schedulable or gets uncordoned, not for other changes."""
    assert hint(NAME, make_pod("p"), event, old and old.obj(), new.obj()) is want


TOLERATION_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS)


def tolerating(uid: str, key: str) -> Any:
    """A pod with this uid tolerating taint ``key`` (kube's st.MakePod().Toleration: Exists, NoSchedule)."""
    return make_pod("p").uid(uid).toleration(key, effect="NoSchedule", operator="Exists")


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(make_pod("p").uid("different-uid"), tolerating("different-uid", TAINT_NODE_UNSCHEDULABLE),
                 QUEUE_SKIP, id="skip-different-pod-update"),
    pytest.param(make_pod("p").uid("uid"), tolerating("uid", TAINT_NODE_UNSCHEDULABLE), QUEUE,
                 id="queue-when-the-unsched-pod-gets-toleration"),
    pytest.param(make_pod("p").uid("uid"), tolerating("uid", "unrelated-key"), QUEUE_SKIP,
                 id="skip-when-the-unsched-pod-gets-unrelated-toleration"),
])
def test_is_schedulable_after_pod_toleration_change(old: Any, new: Any, want: QueueingHint) -> None:
    """The pod's own new toleration of node.kubernetes.io/unschedulable requeues it; other changes do not."""
    assert hint(NAME, make_pod("p").uid("uid"), TOLERATION_UPDATE, old.obj(), new.obj()) is want

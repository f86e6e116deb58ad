"""kube-scheduler v1.32's TaintToleration tables (pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration_test.go: TestTaintTolerationScore, TestTaintTolerationFilter, TestIsSchedulableAfterNodeChange,
Test_isSchedulableAfterPodTolerationChange), case by case with kube's names and expected values, written with the
public testing kit only.

Not expressible with the kit (not translated):
- "backoff-wrong-new-object" and "backoff-wrong-old-object" of both hint tables: they pass a string where Go's
  interface{} wants a *v1.Node or *v1.Pod and expect the type assertion's error; the runtime hands kubesched's
  hints typed objects, so there is no such input to give.
- Later kube-scheduler versions add cases for the Gt/Lt toleration operators (TaintTolerationComparisonOperators,
  after v1.32) and reword the Filter message to "node(s) had untolerated taint(s)"; v1.32's message names the
  taint, as the rows below expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint, Status
from kubesched.testing import PATHS, hint, like, make_node, make_pod, plugin_framework

NAME = "TaintToleration"
NO, PREFER = "NoSchedule", "PreferNoSchedule"
FITS = like(None)


def untolerated(key: str, value: str) -> Any:
    """Filter's rejection naming the first untolerated taint, in v1.32's words."""
    return like(Status.unresolvable(f"node(s) had untolerated taint {{{key}: {value}}}"))


# (pod, nodes, each node's score after NormalizeScore)
SCORE_CASES = [
    pytest.param(make_pod("pod1").toleration("foo", "bar", PREFER),
                 [make_node("nodeA").taint("foo", "bar", PREFER), make_node("nodeB").taint("foo", "blah", PREFER)],
                 {"nodeA": 100, "nodeB": 0},
                 id="node with taints tolerated by the pod, gets a higher score than those node with intolerable "
                    "taints"),
    pytest.param(make_pod("pod1").toleration("cpu-type", "arm64", PREFER).toleration("disk-type", "ssd", PREFER),
                 [make_node("nodeA"), make_node("nodeB").taint("cpu-type", "arm64", PREFER),
                  make_node("nodeC").taint("cpu-type", "arm64", PREFER).taint("disk-type", "ssd", PREFER)],
                 {"nodeA": 100, "nodeB": 100, "nodeC": 100},
                 id="the nodes that all of their taints are tolerated by the pod, get the same score, no matter how "
                    "many tolerable taints a node has"),
    pytest.param(make_pod("pod1").toleration("foo", "bar", PREFER),
                 [make_node("nodeA"), make_node("nodeB").taint("cpu-type", "arm64", PREFER),
                  make_node("nodeC").taint("cpu-type", "arm64", PREFER).taint("disk-type", "ssd", PREFER)],
                 {"nodeA": 100, "nodeB": 50, "nodeC": 0},
                 id="the more intolerable taints a node has, the lower score it gets."),
    pytest.param(make_pod("pod1").toleration("cpu-type", "arm64", NO).toleration("disk-type", "ssd", NO),
                 [make_node("nodeA"), make_node("nodeB").taint("cpu-type", "arm64", NO),
                  make_node("nodeC").taint("cpu-type", "arm64", PREFER).taint("disk-type", "ssd", PREFER)],
                 {"nodeA": 100, "nodeB": 100, "nodeC": 0},
                 id="only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations "
                    "priority function"),
    pytest.param(make_pod("pod1"), [make_node("nodeA"), make_node("nodeB").taint("cpu-type", "arm64", PREFER)],
                 {"nodeA": 100, "nodeB": 0},
                 id="Default behaviour No taints and tolerations, lands on node with no taints"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "nodes", "want"), SCORE_CASES)
def test_score(path: Any, pod: Any, nodes: list[Any], want: dict[str, int]) -> None:
    """PreScore, Score and the reverse NormalizeScore give every node kube's score, the same on both paths."""
    assert plugin_framework(NAME, path=path, nodes=nodes).run_score(pod) == want


# (pod, node, Filter's status)
FILTER_CASES = [
    pytest.param(make_pod("pod1"), make_node("nodeA").taint("dedicated", "user1", NO),
                 untolerated("dedicated", "user1"),
                 id="A pod having no tolerations can't be scheduled onto a node with nonempty taints"),
    pytest.param(make_pod("pod1").toleration("dedicated", "user1", NO),
                 make_node("nodeA").taint("dedicated", "user1", NO), FITS,
                 id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule"),
    pytest.param(make_pod("pod1").toleration("dedicated", "user2", NO),
                 make_node("nodeA").taint("dedicated", "user1", NO), untolerated("dedicated", "user1"),
                 id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule"),
    pytest.param(make_pod("pod1").toleration("foo", effect=NO, operator="Exists"),
                 make_node("nodeA").taint("foo", "bar", NO), FITS,
                 id="A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the "
                    "taints on the node"),
    pytest.param(make_pod("pod1").toleration("dedicated", "user2", NO).toleration("foo", effect=NO, operator="Exists"),
                 make_node("nodeA").taint("dedicated", "user2", NO).taint("foo", "bar", NO), FITS,
                 id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can "
                    "be scheduled onto the node"),
    pytest.param(make_pod("pod1").toleration("foo", "bar", PREFER), make_node("nodeA").taint("foo", "bar", NO),
                 untolerated("foo", "bar"),
                 id="A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect "
                    "doesn't match, can't be scheduled onto the node"),
    pytest.param(make_pod("pod1").toleration("foo", "bar"), make_node("nodeA").taint("foo", "bar", NO), FITS,
                 id="The pod has a toleration that keys and values match the taint on the node, the effect of "
                    "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node"),
    pytest.param(make_pod("pod1").toleration("dedicated", "user2", NO),
                 make_node("nodeA").taint("dedicated", "user1", PREFER), FITS,
                 id="The pod has a toleration that key and value don't match the taint on the node, but the effect of "
                    "taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
    pytest.param(make_pod("pod1"), make_node("nodeA").taint("dedicated", "user1", PREFER), FITS,
                 id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
                    "scheduled onto the node"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "node", "want"), FILTER_CASES)
def test_filter(path: Any, pod: Any, node: Any, want: Any) -> None:
    """Filter rejects a node with a NoSchedule taint the pod does not tolerate, naming the taint, on both paths."""
    assert plugin_framework(NAME, path=path, nodes=[node]).run_filter(pod) == {"nodeA": want}


NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
TOLERATION_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_TOLERATIONS)
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
USER2 = make_pod("pod1").toleration("dedicated", "user2", NO)


@pytest.mark.parametrize(("event", "old", "new", "want"), [
    pytest.param(NODE_ADD, None, make_node("nodeA").taint("dedicated", "user1", NO), QUEUE_SKIP,
                 id="skip-queue-on-untoleratedtaint-node-added"),
    pytest.param(NODE_ADD, None, make_node("nodeA").taint("dedicated", "user2", NO), QUEUE,
                 id="queue-on-toleratedtaint-node-added"),
    pytest.param(TAINT_UPDATE, make_node("nodeA").taint("dedicated", "user1", NO),
                 make_node("nodeA").taint("dedicated", "user1", NO).taint("dedicated", "user3", NO), QUEUE_SKIP,
                 id="skip-unrelated-change"),
    pytest.param(TAINT_UPDATE, make_node("nodeA").taint("dedicated", "user1", NO),
                 make_node("nodeA").taint("dedicated", "user2", NO), QUEUE, id="queue-on-taint-change"),
])
def test_is_schedulable_after_node_change(event: ClusterEvent, old: Any, new: Any, want: QueueingHint) -> None:
    """A node added or retainted requeues the pod only when the pod now tolerates all its hard taints."""
    assert hint(NAME, USER2, event, old and old.obj(), new.obj()) is want


@pytest.mark.parametrize(("pod", "old", "new", "want"), [
    pytest.param(make_pod("pod-1", "ns-1").uid("uid0"), make_pod("pod-2", "ns-1").uid("uid1"),
                 make_pod("pod-2", "ns-1").uid("uid1").toleration("foo", effect=NO), QUEUE_SKIP,
                 id="skip-updates-other-pod"),
    pytest.param(make_pod("pod-1", "ns-1"), make_pod("pod-1", "ns-1"),
                 make_pod("pod-1", "ns-1").toleration("foo", effect=NO), QUEUE, id="queue-on-toleration-added"),
])
def test_is_schedulable_after_pod_toleration_change(pod: Any, old: Any, new: Any, want: QueueingHint) -> None:
    """New tolerations requeue the pod that got them, and no other."""
    assert hint(NAME, pod, TOLERATION_UPDATE, old.obj(), new.obj()) is want

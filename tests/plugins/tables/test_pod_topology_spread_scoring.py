"""kube-scheduler's PodTopologySpread Score tables and queueing hints (pkg/scheduler/framework/plugins/
podtopologyspread: scoring_test.go, plugin_test.go), case by case over the public testing kit; PreFilter and Filter
are in test_pod_topology_spread.py. Ids are kube's case names.

kube's pods live in namespace "" by default; here they live in "default". The kit's nodes carry
``kubernetes.io/hostname`` set to their name, as kube's nodes in these tables do; a node kube gives no hostname label
loses it here.

TestPreScoreStateEmptyNodes compares PreScore's private state (constraints, pair counts, normalizing weights,
ignored nodes), which the public kit cannot read. With no pods every count is 0, so what that state decides is each
node's raw score, the sum of maxSkew-1 over the constraints whose topology key the node has, and which nodes Score
ignores. Its rows hold kube's expected constraints (key and maxSkew) and ``IgnoredNodes`` and check Score and
NormalizeScore against what kube's Score and NormalizeScore make of them.

Not translated:
- "matchLabelKeys ignored when feature gate disabled" (TestPodTopologySpreadScore): kubesched runs v1.32's
  default feature gates, under which matchLabelKeys is merged into the selector.
- The selectors, pair counts and normalizing weights of TestPreScoreStateEmptyNodes (see above).
- BenchmarkTestPodTopologySpreadScore: a benchmark, not a table.

plugin_test.go is stored as v1.31's. v1.32 made the node hint finer (kubernetes PR 127478): a node update that keeps
every topology key and value and the taints no longer requeues. One v1.31 case expects otherwise, "node that match
topologySpreadConstraints adds non-related label" (Queue); it is here with v1.32's QueueSkip, its id prefixed
"v1.32: ". The real kube-scheduler v1.32 agrees: a pod every node rejected for skew was not retried when a node
that has both topology keys lost an unrelated label, and was retried when that node's zone value changed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubesched.api import Node, Service, WorkloadController
from kubesched.api import ObjectMeta as Meta
from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, QueueingHint
from kubesched.testing import PATHS, NodeBuilder, PodBuilder, hint, plugin_framework
from tests.plugins.tables.topology import EXISTS, built_nodes, built_pods, node, pod, pod_event, selector

PTS = "PodTopologySpread"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SA = "ScheduleAnyway"
FOO, BAR = selector(EXISTS("foo")), selector(EXISTS("bar"))
LIST = {"defaulting-type": "List"}
SYSTEM = {"defaulting-type": "System"}
SKIP = "Skip"
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def spreader(**labels: str) -> PodBuilder:
    """The incoming pod ``p``, labelled foo="" unless other labels are given."""
    return pod("p", **(labels or {"foo": ""}))


def foo(name: str, on: str, ns: str = "default") -> PodBuilder:
    """A pod labelled foo="" on node ``on``."""
    return pod(name, on, ns, foo="")


def foos(**per_node: int) -> list[PodBuilder]:
    """``count`` pods labelled foo="" on each node (``a=2`` puts p-a1, p-a2 on node-a)."""
    return [foo(f"p-{n}{i + 1}", f"node-{n}") for n, count in per_node.items() for i in range(count)]


def nodes(*names: str, **labels: str) -> list[NodeBuilder]:
    """Nodes node-<name> with these labels."""
    return [node(f"node-{n}", **labels) for n in names]


def zoned(**zones: str) -> list[NodeBuilder]:
    """Nodes node-<name> in these zones (``a="zone1"``)."""
    return [node(f"node-{n}", zone=z) for n, z in zones.items()]


def rs(name: str, **labels: Any) -> WorkloadController:
    """A ReplicaSet in "default" selecting pods with the ``foo`` label (or as given)."""
    return WorkloadController("ReplicaSet", Meta(name=name, namespace="default"), labels.get("selector", FOO.obj()))


def tainted(built: NodeBuilder) -> NodeBuilder:
    """kube's ``taints``: node.kubernetes.io/unschedulable:NoSchedule."""
    return built.taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")


# -- TestPreScoreSkip ----------------------------------------------------------------------------------------------

PRE_SCORE_SKIP = [
    pytest.param(pod("p"), LIST, nodes("a", "b"), [], id="the pod doesn't have soft topology spread Constraints"),
    pytest.param(pod("p", foo="bar", baz="sup").owner("ReplicaSet", "rs2"),
                 {"defaulting-type": "List", "default-constraints": [
                     {"max-skew": 2, "topology-key": "planet", "when-unsatisfiable": SA}]},
                 [node("node-a", planet="mars")], [rs("rs1", selector=selector(EXISTS("tar")).obj())],
                 id="default constraints and a replicaset that doesn't match"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "args", "candidates", "controllers"), PRE_SCORE_SKIP)
def test_pre_score_skip(path: Any, incoming: PodBuilder, args: dict[str, Any], candidates: list[NodeBuilder],
                        controllers: list[WorkloadController]) -> None:
    """PreScore skips a pod with no ScheduleAnyway constraint of its own or by default."""
    fw = plugin_framework((PTS, args), path=path, nodes=built_nodes(candidates), controllers=controllers)
    state = CycleState()
    fw.run_score(incoming, state=state)
    assert PTS in state.skip_score_plugins


# -- TestPreScoreStateEmptyNodes -----------------------------------------------------------------------------------

def empty_cluster_scores(constraints: list[tuple[str, int]], ignored: set[str], candidates: list[Node]
                         ) -> dict[str, int]:
    """What kube's Score and NormalizeScore give each node from a PreScore state with these ScheduleAnyway
    constraints (topology key, maxSkew), every count 0, and these ignored nodes: the raw score sums maxSkew-1 over
    the constraints whose key the node has; ignored nodes get 0, the others ``100 * (max + min - raw) / max``."""
    raw = {n.name: sum(skew - 1 for key, skew in constraints if key in n.labels)
           for n in candidates if n.name not in ignored}
    top, least = max(raw.values(), default=0), min(raw.values(), default=0)
    return {n.name: 0 if n.name in ignored else 100 if top == 0 else 100 * (top + least - raw[n.name]) // top
            for n in candidates}


ABX_ZONES = zoned(a="zone1", b="zone1", x="zone2")
ZONE_1 = [("zone", 1)]
FOO_ZONES = [node("node-a", zone="zone1", foo=""), node("node-b", zone="zone1", foo=""), node("node-x", zone="zone2")]

EMPTY_NODES = [
    pytest.param(spreader().spread(1, "zone", SA, selector=FOO).spread(1, HOSTNAME, SA, selector=FOO), ABX_ZONES,
                 LIST, [], [("zone", 1), (HOSTNAME, 1)], set(), id="normal case"),
    pytest.param(spreader().spread(1, "zone", SA, selector=None), ABX_ZONES, LIST, [], [("zone", 1)], set(),
                 id="null selector"),
    pytest.param(spreader().spread(1, "zone", SA, selector=FOO).spread(1, HOSTNAME, SA, selector=BAR),
                 [*zoned(a="zone1", b="zone1"), node("node-x")], LIST, [], [("zone", 1), (HOSTNAME, 1)],
                 {"node-x"}, id="node-x doesn't have label zone"),
    pytest.param(pod("p", foo="tar", baz="sup").owner("ReplicaSet", "rs1"),
                 [*nodes("a", "b", **{ZONE: "mars"}), *nodes("c", "d")], SYSTEM,
                 [rs("rs1")], [(HOSTNAME, 3), (ZONE, 5)], set(), id="system default constraints and a replicaset"),
    pytest.param(pod("p", foo="tar", baz="sup").owner("ReplicaSet", "rs1"),
                 [node("node-a", rack="rack1", planet="mars")],
                 {"defaulting-type": "List", "default-constraints": [
                     {"max-skew": 1, "topology-key": HOSTNAME, "when-unsatisfiable": SA},
                     {"max-skew": 2, "topology-key": "rack", "when-unsatisfiable": "DoNotSchedule"},
                     {"max-skew": 2, "topology-key": "planet", "when-unsatisfiable": SA}]},
                 [rs("rs1")], [(HOSTNAME, 1), ("planet", 2)], set(), id="default constraints and a replicaset"),
    pytest.param(pod("p", foo="bar", baz="sup").owner("ReplicaSet", "rs1").spread(1, "zone", selector=BAR)
                 .spread(2, "planet", SA, baz="sup"), [node("node-a", planet="mars", galaxy="andromeda")],
                 {"defaulting-type": "List", "default-constraints": [
                     {"max-skew": 2, "topology-key": "galaxy", "when-unsatisfiable": SA}]},
                 [rs("rs1")], [("planet", 2)], set(),
                 id="default constraints and a replicaset, but pod has constraints"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", SA, selector=BAR), FOO_ZONES, LIST, [], ZONE_1,
                 set(), id="NodeAffinityPolicy honored with labelSelectors"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", SA, selector=BAR, node_affinity_policy="Ignore"),
                 FOO_ZONES, LIST, [], ZONE_1, set(), id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "zone", SA, selector=BAR), FOO_ZONES, LIST, [],
                 ZONE_1, set(), id="NodeAffinityPolicy honored with nodeAffinity"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "zone", SA, selector=BAR,
                                                               node_affinity_policy="Ignore"),
                 FOO_ZONES, LIST, [], ZONE_1, set(), id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(spreader().spread(1, "zone", SA, selector=BAR, node_taints_policy="Honor"),
                 [*FOO_ZONES[:2], tainted(node("node-x", zone="zone2"))], LIST, [], ZONE_1, set(),
                 id="NodeTaintsPolicy honored"),
    pytest.param(spreader().spread(1, "zone", SA, selector=BAR),
                 [*FOO_ZONES[:2], tainted(node("node-x", zone="zone2"))], LIST, [], ZONE_1, set(),
                 id="NodeTaintsPolicy ignored"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "candidates", "args", "controllers", "constraints", "ignored"), EMPTY_NODES)
def test_pre_score_state_empty_nodes(path: Any, incoming: PodBuilder, candidates: list[NodeBuilder],
                                     args: dict[str, Any], controllers: list[WorkloadController],
                                     constraints: list[tuple[str, int]], ignored: set[str]) -> None:
    """With no pods, PreScore scores, and the scores are what kube's expected PreScore state gives."""
    fw = plugin_framework((PTS, args), path=path, nodes=built_nodes(candidates), controllers=controllers)
    state = CycleState()
    scores = fw.run_score(incoming, state=state)
    assert PTS not in state.skip_score_plugins
    assert scores == empty_cluster_scores(constraints, ignored, built_nodes(candidates))


# -- TestPodTopologySpreadScore ------------------------------------------------------------------------------------

ON_HOST = spreader().spread(1, HOSTNAME, SA, selector=FOO)
ON_ZONE_AND_HOST = spreader().spread(1, "zone", SA, selector=FOO).spread(1, HOSTNAME, SA, selector=FOO)
SPLIT = spreader(foo="", bar="").spread(1, "zone", SA, selector=FOO).spread(1, HOSTNAME, SA, selector=BAR)
ABCD = nodes("a", "b", "c", "d")
#: Matching pods spread 2/1/0/3 over node-a..node-d.
SPREAD_2103 = foos(a=2, b=1, d=3)
#: Matching pods spread 4/3/2/1 over node-a..node-d.
SPREAD_4321 = foos(a=4, b=3, c=2, d=1)
#: Matching pods spread 4/2/1/3 over node-a, node-b, node-x, node-y.
SPREAD_4213 = foos(a=4, b=2, x=1, y=3)
#: Pods labelled foo on node-a, foo and bar on node-b, foo and bar apart on node-y.
SPLIT_PODS = [foo("p-a1", "node-a"), pod("p-b1", "node-b", foo="", bar=""), foo("p-y1", "node-y"),
              pod("p-y2", "node-y", bar="")]
ABXY_ZONES = zoned(a="zone1", b="zone1", x="zone2", y="zone2")
ABC_NODE = [node(f"node-{n}", node=f"node-{n}") for n in "abc"]
ABC_FOO = [node("node-a", node="node-a", foo=""), node("node-b", node="node-b", foo=""), node("node-c", node="node-c")]
ABC_TAINTED = [*ABC_NODE[:2], tainted(node("node-c", node="node-c"))]
POLICY_PODS = foos(a=2, b=1, c=1)
ABCD_ZONES = zoned(a="zone1", b="zone1", c="zone2", d="zone2")

SCORE = [
    pytest.param(ON_HOST, [], nodes("a", "b"), None, [], {"node-a": 100, "node-b": 100},
                 id="one constraint on node, no existing pods"),
    pytest.param(ON_HOST, foos(a=2, b=1), nodes("a", "b"), ["node-a"], [], {"node-a": 100},
                 id="one constraint on node, only one node is candidate"),
    pytest.param(ON_HOST, foos(a=1, b=1), nodes("a", "b"), None, [], {"node-a": 100, "node-b": 100},
                 id="one constraint on node, all nodes have the same number of matching pods"),
    pytest.param(ON_HOST, SPREAD_2103, ABCD, None, [], {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
                 id="one constraint on node, all 4 nodes are candidates"),
    pytest.param(spreader().spread(1, HOSTNAME, SA, selector=None), SPREAD_2103, ABCD, None, [],
                 {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
                 id="one constraint on node, null selector"),
    pytest.param(spreader().spread(2, HOSTNAME, SA, selector=FOO), SPREAD_2103, ABCD, None, [],
                 {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
                 id="one constraint on node, all 4 nodes are candidates, maxSkew=2"),
    pytest.param(spreader().spread(3, HOSTNAME, SA, selector=FOO), SPREAD_4321, ABCD, None, [],
                 {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
                 id="one constraint on node, all 4 nodes are candidates, maxSkew=3"),
    pytest.param(spreader(), SPREAD_4321, ABCD, None, [Service(Meta(name="svc", namespace="default"), {"foo": ""})],
                 {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
                 id="system defaulting, nodes don't have zone, pods match service"),
    pytest.param(ON_HOST, SPREAD_4213, nodes("a", "b", "x", "y"), ["node-a", "node-b", "node-x"], [],
                 {"node-a": 33, "node-b": 83, "node-x": 100},
                 id="one constraint on node, 3 out of 4 nodes are candidates"),
    pytest.param(ON_HOST, SPREAD_4213, [node("node-a"), node("node-b", n="node-b").unlabel(HOSTNAME), node("node-x"),
                                        node("node-y")],
                 ["node-a", "node-b", "node-x"], [], {"node-a": 16, "node-b": 0, "node-x": 100},
                 id="one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key"),
    pytest.param(spreader().spread(1, "zone", SA, selector=FOO), SPREAD_4213, ABXY_ZONES,
                 ["node-a", "node-b", "node-x"], [], {"node-a": 75, "node-b": 75, "node-x": 100},
                 id="one constraint on zone, 3 out of 4 nodes are candidates"),
    pytest.param(ON_ZONE_AND_HOST, foos(a=2, b=1, x=2, y=4), ABXY_ZONES, ["node-a", "node-x"], [],
                 {"node-a": 100, "node-x": 63}, id="two Constraints on zone and node, 2 out of 4 nodes are candidates"),
    pytest.param(SPLIT, SPLIT_PODS, ABXY_ZONES, None, [],
                 {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
                 id="two Constraints on zone and node, with different labelSelectors"),
    pytest.param(SPLIT, [pod("p-b1", "node-b", bar=""), foo("p-x1", "node-x"), pod("p-y1", "node-y", foo="", bar="")],
                 ABXY_ZONES, None, [], {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
                 id="two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods"),
    pytest.param(SPLIT, SPLIT_PODS, ABXY_ZONES, ["node-a", "node-b", "node-x"], [],
                 {"node-a": 50, "node-b": 25, "node-x": 100},
                 id="two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
                    "candidates"),
    pytest.param(ON_HOST, [foo("p-a1", "node-a", "ns1"), foo("p-a2", "node-a"), *foos(b=2)], nodes("a", "b"), None, [],
                 {"node-a": 100, "node-b": 33}, id="existing pods in a different namespace do not count"),
    pytest.param(ON_HOST, [foo("p-a", "node-a").terminating(datetime(2024, 1, 1, tzinfo=UTC)),
                           foo("p-b", "node-b")],
                 nodes("a", "b"), None, [], {"node-a": 100, "node-b": 0}, id="terminating Pods should be excluded"),
    pytest.param(spreader().spread(2, "node", SA, selector=FOO, min_domains=10), foos(a=2, b=2, c=1), ABC_NODE, None,
                 [], {"node-a": 75, "node-b": 75, "node-c": 100}, id="minDomains has no effect when ScheduleAnyway"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", SA, selector=FOO), POLICY_PODS, ABC_FOO, None, [],
                 {"node-a": 0, "node-b": 33, "node-c": 100}, id="NodeAffinityPolicy honoed with labelSelectors"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", SA, selector=FOO, node_affinity_policy="Ignore"),
                 POLICY_PODS, ABC_FOO, None, [], {"node-a": 66, "node-b": 100, "node-c": 100},
                 id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", SA, selector=FOO), POLICY_PODS, ABC_FOO,
                 None, [], {"node-a": 0, "node-b": 33, "node-c": 100},
                 id="NodeAffinityPolicy honoed with nodeAffinity"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", SA, selector=FOO,
                                                               node_affinity_policy="Ignore"),
                 POLICY_PODS, ABC_FOO, None, [], {"node-a": 66, "node-b": 100, "node-c": 100},
                 id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(spreader().spread(1, "node", SA, selector=FOO, node_taints_policy="Honor"), POLICY_PODS, ABC_TAINTED,
                 None, [], {"node-a": 0, "node-b": 33, "node-c": 100}, id="NodeTaintsPolicy honored"),
    pytest.param(spreader().spread(1, "node", SA, selector=FOO), POLICY_PODS, ABC_TAINTED, None, [],
                 {"node-a": 66, "node-b": 100, "node-c": 100}, id="NodeTaintsPolicy ignored"),
    pytest.param(spreader(foo="", bar="").spread(1, "zone", SA, selector=selector(), match_label_keys=["foo"])
                 .spread(1, HOSTNAME, SA, selector=selector(), match_label_keys=["bar"]),
                 [foo("p-a1", "node-a"), pod("p-b1", "node-b", foo="", bar=""), foo("p-y1", "node-c"),
                  pod("p-y2", "node-c", bar="")], ABCD_ZONES, None, [],
                 {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
                 id="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty"),
    pytest.param(spreader(foo="", bar="", baz="").spread(1, "zone", SA, selector=FOO)
                 .spread(1, HOSTNAME, SA, selector=BAR, match_label_keys=["baz"]),
                 [foo("p-a1", "node-a"), pod("p-b1", "node-b", foo="", bar="", baz=""), foo("p-c1", "node-c"),
                  pod("p-c2", "node-c", bar=""), pod("p-d3", "node-c", bar="", baz="")], ABCD_ZONES, None, [],
                 {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
                 id="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "pods", "all_nodes", "candidates", "services", "want"), SCORE)
def test_pod_topology_spread_score(path: Any, incoming: PodBuilder, pods: list[PodBuilder],
                                   all_nodes: list[NodeBuilder], candidates: list[str] | None,
                                   services: list[Service], want: dict[str, int]) -> None:
    """PreScore, Score and NormalizeScore over the candidate nodes (every node unless given), System defaulting."""
    fw = plugin_framework((PTS, SYSTEM), path=path, nodes=built_nodes(all_nodes), pods=built_pods(pods),
                          services=services)
    assert fw.run_score(incoming, nodes=candidates) == want


# -- plugin_test.go: Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterPodChange ---------------------------

ON_ZONE = spreader().spread(1, "zone", selector=FOO)
ON_ZONE_AND_NODE = spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO)


def node_a(**labels: str) -> NodeBuilder:
    """node-a with these labels."""
    return node("node-a", **labels)


NODE_CHANGES = [
    pytest.param(ON_ZONE, node_a(zone="zone1"), node_a(zone="zone2"), QUEUE,
                 id="node updates label which matches topologyKey"),
    pytest.param(ON_ZONE, node_a(foo="bar1"), node_a(foo="bar2"), QUEUE_SKIP,
                 id="node that doesn't match topologySpreadConstraints updates non-related label"),
    pytest.param(ON_ZONE_AND_NODE, node_a(zone="zone1", node="node1", foo="bar"), node_a(zone="zone1", node="node1"),
                 QUEUE_SKIP, id="v1.32: node that match topologySpreadConstraints adds non-related label"),
    pytest.param(ON_ZONE, None, node_a(foo="bar"), QUEUE_SKIP, id="create node with non-related labels"),
    pytest.param(ON_ZONE, None, node_a(zone="zone1"), QUEUE, id="create node with related labels"),
    pytest.param(ON_ZONE, node_a(foo="bar"), None, QUEUE_SKIP, id="delete node with non-related labels"),
    pytest.param(ON_ZONE, node_a(zone="zone1"), None, QUEUE, id="delete node with related labels"),
    pytest.param(ON_ZONE_AND_NODE, None, node_a(zone="zone1"), QUEUE_SKIP,
                 id="add node with related labels that only match one of topologySpreadConstraints"),
    pytest.param(ON_ZONE_AND_NODE, None, node_a(zone="zone1", node="node1"), QUEUE,
                 id="add node with related labels that match all topologySpreadConstraints"),
    pytest.param(ON_ZONE_AND_NODE, node_a(zone="zone1"), node_a(zone="zone1"), QUEUE_SKIP,
                 id="update node with related labels that only match one of topologySpreadConstraints"),
    pytest.param(ON_ZONE_AND_NODE, node_a(zone="zone1", node="node1"), node_a(zone="zone1", node="node2"), QUEUE,
                 id="update node with related labels that match all topologySpreadConstraints"),
]


@pytest.mark.parametrize(("rejected", "old", "new", "want"), NODE_CHANGES)
def test_is_schedulable_after_node_change(rejected: PodBuilder, old: NodeBuilder | None, new: NodeBuilder | None,
                                          want: QueueingHint) -> None:
    """A node added or deleted requeues when it has every topology key; an update when a key or its value
    changes."""
    action = ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE_NODE_LABEL
    assert hint(PTS, rejected, ClusterEvent(EventResource.NODE, action), old and old.obj(), new and new.obj()) is want


def other(*, bound: bool = True, ns: str = "default", **labels: str) -> PodBuilder:
    """The changed pod ``other``, bound to fake-node unless ``bound=False``."""
    return pod("other", "fake-node" if bound else "", ns, **labels)


SPLIT_ZONE_NODE = spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR)

POD_CHANGES = [
    pytest.param(ON_ZONE, None, other(foo=""), QUEUE,
                 id="add pod with labels match topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, None, other(bound=False, foo=""), QUEUE_SKIP, id="add un-scheduled pod"),
    pytest.param(ON_ZONE, other(bound=False, bar=""), other(bound=False, foo=""), QUEUE_SKIP,
                 id="update un-scheduled pod"),
    pytest.param(ON_ZONE, other(bound=False, foo=""), None, QUEUE_SKIP, id="delete un-scheduled pod"),
    pytest.param(ON_ZONE, None, other(ns="fake-namespace", foo=""), QUEUE_SKIP, id="add pod with different namespace"),
    pytest.param(ON_ZONE, None, other(bar=""), QUEUE_SKIP,
                 id="add pod with labels don't match topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(foo=""), None, QUEUE,
                 id="delete pod with labels that match topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(bar=""), None, QUEUE_SKIP,
                 id="delete pod with labels that don't match topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(foo="", bar="bar1"), other(foo="", bar="bar2"), QUEUE_SKIP,
                 id="update pod's non-related label"),
    pytest.param(ON_ZONE, other(), other(foo=""), QUEUE,
                 id="add pod's label that matches topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(foo=""), other(), QUEUE,
                 id="delete pod label that matches topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(foo="foo1"), other(foo="foo2"), QUEUE_SKIP,
                 id="change pod's label that matches topologySpreadConstraints selector"),
    pytest.param(ON_ZONE, other(foo="", bar="bar1"), other(foo="", bar="bar2"), QUEUE_SKIP,
                 id="change pod's label that doesn't match topologySpreadConstraints selector"),
    pytest.param(SPLIT_ZONE_NODE, other(foo=""), other(foo="", bar="bar2"), QUEUE,
                 id="add pod's label that matches topologySpreadConstraints selector with multi "
                    "topologySpreadConstraints"),
    pytest.param(SPLIT_ZONE_NODE, other(foo=""), other(foo="", baz=""), QUEUE_SKIP,
                 id="change pod's label that doesn't match topologySpreadConstraints selector with multi "
                    "topologySpreadConstraints"),
    pytest.param(SPLIT_ZONE_NODE, other(foo="", bar=""), other(foo="", bar="bar2"), QUEUE_SKIP,
                 id="change pod's label that match topologySpreadConstraints selector with multi "
                    "topologySpreadConstraints"),
]


@pytest.mark.parametrize(("rejected", "old", "new", "want"), POD_CHANGES)
def test_is_schedulable_after_pod_change(rejected: PodBuilder, old: PodBuilder | None, new: PodBuilder | None,
                                         want: QueueingHint) -> None:
    """A bound pod of the namespace added, deleted or relabelled requeues when it enters or leaves a constraint's
    selector."""
    assert hint(PTS, rejected, pod_event(old, new), old and old.obj(), new and new.obj()) is want

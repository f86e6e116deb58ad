"""kube-scheduler's PodTopologySpread tables for PreFilter, its AddPod/RemovePod extensions and Filter
(pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go), case by case over the public testing kit;
Score and the queueing hints are in test_pod_topology_spread_scoring.py. Ids are kube's case names.

kube's pods live in namespace "" by default; here they live in "default". The kit's nodes also carry
``kubernetes.io/hostname``, which no constraint here uses.

TestPreFilterState, TestPreFilterStateAddPod and TestPreFilterStateRemovePod compare PreFilter's private state
(``TpPairToMatchNum``, ``TpKeyToCriticalPaths``, ``TpKeyToDomainsNum``), which the public kit cannot read. Each of
their rows holds kube's expected state (:class:`Spread`: a constraint's matching pods per domain) and checks what
that state decides: Filter on every node must answer as kube's Filter answers from that state (skew = the node's
domain count + the pod's self-match - the global minimum, or 0 when fewer domains than minDomains). In every row
kube's first critical path is the minimum of the counts, so the state's minimum is derived from the counts.

Not translated:
- "matchLabelKeys ignored when feature gate disabled" (TestPreFilterState): kubesched runs v1.32's default
  feature gates, under which matchLabelKeys is merged into the selector. kube's cases named "feature gate
  disabled" or "... NodeInclusionPolicy disabled" that set no policy, or a nil selector, expect what the defaults give
  either way and are translated.
- TestPreFilterStateAddPod/RemovePod's comparison of the critical paths themselves: kubesched keeps the exact
  minimum instead (docs/architecture.md, "Deliberate differences"); in these rows the two agree.
- BenchmarkFilter: a benchmark, not a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from kubesched.api import Node, Service
from kubesched.api import ObjectMeta as Meta
from kubesched.framework import Code, CycleState, NodeBatch, PodInfo, StateNotFoundError, Status
from kubesched.testing import PATHS, NodeBuilder, PodBuilder, like, make_node, make_pod, plugin_framework
from tests.plugins.tables.topology import EXISTS, built_nodes, built_pods, node, pod, selector

PTS = "PodTopologySpread"
SKEW = like(Status.unschedulable("node(s) didn't match pod topology spread constraints"))
MISSING = like(Status.unresolvable("node(s) didn't match pod topology spread constraints (missing required label)"))
OK, NO, NEVER = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
FOO, BAR = selector(EXISTS("foo")), selector(EXISTS("bar"))
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
LIST = {"defaulting-type": "List"}
MAX_INT32 = 2**31 - 1


@dataclass(frozen=True)
class Spread:
    """One DoNotSchedule constraint of kube's expected PreFilter state: its topology key, matching pods per domain
    (``TpPairToMatchNum``; its domains are ``TpKeyToDomainsNum``), maxSkew, minDomains, and whether the incoming pod
    matches the constraint's selector itself."""

    key: str
    counts: dict[str, int] = field(default_factory=dict)
    max_skew: int = 1
    self_match: bool = True
    min_domains: int = 1

    def verdict(self, labels: dict[str, str]) -> Any:
        """kube's Filter for a node with these labels under this constraint: None, SKEW or MISSING."""
        value = labels.get(self.key)
        if value is None:
            return MISSING
        least = 0 if len(self.counts) < self.min_domains else min(self.counts.values(), default=MAX_INT32)
        skew = self.counts.get(value, 0) + int(self.self_match) - least
        return SKEW if skew > self.max_skew else None


def implied(state: list[Spread], nodes: list[Node]) -> dict[str, Any]:
    """What kube's Filter answers on each node from this PreFilter state: the first constraint that rejects."""
    verdicts = {}
    for n in nodes:
        found = (s.verdict(dict(n.labels)) for s in state)
        verdicts[n.name] = next((v for v in found if v is not None), None)
    return verdicts


def foo(name: str, on: str, ns: str = "default") -> PodBuilder:
    """A pod labelled foo="" on node ``on``."""
    return pod(name, on, ns, foo="")


def spreader(**labels: str) -> PodBuilder:
    """The incoming pod ``p``, labelled foo="" unless other labels are given."""
    return pod("p", **(labels or {"foo": ""}))


def zn(name: str, zone: str, **labels: str) -> NodeBuilder:
    """A node in ``zone`` also labelled ``node: <its name>``."""
    return node(name, zone=zone, node=name, **labels)


def nn(name: str, **labels: str) -> NodeBuilder:
    """A node labelled ``node: <its name>``."""
    return node(name, node=name, **labels)


def tainted(built: NodeBuilder) -> NodeBuilder:
    """kube's ``taints``: node.kubernetes.io/unschedulable:NoSchedule."""
    return built.taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")


def tolerating(built: PodBuilder) -> PodBuilder:
    """The pod tolerates kube's ``taints``."""
    return built.toleration(UNSCHEDULABLE_TAINT, effect="NoSchedule", operator="Exists")


def service(**selected: str) -> Service:
    """A Service in "default" selecting these labels."""
    return Service(Meta(name="svc", namespace="default"), selected)


ABXY = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]
ABY = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")]
ABX = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")]
#: Matching pods spread 2/1/0/2 over node-a, node-b, node-x, node-y.
SPREAD_21_02 = [foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-y1", "node-y"),
                foo("p-y2", "node-y")]
#: Matching pods spread 2/1/0/4.
SPREAD_21_04 = [*SPREAD_21_02, foo("p-y3", "node-y"), foo("p-y4", "node-y")]
#: Pods labelled bar on node-a (1) and node-b (2), and an unlabelled one on node-c.
BAR_12 = [pod("p-a", "node-a", bar=""), pod("p-b", "node-b", bar=""), pod("p-c", "node-b", bar=""),
          pod("p-d", "node-c")]
#: Pods labelled foo=a spread 2/1/0/2.
FOO_A = [pod(n, on, foo="a") for n, on in
         (("p-a1", "node-a"), ("p-a2", "node-a"), ("p-b1", "node-b"), ("p-y1", "node-y"), ("p-y2", "node-y"))]
AFFINITY_NODES = [nn("node-a", foo=""), nn("node-b", foo=""), nn("node-c", bar="")]
TAINT_NODES = [nn("node-a"), nn("node-b"), tainted(nn("node-c", bar=""))]
ZONE_32 = [Spread("zone", {"zone1": 3, "zone2": 2})]
ZONE_34_NODE_2104 = [Spread("zone", {"zone1": 3, "zone2": 4}),
                     Spread("node", {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4})]
NODE_12 = [Spread("node", {"node-a": 1, "node-b": 2}, self_match=False)]
NODE_120 = [Spread("node", {"node-a": 1, "node-b": 2, "node-c": 0}, self_match=False)]
DEFAULTS = {"defaulting-type": "List", "default-constraints": [
    {"max-skew": 3, "topology-key": "node", "when-unsatisfiable": "DoNotSchedule"},
    {"max-skew": 2, "topology-key": "node", "when-unsatisfiable": "ScheduleAnyway"},
    {"max-skew": 5, "topology-key": "rack", "when-unsatisfiable": "DoNotSchedule"}]}


def one_default(max_skew: int, when: str) -> dict[str, Any]:
    """List defaulting with one default constraint on "node"."""
    return {"defaulting-type": "List", "default-constraints": [
        {"max-skew": max_skew, "topology-key": "node", "when-unsatisfiable": when}]}


# -- TestPreFilterState --------------------------------------------------------------------------------------------

PRE_FILTER_STATE = [
    pytest.param(spreader().spread(5, "zone", selector=selector(("foo", "In", "bar"))), ABXY, [], LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 0}, max_skew=5, self_match=False)],
                 id="clean cluster with one spreadConstraint"),
    pytest.param(spreader().spread(1, "zone", selector=FOO), ABXY, SPREAD_21_02, LIST, [], ZONE_32,
                 id="normal case with one spreadConstraint"),
    pytest.param(spreader().spread(1, "zone", selector=None), ABXY, SPREAD_21_02, LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 0}, self_match=False)],
                 id="normal case with null label selector"),
    pytest.param(spreader().spread(1, "zone", selector=FOO), [*ABXY, zn("node-o", "zone3"), zn("node-p", "zone3")],
                 SPREAD_21_02, LIST, [], [Spread("zone", {"zone1": 3, "zone2": 2, "zone3": 0})],
                 id="normal case with one spreadConstraint, on a 3-zone cluster"),
    pytest.param(spreader().spread(1, "zone", selector=FOO), ABXY,
                 [foo("p-a1", "node-a"), foo("p-a2", "node-a", "ns1"), foo("p-b1", "node-b"),
                  foo("p-y1", "node-y", "ns2"), foo("p-y2", "node-y")], LIST, [],
                 [Spread("zone", {"zone1": 2, "zone2": 1})], id="namespace mismatch doesn't count"),
    pytest.param(spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO), ABXY, SPREAD_21_04, LIST,
                 [], ZONE_34_NODE_2104, id="normal case with two spreadConstraints"),
    pytest.param(spreader().spread(1, "zone", "ScheduleAnyway", selector=FOO).spread(1, "zone", selector=FOO)
                 .spread(1, "node", "ScheduleAnyway", selector=FOO).spread(1, "node", selector=FOO),
                 ABY, SPREAD_21_04, LIST, [],
                 [Spread("zone", {"zone1": 3, "zone2": 4}), Spread("node", {"node-a": 2, "node-b": 1, "node-y": 4})],
                 id="soft spreadConstraints should be bypassed"),
    pytest.param(spreader(foo="", bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR), ABY,
                 [foo("p-a", "node-a"), pod("p-b", "node-b", bar="")], LIST, [],
                 [Spread("zone", {"zone1": 1, "zone2": 0}), Spread("node", {"node-a": 0, "node-b": 1, "node-y": 0})],
                 id="different labelSelectors - simple version"),
    pytest.param(spreader(foo="", bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR), ABY,
                 [foo("p-a1", "node-a"), pod("p-a2", "node-a", foo="", bar=""), foo("p-b1", "node-b"),
                  foo("p-y1", "node-y"), pod("p-y2", "node-y", foo="", bar=""), foo("p-y3", "node-y"),
                  pod("p-y4", "node-y", foo="", bar="")], LIST, [],
                 [Spread("zone", {"zone1": 3, "zone2": 4}), Spread("node", {"node-a": 1, "node-b": 0, "node-y": 2})],
                 id="different labelSelectors - complex pods"),
    pytest.param(spreader().node_affinity_in("node", "node-x", operator="NotIn").spread(1, "zone", selector=FOO)
                 .spread(1, "node", selector=FOO), ABXY, SPREAD_21_04, LIST, [],
                 [Spread("zone", {"zone1": 3, "zone2": 4}), Spread("node", {"node-a": 2, "node-b": 1, "node-y": 4})],
                 id="two spreadConstraints, and with podAffinity"),
    pytest.param(spreader(foo="bar", baz="kar"), [], [], DEFAULTS, [service(foo="bar")],
                 [Spread("node", max_skew=3), Spread("rack", max_skew=5)], id="default constraints and a service"),
    pytest.param(spreader(foo="bar"), [], [], one_default(3, "DoNotSchedule"), [service(baz="kep")], None,
                 id="default constraints and a service that doesn't match"),
    pytest.param(spreader(foo="bar", baz="tar").spread(1, "zone", baz="tar").spread(2, "planet", "ScheduleAnyway",
                                                                                    fot="rok"),
                 [], [], one_default(2, "DoNotSchedule"), [service(foo="bar")], [Spread("zone")],
                 id="default constraints and a service, but pod has constraints"),
    pytest.param(spreader(foo="bar"), [], [], one_default(2, "ScheduleAnyway"), [service(foo="bar")], None,
                 id="default soft constraints and a service"),
    pytest.param(spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO), ABXY, SPREAD_21_04, LIST,
                 [], ZONE_34_NODE_2104, id="TpKeyToDomainsNum is calculated when MinDomains is enabled"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", selector=BAR), AFFINITY_NODES, BAR_12, LIST, [],
                 NODE_12, id="feature gate disabled with NodeAffinityPolicy"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", selector=BAR), AFFINITY_NODES, BAR_12, LIST, [],
                 NODE_12, id="NodeAffinityPolicy honored with labelSelectors"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", selector=BAR, node_affinity_policy="Ignore"),
                 AFFINITY_NODES, BAR_12, LIST, [], NODE_120, id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", selector=BAR), AFFINITY_NODES,
                 [pod("p-a", "node-a", bar=""), pod("p-c", "node-b", bar=""), pod("p-d", "node-b", bar=""),
                  pod("p-e", "node-c")], LIST, [], NODE_12, id="NodeAffinityPolicy honored with nodeAffinity"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", selector=BAR, node_affinity_policy="Ignore"),
                 AFFINITY_NODES, BAR_12, LIST, [], NODE_120, id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(spreader().spread(1, "node", selector=BAR), TAINT_NODES, BAR_12, LIST, [], NODE_120,
                 id="feature gate disabled with NodeTaintsPolicy"),
    pytest.param(spreader().spread(1, "node", selector=BAR), TAINT_NODES, BAR_12, LIST, [], NODE_120,
                 id="NodeTaintsPolicy ignored"),
    pytest.param(spreader().spread(1, "node", selector=BAR, node_taints_policy="Honor"), TAINT_NODES, BAR_12, LIST,
                 [], NODE_12, id="NodeTaintsPolicy honored"),
    pytest.param(tolerating(spreader()).spread(1, "node", selector=BAR, node_taints_policy="Honor"), TAINT_NODES,
                 BAR_12, LIST, [], NODE_120, id="NodeTaintsPolicy honored with tolerated taints"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO)
                 .spread(1, "node", selector=FOO, node_affinity_policy="Ignore"),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
                 [foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")], LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 1}), Spread("node", {"node-a": 0, "node-b": 2, "node-x": 1})],
                 id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore"),
    pytest.param(spreader().spread(1, "zone", selector=FOO, node_taints_policy="Honor").spread(1, "node", selector=FOO),
                 [zn("node-a", "zone1", foo=""), tainted(zn("node-b", "zone1")), zn("node-x", "zone2", foo="")],
                 [foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")], LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 1}), Spread("node", {"node-a": 0, "node-b": 2, "node-x": 1})],
                 id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO),
                 [zn("node-a", "zone1"), tainted(zn("node-b", "zone1", foo="")), zn("node-x", "zone2", foo=""),
                  zn("node-y", "zone2")],
                 [foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-x1", "node-x"), foo("p-y1", "node-y")],
                 LIST, [], [Spread("zone", {"zone1": 0, "zone2": 1}), Spread("node", {"node-b": 0, "node-x": 1})],
                 id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO, node_affinity_policy="Ignore")
                 .spread(1, "node", selector=FOO, node_taints_policy="Honor"),
                 [zn("node-a", "zone1"), tainted(zn("node-b", "zone1", foo="")), zn("node-x", "zone2", foo=""),
                  zn("node-y", "zone2", foo="")],
                 [foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-x1", "node-x"), foo("p-x2", "node-x"),
                  foo("p-y1", "node-y")],
                 LIST, [], [Spread("zone", {"zone1": 2, "zone2": 3}), Spread("node", {"node-x": 2, "node-y": 1})],
                 id="two node inclusion Constraints, zone: ignore/ignore, node: honor/honor"),
    pytest.param(spreader(foo="", bar="a").spread(1, "zone", selector=FOO, match_label_keys=["bar"]), ABXY,
                 [foo("p-a1", "node-a"), pod("p-a2", "node-a", foo="", bar="a"), foo("p-b1", "node-b"),
                  pod("p-y1", "node-y", foo="", bar="a"), pod("p-y2", "node-y", bar="")], LIST, [],
                 [Spread("zone", {"zone1": 1, "zone2": 1})],
                 id="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty"),
    pytest.param(spreader(foo="a").spread(1, "zone", selector=selector(), match_label_keys=["foo"]), ABXY, FOO_A,
                 LIST, [], ZONE_32, id="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty"),
    pytest.param(spreader().spread(1, "zone", selector=None, match_label_keys=["bar"]), ABXY, FOO_A, LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 0}, self_match=False)],
                 id="key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled"),
    pytest.param(spreader().spread(1, "zone", selector=None, match_label_keys=["bar"]), ABXY, FOO_A, LIST, [],
                 [Spread("zone", {"zone1": 0, "zone2": 0}, self_match=False)],
                 id="no pod is matched when LabelSelector is nil when feature gate disabled"),
    pytest.param(spreader().spread(1, "zone", selector=FOO, match_label_keys=["bar"]), ABXY, FOO_A, LIST, [],
                 ZONE_32, id="key in matchLabelKeys is ignored when it isn't exist in pod.labels"),
    pytest.param(spreader(), [zn("node-a", "zone1")], [], LIST, [], None, id="skip if not specified"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "nodes", "pods", "args", "services", "state"), PRE_FILTER_STATE)
def test_pre_filter_state(path: Any, incoming: PodBuilder, nodes: list[NodeBuilder], pods: list[PodBuilder],
                          args: dict[str, Any], services: list[Service], state: list[Spread] | None) -> None:
    """PreFilter skips where kube's does (``state`` None), else Filter answers on every node as kube's expected
    PreFilter state decides."""
    fw = plugin_framework((PTS, args), path=path, nodes=built_nodes(nodes), pods=built_pods(pods), services=services)
    cycle = CycleState()
    got = fw.run_filter(incoming, cycle)
    assert (PTS in cycle.skip_filter_plugins) is (state is None)
    assert got == implied(state or [], built_nodes(nodes))


# -- TestPreFilterStateAddPod, TestPreFilterStateRemovePod ---------------------------------------------------------

AX = [zn("node-a", "zone1"), zn("node-x", "zone2")]
AB_ZONE1 = [zn("node-a", "zone1"), zn("node-b", "zone1")]
POLICY_NODES = [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")]
TAINTED_A = [tainted(zn("node-a", "zone1")), zn("node-b", "zone2")]
ON_NODE = spreader().spread(1, "node", selector=FOO)
ON_ZONE = spreader().spread(1, "zone", selector=FOO)
ON_BOTH = spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO)
SPLIT = spreader(foo="", bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR)
AWAY_FROM_BAR = spreader().node_affinity_in("foo", "bar", operator="NotIn").spread(1, "zone", selector=FOO)


def zoned_foo(name: str, on: str, zone: str) -> PodBuilder:
    """A pod labelled foo="" and zone=``zone`` on node ``on``."""
    return pod(name, on, foo="", zone=zone)


A2_B1 = [zoned_foo("p-a2", "node-a", "zone1"), zoned_foo("p-b1", "node-b", "zone2")]
A1_B2 = [zoned_foo("p-a1", "node-a", "zone1"), zoned_foo("p-b2", "node-b", "zone2")]
ZONE2_ONLY = [Spread("zone", {"zone2": 1})]
ZONE_12 = [Spread("zone", {"zone1": 1, "zone2": 2})]

ADD_POD = [
    pytest.param(ON_NODE, AB_ZONE1, [], foo("p-a1", "node-a"), [Spread("node", {"node-a": 1, "node-b": 0})],
                 id="node a and b both impact current min match"),
    pytest.param(ON_NODE, AB_ZONE1, [foo("p-b1", "node-b")], foo("p-a1", "node-a"),
                 [Spread("node", {"node-a": 1, "node-b": 1})], id="only node a impacts current min match"),
    pytest.param(ON_NODE, AB_ZONE1, [foo("p-b1", "node-b")], foo("p-a1", "node-a", "ns1"),
                 [Spread("node", {"node-a": 0, "node-b": 1})],
                 id="add a pod in a different namespace doesn't change topologyKeyToMinPodsMap"),
    pytest.param(ON_NODE, AB_ZONE1, [foo("p-b1", "node-b")], foo("p-b2", "node-b"),
                 [Spread("node", {"node-a": 0, "node-b": 2})],
                 id="add pod on non-critical node won't trigger re-calculation"),
    pytest.param(ON_BOTH, AX, [], foo("p-a1", "node-a"),
                 [Spread("zone", {"zone1": 1, "zone2": 0}), Spread("node", {"node-a": 1, "node-x": 0})],
                 id="node a and x both impact topologyKeyToMinPodsMap on zone and node"),
    pytest.param(ON_BOTH, AX, [foo("p-x1", "node-x")], foo("p-a1", "node-a"),
                 [Spread("zone", {"zone1": 1, "zone2": 1}), Spread("node", {"node-a": 1, "node-x": 1})],
                 id="only node a impacts topologyKeyToMinPodsMap on zone and node"),
    pytest.param(ON_BOTH, ABX, [foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-x1", "node-x")],
                 foo("p-a1", "node-a"),
                 [Spread("zone", {"zone1": 3, "zone2": 1}), Spread("node", {"node-a": 1, "node-b": 2, "node-x": 1})],
                 id="node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone"),
    pytest.param(SPLIT, ABX, [pod("p-b1", "node-b", foo="", bar=""), pod("p-x1", "node-x", foo="", bar=""),
                              pod("p-x2", "node-x", bar="")], foo("p-a1", "node-a"),
                 [Spread("zone", {"zone1": 2, "zone2": 1}), Spread("node", {"node-a": 0, "node-b": 1, "node-x": 2})],
                 id="Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone"),
    pytest.param(SPLIT, ABX, [pod("p-b1", "node-b", bar=""), pod("p-x1", "node-x", foo="", bar=""),
                              pod("p-x2", "node-x", bar="")], pod("p-a1", "node-a", foo="", bar=""),
                 [Spread("zone", {"zone1": 1, "zone2": 1}), Spread("node", {"node-a": 1, "node-b": 1, "node-x": 2})],
                 id="Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both zone "
                    "and node"),
    pytest.param(AWAY_FROM_BAR, POLICY_NODES, A2_B1, zoned_foo("p-a1", "node-a", "zone1"), ZONE2_ONLY,
                 id="add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled"),
    pytest.param(AWAY_FROM_BAR, POLICY_NODES, A2_B1, zoned_foo("p-a1", "node-a", "zone1"), ZONE2_ONLY,
                 id="add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled"),
    pytest.param(ON_ZONE, POLICY_NODES, A1_B2, zoned_foo("p-b1", "node-b", "zone2"), ZONE_12,
                 id="add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled"),
    pytest.param(ON_ZONE, POLICY_NODES, A1_B2, zoned_foo("p-b1", "node-b", "zone2"), ZONE_12,
                 id="add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled"),
    pytest.param(ON_ZONE, POLICY_NODES, A1_B2, pod("p-b1", "node-b", zone="zone2"),
                 [Spread("zone", {"zone1": 1, "zone2": 1})],
                 id="add a label selector not matched pod when with NodeInclusionPolicy enabled"),
    pytest.param(ON_ZONE, TAINTED_A, A1_B2, zoned_foo("p-b1", "node-b", "zone2"), ZONE_12,
                 id="add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled"),
    pytest.param(tolerating(spreader()).spread(1, "zone", selector=FOO), TAINTED_A, A1_B2,
                 zoned_foo("p-b1", "node-b", "zone2"), ZONE_12,
                 id="add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled"),
]

A1_B1_X1 = [foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-x1", "node-x")]
A1_B1_X1_Y1 = [*A1_B1_X1, foo("p-y1", "node-y")]
#: Matching pods spread 2/1/2 over node-a, node-b, node-x.
A2_B1_X2 = [foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-x1", "node-x"),
            foo("p-x2", "node-x")]

REMOVE_POD = [
    pytest.param(ON_ZONE, ABX, A1_B1_X1, A1_B1_X1[0], [Spread("zone", {"zone1": 1, "zone2": 1})],
                 id="one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged"),
    pytest.param(ON_ZONE, ABXY, A1_B1_X1_Y1, A1_B1_X1_Y1[0], [Spread("zone", {"zone1": 1, "zone2": 2})],
                 id="one spreadConstraint on node, topologyKeyToMinPodsMap changed"),
    pytest.param(ON_ZONE, ABXY, [pod("p-a0", "node-a", bar=""), *A1_B1_X1_Y1], pod("p-a0", "node-a", bar=""),
                 [Spread("zone", {"zone1": 2, "zone2": 2})], id="delete an irrelevant pod won't help"),
    pytest.param(ON_ZONE, ABXY, A1_B1_X1_Y1, pod("p-a0", "node-a", bar=""), [Spread("zone", {"zone1": 2, "zone2": 2})],
                 id="delete a non-existing pod won't help"),
    pytest.param(ON_BOTH, ABX, A2_B1_X2, A2_B1_X2[3],
                 [Spread("zone", {"zone1": 3, "zone2": 1}), Spread("node", {"node-a": 2, "node-b": 1, "node-x": 1})],
                 id="two spreadConstraints"),
    pytest.param(AWAY_FROM_BAR, POLICY_NODES, A2_B1, zoned_foo("p-a1", "node-a", "zone1"), ZONE2_ONLY,
                 id="remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled"),
    pytest.param(AWAY_FROM_BAR, POLICY_NODES, A2_B1, zoned_foo("p-a1", "node-a", "zone1"), ZONE2_ONLY,
                 id="remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled"),
    pytest.param(ON_ZONE, POLICY_NODES, A1_B2, zoned_foo("p-b1", "node-b", "zone2"),
                 [Spread("zone", {"zone1": 1, "zone2": 0})],
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled"),
    pytest.param(ON_ZONE, POLICY_NODES, A1_B2, zoned_foo("p-b1", "node-b", "zone2"),
                 [Spread("zone", {"zone1": 1, "zone2": 0})],
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled"),
]


def filter_after(path: Any, incoming: PodBuilder, nodes: list[NodeBuilder], pods: list[PodBuilder],
                 changed: PodBuilder, added: bool) -> dict[str, Any]:
    """Filter on every node after PreFilter (on ``path``) and the AddPod (or RemovePod) extension for ``changed`` on
    its node, through the framework's runners."""
    fw = plugin_framework((PTS, LIST), nodes=built_nodes(nodes), pods=built_pods(pods))
    preemptor, pod_info = incoming.obj(), PodInfo.of(changed.obj())
    snapshot = fw.handle.snapshot
    infos = snapshot.list()
    state = CycleState()
    batch = NodeBatch.of(infos, snapshot.columns) if path == "batch" else None
    assert fw.run_pre_filter_plugins(state, preemptor, infos, batch)[1] is None
    where = snapshot.get(pod_info.pod.spec.node_name)
    assert where is not None
    extension = fw.run_pre_filter_extension_add_pod if added else fw.run_pre_filter_extension_remove_pod
    assert extension(state, preemptor, pod_info, where) is None
    return {ni.name: fw.run_filter_plugins(state, preemptor, ni) for ni in infos}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "nodes", "pods", "added", "state"), ADD_POD)
def test_pre_filter_state_add_pod(path: Any, incoming: PodBuilder, nodes: list[NodeBuilder], pods: list[PodBuilder],
                                  added: PodBuilder, state: list[Spread]) -> None:
    """After AddPod, Filter answers on every node as kube's expected state decides."""
    assert filter_after(path, incoming, nodes, pods, added, True) == implied(state, built_nodes(nodes))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "nodes", "pods", "deleted", "state"), REMOVE_POD)
def test_pre_filter_state_remove_pod(path: Any, incoming: PodBuilder, nodes: list[NodeBuilder],
                                     pods: list[PodBuilder], deleted: PodBuilder, state: list[Spread]) -> None:
    """After RemovePod, Filter answers on every node as kube's expected state decides."""
    assert filter_after(path, incoming, nodes, pods, deleted, False) == implied(state, built_nodes(nodes))


# -- TestSingleConstraint, TestMultipleConstraints -----------------------------------------------------------------

AB_C = [nn("node-a"), nn("node-b"), nn("node-c")]
#: Matching pods spread 2/1/0/3 over node-a, node-b, node-x, node-y.
SPREAD_21_03 = [*SPREAD_21_02, foo("p-y3", "node-y")]
#: Matching pods spread 2/2/1 over node-a, node-b, node-c.
SPREAD_221 = [foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-b2", "node-b"),
              foo("p-c1", "node-c")]
#: Matching pods one each on node-a, node-b and node-y.
ONE_ON_ABY = [foo("p-b1", "node-a"), foo("p-b2", "node-b"), foo("p-y1", "node-y")]
FOO_NODES = [nn("node-a", foo=""), nn("node-b", foo=""), nn("node-x", foo=""), nn("node-y")]
TAINTED_Y = [nn("node-a", foo=""), nn("node-b", foo=""), nn("node-x", foo=""), tainted(nn("node-y"))]
A1_B1_Y1 = [foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-y1", "node-y")]

SINGLE_CONSTRAINT = [
    pytest.param(spreader().spread(1, "zone", selector=FOO), ABXY, [], [OK, OK, OK, OK], id="no existing pods"),
    pytest.param(spreader().spread(1, "zone", selector=BAR), ABXY, [], [OK, OK, OK, OK],
                 id="no existing pods, incoming pod doesn't match itself"),
    pytest.param(spreader().spread(1, "zone", selector=FOO), ABXY,
                 [foo("p-a1", "node-a", "ns1"), foo("p-b1", "node-a", "ns2"), foo("p-x1", "node-x"),
                  foo("p-y1", "node-y")], [OK, OK, NO, NO],
                 id="existing pods in a different namespace do not count"),
    pytest.param(spreader().spread(1, "zone", selector=None), ABXY, [foo("p-x1", "node-x"), foo("p-y1", "node-y")],
                 [OK, OK, OK, OK], id="existing pods do not match null selector"),
    pytest.param(spreader().spread(1, "zone", selector=FOO), ABXY, SPREAD_21_03, [OK, OK, OK, OK],
                 id="pods spread across zones as 3/3, all nodes fit"),
    pytest.param(spreader().spread(1, "zone", selector=FOO),
                 [zn("node-a", "zone1"), nn("node-b", zon="zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")],
                 [foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y")],
                 [OK, NEVER, NO, NO], id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b"),
    pytest.param(spreader().spread(1, "rack", selector=FOO), [zn("node-a", "zone1"), zn("node-x", "zone2")], [],
                 [NEVER, NEVER], id="pod cannot be scheduled as all nodes don't have label 'rack'"),
    pytest.param(spreader().spread(1, "node", selector=FOO), ABXY, SPREAD_21_03, [NO, NO, OK, NO],
                 id="pods spread across nodes as 2/1/0/3, only node-x fits"),
    pytest.param(spreader().spread(2, "node", selector=FOO), ABXY, SPREAD_21_03, [NO, OK, OK, NO],
                 id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit"),
    pytest.param(spreader(bar="").spread(1, "node", selector=FOO), ABXY, SPREAD_21_03, [NO, OK, OK, NO],
                 id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself"),
    pytest.param(spreader().node_affinity_in("node", "node-a", "node-y").spread(1, "node", selector=FOO), ABXY,
                 SPREAD_21_03, [OK, OK, OK, NO],
                 id="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits"),
    pytest.param(spreader().spread(1, "node", selector=FOO), [nn("node-a"), nn("node-b")],
                 [foo("p-a", "node-a").terminating(datetime(2024, 1, 1, tzinfo=UTC)), foo("p-b", "node-b")],
                 [OK, NO], id="terminating Pods should be excluded"),
    pytest.param(spreader().node_affinity_in("node", "node-b", operator="NotIn").spread(1, "zone", selector=FOO),
                 ABXY, [foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-y1", "node-y")], [OK, OK, NO, NO],
                 id="incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits"),
    pytest.param(spreader().spread(2, "node", selector=FOO, min_domains=4), AB_C, SPREAD_221, [NO, NO, OK],
                 id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then "
                    "the third node fits"),
    pytest.param(spreader().spread(2, "node", selector=FOO, min_domains=2), AB_C, SPREAD_221, [OK, OK, OK],
                 id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then "
                    "the all nodes fit"),
    pytest.param(spreader().spread(2, "zone", selector=FOO, min_domains=3), ABXY, ONE_ON_ABY, [NO, NO, OK, OK],
                 id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the "
                    "third and fourth nodes fit"),
    pytest.param(spreader().spread(2, "zone", selector=FOO, min_domains=1), ABXY, ONE_ON_ABY, [OK, OK, OK, OK],
                 id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the "
                    "all nodes fit"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", selector=FOO), FOO_NODES, ONE_ON_ABY,
                 [NO, NO, OK, OK], id="NodeAffinityPolicy honored with labelSelectors"),
    pytest.param(spreader().node_selector(foo="").spread(1, "node", selector=FOO, node_affinity_policy="Ignore"),
                 FOO_NODES, ONE_ON_ABY, [NO, NO, OK, NO], id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", selector=FOO), FOO_NODES, ONE_ON_ABY,
                 [NO, NO, OK, OK], id="NodeAffinityPolicy honored with nodeAffinity"),
    pytest.param(spreader().node_affinity_in("foo", "").spread(1, "node", selector=FOO, node_affinity_policy="Ignore"),
                 FOO_NODES, ONE_ON_ABY, [NO, NO, OK, NO], id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(spreader().spread(1, "node", selector=FOO, node_taints_policy="Honor"), TAINTED_Y, ONE_ON_ABY,
                 [NO, NO, OK, OK], id="NodeTaintsPolicy honored"),
    pytest.param(spreader().spread(1, "node", selector=FOO), TAINTED_Y, ONE_ON_ABY, [NO, NO, OK, NO],
                 id="NodeTaintsPolicy ignored"),
]

MULTIPLE_CONSTRAINTS = [
    pytest.param(spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO), ABXY, SPREAD_21_03,
                 [NO, NO, OK, NO], id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]"),
    pytest.param(spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO), ABXY, SPREAD_21_04,
                 [NO, NO, NO, NO], id="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]"),
    pytest.param(SPLIT, ABXY, [foo("p-a1", "node-a"), pod("p-y1", "node-y", bar="")], [NO, NO, OK, NO],
                 id="Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]"),
    pytest.param(SPLIT, ABXY, [foo("p-a1", "node-a"), pod("p-x1", "node-x", bar=""), pod("p-y1", "node-y", bar="")],
                 [NO, NO, NO, NO], id="Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]"),
    pytest.param(SPLIT, ABXY,
                 [foo("p-a1", "node-a"), pod("p-a2", "node-a", foo="", bar=""), foo("p-y1", "node-y"),
                  pod("p-y2", "node-y", foo="", bar=""), foo("p-y3", "node-y")], [NO, OK, NO, NO],
                 id="Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]"),
    pytest.param(spreader(bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR), ABXY,
                 [foo("p-a1", "node-a"), pod("p-x1", "node-x", bar=""), pod("p-y1", "node-y", bar="")],
                 [OK, OK, NO, NO],
                 id="Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint"),
    pytest.param(spreader().spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO),
                 [zn("node-a", "zone1"), zn("node-b", "zone1"), node("node-x", zone="zone2"), zn("node-y", "zone2")],
                 [foo("p-a1", "node-a"), foo("p-y3", "node-y")], [NO, OK, NEVER, NO],
                 id="two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO)
                 .spread(1, "node", selector=FOO, node_affinity_policy="Ignore"),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo=""),
                  zn("node-y", "zone2")], A1_B1_Y1, [NO, NO, OK, NO],
                 id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore"),
    pytest.param(spreader().spread(1, "zone", selector=FOO, node_taints_policy="Honor").spread(1, "node", selector=FOO),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo=""),
                  tainted(zn("node-y", "zone2"))], A1_B1_Y1, [NO, NO, OK, NO],
                 id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
                  tainted(zn("node-y", "zone2", foo=""))], A1_B1_Y1, [NO, OK, OK, NO],
                 id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore"),
    pytest.param(spreader().node_selector(foo="").spread(1, "zone", selector=FOO, node_taints_policy="Honor")
                 .spread(1, "node", selector=FOO, node_affinity_policy="Ignore"),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
                  tainted(zn("node-y", "zone2", foo=""))], A1_B1_Y1, [NO, NO, OK, NO],
                 id="two node inclusion Constraints, zone: honor/honor, node: ignore/ignore"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "nodes", "pods", "codes"), SINGLE_CONSTRAINT + MULTIPLE_CONSTRAINTS)
def test_filter(path: Any, incoming: PodBuilder, nodes: list[NodeBuilder], pods: list[PodBuilder],
                codes: list[Code]) -> None:
    """PreFilter and Filter give each node kube's status code (kube's table compares codes only)."""
    fw = plugin_framework((PTS, LIST), path=path, nodes=built_nodes(nodes), pods=built_pods(pods))
    got = fw.run_filter(incoming)
    assert [OK if status is None else status.code for status in got.values()] == codes


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is kube's Error, per node and for the batch form alike."""
    message = 'reading "PreFilterPodTopologySpread" from cycleState: not found'
    fw = plugin_framework((PTS, LIST), nodes=[make_node("n").obj()])
    infos = fw.handle.snapshot.list()
    filter_hook, batch_hook = fw.hook(PTS, "filter"), fw.hook(PTS, "filter_nodes")
    assert filter_hook is not None
    assert batch_hook is not None
    assert filter_hook(CycleState(), make_pod("p").obj(), infos[0]) == like(Status.as_error(message))
    with pytest.raises(StateNotFoundError, match=message):
        batch_hook(CycleState(), make_pod("p").obj(), NodeBatch.of(infos, fw.handle.snapshot.columns))

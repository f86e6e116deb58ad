"""kube-scheduler's InterPodAffinity tables for Filter and the queueing hints (pkg/scheduler/framework/plugins/
interpodaffinity: filtering_test.go, plugin_test.go), case by case over the public testing kit; Score is in
test_inter_pod_affinity_scoring.py. Ids are kube's case names.

kube's pods live in namespace "" by default; here they live in "default". kube's nodes carry only the labels its
tests give them; the kit's nodes also carry ``kubernetes.io/hostname``, which no term here uses.

Not translated as kube wrote them (the public kit cannot read a plugin's private state):
- TestPreFilterStateAddRemovePod compares PreFilter's private counts (``affinityCounts``, ``antiAffinityCounts``)
  after AddPod and RemovePod. Its three cases are here through the counts' effect instead: after AddPod, Filter on
  every node answers as it does with the added pod bound, and after RemovePod as it did before (kube's own equality
  checks between states, made through Filter); the counts themselves are not compared.
- TestGetTPMapMatchingIncomingAffinityAntiAffinity (8 cases) and TestPreFilterStateClone (1) test private helpers
  (getIncomingAffinityAntiAffinityCounts, preFilterState.Clone) whose results nothing public returns.
- plugin_test.go is stored only as a release newer than v1.32. TestPodAffinitySignature (3 cases; pod signatures
  came after v1.32) has no v1.32 counterpart. Two hint cases expect what later releases changed: "updated pod is the
  target pod" (Queue; v1.32's hint skips every unscheduled pod, the target included) and "delete a pod with
  anti-affinity that matches pending pod" (Queue; v1.32's hint looks only at the pending pod's own anti-affinity
  terms when a pod is deleted). Both are in the hint table with v1.32's answer, their ids prefixed "v1.32: ". The
  real kube-scheduler v1.32 agrees: a pending pod blocked by an existing pod's anti-affinity stayed pending for 80 s
  after that pod was deleted, and after its own label no longer matched that anti-affinity, where deleting a pod its
  own anti-affinity matched scheduled it at once.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    CycleState,
    EventResource,
    NodeBatch,
    PodInfo,
    QueueingHint,
    StateNotFoundError,
    Status,
)
from kubesched.testing import (
    PATHS,
    NodeBuilder,
    PodBuilder,
    hint,
    like,
    make_affinity_term,
    make_namespace,
    make_node,
    make_pod,
    plugin_framework,
)
from tests.plugins.tables.topology import (
    DOES_NOT_EXIST,
    EXISTS,
    IN,
    NOT_IN,
    built_nodes,
    built_pods,
    node,
    pod,
    pod_event,
    selector,
    term,
)

IPA = "InterPodAffinity"
NOT_AFFINITY = like(Status.unresolvable("node(s) didn't match pod affinity rules"))
NOT_ANTI = like(Status.unschedulable("node(s) didn't match pod anti-affinity rules"))
NOT_EXISTING = like(Status.unschedulable("node(s) didn't satisfy existing pods anti-affinity rules"))
QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP

#: kube's ``namespaces`` objects: two teams of two namespaces each.
NAMESPACES = [make_namespace(f"subteam{i}.team{t}").label(team=f"team{t}").obj() for t in (1, 2) for i in (1, 2)]
BAD_VALUE = "{{.bad-value.}}"
#: kube's message for a term whose selector value is no label value.
BAD_VALUE_MESSAGE = (
    'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be '
    "an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")

SCAN = IN("service", "securityscan", "value2")
ANTIVIRUS = IN("service", "antivirusscan", "value2")
TEAM1 = selector(IN("team", "team1"))
# -- filtering_test.go: TestRequiredAffinitySingleNode -----------------------------------------------------------

NODE1 = node("node1", region="r1", zone="z11")
#: kube's ``pod``: the existing pod labelled service=securityscan on node1.
SCANNER = pod("e1", "node1", service="securityscan")


def s1(**labels: str) -> PodBuilder:
    """The incoming pod, labelled ``security=S1`` unless other labels are given."""
    return pod("p", **(labels or {"security": "S1"}))


SINGLE_NODE = [
    pytest.param(make_pod("p"), [], True, None,
                 id="A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
                    "existing pods"),
    pytest.param(s1().affinity_term(term("region", SCAN)), [SCANNER], False, None,
                 id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator "
                    "that matches the existing pod"),
    pytest.param(s1().affinity_term(term("region", NOT_IN("service", "securityscan3", "value3"))), [SCANNER], False,
                 None, id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
                          "not in operator in labelSelector that matches the existing pod"),
    pytest.param(s1().affinity_term(term("", SCAN).namespaces("DiffNameSpace")),
                 [pod("e1", "node1", "ns", service="securityscan")], False, NOT_AFFINITY,
                 id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace"),
    pytest.param(s1(service="securityscan").affinity_term(term("", ANTIVIRUS)), [SCANNER], False, NOT_AFFINITY,
                 id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod"),
    pytest.param(s1().affinity_term(term("region", EXISTS("service"), DOES_NOT_EXIST("wrongkey")))
                 .affinity_term(term("region", IN("service", "securityscan"), NOT_IN("service", "WrongValue"))),
                 [SCANNER], False, None,
                 id="satisfies the PodAffinity with different label Operators in multiple "
                    "RequiredDuringSchedulingIgnoredDuringExecution "),
    pytest.param(s1().affinity_term(term("region", EXISTS("service"), DOES_NOT_EXIST("wrongkey")))
                 .affinity_term(term("region", IN("service", "securityscan2"), NOT_IN("service", "WrongValue"))),
                 [SCANNER], False, NOT_AFFINITY,
                 id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule "
                    "onto the node because one of the matchExpression item don't match."),
    pytest.param(s1().affinity_term(term("region", SCAN)).affinity_term(term("node", ANTIVIRUS), anti=True),
                 [SCANNER], False, None, id="satisfies the PodAffinity and PodAntiAffinity with the existing pod"),
    pytest.param(s1().affinity_term(term("region", SCAN)).affinity_term(term("node", ANTIVIRUS), anti=True),
                 [pod("e1", "node1", service="securityscan").affinity_term(term("node", ANTIVIRUS), anti=True)],
                 False, None,
                 id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod"),
    pytest.param(s1().affinity_term(term("region", SCAN)).affinity_term(term("zone", SCAN), anti=True),
                 [SCANNER], False, NOT_ANTI,
                 id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod"),
    pytest.param(s1(service="securityscan").affinity_term(term("region", SCAN))
                 .affinity_term(term("node", ANTIVIRUS), anti=True),
                 [pod("e1", "node1", service="securityscan").affinity_term(term("zone", SCAN), anti=True)],
                 False, NOT_EXISTING,
                 id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with "
                    "the existing pod"),
    pytest.param(s1(service="securityscan").affinity_term(term("region", NOT_IN("service", "securityscan", "value2"))),
                 [pod("e1", "node2", service="securityscan")], False, NOT_AFFINITY,
                 id="pod matches its own Label in PodAffinity and that matches the existing pod Labels"),
    pytest.param(s1(service="securityscan"),
                 [pod("e1", "node1", service="securityscan").affinity_term(term("zone", SCAN), anti=True)],
                 False, NOT_EXISTING,
                 id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
                    "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod"),
    pytest.param(s1(service="securityscan"),
                 [pod("e1", "node1", service="securityscan")
                  .affinity_term(term("zone", NOT_IN("service", "securityscan", "value2")), anti=True)],
                 True, None,
                 id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
                    "constraints. satisfy PodAntiAffinity symmetry with the existing pod"),
    pytest.param(s1(service="securityscan").affinity_term(term("region", EXISTS("service")), anti=True)
                 .affinity_term(term("region", EXISTS("security")), anti=True),
                 [pod("e1", "node1", security="S1").affinity_term(term("zone", EXISTS("security")), anti=True)],
                 False, NOT_ANTI,
                 id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry "
                    "with incoming pod"),
    pytest.param(s1(service="securityscan").affinity_term(term("zone", EXISTS("service")), anti=True)
                 .affinity_term(term("zone", EXISTS("security")), anti=True),
                 [pod("e1", "node1", security="S1").affinity_term(term("zone", EXISTS("security")), anti=True)],
                 False, NOT_ANTI,
                 id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),
    pytest.param(s1().affinity_term(term("zone", EXISTS("security")), anti=True),
                 [pod("e1", "node1", service="securityscan").affinity_term(term("zone", EXISTS("service")), anti=True)
                  .affinity_term(term("zone", EXISTS("security")), anti=True)],
                 False, NOT_EXISTING,
                 id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),
    pytest.param(s1(abc="", xyz="").affinity_term(term("zone", EXISTS("abc")), anti=True)
                 .affinity_term(term("zone", EXISTS("def")), anti=True),
                 [pod("e1", "node1", xyz="", **{"def": ""}).affinity_term(term("zone", EXISTS("abc")), anti=True)
                  .affinity_term(term("zone", EXISTS("def")), anti=True)],
                 False, NOT_ANTI,
                 id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),
    pytest.param(s1(xyz="", **{"def": ""}).affinity_term(term("zone", EXISTS("abc")), anti=True)
                 .affinity_term(term("zone", EXISTS("def")), anti=True),
                 [pod("e1", "node1", abc="", xyz="").affinity_term(term("zone", EXISTS("abc")), anti=True)
                  .affinity_term(term("zone", EXISTS("def")), anti=True)],
                 False, NOT_ANTI,
                 id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),
    pytest.param(s1(service="securityscan").affinity_term(term("region", IN("service", BAD_VALUE)))
                 .affinity_term(term("node", ANTIVIRUS)),
                 [], False, like(Status.unresolvable(BAD_VALUE_MESSAGE)),
                 id="PodAffinity fails PreFilter with an invalid affinity label syntax"),
    pytest.param(s1(service="securityscan").affinity_term(term("region", IN("service", "foo")))
                 .affinity_term(term("node", IN("service", BAD_VALUE))),
                 [], False, like(Status.unresolvable(BAD_VALUE_MESSAGE)),
                 id="PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax"),
    pytest.param(s1().affinity_term(term("region", SCAN).namespace_selector(TEAM1)),
                 [pod("e1", "node1", "subteam1.team1", service="securityscan")], False, None,
                 id="affinity with NamespaceSelector"),
    pytest.param(s1().affinity_term(term("region", SCAN).namespace_selector(TEAM1)),
                 [pod("e1", "node1", "subteam1.team2", service="securityscan")], False, NOT_AFFINITY,
                 id="affinity with non-matching NamespaceSelector"),
    pytest.param(pod("p", ns="subteam1.team1", security="S1")
                 .affinity_term(term("zone", SCAN).namespace_selector(TEAM1), anti=True),
                 [pod("e1", "node1", "subteam2.team1", service="securityscan")], False, NOT_ANTI,
                 id="anti-affinity with matching NamespaceSelector"),
    pytest.param(pod("p", ns="subteam1.team1", security="S1")
                 .affinity_term(term("zone", SCAN).namespace_selector(selector()), anti=True),
                 [pod("e1", "node1", "subteam2.team1", service="securityscan")], False, NOT_ANTI,
                 id="anti-affinity with matching all NamespaceSelector"),
    pytest.param(pod("p", ns="subteam1.team1", security="S1")
                 .affinity_term(term("zone", SCAN).namespace_selector(TEAM1), anti=True),
                 [pod("e1", "node1", "subteam1.team2", service="securityscan")], False, None,
                 id="anti-affinity with non-matching NamespaceSelector"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "pods", "skips", "want"), SINGLE_NODE)
def test_required_affinity_single_node(path: Any, incoming: PodBuilder, pods: list[PodBuilder], skips: bool,
                                       want: Any) -> None:
    """PreFilter skips or rejects as kube-scheduler's does, else Filter on node1 answers ``want``."""
    fw = plugin_framework(IPA, path=path, nodes=[NODE1.obj()], pods=built_pods(pods), namespaces=NAMESPACES)
    state = CycleState()
    assert fw.run_filter(incoming, state) == {"node1": want}
    assert (IPA in state.skip_filter_plugins) is skips


# -- filtering_test.go: TestRequiredAffinityMultipleNodes --------------------------------------------------------

CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}


def abc(*labels: dict[str, str]) -> list[NodeBuilder]:
    """nodeA, nodeB, nodeC... with these labels, each also labelled ``hostname: <its name>``."""
    return [node(f"node{'ABC'[i]}", **{"hostname": f"node{'ABC'[i]}", **ls}) for i, ls in enumerate(labels)]


R1Z1, R1Z2, R1Z3 = {"region": "r1", "zone": "z1"}, {"region": "r1", "zone": "z2"}, {"region": "r1", "zone": "z3"}

MULTIPLE_NODES = [
    pytest.param(pod("p").affinity_term(term("region", IN("foo", "bar"))), [pod("p1", "node1", foo="bar")],
                 [node("node1", **CHINA), node("node2", **CHINA_AZ1), node("node3", **INDIA)], False,
                 [None, None, NOT_AFFINITY],
                 id="A pod can be scheduled onto all the nodes that have the same topology key & label value with one "
                    "of them has an existing pod that matches the affinity rules"),
    pytest.param(pod("p", foo="bar", service="securityscan").affinity_term(term("zone", IN("foo", "bar")))
                 .affinity_term(term("zone", IN("service", "securityscan"))), [pod("p1", "nodeA", foo="bar")],
                 [node("nodeA", zone="az1", hostname="h1"), node("nodeB", zone="az2", hostname="h2")], False,
                 [None, None],
                 id="The affinity rule is to schedule all of the pods of this collection to the same zone. The first "
                    "pod of the collection should not be blocked from being scheduled onto any node, even there's no "
                    "existing pod that matches the rule anywhere."),
    pytest.param(pod("p", foo="bar", service="securityscan").affinity_term(term("zone", IN("foo", "bar")))
                 .affinity_term(term("zone", IN("service", "securityscan"))), [pod("p1", "nodeA", foo="bar")],
                 [node("nodeA", zoneLabel="az1", hostname="h1"), node("nodeB", zoneLabel="az2", hostname="h2")],
                 False, [NOT_AFFINITY, NOT_AFFINITY],
                 id="The first pod of the collection can only be scheduled on nodes labelled with the requested "
                    "topology keys"),
    pytest.param(pod("p").affinity_term(term("region", IN("foo", "abc")), anti=True), [pod("e1", "nodeA", foo="abc")],
                 abc({"region": "r1"}, {"region": "r1"}), False, [NOT_ANTI, NOT_ANTI],
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB."),
    pytest.param(pod("p").affinity_term(term("region", IN("foo", "abc")), anti=True)
                 .affinity_term(term("zone", IN("service", "securityscan")), anti=True),
                 [pod("e1", "nodeA", foo="abc", service="securityscan")], abc(R1Z1, R1Z2), False,
                 [NOT_ANTI, NOT_ANTI],
                 id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
                    "matches a pod."),
    pytest.param(pod("p").affinity_term(term("region", IN("foo", "abc")), anti=True), [pod("e1", "nodeA", foo="abc")],
                 [node("nodeA", **CHINA), node("nodeB", **CHINA_AZ1), node("nodeC", **INDIA)], False,
                 [NOT_ANTI, NOT_ANTI, None],
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled "
                    "onto nodeC"),
    pytest.param(pod("p", ns="NS1", foo="123").affinity_term(term("region", IN("foo", "bar")), anti=True),
                 [pod("e1", "nodeA", "NS1", foo="bar"),
                  pod("e2", "nodeC", "NS2").affinity_term(term("region", IN("foo", "123")), anti=True)],
                 [node("nodeA", **CHINA), node("nodeB", **CHINA_AZ1), node("nodeC", **INDIA)], False,
                 [NOT_ANTI, NOT_ANTI, None],
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled "
                    "onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different "
                    "namespace)"),
    pytest.param(pod("p", foo=""),
                 [pod("e1", "nodeA").affinity_term(term("invalid-node-label", EXISTS("foo")), anti=True)],
                 abc(R1Z1, R1Z1), True, [None, None],
                 id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
                    "labelSelector of the term is firstly checked, and then topologyKey of the term is also checked"),
    pytest.param(pod("p", "nodeA").affinity_term(term("invalid-node-label", EXISTS("foo")), anti=True),
                 [pod("e1", "nodeA", foo="")], abc(R1Z1, R1Z1), False, [None, None],
                 id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey "
                    "matches"),
    pytest.param(pod("p", foo="", bar=""),
                 [pod("e1", "nodeA").affinity_term(term("zone", EXISTS("foo")), anti=True),
                  pod("e2", "nodeA").affinity_term(term("region", EXISTS("bar")), anti=True)],
                 abc(R1Z1, R1Z2), False, [NOT_EXISTING, NOT_EXISTING],
                 id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
                    "existingPod's terms on all nodes"),
    pytest.param(pod("p").affinity_term(term("zone", EXISTS("foo")), anti=True)
                 .affinity_term(term("region", EXISTS("bar")), anti=True),
                 [pod("e1", "nodeA", foo=""), pod("e2", "nodeB", bar="")], abc(R1Z1, R1Z2), False,
                 [NOT_ANTI, NOT_ANTI],
                 id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least "
                    "violates one anti-affinity rule of existingPod"),
    pytest.param(pod("p", foo="", bar=""),
                 [pod("e1", "nodeA").affinity_term(term("invalid-node-label", EXISTS("foo")), anti=True)
                  .affinity_term(term("zone", EXISTS("bar")), anti=True)],
                 abc(R1Z1, R1Z2), False, [NOT_EXISTING, None],
                 id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when one term has invalid topologyKey"),
    pytest.param(pod("p").affinity_term(term("invalid-node-label", EXISTS("foo")), anti=True)
                 .affinity_term(term("zone", EXISTS("bar")), anti=True),
                 [pod("podA", "nodeA", foo="", bar="")], abc(R1Z1, R1Z2), False, [NOT_ANTI, None],
                 id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when one term has invalid topologyKey"),
    pytest.param(pod("p", foo="", bar=""),
                 [pod("e1", "nodeA").affinity_term(term("region", EXISTS("foo")), anti=True)
                  .affinity_term(term("zone", EXISTS("bar")), anti=True)],
                 abc(R1Z1, R1Z2), False, [NOT_EXISTING, NOT_EXISTING],
                 id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when all terms have valid topologyKey"),
    pytest.param(pod("p").affinity_term(term("region", EXISTS("foo")), anti=True)
                 .affinity_term(term("zone", EXISTS("bar")), anti=True),
                 [pod("e1", "nodeA", foo="", bar="")], abc(R1Z1, R1Z2), False, [NOT_ANTI, NOT_ANTI],
                 id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when all terms have valid topologyKey"),
    pytest.param(pod("p", foo="", bar=""),
                 [pod("e1", "nodeA").affinity_term(term("zone", EXISTS("foo")), anti=True)
                  .affinity_term(term("zone", EXISTS("labelA")), anti=True),
                  pod("e2", "nodeB").affinity_term(term("zone", EXISTS("bar")), anti=True)
                  .affinity_term(term("zone", EXISTS("labelB")), anti=True)],
                 abc(R1Z1, R1Z2, R1Z3), False, [NOT_EXISTING, NOT_EXISTING, None],
                 id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity "
                    "term matches incoming pod, so incoming pod can only be scheduled to nodeC"),
    pytest.param(pod("p").affinity_term(term("region", EXISTS("foo"))).affinity_term(term("zone", EXISTS("bar"))),
                 [pod("pod1", "nodeA", foo="", bar="")], abc(R1Z1, R1Z1), False, [None, None],
                 id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
                    "topologyKeys match"),
    pytest.param(pod("p").affinity_term(term("region", EXISTS("foo"))).affinity_term(term("zone", EXISTS("bar"))),
                 [pod("pod1", "nodeA", foo=""), pod("pod2", "nodeB", bar="")], abc(R1Z1, R1Z2), False,
                 [NOT_AFFINITY, NOT_AFFINITY],
                 id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
                    "topologyKeys match, and the match logic should be satisfied on the same pod"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "pods", "nodes", "skips", "want"), MULTIPLE_NODES)
def test_required_affinity_multiple_nodes(path: Any, incoming: PodBuilder, pods: list[PodBuilder],
                                          nodes: list[NodeBuilder], skips: bool, want: list[Any]) -> None:
    """Filter answers ``want`` node by node (PreFilter skipping where kube's does)."""
    fw = plugin_framework(IPA, path=path, nodes=built_nodes(nodes), pods=built_pods(pods),
                          namespaces=[make_namespace("NS1").obj()])
    state = CycleState()
    assert list(fw.run_filter(incoming, state).values()) == want
    assert (IPA in state.skip_filter_plugins) is skips


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is kube's Error, per node and for the batch form alike."""
    message = 'error reading "PreFilterInterPodAffinity" from cycleState: not found'
    fw = plugin_framework(IPA, nodes=[make_node("n").obj()])
    infos = fw.handle.snapshot.list()
    filter_hook, batch_hook = fw.hook(IPA, "filter"), fw.hook(IPA, "filter_nodes")
    assert filter_hook is not None
    assert batch_hook is not None
    assert filter_hook(CycleState(), make_pod("p").obj(), infos[0]) == like(Status.as_error(message))
    with pytest.raises(StateNotFoundError, match=message):
        batch_hook(CycleState(), make_pod("p").obj(), NodeBatch.of(infos, fw.handle.snapshot.columns))


# -- filtering_test.go: TestPreFilterStateAddRemovePod -----------------------------------------------------------

ADD_REMOVE_NODES = [node("nodeA", region="r1", zone="z11"), node("nodeB", region="r1", zone="z12"),
                    node("nodeC", region="r2", zone="z21")]


def anti_foo_bar(built: PodBuilder) -> PodBuilder:
    """kube's antiAffinityFooBar: away from foo=bar pods in the region."""
    return built.affinity_term(term("region", IN("foo", "bar")), anti=True)


def complex_terms(built: PodBuilder, anti: bool) -> PodBuilder:
    """kube's affinityComplex (or antiAffinityComplex): foo in (bar, buzz) by region and service not in (bar,
    security, test) by zone."""
    return built.affinity_term(term("region", IN("foo", "bar", "buzz")), anti=anti) \
        .affinity_term(term("zone", NOT_IN("service", "bar", "security", "test")), anti=anti)


ADD_REMOVE = [
    pytest.param(anti_foo_bar(pod("pending", foo="bar")),
                 [pod("p1", "nodeA", foo="bar"), anti_foo_bar(pod("p2", "nodeC"))],
                 anti_foo_bar(pod("addedPod", "nodeB", foo="bar")),
                 id="preFilterState anti-affinity terms are updated correctly after adding and removing a pod"),
    pytest.param(complex_terms(pod("pending", foo="bar"), anti=True),
                 [pod("p1", "nodeA", foo="bar"), anti_foo_bar(pod("p2", "nodeC"))],
                 complex_terms(pod("addedPod", "nodeA", foo="bar"), anti=True),
                 id="preFilterState anti-affinity terms are updated correctly after adding and removing a pod"),
    pytest.param(complex_terms(pod("pending", foo="bar"), anti=False),
                 [pod("p1", "nodeA", foo="bar"), complex_terms(anti_foo_bar(pod("p2", "nodeC")), anti=False)],
                 complex_terms(pod("addedPod", "nodeA", foo="bar"), anti=True),
                 id="preFilterState matching pod affinity and anti-affinity are updated correctly after adding and "
                    "removing a pod"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pending", "existing", "added"), ADD_REMOVE)
def test_pre_filter_state_add_remove_pod(path: Any, pending: PodBuilder, existing: list[PodBuilder],
                                         added: PodBuilder) -> None:
    """AddPod leaves Filter answering as if the added pod were bound; RemovePod undoes it exactly."""
    fw = plugin_framework(IPA, nodes=built_nodes(ADD_REMOVE_NODES), pods=built_pods(existing))
    incoming, added_pod = pending.obj(), added.obj()
    snapshot = fw.handle.snapshot
    infos = snapshot.list()
    batch = NodeBatch.of(infos, snapshot.columns) if path == "batch" else None
    state = CycleState()
    assert fw.run_pre_filter_plugins(state, incoming, infos, batch)[1] is None
    before = [fw.run_filter_plugins(state, incoming, ni) for ni in infos]
    target = snapshot.get(added_pod.spec.node_name)
    assert target is not None
    assert fw.run_pre_filter_extension_add_pod(state, incoming, PodInfo.of(added_pod), target) is None
    all_pods = plugin_framework(IPA, nodes=built_nodes(ADD_REMOVE_NODES),
                                pods=built_pods([*existing, added])).run_filter(incoming)
    assert [fw.run_filter_plugins(state, incoming, ni) for ni in infos] == list(all_pods.values())
    assert fw.run_pre_filter_extension_remove_pod(state, incoming, PodInfo.of(added_pod), target) is None
    assert [fw.run_filter_plugins(state, incoming, ni) for ni in infos] == before

# -- plugin_test.go: Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange -------------------------

def target(**labels: str) -> PodBuilder:
    """The rejected pod ``p`` with these labels."""
    return pod("p", **labels)


def other(*, bound: bool = True, **labels: str) -> PodBuilder:
    """The changed pod ``other``, bound to fake-node unless ``bound=False``."""
    return pod("other", "fake-node" if bound else "", **labels)


AFFINE = target().affinity_term(term("region", SCAN))
ANTI_AFFINE = target().affinity_term(term("region", SCAN), anti=True)
TWO_TERMS = target().affinity_term(term("hostname", EXISTS("aaa"))).affinity_term(term("hostname", EXISTS("bbb")))

POD_CHANGES = [
    pytest.param(AFFINE, None, other(service="securityscan"), QUEUE, id="add a pod which matches the pod affinity"),
    pytest.param(AFFINE, None, other(bound=False, service="securityscan"), QUEUE_SKIP, id="add an un-scheduled pod"),
    pytest.param(AFFINE, None, other(aaa="a"), QUEUE_SKIP, id="add a pod which doesn't match the pod affinity"),
    pytest.param(AFFINE, other(aaa="a"), other(service="securityscan"), QUEUE,
                 id="update a pod from non-match to match pod affinity"),
    pytest.param(AFFINE, other(service="value2"), other(service="securityscan"), QUEUE_SKIP,
                 id="the updating pod matches target pod's affinity both before and after label changes"),
    pytest.param(AFFINE, other(bound=False, aaa="a"), other(bound=False, service="securityscan"), QUEUE_SKIP,
                 id="update an un-scheduled pod"),
    pytest.param(AFFINE, other(service="securityscan"), other(aaa="a"), QUEUE_SKIP,
                 id="update a pod from match to non-match the pod affinity"),
    pytest.param(TWO_TERMS, other(aaa="a"), other(service="securityscan"), QUEUE_SKIP,
                 id="update a pod from match to non-match pod's affinity - multiple terms case"),
    pytest.param(TWO_TERMS, other(aaa="a"), other(aaa="", bbb=""), QUEUE,
                 id="update a pod from non-match to match pod's affinity - multiple terms case"),
    pytest.param(ANTI_AFFINE, other(service="securityscan"), other(service="aaaa"), QUEUE,
                 id="modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity"),
    pytest.param(ANTI_AFFINE, other(service="bbb"), other(service="securityscan"), QUEUE_SKIP,
                 id="modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity"),
    pytest.param(ANTI_AFFINE, other(aaa="a"), None, QUEUE_SKIP,
                 id="delete a pod which doesn't match pod's anti-affinity"),
    pytest.param(ANTI_AFFINE, other(service="securityscan"), None, QUEUE,
                 id="delete a pod which matches pod's anti-affinity"),
    pytest.param(target(service="foo"), other().affinity_term(term("region", SCAN), anti=True), None, QUEUE_SKIP,
                 id="delete a pod with anti-affinity that doesn't match pending pod"),
    pytest.param(target(service="foo").affinity_term(term("region", SCAN), anti=True),
                 other(service="foo").affinity_term(term("region", SCAN), anti=True), None, QUEUE_SKIP,
                 id="delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't "
                    "match pending pod"),
    # kube's later releases answer Queue to the next two (see the module docstring); v1.32 answers QueueSkip.
    pytest.param(target(foo="baz"), target(foo="bar"), target(foo="baz"), QUEUE_SKIP,
                 id="v1.32: updated pod is the target pod"),
    pytest.param(target(service="securityscan"), other().affinity_term(term("region", SCAN), anti=True), None,
                 QUEUE_SKIP, id="v1.32: delete a pod with anti-affinity that matches pending pod"),
]


@pytest.mark.parametrize(("rejected", "old", "new", "want"), POD_CHANGES)
def test_is_schedulable_after_pod_change(rejected: PodBuilder, old: PodBuilder | None, new: PodBuilder | None,
                                         want: QueueingHint) -> None:
    """A pod added, relabelled or deleted requeues the rejected pod only when it may now satisfy its own terms."""
    assert hint(IPA, rejected, pod_event(old, new), old and old.obj(), new and new.obj()) is want


def zoned(key: str = "zone", **labels: str) -> PodBuilder:
    """The rejected pod: required affinity for service in (securityscan, value2) over ``key``."""
    return target(**labels).affinity_term(term(key, SCAN))


AWAY = target().affinity_term(make_affinity_term("zone").match(another="label"), anti=True)


def node_a(**labels: str) -> NodeBuilder:
    """node-a with these labels."""
    return node("node-a", **labels)


NODE_CHANGES = [
    pytest.param(zoned(), None, node_a(zone="zone1"), QUEUE, id="add a new node with matched pod affinity topologyKey"),
    pytest.param(zoned("region"), None, node_a(zone="zone1"), QUEUE_SKIP,
                 id="add a new node without matched topologyKey"),
    pytest.param(zoned(), node_a(aaa="a"), node_a(aaa="b"), QUEUE_SKIP, id="update node label but not topologyKey"),
    pytest.param(zoned(), node_a(zone="zone1"), node_a(zone="zone1", **{"unrelated-label": "unrelated"}), QUEUE_SKIP,
                 id="update node label that isn't related to the pod affinity"),
    pytest.param(zoned(), node_a(zone="zone1"), node_a(zone="zone2"), QUEUE,
                 id="update node with different affinity topologyKey value"),
    pytest.param(zoned(), node_a(aaa="a"), node_a(zone="zone1"), QUEUE,
                 id="update node to have the affinity topology label"),
    pytest.param(AWAY, None, node_a(zone="zone1"), QUEUE,
                 id="add a new node with matched pod anti-affinity topologyKey"),
    pytest.param(AWAY, None, node_a(), QUEUE, id="add a new node without matched pod anti-affinity topologyKey"),
    pytest.param(AWAY, node_a(zone="zone1"), node_a(zone="zone1", **{"unrelated-label": "unrelated"}), QUEUE_SKIP,
                 id="update node label that isn't related to the pod anti-affinity"),
    pytest.param(AWAY, node_a(zone="zone1"), node_a(zone="zone2"), QUEUE,
                 id="update node with different anti-affinity topologyKey value"),
    pytest.param(AWAY, node_a(aaa="a"), node_a(zone="zone1"), QUEUE_SKIP,
                 id="update node to have the anti-affinity topology label"),
    pytest.param(AWAY, node_a(zone="zone1"), node_a(aaa="a"), QUEUE,
                 id="update node label not to have anti-affinity topology label"),
]


@pytest.mark.parametrize(("rejected", "old", "new", "want"), NODE_CHANGES)
def test_is_schedulable_after_node_change(rejected: PodBuilder, old: NodeBuilder | None, new: NodeBuilder,
                                          want: QueueingHint) -> None:
    """A node added or relabelled requeues the pod when it gains an affinity topology key, or loses or changes an
    anti-affinity one; any node added may help a pod with required anti-affinity."""
    event = ClusterEvent(EventResource.NODE, ActionType.ADD if old is None else ActionType.UPDATE_NODE_LABEL)
    assert hint(IPA, rejected, event, old and old.obj(), new.obj()) is want

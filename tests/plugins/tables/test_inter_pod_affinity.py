"""kube-scheduler's InterPodAffinity tables (pkg/scheduler/framework/plugins/interpodaffinity: filtering_test.go,
scoring_test.go, plugin_test.go), case by case over the public testing kit. Ids are kube's case names.

kube's pods live in namespace "" by default; here they live in "default" (a term's ``namespaces: [""]`` reads
``"default"``). kube's nodes carry only the labels its tests give them; the kit's nodes also carry
``kubernetes.io/hostname``, which no term here uses.

Not translated (the public kit cannot express them):
- TestPreFilterStateAddRemovePod compares PreFilter's private counts (``affinityCounts``, ``antiAffinityCounts``)
  after AddPod and RemovePod; the kit cannot read them, so the table compares what the counts decide instead: Filter
  on every node after AddPod equals Filter with the added pod bound, and after RemovePod equals Filter before it
  (kube's own equality checks, through Filter).
- TestGetTPMapMatchingIncomingAffinityAntiAffinity (8 cases) and TestPreFilterStateClone (1) test private helpers
  (getIncomingAffinityAntiAffinityCounts, preFilterState.Clone) whose results nothing public returns.
- plugin_test.go is stored only in a release newer than v1.32: TestPodAffinitySignature (pod signatures, v1.34+)
  does not exist in v1.32, and two hint cases expect what later releases changed: "updated pod is the target pod"
  (Queue; v1.32's hint skips every unscheduled pod, the target included) and "delete a pod with anti-affinity that
  matches pending pod" (Queue; v1.32's hint looks only at the pending pod's own anti-affinity terms on a delete).
  Both are tested at the bottom of this file with v1.32's answer, under their own names.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubesched.api import Node, Pod
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
    PodAffinityTermBuilder,
    PodBuilder,
    hint,
    like,
    make_affinity_term,
    make_namespace,
    make_node,
    make_pod,
    make_selector,
    plugin_framework,
)

IPA = "InterPodAffinity"
NOT_AFFINITY = like(Status.unresolvable("node(s) didn't match pod affinity rules"))
NOT_ANTI = like(Status.unschedulable("node(s) didn't match pod anti-affinity rules"))
NOT_EXISTING = like(Status.unschedulable("node(s) didn't satisfy existing pods anti-affinity rules"))
SKIP = "Skip"
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


def term(topology: str, *requirements: tuple[str, ...]) -> PodAffinityTermBuilder:
    """An affinity term over ``topology`` whose selector ANDs ``(key, operator, *values)`` requirements."""
    selector = make_selector()
    for key, operator, *values in requirements:
        selector.expression(key, operator, *values)
    return make_affinity_term(topology).selector(selector)


def pod(name: str, node: str = "", ns: str = "default", **labels: str) -> PodBuilder:
    """A pod with these labels, bound to ``node`` when given."""
    built = make_pod(name, ns).label(**labels)
    return built.node(node) if node else built


def built_pods(builders: list[PodBuilder]) -> list[Pod]:
    """The pods of these builders."""
    return [b.obj() for b in builders]


def built_nodes(builders: list[NodeBuilder]) -> list[Node]:
    """The nodes of these builders."""
    return [b.obj() for b in builders]


def node(name: str, **labels: str) -> NodeBuilder:
    """A node with these labels (and the kit's hostname label)."""
    return make_node(name).label(**labels)


def IN(key: str, *values: str) -> tuple[str, ...]:  # noqa: N802 - reads as kube's LabelSelectorOpIn
    """A ``key In values`` requirement."""
    return (key, "In", *values)


def NOT_IN(key: str, *values: str) -> tuple[str, ...]:  # noqa: N802
    """A ``key NotIn values`` requirement."""
    return (key, "NotIn", *values)


def EXISTS(key: str) -> tuple[str, ...]:  # noqa: N802
    """A ``key Exists`` requirement."""
    return (key, "Exists")


def DOES_NOT_EXIST(key: str) -> tuple[str, ...]:  # noqa: N802
    """A ``key DoesNotExist`` requirement."""
    return (key, "DoesNotExist")


SCAN = IN("service", "securityscan", "value2")
ANTIVIRUS = IN("service", "antivirusscan", "value2")
TEAM1 = make_selector().expression("team", "In", "team1")

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
                 .affinity_term(term("zone", SCAN).namespace_selector(make_selector()), anti=True),
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


# -- scoring_test.go: TestPreferredAffinity ----------------------------------------------------------------------

def prefer(built: PodBuilder, weight: int, topology: str, key: str, value: str, anti: bool = False) -> PodBuilder:
    """Add a preferred term of this weight: pods with ``key=value`` in the same ``topology`` domain."""
    return built.affinity_term(term(topology, IN(key, value)), anti=anti, weight=weight)


def stay_with_s1_in_region(built: PodBuilder) -> PodBuilder:
    """kube's stayWithS1InRegion."""
    return prefer(built, 5, "region", "security", "S1")


def stay_with_s2_in_region(built: PodBuilder) -> PodBuilder:
    """kube's stayWithS2InRegion."""
    return prefer(built, 6, "region", "security", "S2")


def away_from_s1_in_az(built: PodBuilder) -> PodBuilder:
    """kube's awayFromS1InAz."""
    return prefer(built, 5, "az", "security", "S1", anti=True)


def away_from_s2_in_az(built: PodBuilder) -> PodBuilder:
    """kube's awayFromS2InAz."""
    return prefer(built, 5, "az", "security", "S2", anti=True)


def stay_s1_away_s2(built: PodBuilder) -> PodBuilder:
    """kube's stayWithS1InRegionAwayFromS2InAz."""
    return prefer(prefer(built, 8, "region", "security", "S1"), 5, "az", "security", "S2", anti=True)


def affinity3(built: PodBuilder) -> PodBuilder:
    """kube's affinity3: two preferred terms with several operators."""
    return built.affinity_term(term("region", NOT_IN("security", "S1"), IN("security", "S2")), weight=8) \
        .affinity_term(term("region", EXISTS("security"), DOES_NOT_EXIST("wrongkey")), weight=2)


def hard_affinity(built: PodBuilder) -> PodBuilder:
    """kube's hardAffinity: two required terms."""
    return built.affinity_term(term("region", IN("security", "S1", "value2"))) \
        .affinity_term(term("region", EXISTS("security"), DOES_NOT_EXIST("wrongkey")))


def namespace_selected(built: PodBuilder, anti: bool) -> PodBuilder:
    """kube's affinityNamespaceSelector (or antiAffinityNamespaceSelector)."""
    selected = term("region", IN("security", "S1")).namespaces("subteam2.team2").namespace_selector(TEAM1)
    return built.affinity_term(selected, anti=anti, weight=5)


def ns_s1(name: str, on: str, ns: str) -> PodBuilder:
    """A pod labelled security=S1 in namespace ``ns`` on node ``on``."""
    return pod(name, on, ns, security="S1")


def regions(*labels: dict[str, str]) -> list[NodeBuilder]:
    """node1, node2... with these labels."""
    return [node(f"node{i + 1}", **ls) for i, ls in enumerate(labels)]


AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
S1, S2 = {"security": "S1"}, {"security": "S2"}
CHINA_INDIA_AZ1 = regions(CHINA, INDIA, AZ1)
#: kube's check on PreScore's failure: code Error, message containing this.
ERROR = "scoring failed: Error: .*" + re.escape('Invalid value: "{{.bad-value.}}"')

PREFERRED = [
    pytest.param(pod("p", **S1), [], CHINA_INDIA_AZ1, False, SKIP,
                 id="all nodes are same priority as Affinity is nil"),
    pytest.param(stay_with_s1_in_region(pod("p", **S1)),
                 [pod("e1", "node1", **S1), pod("e2", "node2", **S2), pod("e3", "node3", **S1)], CHINA_INDIA_AZ1,
                 False, [100, 0, 0],
                 id="Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
                    "otherswhich doesn't match either pods in nodes or in topology key"),
    pytest.param(stay_with_s1_in_region(pod("p")), [pod("e1", "node1", **S1)], regions(CHINA, CHINA_AZ1, INDIA),
                 False, [100, 100, 0],
                 id="All the nodes that have the same topology key & label value with one of them has an existing pod "
                    "that match the affinity rules, have the same score"),
    pytest.param(stay_with_s2_in_region(pod("p", **S1)),
                 [pod(f"e{i}", f"node{n}", **S2) for i, n in enumerate((1, 1, 2, 3, 4, 5))],
                 regions(CHINA, INDIA, CHINA, CHINA, INDIA), False, [100, 0, 100, 100, 0],
                 id="Affinity: nodes in one region has more matching pods comparing to other region, so the region "
                    "which has more matches will get high score"),
    pytest.param(affinity3(pod("p", **S1)),
                 [pod("e1", "node1", **S1), pod("e2", "node2", **S2), pod("e3", "node3", **S1)], CHINA_INDIA_AZ1,
                 False, [20, 100, 0],
                 id="Affinity: different Label operators and values for pod affinity scheduling preference, including "
                    "some match failures "),
    pytest.param(pod("p", **S2),
                 [stay_with_s1_in_region(pod("e1", "node1", **S1)), stay_with_s2_in_region(pod("e2", "node2", **S2))],
                 CHINA_INDIA_AZ1, False, [0, 100, 0],
                 id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod "
                    "affinity symmetry"),
    pytest.param(pod("p", ns="subteam1.team1", **S1),
                 [namespace_selected(pod("e1", "node1", **S1), anti=False),
                  stay_with_s2_in_region(pod("e2", "node2", **S2))],
                 CHINA_INDIA_AZ1, False, [100, 0, 0], id="Affinity symmetry with namespace selector"),
    pytest.param(pod("p", ns="subteam1.team1", **S1),
                 [namespace_selected(pod("e1", "node1", **S1), anti=True),
                  stay_with_s2_in_region(pod("e2", "node2", **S2))],
                 CHINA_INDIA_AZ1, False, [0, 100, 100], id="AntiAffinity symmetry with namespace selector"),
    pytest.param(pod("p", **S1), [hard_affinity(pod("e1", "node1", **S1)), hard_affinity(pod("e2", "node2", **S2))],
                 CHINA_INDIA_AZ1, False, [100, 100, 0],
                 id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity "
                    "symmetry"),
    pytest.param(away_from_s1_in_az(pod("p", **S1)), [pod("e1", "node1", **S1), pod("e2", "node2", **S2)],
                 regions(AZ1, CHINA), False, [0, 100],
                 id="Anti Affinity: pod that does not match existing pods in node will get high score "),
    pytest.param(away_from_s1_in_az(pod("p", **S1)), [pod("e1", "node1", **S1), pod("e2", "node2", **S1)],
                 regions(AZ1, CHINA), False, [0, 100],
                 id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher "
                    "score comparing to others "),
    pytest.param(away_from_s1_in_az(pod("p", **S1)),
                 [pod("e1", "node1", **S1), pod("e2", "node1", **S1), pod("e3", "node2", **S2)],
                 regions(AZ1, INDIA), False, [0, 100],
                 id="Anti Affinity: one node has more matching pods comparing to other node, so the node which has "
                    "more unmatches will get high score"),
    pytest.param(pod("p", **S2),
                 [away_from_s2_in_az(pod("e1", "node1", **S1)), away_from_s1_in_az(pod("e2", "node2", **S2))],
                 regions(AZ1, AZ2), False, [0, 100],
                 id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high "
                    "score"),
    pytest.param(stay_s1_away_s2(pod("p", **S1)), [pod("e1", "node1", **S1), pod("e2", "node2", **S1)],
                 regions(CHINA, AZ1), False, [100, 0],
                 id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in "
                    "both pod affinity & anti affinity"),
    pytest.param(stay_s1_away_s2(pod("p", **S1)),
                 [pod(f"e{i}", f"node{n}", **S1) for i, n in enumerate((1, 1, 2, 3, 3, 4, 5))],
                 regions(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA), False, [100, 0, 100, 100, 0],
                 id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
                    "existing pods have the same labels"),
    pytest.param(stay_s1_away_s2(pod("p", **S1)),
                 [pod("e1", "node1", **S1), pod("e2", "node2", **S2), stay_s1_away_s2(pod("e3", "node3")),
                  away_from_s1_in_az(pod("e4", "node4"))],
                 regions(CHINA, AZ1, INDIA, AZ2), False, [100, 0, 100, 0],
                 id="Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuring"
                    "Execution in both pod affinity & anti affinity & symmetry"),
    pytest.param(pod("p", **S1), [pod("e1", "node1", **S1), stay_s1_away_s2(pod("e2", "node2"))],
                 regions(CHINA, CHINA), False, [0, 0],
                 id="Avoid panic when partial nodes in a topology don't have pods with affinity"),
    pytest.param(pod("p").affinity_term(term("region", IN("security", BAD_VALUE)), weight=8), [],
                 regions(CHINA, CHINA), False, ERROR, id="invalid Affinity fails PreScore"),
    pytest.param(pod("p").affinity_term(term("az", IN("security", BAD_VALUE)), anti=True, weight=5), [],
                 regions(CHINA, CHINA), False, ERROR, id="invalid AntiAffinity fails PreScore"),
    pytest.param(namespace_selected(pod("p", ns="subteam1.team1", **S1), anti=False),
                 [ns_s1("e1", "node1", "subteam1.team1"), ns_s1("e2", "node1", "subteam1.team1"),
                  ns_s1("e3", "node1", "subteam1.team2"), ns_s1("e4", "node2", "subteam2.team1")],
                 regions(CHINA, INDIA), False, [100, 0], id="Affinity with pods matching NamespaceSelector"),
    pytest.param(namespace_selected(pod("p", ns="subteam1.team1", **S1), anti=False),
                 [ns_s1("e1", "node1", "subteam1.team1"), ns_s1("e2", "node1", "subteam1.team1"),
                  ns_s1("e3", "node1", "subteam2.team2"), ns_s1("e4", "node2", "subteam2.team1")],
                 regions(CHINA, INDIA), False, [100, 0],
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(namespace_selected(pod("p", ns="subteam1.team1", **S1), anti=True),
                 [ns_s1("e1", "node1", "subteam1.team1"), ns_s1("e2", "node1", "subteam1.team1"),
                  ns_s1("e3", "node1", "subteam1.team2"), ns_s1("e4", "node2", "subteam2.team1")],
                 regions(CHINA, INDIA), False, [0, 100], id="Affinity with pods matching NamespaceSelector"),
    pytest.param(namespace_selected(pod("p", ns="subteam1.team1", **S1), anti=True),
                 [ns_s1("e1", "node1", "subteam1.team1"), ns_s1("e2", "node1", "subteam1.team1"),
                  ns_s1("e3", "node1", "subteam2.team2"), ns_s1("e4", "node2", "subteam2.team1")],
                 regions(CHINA, INDIA), False, [0, 100],
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(pod("p", **S2),
                 [stay_s1_away_s2(pod("e1", "node1", **S1)), stay_with_s2_in_region(pod("e2", "node2", **S2))],
                 regions(CHINA, INDIA), True, SKIP, id="Ignore preferred terms of existing pods"),
    pytest.param(pod("p", **S2),
                 [stay_s1_away_s2(pod("e1", "node1", **S1)), stay_with_s2_in_region(pod("e2", "node2", **S2))],
                 regions(CHINA, INDIA), False, [0, 100], id="Do not ignore preferred terms of existing pods"),
    pytest.param(pod("p", **S2), [], [], False, SKIP, id="No nodes to score"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "pods", "nodes", "ignore", "want"), PREFERRED)
def test_preferred_affinity(path: Any, incoming: PodBuilder, pods: list[PodBuilder], nodes: list[NodeBuilder],
                            ignore: bool, want: Any) -> None:
    """PreScore, Score and NormalizeScore give kube's scores, or PreScore skips, or fails with kube's Error."""
    args = {"hard-pod-affinity-weight": 1, "ignore-preferred-terms-of-existing-pods": ignore}
    fw = plugin_framework((IPA, args), path=path, nodes=built_nodes(nodes), pods=built_pods(pods),
                          namespaces=NAMESPACES)
    state = CycleState()
    if isinstance(want, str) and want != SKIP:
        with pytest.raises(AssertionError, match=want):
            fw.run_score(incoming, state=state)
        return
    scores = list(fw.run_score(incoming, state=state).values())
    assert (IPA in state.skip_score_plugins) is (want == SKIP)
    assert scores == ([0] * len(nodes) if want == SKIP else want)


def hard_pod_affinity(built: PodBuilder) -> PodBuilder:
    """kube's hardPodAffinity: a required term for service=S1 pods of namespace "" (here "default") and
    subteam2.team2, or of team1's namespaces."""
    selected = term("region", IN("service", "S1")).namespaces("default", "subteam2.team2").namespace_selector(TEAM1)
    return built.affinity_term(selected)


HARD_WEIGHT = [
    pytest.param("default", 1, [100, 100, 0], id="with default weight"),
    pytest.param("default", 0, SKIP, id="with zero weight"),
    pytest.param("subteam1.team2", 1, SKIP, id="with no matching namespace"),
    pytest.param("subteam1.team1", 1, [100, 100, 0], id="with matching NamespaceSelector"),
    pytest.param("subteam2.team2", 1, [100, 100, 0], id="with matching Namespaces"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("ns", "weight", "want"), HARD_WEIGHT)
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(path: Any, ns: str, weight: int,
                                                                    want: Any) -> None:
    """Existing pods' required terms that match the incoming pod score hardPodAffinityWeight (0: PreScore skips)."""
    pods = [hard_pod_affinity(pod("e1", "node1")), hard_pod_affinity(pod("e2", "node2"))]
    fw = plugin_framework((IPA, {"hard-pod-affinity-weight": weight}), path=path, nodes=built_nodes(CHINA_INDIA_AZ1),
                          pods=built_pods(pods), namespaces=NAMESPACES)
    state = CycleState()
    scores = list(fw.run_score(pod("p", ns=ns, service="S1"), state=state).values())
    assert (IPA in state.skip_score_plugins) is (want == SKIP)
    assert scores == ([0, 0, 0] if want == SKIP else want)


# -- plugin_test.go: Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange -------------------------

def pod_event(old: PodBuilder | None, new: PodBuilder | None) -> ClusterEvent:
    """The event the scheduler sees for this pod change: an add, a delete or a label update, of a bound pod or of
    a pod in the queue."""
    changed = (new or old)
    assert changed is not None
    resource = EventResource.ASSIGNED_POD if changed.obj().spec.node_name else EventResource.UNSCHEDULED_POD
    action = ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE_POD_LABEL
    return ClusterEvent(resource, action)


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

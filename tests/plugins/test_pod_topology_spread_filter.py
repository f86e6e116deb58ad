"""PodTopologySpread PreFilter + Filter: DoNotSchedule constraints keep the pod's domain within maxSkew of the
emptiest domain (kube-scheduler's filtering_test.go behaviours)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, TopologySpreadConstraint
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_pod_topology_spread import (
    BAR,
    FOUR_NODES,
    MISSING,
    OK,
    SKEW,
    Verdict,
    cluster,
    exists,
    filter_verdicts,
    foo_pods,
    incoming,
    make_plugin,
    node,
    on,
    spread,
    with_spread,
    zoned,
)

DELETED_AT = datetime(2024, 1, 1, tzinfo=UTC)


def verdicts(pod: Pod, pods: Sequence[Pod] = (), nodes: Sequence[Node] = FOUR_NODES) -> dict[str, Verdict]:
    """Filter verdict per node for ``pod`` on a cluster of ``nodes`` running ``pods``."""
    infos = cluster(nodes, pods)
    return filter_verdicts(make_plugin(infos), pod, infos)


def expect(a: Verdict, b: Verdict, x: Verdict, y: Verdict) -> dict[str, Verdict]:
    """Expected verdicts for node-a, node-b (zone1) and node-x, node-y (zone2)."""
    return {"node-a": a, "node-b": b, "node-x": x, "node-y": y}


# Matching pods spread over node-a/b/x/y as 2/1/0/3, i.e. zones as 3/3.
SPREAD_2_1_0_3 = foo_pods("node-a", 2) + foo_pods("node-b", 1) + foo_pods("node-y", 3)

SINGLE_CONSTRAINT = [
    pytest.param(incoming(spread(1, "zone")), [], expect(OK, OK, OK, OK), id="no-existing-pods"),
    pytest.param(incoming(spread(1, "zone", selector=BAR)), [], expect(OK, OK, OK, OK),
                 id="no-existing-pods-incoming-pod-does-not-match-itself"),
    pytest.param(incoming(spread(1, "zone")), SPREAD_2_1_0_3, expect(OK, OK, OK, OK), id="zones-3-3-all-fit"),
    pytest.param(incoming(spread(1, "zone")), foo_pods("node-a", 2) + foo_pods("node-x", 1),
                 expect(SKEW, SKEW, OK, OK), id="zones-2-1-fuller-zone-over-skew"),
    pytest.param(incoming(spread(2, "zone")), foo_pods("node-a", 2) + foo_pods("node-x", 1),
                 expect(OK, OK, OK, OK), id="zones-2-1-within-larger-max-skew"),
    pytest.param(incoming(spread(1, "node")), SPREAD_2_1_0_3, expect(SKEW, SKEW, OK, SKEW),
                 id="nodes-2-1-0-3-only-emptiest-fits"),
    pytest.param(incoming(spread(2, "node")), SPREAD_2_1_0_3, expect(SKEW, OK, OK, SKEW),
                 id="nodes-2-1-0-3-max-skew-2"),
    pytest.param(incoming(spread(1, "node"), labels={"bar": ""}), SPREAD_2_1_0_3, expect(SKEW, OK, OK, SKEW),
                 id="nodes-2-1-0-3-pod-does-not-match-itself"),
    pytest.param(incoming(spread(1, "node", selector=None)), SPREAD_2_1_0_3, expect(OK, OK, OK, OK),
                 id="no-label-selector-matches-no-pod"),
    pytest.param(incoming(spread(1, "node", selector=LabelSelector())),
                 [*SPREAD_2_1_0_3, on("node-x", "plain")], expect(OK, OK, OK, OK),
                 id="empty-label-selector-counts-no-existing-pod"),
    pytest.param(incoming(spread(1, "node", selector=LabelSelector(match_labels={"foo": ""}))), SPREAD_2_1_0_3,
                 expect(SKEW, SKEW, OK, SKEW), id="match-labels-selector"),
    pytest.param(incoming(spread(1, "zone")),
                 [on("node-a", "a1", "ns1", foo=""), on("node-a", "a2", "ns2", foo=""), *foo_pods("node-x", 1),
                  *foo_pods("node-y", 1)], expect(OK, OK, SKEW, SKEW), id="other-namespace-pods-do-not-count"),
    pytest.param(incoming(spread(1, "zone")),
                 [make_pod(f"t{i}").node("node-x").label(foo="").terminating(DELETED_AT).obj() for i in range(3)]
                 + foo_pods("node-a", 1), expect(SKEW, SKEW, OK, OK),
                 id="terminating-pods-do-not-count"),
]


@pytest.mark.parametrize(("pod", "pods", "expected"), SINGLE_CONSTRAINT)
def test_single_constraint(pod: Pod, pods: list[Pod], expected: dict[str, Verdict]) -> None:
    """matchNum + selfMatch - minMatchNum must not exceed maxSkew (labels ``zone`` and ``node``)."""
    assert verdicts(pod, pods) == expected


MULTIPLE_CONSTRAINTS = [
    pytest.param(incoming(spread(1, "zone"), spread(1, "node")), SPREAD_2_1_0_3, expect(SKEW, SKEW, OK, SKEW),
                 id="zones-3-3-nodes-2-1-0-3-intersection-is-node-x"),
    pytest.param(incoming(spread(1, "zone"), spread(1, "node")),
                 foo_pods("node-b", 1) + foo_pods("node-x", 2) + foo_pods("node-y", 2), expect(OK, SKEW, SKEW, SKEW),
                 id="zones-1-4-nodes-0-1-2-2-only-node-a"),
    pytest.param(incoming(spread(1, "zone"), spread(1, "node", selector=BAR), labels={"foo": "", "bar": ""}),
                 [on("node-a", "a1", foo=""), on("node-b", "b1", foo="", bar=""), on("node-y", "y1", foo=""),
                  on("node-y", "y2", bar="")], expect(SKEW, SKEW, OK, SKEW),
                 id="different-selectors-per-constraint"),
    pytest.param(incoming(spread(1, "zone", selector=BAR), spread(1, "node"), labels={"foo": ""}),
                 [on("node-a", "a1", foo=""), on("node-b", "b1", bar=""), on("node-b", "b2", bar="")],
                 expect(SKEW, SKEW, OK, OK), id="pod-matches-only-one-constraint"),
]


@pytest.mark.parametrize(("pod", "pods", "expected"), MULTIPLE_CONSTRAINTS)
def test_multiple_constraints_must_all_hold(pod: Pod, pods: list[Pod], expected: dict[str, Verdict]) -> None:
    """A node passes only when every DoNotSchedule constraint is within its maxSkew."""
    assert verdicts(pod, pods) == expected


# -- missing topology labels ------------------------------------------------------------------------

def test_node_missing_the_topology_key_is_unresolvable() -> None:
    """node-b has ``zon`` instead of ``zone``: it is rejected, and its pod does not count for zone1."""
    nodes = [zoned("node-a", "zone1"), node("node-b", zon="zone1", node="node-b"), zoned("node-x", "zone2"),
             zoned("node-y", "zone2")]
    pods = [*foo_pods("node-a", 1), *foo_pods("node-b", 1), *foo_pods("node-x", 1), *foo_pods("node-y", 1)]
    assert verdicts(incoming(spread(1, "zone")), pods, nodes) == expect(OK, MISSING, SKEW, SKEW)


def test_no_node_has_the_topology_key() -> None:
    """Every node lacks ``rack``: all are UnschedulableAndUnresolvable."""
    assert verdicts(incoming(spread(1, "rack"))) == expect(MISSING, MISSING, MISSING, MISSING)


def test_nodes_missing_any_constraint_key_are_not_counted() -> None:
    """node-y lacks ``rack``, so its 3 pods count for neither constraint: zone2 looks empty."""
    nodes = [node(n.name, {**n.labels, "rack": "r1"}) for n in FOUR_NODES[:3]] + [FOUR_NODES[3]]
    pod = incoming(spread(1, "zone"), spread(5, "rack"))
    assert verdicts(pod, foo_pods("node-a", 1) + foo_pods("node-y", 3), nodes) == expect(SKEW, SKEW, OK, MISSING)


CONSTRAINT_ORDER = [
    pytest.param((spread(1, "zone"), spread(1, "rack")), SKEW, id="skew-first"),
    pytest.param((spread(1, "rack"), spread(1, "zone")), MISSING, id="missing-label-first"),
]


@pytest.mark.parametrize(("constraints", "expected"), CONSTRAINT_ORDER)
def test_first_failing_constraint_decides_the_reason(constraints: tuple[TopologySpreadConstraint, ...],
                                                     expected: Verdict) -> None:
    """node-b lacks ``rack`` and its zone is 2 pods ahead: constraints are checked in order, the first failure wins."""
    nodes = [node(n.name, {**n.labels, "rack": "r1"}) if n.name != "node-b" else n for n in FOUR_NODES]
    pod = with_spread(make_pod("p").label(foo="").obj(), *constraints)
    assert verdicts(pod, foo_pods("node-a", 2), nodes)["node-b"] == expected


def test_rejections_are_attributed_to_the_plugin() -> None:
    """Both rejections carry the plugin's name."""
    infos = cluster([zoned("node-a", "zone1"), zoned("node-x", "zone2"), node("node-c")], foo_pods("node-a", 2))
    plugin = make_plugin(infos)
    pod = incoming(spread(1, "zone"))
    state = CycleState()
    assert plugin.pre_filter(state, pod, infos) is None
    rejections = [plugin.filter(state, pod, infos[0]), plugin.filter(state, pod, infos[2])]
    assert [(s.code, s.plugin) for s in rejections if s is not None] == [
        (Code.UNSCHEDULABLE, "PodTopologySpread"), (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PodTopologySpread")]


# -- minDomains -------------------------------------------------------------------------------------

MIN_DOMAINS = [
    pytest.param(None, expect(OK, OK, OK, OK), id="unset-min-is-1"),
    pytest.param(2, expect(OK, OK, OK, OK), id="as-many-domains-as-min"),
    pytest.param(3, expect(SKEW, SKEW, SKEW, SKEW), id="fewer-domains-global-min-is-0"),
]


@pytest.mark.parametrize(("min_domains", "expected"), MIN_DOMAINS)
def test_min_domains_treats_global_minimum_as_zero_when_domains_are_few(
        min_domains: int | None, expected: dict[str, Verdict]) -> None:
    """Zones spread 1/1: with 2 zones but minDomains 3, the skew is 1 + 1 - 0 = 2 > 1 everywhere."""
    pod = incoming(spread(1, "zone", min_domains=min_domains))
    assert verdicts(pod, foo_pods("node-a", 1) + foo_pods("node-x", 1)) == expected


def test_min_domains_on_hostnames() -> None:
    """4 hosts but minDomains 5: the global minimum is 0, so node-a (2 + 1 > 2) fails and node-b (1 + 1) fits."""
    pod = incoming(spread(2, "node", min_domains=5))
    assert verdicts(pod, foo_pods("node-a", 2) + foo_pods("node-b", 1)) == expect(SKEW, OK, OK, OK)


MIN_ELIGIBLE = [
    pytest.param(None, expect(OK, OK, OK, OK), id="one-eligible-domain-is-its-own-minimum"),
    pytest.param(2, expect(SKEW, SKEW, OK, OK), id="fewer-eligible-domains-than-min"),
]


@pytest.mark.parametrize(("min_domains", "expected"), MIN_ELIGIBLE)
def test_min_domains_counts_only_eligible_domains(min_domains: int | None, expected: dict[str, Verdict]) -> None:
    """The nodeSelector leaves only zone1 eligible (Honor), so 2 zones exist but 1 domain counts toward minDomains."""
    nodes = [node(n.name, {**n.labels, "disk": "ssd"}) for n in FOUR_NODES[:2]] + FOUR_NODES[2:]
    pod = with_spread(make_pod("p").label(foo="").node_selector(disk="ssd").obj(),
                      spread(1, "zone", min_domains=min_domains))
    assert verdicts(pod, foo_pods("node-a", 1), nodes) == expected


# -- node inclusion policies ------------------------------------------------------------------------

# zone1 holds 1 matching pod (node-a); zone2 holds 2, all on node-y, which the policies may exclude.
INCLUSION_PODS = foo_pods("node-a", 1) + foo_pods("node-y", 2)
SSD_NODES = [node(n.name, {**n.labels, "disk": "ssd"}) for n in FOUR_NODES[:3]] + [FOUR_NODES[3]]


def tainted(name: str, zone: str, effect: str) -> Node:
    """A zoned node with the taint ``dedicated=infra:<effect>``."""
    return make_node(name).labels({"zone": zone, "node": name}).taint("dedicated", "infra", effect).obj()


NODE_AFFINITY_POLICY = [
    pytest.param(None, expect(SKEW, SKEW, OK, OK), id="default-honor-skips-unmatched-node"),
    pytest.param("Honor", expect(SKEW, SKEW, OK, OK), id="honor-skips-unmatched-node"),
    pytest.param("Ignore", expect(OK, OK, SKEW, SKEW), id="ignore-counts-every-node"),
]


@pytest.mark.parametrize(("policy", "expected"), NODE_AFFINITY_POLICY)
def test_node_affinity_policy(policy: str | None, expected: dict[str, Verdict]) -> None:
    """The pod's nodeSelector excludes node-y: under Honor its pods do not count, so zone2 looks empty."""
    pod = with_spread(make_pod("p").label(foo="").node_selector(disk="ssd").obj(),
                      spread(1, "zone", node_affinity_policy=policy))
    assert verdicts(pod, INCLUSION_PODS, SSD_NODES) == expected


def test_node_affinity_policy_honours_required_node_affinity() -> None:
    """Required node affinity (not only nodeSelector) decides which nodes count under Honor."""
    pod = with_spread(make_pod("p").label(foo="").node_affinity_in("disk", "ssd").obj(), spread(1, "zone"))
    assert verdicts(pod, INCLUSION_PODS, SSD_NODES) == expect(SKEW, SKEW, OK, OK)


NODE_TAINTS_POLICY = [
    pytest.param(None, "NoSchedule", False, expect(OK, OK, SKEW, SKEW), id="default-ignore-counts-tainted-node"),
    pytest.param("Ignore", "NoSchedule", False, expect(OK, OK, SKEW, SKEW), id="ignore-counts-tainted-node"),
    pytest.param("Honor", "NoSchedule", False, expect(SKEW, SKEW, OK, OK), id="honor-skips-no-schedule-taint"),
    pytest.param("Honor", "NoExecute", False, expect(SKEW, SKEW, OK, OK), id="honor-skips-no-execute-taint"),
    pytest.param("Honor", "PreferNoSchedule", False, expect(OK, OK, SKEW, SKEW),
                 id="honor-counts-prefer-no-schedule-taint"),
    pytest.param("Honor", "NoSchedule", True, expect(OK, OK, SKEW, SKEW), id="honor-counts-tolerated-taint"),
]


@pytest.mark.parametrize(("policy", "effect", "tolerate", "expected"), NODE_TAINTS_POLICY)
def test_node_taints_policy(policy: str | None, effect: str, tolerate: bool, expected: dict[str, Verdict]) -> None:
    """node-y is tainted: under Honor its pods count only if the pod tolerates its NoSchedule/NoExecute taints."""
    nodes = [*FOUR_NODES[:3], tainted("node-y", "zone2", effect)]
    builder = make_pod("p").label(foo="")
    if tolerate:
        builder = builder.toleration("dedicated", "infra", effect)
    pod = with_spread(builder.obj(), spread(1, "zone", node_taints_policy=policy))
    assert verdicts(pod, INCLUSION_PODS, nodes) == expected


# -- matchLabelKeys ---------------------------------------------------------------------------------

# zone1 holds 2 pods of the old revision; the incoming pod is revision 2.
REVISIONS = [on("node-a", "old1", foo="", rev="1"), on("node-b", "old2", foo="", rev="1"),
             on("node-x", "new1", foo="", rev="2")]
NEW_REVISION = {"foo": "", "rev": "2"}

MATCH_LABEL_KEYS = [
    pytest.param(spread(1, "zone"), expect(SKEW, SKEW, OK, OK), id="without-keys-all-revisions-count"),
    pytest.param(spread(1, "zone", match_label_keys=("rev",)), expect(OK, OK, SKEW, SKEW),
                 id="keys-select-only-the-pods-revision"),
    pytest.param(spread(1, "zone", match_label_keys=("missing",)), expect(SKEW, SKEW, OK, OK),
                 id="keys-absent-from-the-pod-are-ignored"),
    pytest.param(spread(1, "zone", selector=exists("other"), match_label_keys=("rev",)), expect(OK, OK, OK, OK),
                 id="keys-anded-with-the-selector"),
    pytest.param(spread(1, "zone", selector=None, match_label_keys=("rev",)), expect(OK, OK, OK, OK),
                 id="keys-without-selector-still-select-nothing"),
]


@pytest.mark.parametrize(("constraint", "expected"), MATCH_LABEL_KEYS)
def test_match_label_keys(constraint: TopologySpreadConstraint, expected: dict[str, Verdict]) -> None:
    """The incoming pod's values for matchLabelKeys are ANDed into the selector."""
    pod = incoming(constraint, labels=NEW_REVISION)
    assert verdicts(pod, REVISIONS) == expected


def test_match_label_keys_conflicting_with_selector_select_nothing() -> None:
    """A key both in matchLabels and matchLabelKeys with different values selects no pod (requirements ANDed)."""
    selector = LabelSelector(match_labels={"rev": "1"})
    pod = incoming(spread(1, "zone", selector=selector, match_label_keys=("rev",)), labels=NEW_REVISION)
    assert verdicts(pod, REVISIONS) == expect(OK, OK, OK, OK)


SELF_MATCH = [
    pytest.param({"foo": ""}, expect(SKEW, SKEW, OK, OK), id="matching-pod-counts-itself"),
    pytest.param({"bar": ""}, expect(OK, OK, OK, OK), id="non-matching-pod-does-not"),
]


@pytest.mark.parametrize(("labels", "expected"), SELF_MATCH)
def test_self_match_adds_the_incoming_pod(labels: dict[str, str], expected: dict[str, Verdict]) -> None:
    """Zones spread 1/0: placing a pod its own selector matches makes zone1 2 ahead; a non-matching pod changes
    nothing (selfMatch is 0)."""
    assert verdicts(incoming(spread(1, "zone"), labels=labels), foo_pods("node-a", 1)) == expected

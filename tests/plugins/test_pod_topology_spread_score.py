"""PodTopologySpread PreScore + Score + NormalizeScore: ScheduleAnyway constraints favour emptier domains
(kube-scheduler's scoring_test.go cases, with its expected normalised scores)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, TopologySpreadConstraint
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._types import NodeScore
from kubesched.plugins.pod_topology_spread.scoring import go_round
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_pod_topology_spread import (
    BAR,
    FOO,
    HOSTNAME,
    SCHEDULE_ANYWAY,
    cluster,
    final_scores,
    foo_pods,
    incoming,
    make_plugin,
    node,
    on,
    spread,
    with_spread,
)


def host(name: str, **labels: str) -> Node:
    """A node labelled with its hostname and these labels."""
    return node(name, {HOSTNAME: name, **labels})


DELETED_AT = datetime(2024, 1, 1, tzinfo=UTC)


def soft(max_skew: int, key: str, selector: LabelSelector | None = FOO, *, min_domains: int | None = None,
         node_affinity_policy: str | None = None, node_taints_policy: str | None = None,
         match_label_keys: tuple[str, ...] = ()) -> TopologySpreadConstraint:
    """A ScheduleAnyway constraint."""
    return spread(max_skew, key, SCHEDULE_ANYWAY, selector, min_domains=min_domains,
                  node_affinity_policy=node_affinity_policy, node_taints_policy=node_taints_policy,
                  match_label_keys=match_label_keys)


def pod_with(*constraints: TopologySpreadConstraint, labels: dict[str, str] | None = None) -> Pod:
    """The incoming pod with these constraints (labelled ``foo`` unless other labels are given)."""
    return incoming(*constraints, labels=labels)


A, B, C, D, X, Y = (host(f"node-{c}") for c in "abcdxy")
ZA, ZB, ZX, ZY = (host(f"node-{c}", zone=z) for c, z in (("a", "zone1"), ("b", "zone1"), ("x", "zone2"),
                                                         ("y", "zone2")))
# Nodes with only a custom ``node`` key, for the policy cases.
NA, NB, NC = (node(f"node-{c}", node=f"node-{c}") for c in "abc")
SSD_A, SSD_B = (node(f"node-{c}", node=f"node-{c}", foo="") for c in "ab")
TAINTED_C = make_node("node-c").labels({"node": "node-c"}).taint("node.kubernetes.io/unschedulable").obj()
P_2_1_0_3 = foo_pods("node-a", 2) + foo_pods("node-b", 1) + foo_pods("node-d", 3)
P_4_3_2_1 = foo_pods("node-a", 4) + foo_pods("node-b", 3) + foo_pods("node-c", 2) + foo_pods("node-d", 1)
P_4_2_1_3 = foo_pods("node-a", 4) + foo_pods("node-b", 2) + foo_pods("node-x", 1) + foo_pods("node-y", 3)
P_2_1_1 = foo_pods("node-a", 2) + foo_pods("node-b", 1) + foo_pods("node-c", 1)
MIXED = [on("node-a", "a1", foo=""), on("node-b", "b1", foo="", bar=""), on("node-y", "y1", foo=""),
         on("node-y", "y2", bar="")]
MIXED_C = [on("node-a", "a1", foo=""), on("node-b", "b1", foo="", bar=""), on("node-c", "c1", foo=""),
           on("node-c", "c2", bar="")]
ZC, ZD = host("node-c", zone="zone2"), host("node-d", zone="zone2")
HOST_FOO = soft(1, HOSTNAME)

SCORE_CASES = [
    pytest.param(pod_with(HOST_FOO), [], [A, B], [], [100, 100], id="one-constraint-on-node-no-existing-pods"),
    pytest.param(pod_with(HOST_FOO), foo_pods("node-a", 2) + foo_pods("node-b", 1), [A], [B], [100],
                 id="only-one-candidate-scores-100"),
    pytest.param(pod_with(HOST_FOO), foo_pods("node-a", 1) + foo_pods("node-b", 1), [A, B], [], [100, 100],
                 id="same-number-of-matching-pods"),
    pytest.param(pod_with(HOST_FOO), P_2_1_0_3, [A, B, C, D], [], [20, 60, 100, 0], id="nodes-2-1-0-3"),
    pytest.param(pod_with(soft(1, HOSTNAME, None)), P_2_1_0_3, [A, B, C, D], [], [100, 100, 100, 100],
                 id="no-label-selector"),
    pytest.param(pod_with(soft(2, HOSTNAME)), P_2_1_0_3, [A, B, C, D], [], [33, 66, 100, 16],
                 id="nodes-2-1-0-3-max-skew-2"),
    pytest.param(pod_with(soft(3, HOSTNAME)), P_4_3_2_1, [A, B, C, D], [], [44, 66, 77, 100],
                 id="nodes-4-3-2-1-max-skew-3"),
    pytest.param(pod_with(HOST_FOO), P_4_2_1_3, [A, B, X], [Y], [33, 83, 100], id="three-of-four-candidates"),
    pytest.param(pod_with(HOST_FOO), P_4_2_1_3, [A, node("node-b", n="node-b"), X], [Y], [16, 0, 100],
                 id="candidate-without-topology-key-scores-0"),
    pytest.param(pod_with(soft(1, "zone")), P_4_2_1_3, [ZA, ZB, ZX], [ZY], [75, 75, 100],
                 id="zone-counts-pods-of-non-candidates"),
    pytest.param(pod_with(soft(1, "zone"), HOST_FOO),
                 foo_pods("node-a", 2) + foo_pods("node-b", 1) + foo_pods("node-x", 2) + foo_pods("node-y", 4),
                 [ZA, ZX], [ZB, ZY], [100, 63], id="zone-and-node-two-of-four-candidates"),
    pytest.param(pod_with(soft(1, "zone"), soft(1, "zone", BAR), labels={"foo": "", "bar": ""}),
                 [on("node-a", "a1", foo="", bar=""), on("node-a", "a2", foo=""), on("node-b", "b1", foo="", bar=""),
                  on("node-y", "y1", foo=""), on("node-y", "y2", foo="", bar=""), on("node-y", "y3", foo="")],
                 [node("node-a", zone="zone1"), node("node-x", zone="zone2")],
                 [node("node-b", zone="zone1"), node("node-y", zone="zone2")], [85, 100],
                 id="two-constraints-same-key-counted-separately"),
    pytest.param(pod_with(soft(1, "zone"), soft(1, HOSTNAME, BAR), labels={"foo": "", "bar": ""}), MIXED,
                 [ZA, ZB, ZX, ZY], [], [60, 20, 100, 60], id="zone-and-node-different-selectors"),
    pytest.param(pod_with(soft(1, "zone"), soft(1, HOSTNAME, BAR), labels={"foo": "", "bar": ""}),
                 [on("node-b", "b1", bar=""), on("node-x", "x1", foo=""), on("node-y", "y1", foo="", bar="")],
                 [ZA, ZB, ZX, ZY], [], [100, 60, 40, 0], id="different-selectors-some-nodes-empty"),
    pytest.param(pod_with(soft(1, "zone"), soft(1, HOSTNAME, BAR), labels={"foo": "", "bar": ""}), MIXED,
                 [ZA, ZB, ZX], [ZY], [50, 25, 100], id="different-selectors-three-of-four-candidates"),
    pytest.param(pod_with(HOST_FOO),
                 [on("node-a", "a1", "ns1", foo=""), *foo_pods("node-a", 1), *foo_pods("node-b", 2)], [A, B], [],
                 [100, 33], id="other-namespace-pods-do-not-count"),
    pytest.param(pod_with(HOST_FOO),
                 [make_pod("t").node("node-a").label(foo="").terminating(DELETED_AT).obj(), *foo_pods("node-b", 1)],
                 [A, B], [], [100, 0], id="terminating-pods-do-not-count"),
    pytest.param(pod_with(soft(1, HOSTNAME, LabelSelector())), foo_pods("node-a", 2), [A, B], [], [100, 100],
                 id="empty-selector-counts-no-pod"),
    pytest.param(pod_with(soft(2, "node", min_domains=10)), foo_pods("node-a", 2) + foo_pods("node-b", 2)
                 + foo_pods("node-c", 1), [NA, NB, NC], [], [75, 75, 100], id="min-domains-has-no-effect"),
]


@pytest.mark.parametrize(("pod", "pods", "feasible", "failed", "expected"), SCORE_CASES)
def test_scores(pod: Pod, pods: list[Pod], feasible: list[Node], failed: list[Node], expected: list[int]) -> None:
    """Normalised scores: fewer matching pods in the node's domains score higher; missing keys score 0."""
    infos = cluster([*feasible, *failed], pods)
    plugin = make_plugin(infos)
    assert final_scores(plugin, pod, infos[:len(feasible)]) == expected


def with_selector(pod: Pod, **labels: str) -> Pod:
    """The pod with this nodeSelector."""
    return with_spread(make_pod("p").label(foo="").node_selector(**labels).obj(), *pod.spec.topology_spread_constraints)


def with_affinity(pod: Pod) -> Pod:
    """The pod requiring nodes labelled ``foo`` through required node affinity."""
    return with_spread(make_pod("p").label(foo="").node_affinity_in("foo", "").obj(),
                       *pod.spec.topology_spread_constraints)


INCLUSION_CASES = [
    pytest.param(with_selector(pod_with(soft(1, "node")), foo=""), [SSD_A, SSD_B, NC], [0, 33, 100],
                 id="node-affinity-policy-honored-node-selector"),
    pytest.param(with_selector(pod_with(soft(1, "node", node_affinity_policy="Ignore")), foo=""),
                 [SSD_A, SSD_B, NC], [66, 100, 100], id="node-affinity-policy-ignored-node-selector"),
    pytest.param(with_affinity(pod_with(soft(1, "node"))), [SSD_A, SSD_B, NC], [0, 33, 100],
                 id="node-affinity-policy-honored-node-affinity"),
    pytest.param(with_affinity(pod_with(soft(1, "node", node_affinity_policy="Ignore"))), [SSD_A, SSD_B, NC],
                 [66, 100, 100], id="node-affinity-policy-ignored-node-affinity"),
    pytest.param(pod_with(soft(1, "node", node_taints_policy="Honor")), [NA, NB, TAINTED_C], [0, 33, 100],
                 id="node-taints-policy-honored"),
    pytest.param(pod_with(soft(1, "node")), [NA, NB, TAINTED_C], [66, 100, 100], id="node-taints-policy-ignored"),
]


@pytest.mark.parametrize(("pod", "nodes", "expected"), INCLUSION_CASES)
def test_node_inclusion_policies(pod: Pod, nodes: list[Node], expected: list[int]) -> None:
    """Pods spread 2/1/1; node-c fails the pod's node affinity or has an untolerated taint. Under Honor its pod
    is not counted, so node-c looks empty; under Ignore it counts."""
    infos = cluster(nodes, P_2_1_1)
    assert final_scores(make_plugin(infos), pod, infos) == expected


MATCH_LABEL_KEYS = [
    pytest.param(pod_with(soft(1, "zone", LabelSelector(), match_label_keys=("foo",)),
                          soft(1, HOSTNAME, LabelSelector(), match_label_keys=("bar",)), labels={"foo": "", "bar": ""}),
                 MIXED_C, id="keys-with-empty-selectors"),
    pytest.param(pod_with(soft(1, "zone"), soft(1, HOSTNAME, BAR, match_label_keys=("baz",)),
                          labels={"foo": "", "bar": "", "baz": ""}),
                 [on("node-a", "a1", foo=""), on("node-b", "b1", foo="", bar="", baz=""), on("node-c", "c1", foo=""),
                  on("node-c", "c2", bar=""), on("node-c", "c3", bar="", baz="")], id="keys-anded-with-selector"),
]


@pytest.mark.parametrize(("pod", "pods"), MATCH_LABEL_KEYS)
def test_match_label_keys_narrow_the_counted_pods(pod: Pod, pods: list[Pod]) -> None:
    """matchLabelKeys ANDed into the selector: only pods sharing the incoming pod's values count."""
    infos = cluster([ZA, ZB, ZC, ZD], pods)
    assert final_scores(make_plugin(infos), pod, infos) == [60, 20, 60, 100]


def test_raw_scores_weight_counts_by_log_of_domains() -> None:
    """Raw score per node: matching pods * ln(4 hosts + 2) + (maxSkew - 1), rounded: 2/1/0/3 -> 4/2/0/5."""
    infos = cluster([A, B, C, D], P_2_1_0_3)
    plugin = make_plugin(infos)
    pod = pod_with(HOST_FOO)
    state = CycleState()
    assert plugin.pre_score(state, pod, infos) is None
    assert [plugin.score(state, pod, ni) for ni in infos] == [4, 2, 0, 5]


NORMALIZE_CASES = [
    pytest.param([0, 0, 0], [100, 100, 100], id="all-zero-score-100"),
    pytest.param([4, 2, 0, 5], [20, 60, 100, 0], id="max-plus-min-minus-score-over-max"),
    pytest.param([7, 6], [85, 100], id="integer-division-truncates"),
    pytest.param([3, 3], [100, 100], id="equal-scores"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE_CASES)
def test_normalize_score(raw: list[int], expected: list[int]) -> None:
    """100 * (max + min - s) // max, or 100 for every node when the highest raw score is 0."""
    infos = cluster([A, B, C, D][:len(raw)])
    plugin = make_plugin(infos)
    pod = pod_with(HOST_FOO)
    state = CycleState()
    assert plugin.pre_score(state, pod, infos) is None
    scores = [NodeScore(ni.name, s) for ni, s in zip(infos, raw, strict=True)]
    assert plugin.normalize_score(state, pod, scores) is None
    assert [s.score for s in scores] == expected


def test_normalize_gives_ignored_nodes_zero_and_excludes_them_from_min_max() -> None:
    """A candidate missing the key scores 0 and its raw score does not widen the range of the others."""
    infos = cluster([A, node("node-b", n="node-b")])
    plugin = make_plugin(infos)
    pod = pod_with(HOST_FOO)
    state = CycleState()
    assert plugin.pre_score(state, pod, infos) is None
    scores = [NodeScore("node-a", 3), NodeScore("node-b", 50)]
    assert plugin.normalize_score(state, pod, scores) is None
    assert [s.score for s in scores] == [100, 0]


GO_ROUND = [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (-2.5, -3), (0.0, 0)]


@pytest.mark.parametrize(("value", "expected"), GO_ROUND)
def test_scores_round_half_away_from_zero(value: float, expected: int) -> None:
    """Go's math.Round: 2.5 rounds to 3 (Python's round() would give 2)."""
    assert go_round(value) == expected


def test_pre_score_counts_pods_on_all_snapshot_nodes_but_domains_from_candidates() -> None:
    """zone3 holds 5 pods but no candidate: it is not a domain. zone2's pods on the non-candidate node-y count."""
    nodes: Sequence[Node] = [ZA, ZX, ZY, host("node-z", zone="zone3")]
    infos = cluster(nodes, foo_pods("node-y", 2) + foo_pods("node-z", 5))
    plugin = make_plugin(infos)
    # weight ln(2 zones + 2): zone1 = 0 -> 0, zone2 = 2*ln4 -> 3
    assert final_scores(plugin, pod_with(soft(1, "zone")), infos[:2]) == [100, 0]

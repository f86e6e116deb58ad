"""kube-scheduler's InterPodAffinity Score tables (pkg/scheduler/framework/plugins/interpodaffinity/
scoring_test.go: TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight), case by case over
the public testing kit, on both scheduler paths. Ids are kube's case names; every kube case is translated.

kube's pods live in namespace "" by default; here they live in "default" (a term's ``namespaces: [""]`` reads
``"default"``). kube checks a failing PreScore by its code and a part of its message; so does the table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubesched.framework import Code, CycleState
from kubesched.testing import PATHS, NodeBuilder, PodBuilder, StatusError, make_namespace, plugin_framework
from tests.plugins.tables.topology import (
    DOES_NOT_EXIST,
    EXISTS,
    IN,
    NOT_IN,
    built_nodes,
    built_pods,
    node,
    pod,
    selector,
    term,
)

IPA = "InterPodAffinity"
SKIP = "Skip"
#: kube's ``namespaces`` objects: two teams of two namespaces each.
NAMESPACES = [make_namespace(f"subteam{i}.team{t}").label(team=f"team{t}").obj() for t in (1, 2) for i in (1, 2)]
BAD_VALUE = "{{.bad-value.}}"
TEAM1 = selector(IN("team", "team1"))
CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}

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
ERROR = "Error: .*" + re.escape('Invalid value: "{{.bad-value.}}"')

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
        with pytest.raises(StatusError, match=want) as failed:
            fw.run_score(incoming, state=state)
        assert failed.value.status.code is Code.ERROR
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

"""InterPodAffinity: required pod affinity / anti-affinity in both directions (PreFilter + Filter, with the
AddPod/RemovePod extensions), preferred terms and hardPodAffinityWeight (PreScore + Score + NormalizeScore),
and the args."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import pytest

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodAffinityTerm
from kubesched.api.workload import Namespace
from kubesched.framework._args import ArgsError, structure
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.plugins.inter_pod_affinity import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
    InterPodAffinityArgs,
)
from kubesched.testing import plugin_instance
from kubesched.testing.builders import PodBuilder, make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, normalized_scores, raw_scores, verdict

Verdict = tuple[Code, tuple[str, ...]]

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
AFFINITY: Verdict = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match pod affinity rules",))
ANTI: Verdict = (Code.UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",))
EXISTING: Verdict = (Code.UNSCHEDULABLE, ("node(s) didn't satisfy existing pods anti-affinity rules",))
OK: Verdict = SUCCESS

NAMESPACE_LABELS = {
    "team-a-1": {"team": "a"},
    "team-a-2": {"team": "a"},
    "team-b-1": {"team": "b"},
}


NAMESPACES = [Namespace(ObjectMeta(name=name, labels=labels)) for name, labels in NAMESPACE_LABELS.items()]


# -- builders ---------------------------------------------------------------------------------------

def selector(**labels: str) -> LabelSelector:
    """A matchLabels selector (no labels: the empty selector, matching everything)."""
    return LabelSelector(match_labels=labels)


def term(topology_key: str, label_selector: LabelSelector | None, *, namespaces: tuple[str, ...] = (),
         namespace_selector: LabelSelector | None = None, match_label_keys: tuple[str, ...] = (),
         mismatch_label_keys: tuple[str, ...] = ()) -> PodAffinityTerm:
    """A pod affinity term."""
    return PodAffinityTerm(topology_key, label_selector, namespaces, namespace_selector, match_label_keys,
                           mismatch_label_keys)


def pod(name: str, namespace: str = "default", **labels: str) -> PodBuilder:
    """A pod builder with these labels."""
    return make_pod(name, namespace).label(**labels)


def requires(builder: PodBuilder, *terms: PodAffinityTerm, anti: bool = False) -> Pod:
    """The pod with these required affinity (or anti-affinity) terms."""
    for t in terms:
        builder.affinity_term(t, anti=anti)
    return builder.obj()


def prefers(builder: PodBuilder, *weighted: tuple[int, PodAffinityTerm], anti: bool = False) -> Pod:
    """The pod with these (weight, term) preferred affinity (or anti-affinity) terms."""
    for weight, t in weighted:
        builder.affinity_term(t, anti=anti, weight=weight)
    return builder.obj()


def plugin(nodes: Sequence[NodeInfo] = (), args: Mapping[str, object] | None = None) -> InterPodAffinity:
    """The plugin over a snapshot of ``nodes``, with the namespaces of NAMESPACE_LABELS."""
    plugin: InterPodAffinity = plugin_instance(InterPodAffinity, args or {}, nodes=list(nodes), namespaces=NAMESPACES)
    return plugin


# Filter tests run on four nodes: n1 and n2 in zone a, n3 in zone b, n4 without a zone label.
NODES: dict[str, Node] = {
    "n1": make_node("n1").zone("a").obj(),
    "n2": make_node("n2").zone("a").obj(),
    "n3": make_node("n3").zone("b").obj(),
    "n4": make_node("n4").obj(),
}


def cluster(placement: Mapping[str, Sequence[Pod]]) -> list[NodeInfo]:
    """The four nodes, with the pods placed on them."""
    return [node_info(node, *placement.get(name, ())) for name, node in NODES.items()]


def filter_all(p: InterPodAffinity, incoming: Pod, nodes: list[NodeInfo]) -> list[Verdict]:
    """PreFilter over all nodes, then Filter on each node (a PreFilter Skip passes every node)."""
    state = CycleState()
    status = p.pre_filter(state, incoming, nodes)
    if isinstance(status, Status) and status.code is Code.SKIP:
        return [OK] * len(nodes)
    assert status is None, f"PreFilter returned {status}"
    return [verdict(p.filter(state, incoming, n)) for n in nodes]


def web(name: str = "web", namespace: str = "default", **labels: str) -> PodBuilder:
    """A pod labelled app=web (the usual incoming pod)."""
    return pod(name, namespace, app="web", **labels)


def db(name: str = "db", namespace: str = "default", **labels: str) -> Pod:
    """An existing pod labelled app=db."""
    return pod(name, namespace, app="db", **labels).obj()


def cache(name: str = "cache") -> Pod:
    """An existing pod labelled app=cache."""
    return pod(name, app="cache").obj()


def guard(name: str, *terms: PodAffinityTerm, namespace: str = "default", **labels: str) -> Pod:
    """An existing pod with these required anti-affinity terms."""
    return requires(pod(name, namespace, **labels), *terms, anti=True)


# -- Filter: the incoming pod's required affinity ---------------------------------------------------

AFFINITY_CASES = [
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {"n1": [db()]},
                 [OK, OK, AFFINITY, AFFINITY], id="matching-pod-in-zone-admits-the-whole-zone"),
    pytest.param(requires(web(), term(HOST, selector(app="db"))), {"n1": [db()]},
                 [OK, AFFINITY, AFFINITY, AFFINITY], id="hostname-key-admits-only-that-node"),
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {"n1": [cache()], "n3": [cache("c2")]},
                 [AFFINITY] * 4, id="no-matching-pod-anywhere"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(ZONE, selector(tier="back"))),
                 {"n1": [db()], "n3": [pod("back", tier="back").obj()]},
                 [AFFINITY] * 4, id="one-pod-must-match-every-term"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(ZONE, selector(tier="back"))),
                 {"n3": [db(tier="back")]}, [AFFINITY, AFFINITY, OK, AFFINITY], id="pod-matching-every-term"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(HOST, selector(app="db"))), {"n1": [db()]},
                 [OK, AFFINITY, AFFINITY, AFFINITY], id="every-term-needs-a-match-in-its-own-domain"),
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {"n1": [db()], "n4": [db("db2")]},
                 [OK, OK, AFFINITY, AFFINITY], id="node-without-topology-key-never-fits"),
    pytest.param(requires(web(), term(ZONE, LabelSelector(match_expressions=(
        LabelSelectorRequirement("app", "In", ("db", "cache")),)))), {"n3": [cache()]},
                 [AFFINITY, AFFINITY, OK, AFFINITY], id="match-expressions"),
    pytest.param(requires(web(), term(ZONE, selector(app="db"))),
                 {"n1": [pod("db", app="db").terminating(datetime(2024, 1, 1)).obj()]},
                 [OK, OK, AFFINITY, AFFINITY], id="terminating-pods-still-count"),
    pytest.param(requires(web(), term(ZONE, None)), {"n1": [db()]}, [AFFINITY] * 4,
                 id="nil-selector-matches-no-pod"),
    pytest.param(requires(web(), term(ZONE, selector())), {"n3": [db()]}, [AFFINITY, AFFINITY, OK, AFFINITY],
                 id="empty-selector-matches-every-pod"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), AFFINITY_CASES)
def test_filter_requires_a_matching_pod_in_the_nodes_domain(incoming: Pod, placement: dict[str, list[Pod]],
                                                           expected: list[Verdict]) -> None:
    """A node fits when, for every required affinity term, its domain holds a pod matching all the terms;
    otherwise UnschedulableAndUnresolvable."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


FIRST_POD_CASES = [
    pytest.param(requires(web(), term(ZONE, selector(app="web"))), {"n1": [db()]},
                 [OK, OK, OK, AFFINITY], id="first-pod-fits-nodes-that-have-the-topology-key"),
    pytest.param(requires(web(), term(ZONE, selector(app="web"))), {"n3": [web("web-0").obj()]},
                 [AFFINITY, AFFINITY, OK, AFFINITY], id="not-once-a-matching-pod-exists"),
    pytest.param(requires(web(), term(ZONE, selector(app="web")), term(HOST, selector(app="web"))), {},
                 [OK, OK, OK, AFFINITY], id="every-topology-key-needed"),
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {}, [AFFINITY] * 4,
                 id="not-when-the-pod-does-not-match-its-own-terms"),
    pytest.param(requires(web(), term(ZONE, selector(app="web"), namespaces=("other",))), {}, [AFFINITY] * 4,
                 id="not-when-its-own-namespace-is-not-selected"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), FIRST_POD_CASES)
def test_filter_lets_the_first_pod_of_a_group_start_it(incoming: Pod, placement: dict[str, list[Pod]],
                                                      expected: list[Verdict]) -> None:
    """With no pod in the cluster matching, a pod matching its own affinity terms fits on any node that has
    all the topology keys."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


# -- Filter: anti-affinity, both directions ---------------------------------------------------------

ANTI_AFFINITY_CASES = [
    pytest.param(requires(web(), term(ZONE, selector(app="db")), anti=True), {"n1": [db()]},
                 [ANTI, ANTI, OK, OK], id="matching-pod-repels-the-whole-zone"),
    pytest.param(requires(web(), term(HOST, selector(app="db")), anti=True), {"n1": [db()]},
                 [ANTI, OK, OK, OK], id="hostname-key-repels-only-that-node"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), anti=True), {"n4": [db()]},
                 [OK] * 4, id="pod-on-node-without-the-key-repels-nothing"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(HOST, selector(app="cache")), anti=True),
                 {"n1": [db()], "n4": [cache()]}, [ANTI, ANTI, OK, ANTI], id="any-term-repels"),
    pytest.param(requires(web(), term(HOST, None), anti=True), {"n1": [db()]}, [OK] * 4,
                 id="nil-selector-repels-nothing"),
    pytest.param(requires(web(), term(HOST, selector()), anti=True), {"n1": [db()], "n3": [cache()]},
                 [ANTI, OK, ANTI, OK], id="empty-selector-repels-every-pod"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), ANTI_AFFINITY_CASES)
def test_filter_rejects_domains_holding_pods_the_pod_repels(incoming: Pod, placement: dict[str, list[Pod]],
                                                           expected: list[Verdict]) -> None:
    """A node whose domain (for some required anti-affinity term) holds a matching pod is Unschedulable."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


SYMMETRY_CASES = [
    pytest.param(web().obj(), {"n1": [guard("g", term(ZONE, selector(app="web")))]},
                 [EXISTING, EXISTING, OK, OK], id="existing-pod-repels-incoming-from-its-zone"),
    pytest.param(web().obj(), {"n1": [guard("g", term(HOST, selector(app="web")))]},
                 [EXISTING, OK, OK, OK], id="existing-pod-repels-incoming-from-its-node"),
    pytest.param(web().obj(), {"n4": [guard("g", term(ZONE, selector(app="web")))]},
                 [OK] * 4, id="existing-pod-on-node-without-the-key"),
    pytest.param(web().obj(), {"n1": [guard("g", term(ZONE, selector(app="db")))]},
                 [OK] * 4, id="existing-term-not-matching-incoming"),
    pytest.param(web().obj(), {"n1": [guard("g", term(ZONE, selector(app="web")), namespace="other")]},
                 [OK] * 4, id="existing-term-covers-only-its-own-namespace"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), SYMMETRY_CASES)
def test_filter_honours_existing_pods_anti_affinity(incoming: Pod, placement: dict[str, list[Pod]],
                                                    expected: list[Verdict]) -> None:
    """A node in the domain of an existing pod whose required anti-affinity matches the incoming pod is
    Unschedulable, even when the incoming pod has no affinity at all."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


PRECEDENCE_CASES = [
    pytest.param(requires(web().affinity_term(term(ZONE, selector(app="cache")), anti=True),
                          term(ZONE, selector(app="db"))),
                 {"n1": [cache()], "n3": [db()]}, [AFFINITY, AFFINITY, OK, AFFINITY],
                 id="affinity-reported-before-anti-affinity"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), anti=True),
                 {"n1": [guard("g", term(ZONE, selector(app="web")), app="db")]}, [ANTI, ANTI, OK, OK],
                 id="own-anti-affinity-reported-before-existing-pods"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), PRECEDENCE_CASES)
def test_filter_reports_the_first_failing_rule(incoming: Pod, placement: dict[str, list[Pod]],
                                               expected: list[Verdict]) -> None:
    """Affinity is checked first, then the pod's anti-affinity, then existing pods' anti-affinity."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


# -- Filter: namespaces, namespaceSelector, matchLabelKeys -------------------------------------------

NAMESPACE_CASES = [
    pytest.param(requires(web(), term(HOST, selector(app="db")), anti=True),
                 {"n1": [db(namespace="other")], "n3": [db()]}, [OK, OK, ANTI, OK],
                 id="default-is-the-pods-own-namespace"),
    pytest.param(requires(web(), term(HOST, selector(app="db"), namespaces=("other",)), anti=True),
                 {"n1": [db(namespace="other")], "n3": [db()]}, [ANTI, OK, OK, OK],
                 id="namespaces-replace-the-default"),
    pytest.param(requires(web(), term(HOST, selector(app="db"), namespace_selector=selector(team="a")), anti=True),
                 {"n1": [db(namespace="team-a-2")], "n2": [db(namespace="team-b-1")], "n3": [db()]},
                 [ANTI, OK, OK, OK], id="namespace-selector-matches-namespace-labels"),
    pytest.param(requires(web(), term(HOST, selector(app="db"), namespace_selector=selector()), anti=True),
                 {"n1": [db(namespace="team-a-2")], "n2": [db(namespace="team-b-1")], "n3": [db()]},
                 [ANTI, ANTI, ANTI, OK], id="empty-namespace-selector-matches-all-namespaces"),
    pytest.param(requires(web(), term(HOST, selector(app="db"), namespaces=("default",),
                                      namespace_selector=selector(team="b")), anti=True),
                 {"n1": [db(namespace="team-a-2")], "n2": [db(namespace="team-b-1")], "n3": [db()]},
                 [OK, ANTI, ANTI, OK], id="namespaces-and-selector-are-unioned"),
    pytest.param(requires(web(namespace="team-a-1"), term(ZONE, selector(app="db"),
                                                          namespace_selector=selector(team="a"))),
                 {"n1": [db(namespace="team-b-1")], "n3": [db(namespace="team-a-2")]},
                 [AFFINITY, AFFINITY, OK, AFFINITY], id="namespace-selector-in-affinity"),
    pytest.param(web(namespace="team-a-1").obj(),
                 {"n1": [guard("g", term(ZONE, selector(app="web"), namespace_selector=selector(team="a")))]},
                 [EXISTING, EXISTING, OK, OK], id="existing-pods-selector-matches-incoming-namespace"),
    pytest.param(web(namespace="team-b-1").obj(),
                 {"n1": [guard("g", term(ZONE, selector(app="web"), namespace_selector=selector(team="a")))]},
                 [OK] * 4, id="existing-pods-selector-misses-incoming-namespace"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), NAMESPACE_CASES)
def test_filter_selects_pods_by_namespace(incoming: Pod, placement: dict[str, list[Pod]],
                                          expected: list[Verdict]) -> None:
    """A term covers its pod's namespace by default; otherwise the listed namespaces plus those whose labels
    its namespaceSelector matches ({} matching all)."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


LABEL_KEY_CASES = [
    pytest.param(requires(web(version="v2"), term(HOST, selector(app="web"), match_label_keys=("version",)),
                          anti=True),
                 {"n1": [web("w1", version="v1").obj()], "n3": [web("w2", version="v2").obj()]},
                 [OK, OK, ANTI, OK], id="match-label-keys-add-the-pods-own-values"),
    pytest.param(requires(web(), term(HOST, selector(app="web"), match_label_keys=("version",)), anti=True),
                 {"n1": [web("w1", version="v1").obj()]}, [ANTI, OK, OK, OK],
                 id="keys-the-pod-lacks-are-ignored"),
    pytest.param(requires(web(tenant="t1"), term(ZONE, selector(), mismatch_label_keys=("tenant",)), anti=True),
                 {"n1": [web("w1", tenant="t2").obj()], "n3": [web("w2", tenant="t1").obj()]},
                 [ANTI, ANTI, OK, OK], id="mismatch-label-keys-select-other-values"),
    pytest.param(requires(web(version="v2"), term(ZONE, selector(app="web"), match_label_keys=("version",))),
                 {"n1": [web("w1", version="v1").obj()]}, [OK, OK, OK, AFFINITY],
                 id="merged-selector-drives-the-first-pod-rule"),
    pytest.param(web(version="v1").obj(),
                 {"n1": [guard("g", term(HOST, selector(app="web"), match_label_keys=("version",)), version="v1")]},
                 [EXISTING, OK, OK, OK], id="existing-pod-merges-its-own-labels"),
    pytest.param(web(version="v2").obj(),
                 {"n1": [guard("g", term(HOST, selector(app="web"), match_label_keys=("version",)), version="v1")]},
                 [OK] * 4, id="existing-pod-merge-excludes-other-values"),
]


@pytest.mark.parametrize(("incoming", "placement", "expected"), LABEL_KEY_CASES)
def test_filter_merges_match_label_keys_into_selectors(incoming: Pod, placement: dict[str, list[Pod]],
                                                       expected: list[Verdict]) -> None:
    """matchLabelKeys / mismatchLabelKeys add ``key In|NotIn (owner's value)`` to the term's selector."""
    assert filter_all(plugin(), incoming, cluster(placement)) == expected


# -- PreFilter skipping and errors -----------------------------------------------------------------

PRE_FILTER_SKIP_CASES = [
    pytest.param(web().obj(), {"n1": [db()]}, Code.SKIP, id="no-terms-and-no-existing-anti-affinity"),
    pytest.param(web().obj(), {"n1": [guard("g", term(ZONE, selector(app="db")))]}, Code.SKIP,
                 id="existing-anti-affinity-not-matching"),
    pytest.param(web().obj(), {"n4": [guard("g", term(ZONE, selector(app="web")))]}, Code.SKIP,
                 id="existing-anti-affinity-on-node-without-the-key"),
    pytest.param(prefers(web(), (10, term(ZONE, selector(app="db")))), {"n1": [db()]}, Code.SKIP,
                 id="only-preferred-terms"),
    pytest.param(web().obj(), {"n1": [guard("g", term(ZONE, selector(app="web")))]}, Code.SUCCESS,
                 id="existing-anti-affinity-matching"),
    pytest.param(requires(web(), term(ZONE, selector(app="nothing")), anti=True), {}, Code.SUCCESS,
                 id="required-term-even-without-matches"),
]


@pytest.mark.parametrize(("incoming", "placement", "code"), PRE_FILTER_SKIP_CASES)
def test_pre_filter_skips_when_nothing_can_reject(incoming: Pod, placement: dict[str, list[Pod]],
                                                  code: Code) -> None:
    """Skip when the pod has no required terms and no existing pod's anti-affinity counts against it."""
    status = plugin().pre_filter(CycleState(), incoming, cluster(placement))
    assert verdict(status)[0] is code


def test_updated_pod_with_the_same_uid_is_read_afresh() -> None:
    """Compiled terms are reused across cycles only for the very same pod object."""
    p = plugin()
    before = guard("g", term(ZONE, selector(app="web")))
    after = guard("g", term(ZONE, selector(app="db")))
    assert before.uid == after.uid
    assert filter_all(p, web().obj(), cluster({"n1": [before]})) == [EXISTING, EXISTING, OK, OK]
    assert filter_all(p, web().obj(), cluster({"n1": [after]})) == [OK] * 4


def test_filter_without_pre_filter_state_is_an_error() -> None:
    """Filter needs PreFilter's counts."""
    status = plugin().filter(CycleState(), web().obj(), node_info(NODES["n1"]))
    assert verdict(status) == (Code.ERROR, ('error reading "PreFilterInterPodAffinity" from cycleState: not found',))


def test_filter_on_node_info_without_node_is_an_error() -> None:
    """A NodeInfo whose node object is gone cannot be checked."""
    incoming = requires(web(), term(ZONE, selector(app="db")))
    state = CycleState()
    assert plugin().pre_filter(state, incoming, cluster({})) is None
    assert verdict(plugin().filter(state, incoming, NodeInfo())) == (Code.ERROR, ("node not found",))


# -- PreFilter extensions: AddPod / RemovePod --------------------------------------------------------

def counts(state: CycleState) -> tuple[dict[tuple[str, str], int], ...]:
    """The three PreFilter counts (all empty when PreFilter skipped)."""
    s = state.get(PRE_FILTER_STATE_KEY)
    if s is None:
        return {}, {}, {}
    return s.existing_anti_affinity, s.affinity, s.anti_affinity


def pre_filtered(p: InterPodAffinity, incoming: Pod, nodes: list[NodeInfo]) -> CycleState:
    """A CycleState after PreFilter (no state written when it skipped)."""
    state = CycleState()
    status = p.pre_filter(state, incoming, nodes)
    assert status is None or status.code is Code.SKIP
    return state


def verdicts(p: InterPodAffinity, state: CycleState, incoming: Pod, nodes: list[NodeInfo]) -> list[Verdict]:
    """Filter on every node with this state (no state: PreFilter skipped, every node passes)."""
    if state.get(PRE_FILTER_STATE_KEY) is None:
        return [OK] * len(nodes)
    return [verdict(p.filter(state, incoming, n)) for n in nodes]


def placed(placement: Mapping[str, Sequence[Pod]], extra: Pod, node: str) -> dict[str, list[Pod]]:
    """The placement with ``extra`` added on ``node``."""
    result = {name: list(pods) for name, pods in placement.items()}
    result.setdefault(node, []).append(extra)
    return result


# (incoming pod, placement without the pod, the pod, its node)
UPDATE_CASES = [
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {"n3": [db("db0")]}, db(), "n1",
                 id="pod-matching-affinity"),
    pytest.param(requires(web(), term(ZONE, selector(app="web"))), {}, web("web-0").obj(), "n3",
                 id="first-pod-of-the-group"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(HOST, selector(tier="back"))),
                 {"n3": [db("db0", tier="back")]}, db(tier="back"), "n2", id="pod-matching-two-affinity-terms"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), term(HOST, selector(tier="back"))),
                 {"n3": [db("db0", tier="back")]}, db(), "n2", id="pod-matching-one-of-two-terms"),
    pytest.param(requires(web(), term(HOST, selector(app="db")), anti=True), {"n3": [db("db0")]}, db(), "n2",
                 id="pod-matching-anti-affinity"),
    pytest.param(requires(web(), term(HOST, selector(app="x")), anti=True), {"n3": [db("db0")]},
                 guard("g", term(ZONE, selector(app="web"))), "n1", id="pod-whose-anti-affinity-repels-incoming"),
    pytest.param(web().obj(), {"n3": [guard("g0", term(ZONE, selector(app="web")))]},
                 guard("g", term(ZONE, selector(app="web")), term(HOST, selector(app="web"))), "n1",
                 id="pod-with-two-repelling-terms"),
    pytest.param(requires(web(), term(ZONE, selector(app="db"))), {"n1": [db("db0")]}, db(), "n4",
                 id="pod-on-node-without-the-key"),
    pytest.param(requires(web(), term(ZONE, selector(app="db")), anti=True), {"n3": [db("db0")]},
                 db("db1"), "n3", id="second-pod-in-a-counted-domain"),
]


@pytest.mark.parametrize(("incoming", "base", "extra", "node"), UPDATE_CASES)
def test_add_pod_equals_pre_filter_with_the_pod_present(incoming: Pod, base: dict[str, list[Pod]], extra: Pod,
                                                        node: str) -> None:
    """AddPod on a clone of the state leaves the counts (and every Filter verdict) exactly as a fresh PreFilter
    over the cluster with the pod would compute them."""
    p = plugin()
    nodes = cluster(base)
    state = pre_filtered(p, incoming, nodes).clone()
    target = next(ni for ni in nodes if ni.name == node).clone()
    target.add_pod(PodInfo.of(extra))
    assert p.pre_filter_add_pod(state, incoming, PodInfo.of(extra), target) is None

    fresh_nodes = cluster(placed(base, extra, node))
    fresh = pre_filtered(p, incoming, fresh_nodes)
    assert counts(state) == counts(fresh)
    assert verdicts(p, state, incoming, fresh_nodes) == verdicts(p, fresh, incoming, fresh_nodes)


@pytest.mark.parametrize(("incoming", "base", "extra", "node"), UPDATE_CASES)
def test_remove_pod_equals_pre_filter_without_the_pod(incoming: Pod, base: dict[str, list[Pod]], extra: Pod,
                                                      node: str) -> None:
    """RemovePod on a clone of the state leaves the counts (and every Filter verdict) exactly as a fresh
    PreFilter over the cluster without the pod would compute them."""
    p = plugin()
    nodes = cluster(placed(base, extra, node))
    state = pre_filtered(p, incoming, nodes).clone()
    target = next(ni for ni in nodes if ni.name == node).clone()
    assert target.remove_pod(extra)
    assert p.pre_filter_remove_pod(state, incoming, PodInfo.of(extra), target) is None

    fresh_nodes = cluster(base)
    fresh = pre_filtered(p, incoming, fresh_nodes)
    assert counts(state) == counts(fresh)
    assert verdicts(p, state, incoming, fresh_nodes) == verdicts(p, fresh, incoming, fresh_nodes)


def test_updating_a_cloned_state_leaves_the_original_unchanged() -> None:
    """CycleState.clone() deep-copies the counts: AddPod on the branch changes only the branch's answers."""
    p = plugin()
    incoming = requires(web(), term(ZONE, selector(app="db")))
    nodes = cluster({"n3": [db("db0")]})
    original = pre_filtered(p, incoming, nodes)
    before = (counts(original), verdicts(p, original, incoming, nodes))
    assert before[1] == [AFFINITY, AFFINITY, OK, AFFINITY]

    branch = original.clone()
    target = nodes[0].clone()
    target.add_pod(PodInfo.of(db()))
    p.pre_filter_add_pod(branch, incoming, PodInfo.of(db()), target)
    p.pre_filter_add_pod(branch, incoming, PodInfo.of(guard("g", term(HOST, selector(app="web")))), nodes[2])

    assert verdicts(p, branch, incoming, nodes) == [OK, OK, EXISTING, AFFINITY]
    assert (counts(original), verdicts(p, original, incoming, nodes)) == before


def test_add_pod_without_pre_filter_state_is_an_error() -> None:
    """The extensions need PreFilter's state."""
    status = plugin().pre_filter_add_pod(CycleState(), web().obj(), PodInfo.of(db()), node_info(NODES["n1"]))
    assert verdict(status)[0] is Code.ERROR


# -- Score ------------------------------------------------------------------------------------------

def region_node(name: str, **labels: str) -> Node:
    """A node with these labels (plus its hostname)."""
    return make_node(name).label(**labels).obj()


CHINA = region_node("n1", region="china")
INDIA = region_node("n2", region="india")
AZ1 = region_node("n3", az="az1")


def s1(name: str, **kwargs: str) -> PodBuilder:
    """A pod labelled security=S1."""
    return pod(name, security="S1", **kwargs)


def s2(name: str, **kwargs: str) -> PodBuilder:
    """A pod labelled security=S2."""
    return pod(name, security="S2", **kwargs)


def with_s1(key: str = "region", namespace_selector: LabelSelector | None = None) -> PodAffinityTerm:
    """A term selecting security=S1 pods within ``key``."""
    return term(key, selector(security="S1"), namespace_selector=namespace_selector)


def with_s2(key: str = "region") -> PodAffinityTerm:
    """A term selecting security=S2 pods within ``key``."""
    return term(key, selector(security="S2"))


def scored(*nodes: tuple[Node, Sequence[Pod]]) -> list[NodeInfo]:
    """NodeInfos for (node, pods) pairs."""
    return [node_info(n, *pods) for n, pods in nodes]


def hard_and_soft_cluster() -> list[NodeInfo]:
    """Zone a: a db pod requiring affinity to web pods; zone b: a pod preferring web pods (2); zone c: empty."""
    return scored(
        (make_node("n1").zone("a").obj(), [requires(pod("db", app="db"), term(ZONE, selector(app="web")))]),
        (make_node("n2").zone("b").obj(), [prefers(pod("c", app="cache"), (2, term(ZONE, selector(app="web"))))]),
        (make_node("n3").zone("c").obj(), []),
    )


SCORE_CASES = [
    pytest.param(prefers(s1("p"), (5, with_s1())),
                 scored((CHINA, [s1("a").obj()]), (INDIA, [s2("b").obj()]), (AZ1, [s1("c").obj()])),
                 {}, [100, 0, 0], id="preferred-affinity-rewards-the-matching-domain"),
    pytest.param(prefers(s1("p"), (5, with_s1())),
                 scored((CHINA, [s1("a").obj()]), (region_node("n2", region="china", az="az1"), []),
                        (region_node("n3", region="india"), [])),
                 {}, [100, 100, 0], id="every-node-of-the-domain-scores-alike"),
    pytest.param(prefers(s1("p"), (8, term("region", LabelSelector(match_expressions=(
        LabelSelectorRequirement("security", "NotIn", ("S1",)), LabelSelectorRequirement("security", "In", ("S2",)))))),
                         (2, term("region", LabelSelector(match_expressions=(
                             LabelSelectorRequirement("security", "Exists"),
                             LabelSelectorRequirement("wrongkey", "DoesNotExist")))))),
                 scored((CHINA, [s1("a").obj()]), (INDIA, [s2("b").obj()]), (AZ1, [s1("c").obj()])),
                 {}, [20, 100, 0], id="weights-summed-per-domain"),
    pytest.param(prefers(s1("p"), (5, with_s1("az")), anti=True),
                 scored((region_node("n3", az="az1"), [s1("a").obj()]), (CHINA, [s2("b").obj()])),
                 {}, [0, 100], id="preferred-anti-affinity-penalises-the-matching-domain"),
    pytest.param(s2("p").obj(),
                 scored((CHINA, [prefers(s1("a"), (5, with_s1()))]), (INDIA, [prefers(s2("b"), (6, with_s2()))]),
                        (AZ1, [])),
                 {}, [0, 100, 0], id="existing-pods-preferred-affinity-attracts"),
    pytest.param(s2("p").obj(),
                 scored((region_node("n1", az="az1"), [prefers(s1("a"), (5, with_s2("az")), anti=True)]),
                        (region_node("n2", az="az2"), [prefers(s2("b"), (5, with_s1("az")), anti=True)])),
                 {}, [0, 100], id="existing-pods-preferred-anti-affinity-repels"),
    pytest.param(pod("p", service="S1").obj(),
                 scored((CHINA, [requires(pod("a"), term("region", selector(service="S1")))]),
                        (INDIA, [requires(pod("b"), term("region", selector(service="S1")))]), (AZ1, [])),
                 {}, [100, 100, 0], id="existing-pods-required-affinity-attracts"),
    pytest.param(prefers(web(), (3, term(ZONE, selector(app="db")))), hard_and_soft_cluster(),
                 {}, [100, 50, 0], id="hard-pod-affinity-weight-defaults-to-1"),
    pytest.param(prefers(web(), (3, term(ZONE, selector(app="db")))), hard_and_soft_cluster(),
                 {"hard-pod-affinity-weight": 5}, [100, 25, 0], id="hard-pod-affinity-weight-configured"),
    pytest.param(prefers(s1("p").affinity_term(with_s1(), weight=8), (5, with_s2("az")), anti=True),
                 scored((CHINA, [s1("a").obj()]), (region_node("n3", az="az1"), [s2("b").obj()]),
                        (INDIA, [prefers(pod("c"), (8, with_s1()))]),
                        (region_node("n4", az="az2"), [prefers(pod("d"), (5, with_s1("az")), anti=True)])),
                 {}, [100, 0, 100, 0], id="all-four-directions-combined"),
    pytest.param(prefers(web(namespace="team-a-1").affinity_term(
        term("region", selector(app="db"), namespace_selector=selector(team="a")), weight=5),
        (5, term("region", selector(app="db"), namespace_selector=selector(team="b"))), anti=True),
                 scored((CHINA, [db("a", namespace="team-a-2")]), (INDIA, [db("b", namespace="team-b-1")]), (AZ1, [])),
                 {}, [100, 0, 50], id="namespace-selectors-in-preferred-terms"),
    pytest.param(s1("p", namespace="team-a-1").obj(),
                 scored((CHINA, [prefers(pod("a"), (5, with_s1(namespace_selector=selector(team="a"))))]),
                        (INDIA, [prefers(s2("b"), (6, with_s2()))]), (AZ1, [])),
                 {}, [100, 0, 0], id="existing-pods-namespace-selector-matches-incoming-namespace"),
]


@pytest.mark.parametrize(("incoming", "nodes", "args", "expected"), SCORE_CASES)
def test_score_sums_term_weights_per_topology_domain(incoming: Pod, nodes: list[NodeInfo], args: dict[str, object],
                                                     expected: list[int]) -> None:
    """Each matching (pod, term) adds its weight (anti-affinity subtracts) to the domain of the existing pod's
    node; a node scores its domains' sums, normalised min-max onto 0..100."""
    assert normalized_scores(plugin(nodes, args), incoming, nodes) == expected


def test_score_is_negative_where_anti_affinity_dominates() -> None:
    """Raw scores keep their sign; normalisation puts the minimum at 0 (truncating 62.5 to 62)."""
    incoming = prefers(web().affinity_term(term(ZONE, selector(app="db")), weight=3),
                       (5, term(ZONE, selector(app="cache"))), anti=True)
    nodes = scored((make_node("n1").zone("a").obj(), [db()]), (make_node("n2").zone("b").obj(), [cache()]),
                   (make_node("n3").zone("c").obj(), []))
    assert raw_scores(plugin(nodes), incoming, nodes) == [3, -5, 0]
    assert normalized_scores(plugin(nodes), incoming, nodes) == [100, 0, 62]


def test_pre_score_counts_pods_on_nodes_that_are_not_feasible() -> None:
    """PreScore walks the whole snapshot: a matching pod on a filtered-out node still attracts to its zone."""
    n1 = node_info(make_node("n1").zone("a").obj(), db())
    n2 = node_info(make_node("n2").zone("a").obj())
    n3 = node_info(make_node("n3").zone("b").obj())
    incoming = prefers(web(), (10, term(ZONE, selector(app="db"))))
    assert raw_scores(plugin([n1, n2, n3]), incoming, [n2, n3]) == [10, 0]


def test_existing_pods_preferred_terms_count_when_the_pod_has_its_own() -> None:
    """ignore-preferred-terms-of-existing-pods only applies to pods without preferred terms of their own."""
    nodes = scored((CHINA, [prefers(s1("a"), (5, with_s1()))]), (INDIA, [prefers(s2("b"), (6, with_s2()))]),
                   (region_node("n3", region="japan"), [s2("c").obj()]))
    incoming = prefers(s2("p"), (1, with_s2()))
    args = {"ignore-preferred-terms-of-existing-pods": True}
    assert raw_scores(plugin(nodes, args), incoming, nodes) == [0, 7, 1]
    assert normalized_scores(plugin(nodes, args), incoming, nodes) == [0, 100, 14]


PRE_SCORE_SKIP_CASES = [
    pytest.param(s1("p").obj(), scored((CHINA, [s1("a").obj()]), (INDIA, [])), {}, id="no-affinity-anywhere"),
    pytest.param(prefers(s1("p"), (5, with_s2())), scored((CHINA, [s1("a").obj()]), (INDIA, [])), {},
                 id="preferred-terms-matching-no-pod"),
    pytest.param(requires(s1("p"), with_s1()), scored((CHINA, [s1("a").obj()]), (INDIA, [])), {},
                 id="required-terms-alone-do-not-score-pods-without-affinity"),
    pytest.param(pod("p", service="S1").obj(),
                 scored((CHINA, [requires(pod("a"), term("region", selector(service="S1")))]), (INDIA, [])),
                 {"hard-pod-affinity-weight": 0}, id="hard-pod-affinity-weight-0"),
    pytest.param(s2("p").obj(),
                 scored((CHINA, [prefers(s1("a"), (5, with_s2()))]), (INDIA, [prefers(s2("b"), (6, with_s2()))])),
                 {"ignore-preferred-terms-of-existing-pods": True}, id="ignoring-existing-pods-preferred-terms"),
    pytest.param(s2("p").obj(), [], {}, id="no-nodes"),
]


@pytest.mark.parametrize(("incoming", "nodes", "args"), PRE_SCORE_SKIP_CASES)
def test_pre_score_skips_when_no_domain_scores(incoming: Pod, nodes: list[NodeInfo], args: dict[str, object]) -> None:
    """PreScore returns Skip when no term matched anything (or scoring is disabled for this pod)."""
    state = CycleState()
    assert verdict(plugin(nodes, args).pre_score(state, incoming, nodes)) == (Code.SKIP, ())
    assert state.get(PRE_SCORE_STATE_KEY) is None


def test_ignoring_existing_pods_preferred_terms_is_off_by_default() -> None:
    """By default an existing pod's preferred affinity attracts a pod that has no terms."""
    nodes = scored((CHINA, [prefers(s1("a"), (5, with_s2()))]), (INDIA, [prefers(s2("b"), (6, with_s2()))]))
    assert raw_scores(plugin(nodes), s2("p").obj(), nodes) == [5, 6]


NORMALIZE_CASES = [
    pytest.param([1, 2, 3], [0, 50, 100], id="min-max"),
    pytest.param([0, 1, 3], [0, 33, 100], id="truncated"),
    pytest.param([0, 2, 3], [0, 66, 100], id="truncated-not-rounded"),
    pytest.param([-5, 0, 3], [0, 62, 100], id="negative-minimum"),
    pytest.param([-7, -3], [0, 100], id="all-negative"),
    pytest.param([4, 4], [0, 0], id="all-equal-score-0"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE_CASES)
def test_normalize_score_maps_min_max_onto_0_100(raw: list[int], expected: list[int]) -> None:
    """int(100 * (score - min) / (max - min)) in floating point; all 0 when max == min."""
    state = CycleState()
    state.write(PRE_SCORE_STATE_KEY, {"zone": {"a": 1}})
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    assert plugin().normalize_score(state, web().obj(), scores) is None
    assert [s.score for s in scores] == expected


def test_score_without_pre_score_state_fails() -> None:
    """Score needs PreScore's sums."""
    with pytest.raises(KeyError):
        plugin().score(CycleState(), web().obj(), node_info(CHINA))


# -- Args -------------------------------------------------------------------------------------------

def test_args_defaults() -> None:
    """hardPodAffinityWeight 1, existing pods' preferred terms considered."""
    args = structure(InterPodAffinityArgs, {})
    assert (args.hard_pod_affinity_weight, args.ignore_preferred_terms_of_existing_pods) == (1, False)


def test_args_read_kebab_case_keys() -> None:
    """Profile keys are kebab-case."""
    args = structure(InterPodAffinityArgs, {"hard-pod-affinity-weight": 100,
                                            "ignore-preferred-terms-of-existing-pods": True})
    assert (args.hard_pod_affinity_weight, args.ignore_preferred_terms_of_existing_pods) == (100, True)


@pytest.mark.parametrize("weight", [0, 100], ids=["lowest", "highest"])
def test_args_accept_weights_at_the_bounds(weight: int) -> None:
    """0 and 100 are valid."""
    assert structure(InterPodAffinityArgs, {"hard-pod-affinity-weight": weight}).hard_pod_affinity_weight == weight


@pytest.mark.parametrize("weight", [-1, 101], ids=["negative", "above-100"])
def test_args_reject_weights_out_of_range(weight: int) -> None:
    """Outside [0, 100] is rejected, naming the key."""
    with pytest.raises(ArgsError) as info:
        structure(InterPodAffinityArgs, {"hard-pod-affinity-weight": weight})
    assert info.value.key == "hard-pod-affinity-weight"
    assert info.value.message == f"Invalid value: {weight}: not in valid range [0, 100]"


def test_args_reject_non_integer_weight() -> None:
    """The weight must be an integer."""
    with pytest.raises(ArgsError) as info:
        structure(InterPodAffinityArgs, {"hard-pod-affinity-weight": "5"})
    assert info.value.key == "hard-pod-affinity-weight"
    assert info.value.message == 'Invalid value: "5": must be an integer'

"""InterPodAffinity's columnar forms: PreFilter and PreScore over the columns give the counts and sums of the
per-node walk, and filter_nodes / score_nodes / normalize_scores give the per-node hooks' answers node by node,
on random clusters, on the table cases of test_inter_pod_affinity.py, and as a scheduler cache changes."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodAffinityTerm
from kubesched.api.workload import Namespace
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.plugins.inter_pod_affinity import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
    PreFilterState,
)
from kubesched.plugins.inter_pod_affinity.common import NamespaceLabelCache, TermCache
from kubesched.plugins.inter_pod_affinity.filtering import (
    AFFINITY,
    ANTI_AFFINITY,
    EXISTING_ANTI_AFFINITY,
    update_with_pod,
)
from kubesched.plugins.inter_pod_affinity.scoring import build_topology_scores
from kubesched.runtime import Cache, NodeSnapshot
from kubesched.testing import RecordingClient, plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_inter_pod_affinity import (
    AFFINITY_CASES,
    ANTI_AFFINITY_CASES,
    FIRST_POD_CASES,
    LABEL_KEY_CASES,
    NAMESPACE_CASES,
    NAMESPACES,
    PRECEDENCE_CASES,
    SCORE_CASES,
    SYMMETRY_CASES,
    cluster,
)

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
REGION = "region"
#: team-a-1 / team-a-2 / team-b-1 have Namespace objects; default and loose only exist through their pods.
POD_NAMESPACES = ("team-a-1", "team-a-2", "team-b-1", "default", "loose")
KINDS = (EXISTING_ANTI_AFFINITY, AFFINITY, ANTI_AFFINITY)


def runtime_snapshot(plugin: Any) -> NodeSnapshot:
    """The runtime snapshot behind a kit-built plugin's handle (the cache refreshes it)."""
    snapshot = plugin.handle.snapshot
    assert isinstance(snapshot, NodeSnapshot)
    return snapshot


# -- random clusters ------------------------------------------------------------------------------------

SELECTORS: list[LabelSelector | None] = [
    None,
    LabelSelector(),
    LabelSelector(match_labels={"app": "a"}),
    LabelSelector(match_labels={"app": "b"}),
    LabelSelector(match_labels={"tier": "x"}),
    LabelSelector(match_expressions=(LabelSelectorRequirement("app", "In", ("a", "b")),)),
]
NAMESPACE_SELECTORS: list[LabelSelector | None] = [
    None,
    LabelSelector(),
    LabelSelector(match_labels={"team": "a"}),
    # Matches the namespaces without a team label too, Namespace object or not.
    LabelSelector(match_expressions=(LabelSelectorRequirement("team", "NotIn", ("a",)),)),
]


@st.composite
def terms(draw: st.DrawFn) -> PodAffinityTerm:
    """A term over a random key, selector, namespaces, namespaceSelector and matchLabelKeys."""
    return PodAffinityTerm(
        draw(st.sampled_from([ZONE, HOST, REGION])),
        draw(st.sampled_from(SELECTORS)),
        draw(st.sampled_from([(), ("team-a-1",), ("team-b-1", "default"), ("loose",)])),
        draw(st.sampled_from(NAMESPACE_SELECTORS)),
        draw(st.sampled_from([(), ("app",)])),
        draw(st.sampled_from([(), (), ("tier",)])),
    )


@st.composite
def pods(draw: st.DrawFn, name: str) -> Pod:
    """A pod with random labels and namespace and up to two terms of each kind."""
    builder = make_pod(name, draw(st.sampled_from(POD_NAMESPACES)))
    builder.label(app=draw(st.sampled_from(["a", "b"])))
    if draw(st.booleans()):
        builder.label(tier="x")
    for anti in (False, True):
        for _ in range(draw(st.integers(0, 2))):
            builder.affinity_term(draw(terms()), anti=anti)
        for _ in range(draw(st.integers(0, 2))):
            builder.affinity_term(draw(terms()), anti=anti, weight=draw(st.integers(1, 100)))
    return builder.obj()


@st.composite
def nodes(draw: st.DrawFn, index: int) -> Node:
    """A node with a random zone and region, its hostname label most of the time."""
    builder = make_node(f"n{index}")
    zone = draw(st.sampled_from([None, "a", "b"]))
    if zone is not None:
        builder.zone(zone)
    if draw(st.booleans()):
        builder.label(region=draw(st.sampled_from(["r1", "r2"])))
    if draw(st.integers(0, 4)):
        builder.label(**{HOST: f"n{index}"})
    return builder.obj()


@st.composite
def clusters(draw: st.DrawFn) -> list[NodeInfo]:
    """One to six nodes with zero to three pods each."""
    infos = []
    for i in range(draw(st.integers(1, 6))):
        node = draw(nodes(i))
        infos.append(NodeInfo.of(node, [PodInfo.of(draw(pods(f"p{i}-{j}"))) for j in range(draw(st.integers(0, 3)))]))
    return infos


PLUGIN_ARGS = st.fixed_dictionaries({
    "hard-pod-affinity-weight": st.sampled_from([0, 1, 7]),
    "ignore-preferred-terms-of-existing-pods": st.booleans(),
})


class ObjectNamespacesClient(RecordingClient):
    """A client listing only the Namespace objects, as an API server does (the simulator also lists the
    namespaces its pods imply): pods in the other namespaces are matched through their labels one by one."""

    def list_namespaces(self) -> Collection[Namespace]:
        """The Namespace objects only."""
        return list(self.cluster.namespaces.values())


def plugin_over(infos: Sequence[NodeInfo], args: dict[str, Any] | None = None, *,
                objects_only: bool = False) -> InterPodAffinity:
    """The plugin over a snapshot of ``infos`` (its namespaces: those of the filter tests); ``objects_only``:
    its client lists only the Namespace objects."""
    client = ObjectNamespacesClient() if objects_only else None
    p: InterPodAffinity = plugin_instance(InterPodAffinity, args or {}, nodes=list(infos), namespaces=NAMESPACES,
                                          client=client)
    return p


# -- comparing ------------------------------------------------------------------------------------------

def counts_of(state: PreFilterState | None) -> tuple[object, ...] | None:
    """The three counts and the first-pod flag of a state, read without changing it."""
    if state is None:
        return None
    return (*(state.counts(kind) for kind in KINDS), state.matches_own_affinity)


def pre_filter_both(p: InterPodAffinity, pod: Pod) -> tuple[CycleState, CycleState]:
    """PreFilter over the snapshot's own list (the columnar path) and over a copy of it (the per-node walk)."""
    nodes = p.handle.snapshot.list()
    columnar, walked = CycleState(), CycleState()
    columnar_status = p.pre_filter(columnar, pod, nodes)
    walked_status = p.pre_filter(walked, pod, list(nodes))
    assert columnar_status == walked_status
    return columnar, walked


def per_node_codes(p: InterPodAffinity, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]) -> list[int]:
    """Filter's status code per node (0 for Success)."""
    codes = []
    for info in infos:
        status = p.filter(state, pod, info)
        codes.append(0 if status is None else int(status.code))
    return codes


def batch_codes(p: InterPodAffinity, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]) -> list[int]:
    """filter_nodes' codes over a batch of ``infos`` (all zero for None)."""
    columns = p.handle.snapshot.columns
    out = p.filter_nodes(state, pod, NodeBatch.of(infos, columns))
    return [0] * len(infos) if out is None else [int(c) for c in out]


def assert_filter_agrees(p: InterPodAffinity, pod: Pod, batch: Sequence[NodeInfo] | None = None) -> None:
    """The columnar PreFilter's counts equal the walk's, and filter_nodes equals filter on both states."""
    columnar, walked = pre_filter_both(p, pod)
    columnar_state = columnar.get(PRE_FILTER_STATE_KEY)
    walked_state = walked.get(PRE_FILTER_STATE_KEY)
    assert counts_of(columnar_state) == counts_of(walked_state)
    if columnar_state is None:
        return
    infos = p.handle.snapshot.list() if batch is None else batch
    # The columnar state before anything reads its dictionaries, then the walked (dictionary) state.
    assert batch_codes(p, columnar, pod, infos) == per_node_codes(p, columnar, pod, infos)
    assert batch_codes(p, walked, pod, infos) == per_node_codes(p, walked, pod, infos)


def assert_score_agrees(p: InterPodAffinity, pod: Pod, batch: Sequence[NodeInfo] | None = None) -> None:
    """The columnar PreScore's sums equal the walk's, and score_nodes / normalize_scores equal score /
    normalize_score."""
    snapshot = runtime_snapshot(p)
    state = CycleState()
    status = p.pre_score(state, pod, snapshot.list())
    terms = TermCache().get(pod)
    walked = build_topology_scores(
        pod, terms, snapshot.list() if terms.has_preferred else snapshot.have_pods_with_affinity, TermCache(),
        NamespaceLabelCache(p.handle.client), p.args.hard_pod_affinity_weight,
        p.args.ignore_preferred_terms_of_existing_pods)
    assert state.get(PRE_SCORE_STATE_KEY) == walked
    assert (status is not None and status.code is Code.SKIP) == (walked is None)
    if walked is None:
        return
    infos = snapshot.list() if batch is None else batch
    node_batch = NodeBatch.of(infos, snapshot.columns)
    raw = [p.score(state, pod, info) for info in infos]
    batch_raw = p.score_nodes(state, pod, node_batch)
    assert batch_raw.tolist() == raw
    node_scores = [NodeScore(info.name, score) for info, score in zip(infos, raw, strict=True)]
    assert p.normalize_score(state, pod, node_scores) is None
    assert p.normalize_scores(state, pod, node_batch, batch_raw).tolist() == [ns.score for ns in node_scores]


# -- properties -----------------------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(infos=clusters(), incoming=pods("incoming"), objects_only=st.booleans(), data=st.data())
def test_batch_filter_equals_per_node_filter_on_random_clusters(infos: list[NodeInfo], incoming: Pod,
                                                                 objects_only: bool, data: st.DataObject) -> None:
    """Columnar PreFilter counts equal the walk's; filter_nodes equals filter on every node and on any batch."""
    p = plugin_over(infos, objects_only=objects_only)
    assert_filter_agrees(p, incoming)
    subset = data.draw(st.permutations(p.handle.snapshot.list()).flatmap(
        lambda order: st.integers(0, len(order)).map(lambda k: order[:k])))
    assert_filter_agrees(p, incoming, subset)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(infos=clusters(), incoming=pods("incoming"), args=PLUGIN_ARGS, objects_only=st.booleans(), data=st.data())
def test_batch_score_equals_per_node_score_on_random_clusters(infos: list[NodeInfo], incoming: Pod,
                                                               args: dict[str, Any], objects_only: bool,
                                                               data: st.DataObject) -> None:
    """Columnar PreScore sums equal the walk's; score_nodes and normalize_scores equal the per-node hooks."""
    p = plugin_over(infos, args, objects_only=objects_only)
    assert_score_agrees(p, incoming)
    subset = data.draw(st.permutations(p.handle.snapshot.list()).flatmap(
        lambda order: st.integers(0, len(order)).map(lambda k: order[:k])))
    assert_score_agrees(p, incoming, subset)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(infos=clusters(), incoming=pods("incoming"), extra=pods("extra"), data=st.data())
def test_add_and_remove_pod_on_a_columnar_state_equal_the_walked_state(infos: list[NodeInfo], incoming: Pod,
                                                                       extra: Pod, data: st.DataObject) -> None:
    """AddPod then RemovePod (preemption's dry runs) change a columnar state as they change a walked one, clones
    stay independent, and filter_nodes still equals filter afterwards."""
    p = plugin_over(infos)
    columnar, walked = pre_filter_both(p, incoming)
    if columnar.get(PRE_FILTER_STATE_KEY) is None:
        return
    nodes = p.handle.snapshot.list()
    target = data.draw(st.sampled_from(nodes))
    original = counts_of(columnar.read(PRE_FILTER_STATE_KEY).clone())
    branch = columnar.clone()
    extra_info = PodInfo.of(extra)
    for state in (branch, walked):
        assert p.pre_filter_add_pod(state, incoming, extra_info, target) is None
    assert counts_of(branch.read(PRE_FILTER_STATE_KEY)) == counts_of(walked.read(PRE_FILTER_STATE_KEY))
    assert counts_of(columnar.read(PRE_FILTER_STATE_KEY)) == original
    assert batch_codes(p, branch, incoming, nodes) == per_node_codes(p, branch, incoming, nodes)
    removed = data.draw(st.sampled_from([extra_info, *target.pods]))
    for state in (branch, walked):
        assert p.pre_filter_remove_pod(state, incoming, removed, target) is None
    assert counts_of(branch.read(PRE_FILTER_STATE_KEY)) == counts_of(walked.read(PRE_FILTER_STATE_KEY))
    assert batch_codes(p, branch, incoming, nodes) == per_node_codes(p, branch, incoming, nodes)


# Steps on a scheduler cache: ("add", node index, pod) or ("remove", index of a pod added before).
STEPS = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 5), pods("step")),
    st.tuples(st.just("remove"), st.integers(0, 20), st.none()),
), min_size=1, max_size=12)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(node_list=st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True).flatmap(
    lambda indexes: st.tuples(*(nodes(i) for i in indexes))), steps=STEPS, incoming=pods("incoming"),
    args=PLUGIN_ARGS)
def test_batch_forms_follow_the_cache_as_pods_come_and_go(node_list: tuple[Node, ...],
                                                          steps: list[tuple[str, int, Pod | None]], incoming: Pod,
                                                          args: dict[str, Any]) -> None:
    """After every pod added to or removed from a scheduler cache (the snapshot and its columns updated
    incrementally), the columnar PreFilter/PreScore and the batch forms still equal the per-node ones."""
    p = plugin_over([], args)
    cache = Cache()
    for node in node_list:
        cache.add_node(node)
    snapshot = runtime_snapshot(p)
    cache.update_snapshot(snapshot)
    added: list[Pod] = []
    for number, (action, index, template) in enumerate(steps):
        if action == "add":
            assert template is not None
            node = node_list[index % len(node_list)]
            placed = _renamed(template.with_node_name(node.name), f"s{number}")
            cache.add_pod(placed)
            added.append(placed)
        elif added:
            cache.remove_pod(added.pop(index % len(added)))
        cache.update_snapshot(snapshot)
        assert snapshot.columns.infos is snapshot.node_info_list
        assert_filter_agrees(p, incoming)
        assert_score_agrees(p, incoming)


def _renamed(pod: Pod, name: str) -> Pod:
    """``pod`` under another name and uid."""
    return attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, name=name, uid=f"uid-{name}"))


# -- the table cases through the batch forms --------------------------------------------------------------

FILTER_TABLES = [*AFFINITY_CASES, *FIRST_POD_CASES, *ANTI_AFFINITY_CASES, *SYMMETRY_CASES, *PRECEDENCE_CASES,
                 *NAMESPACE_CASES, *LABEL_KEY_CASES]


@pytest.mark.parametrize(("incoming", "placement", "expected"), FILTER_TABLES)
def test_batch_filter_gives_the_table_verdicts(incoming: Pod, placement: dict[str, list[Pod]],
                                               expected: list[tuple[Code, tuple[str, ...]]]) -> None:
    """Every Filter table case of test_inter_pod_affinity.py: filter_nodes gives each expected code."""
    p = plugin_over(cluster(placement))
    state = CycleState()
    status = p.pre_filter(state, incoming, p.handle.snapshot.list())
    if isinstance(status, Status) and status.code is Code.SKIP:
        codes = [0] * len(expected)
    else:
        codes = batch_codes(p, state, incoming, p.handle.snapshot.list())
    assert codes == [int(code) for code, _reasons in expected]


@pytest.mark.parametrize(("incoming", "infos", "args", "expected"), SCORE_CASES)
def test_batch_score_gives_the_table_scores(incoming: Pod, infos: list[NodeInfo], args: dict[str, object],
                                            expected: list[int]) -> None:
    """Every Score table case of test_inter_pod_affinity.py: score_nodes then normalize_scores give the expected
    normalised scores."""
    p = plugin_over(infos, dict(args))
    state = CycleState()
    assert p.pre_score(state, incoming, p.handle.snapshot.list()) is None
    batch = NodeBatch.of(p.handle.snapshot.list(), p.handle.snapshot.columns)
    assert p.normalize_scores(state, incoming, batch, p.score_nodes(state, incoming, batch)).tolist() == expected


def test_batch_filter_without_pre_filter_state_raises() -> None:
    """filter_nodes, like filter, needs PreFilter's counts."""
    p = plugin_over(cluster({}))
    batch = NodeBatch.of(p.handle.snapshot.list(), p.handle.snapshot.columns)
    with pytest.raises(LookupError, match="PreFilterInterPodAffinity"):
        p.filter_nodes(CycleState(), make_pod("p").obj(), batch)


def test_batch_normalize_without_pre_score_state_raises() -> None:
    """normalize_scores, like normalize_score, needs PreScore's sums."""
    p = plugin_over(cluster({}))
    batch = NodeBatch.of(p.handle.snapshot.list(), p.handle.snapshot.columns)
    with pytest.raises(LookupError, match="PreScoreInterPodAffinity"):
        p.normalize_scores(CycleState(), make_pod("p").obj(), batch, np.zeros(len(batch), dtype=np.int64))


def test_add_pod_on_a_columnar_state_is_counted_like_update_with_pod() -> None:
    """A pod added through update_with_pod shows in the counts read afterwards."""
    web = make_pod("web").label(app="web").affinity_term(
        PodAffinityTerm(ZONE, LabelSelector(match_labels={"app": "db"})), anti=True).obj()
    p = plugin_over(cluster({}))
    state, _walked = pre_filter_both(p, web)
    pre_filter_state = state.read(PRE_FILTER_STATE_KEY)
    target = p.handle.snapshot.list()[0]
    db = make_pod("db").label(app="db").obj()
    update_with_pod(pre_filter_state, db, TermCache().get(db), target, 1)
    assert pre_filter_state.counts(ANTI_AFFINITY) == {(ZONE, "a"): 1}

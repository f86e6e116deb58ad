"""NodeAffinity's batch forms: filter_nodes / score_nodes / normalize_scores give the per-node hooks' answers node
by node, on random clusters and pods (every operator, matchFields, added affinity), on the table cases of
test_node_affinity.py, and as a scheduler cache's nodes and pods change."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import (
    Affinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from kubesched.api.pod import NodeAffinity as PodNodeAffinity
from kubesched.framework import Snapshot
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.runtime import Cache, NodeSnapshot
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_node_affinity import ADDED_FILTER_CASES, FILTER_CASES, ZONE_A, added_required

KEYS = ("zone", "num", "num", "tier", "absent")
LABEL_VALUES = {"zone": ("a", "b"), "num": ("-3", "5", "+5", "x", "99999999999999999999"), "tier": ("gold",)}
OTHER_VALUES = ("", "5", "gold", "a b")
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus")
NAMES = tuple(f"n{i}" for i in range(8))


def runtime_snapshot(plugin: Any) -> NodeSnapshot:
    """The runtime snapshot behind a kit-built plugin's handle (the cache refreshes it)."""
    snapshot = plugin.handle.snapshot
    assert isinstance(snapshot, NodeSnapshot)
    return snapshot


# -- random clusters and pods -----------------------------------------------------------------------------

@st.composite
def nodes(draw: st.DrawFn, index: int) -> Node:
    """A node with a random value (or none) for each of the label keys."""
    labels = {key: value for key, values in LABEL_VALUES.items()
              if (value := draw(st.sampled_from((None, *values)))) is not None}
    return make_node(f"n{index}").labels(labels).obj()


@st.composite
def label_requirements(draw: st.DrawFn) -> NodeSelectorRequirement:
    """A label requirement with any operator (an unknown one too) and values mostly drawn from its key's own."""
    key = draw(st.sampled_from(KEYS))
    operator = draw(st.sampled_from(OPERATORS))
    sizes = (1, 1, 1, 0, 2) if operator in ("Gt", "Lt") else (0, 1, 1, 2)
    pool = (*LABEL_VALUES.get(key, ("a",)), *OTHER_VALUES)
    return NodeSelectorRequirement(key, operator, tuple(draw(st.sampled_from(pool)) for _ in
                                                        range(draw(st.sampled_from(sizes)))))


FIELD_REQUIREMENTS = st.builds(NodeSelectorRequirement, st.sampled_from(("metadata.name", "metadata.name", "spec.x")),
                               st.sampled_from(("In", "NotIn", "In", "NotIn", "Exists")),
                               st.lists(st.sampled_from(NAMES), min_size=0, max_size=2).map(tuple))


TERMS = st.builds(NodeSelectorTerm, st.lists(label_requirements(), max_size=3).map(tuple),
                  st.lists(FIELD_REQUIREMENTS, max_size=1).map(tuple))


@st.composite
def pods(draw: st.DrawFn) -> Pod:
    """A pod with a random nodeSelector, required terms (maybe none at all) and weighted preferred terms."""
    selector = draw(st.sampled_from(({}, {}, {}, {"zone": "a"}, {"tier": "gold"}, {"zone": "b", "tier": "gold"})))
    pod = make_pod("p").node_selector(**selector).obj()
    required = draw(st.none() | st.lists(TERMS, max_size=2).map(lambda terms: NodeSelector(tuple(terms))))
    preferred = draw(st.lists(st.builds(PreferredSchedulingTerm, st.integers(0, 100), TERMS), max_size=3))
    if required is None and not preferred:
        return pod
    affinity = Affinity(node_affinity=PodNodeAffinity(required, tuple(preferred)))
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, affinity=affinity))


ARG_EXPRESSIONS = st.sampled_from([
    {"key": "zone", "operator": "In", "values": ["a", "b"]},
    {"key": "tier", "operator": "NotIn", "values": ["gold"]},
    {"key": "tier", "operator": "Exists"},
    {"key": "num", "operator": "Gt", "values": ["2"]},
    {"key": "num", "operator": "Lt", "values": ["6"]},
])
ARG_FIELDS = st.sampled_from([{"key": "metadata.name", "operator": op, "values": [name]}
                              for op in ("In", "NotIn") for name in ("n0", "n1", "n9")])
ARG_TERMS = st.fixed_dictionaries({"match-expressions": st.lists(ARG_EXPRESSIONS, max_size=2),
                                   "match-fields": st.lists(ARG_FIELDS, max_size=1)})


@st.composite
def plugin_args(draw: st.DrawFn) -> dict[str, Any]:
    """No args, or added affinity with random required terms and weighted preferred terms."""
    if draw(st.booleans()):
        return {}
    added: dict[str, Any] = {}
    if draw(st.booleans()):
        added["required-during-scheduling-ignored-during-execution"] = {
            "node-selector-terms": draw(st.lists(ARG_TERMS, min_size=1, max_size=2))}
    added["preferred-during-scheduling-ignored-during-execution"] = [
        {"weight": w, "preference": t} for w, t in draw(st.lists(st.tuples(st.integers(1, 100), ARG_TERMS),
                                                                 max_size=2))]
    return {"added-affinity": added}


CLUSTERS = st.lists(st.integers(0, 7), min_size=1, max_size=8, unique=True).flatmap(
    lambda indexes: st.tuples(*(nodes(i) for i in indexes)))


# -- comparing the forms ------------------------------------------------------------------------------------

def per_node_codes(p: NodeAffinity, state: CycleState, pod: Pod, infos: list[NodeInfo]) -> list[int]:
    """Filter's code per node (0 for success)."""
    codes = []
    for info in infos:
        status = p.filter(state, pod, info)
        codes.append(0 if status is None else int(status.code))
    return codes


def batch_codes(p: NodeAffinity, state: CycleState, pod: Pod, batch: NodeBatch) -> list[int]:
    """filter_nodes' code per node (0 for every node when it returns None)."""
    out = p.filter_nodes(state, pod, batch)
    return [0] * len(batch) if out is None else [int(c) for c in out]


def assert_filter_agrees(p: NodeAffinity, pod: Pod, infos: list[NodeInfo], snapshot: Snapshot) -> None:
    """filter_nodes equals filter node by node, after PreFilter, over the given nodes."""
    state = CycleState()
    outcome = p.pre_filter(state, pod, snapshot.list())
    if isinstance(outcome, Status) and outcome.code is Code.SKIP:
        return
    assert batch_codes(p, state, pod, NodeBatch.of(infos, snapshot.columns)) == per_node_codes(p, state, pod, infos)


def assert_score_agrees(p: NodeAffinity, pod: Pod, infos: list[NodeInfo], snapshot: Snapshot) -> None:
    """score_nodes equals score, and normalize_scores equals normalize_score, node by node."""
    state = CycleState()
    status = p.pre_score(state, pod, infos)
    if status is not None and status.code is Code.ERROR:
        return  # terms kube-scheduler cannot parse: the cycle ends at PreScore (test_node_affinity.py checks it)
    batch = NodeBatch.of(infos, snapshot.columns)
    raw = p.score_nodes(state, pod, batch)
    expected = [p.score(state, pod, info) for info in infos]
    assert raw.tolist() == expected
    scores = [NodeScore(info.name, s) for info, s in zip(infos, expected, strict=True)]
    p.normalize_score(state, pod, scores)
    assert p.normalize_scores(state, pod, batch, raw.copy()).tolist() == [ns.score for ns in scores]


def subsets(snapshot: Snapshot, order: list[int]) -> list[list[NodeInfo]]:
    """Every node (the columns' own list), and the nodes picked by ``order`` (a batch in another order)."""
    infos = snapshot.list()
    return [infos, [infos[i % len(infos)] for i in order]]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=CLUSTERS, pod=pods(), args=plugin_args(), order=st.lists(st.integers(0, 7), max_size=6))
def test_batch_filter_equals_per_node_filter_on_random_clusters(node_list: tuple[Node, ...], pod: Pod,
                                                                args: dict[str, Any], order: list[int]) -> None:
    """Every node's filter_nodes code is the code its filter returns."""
    p = plugin_instance(NodeAffinity, args, nodes=node_list)
    snapshot = runtime_snapshot(p)
    for infos in subsets(snapshot, order):
        assert_filter_agrees(p, pod, infos, snapshot)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=CLUSTERS, pod=pods(), args=plugin_args(), order=st.lists(st.integers(0, 7), max_size=6))
def test_batch_score_equals_per_node_score_on_random_clusters(node_list: tuple[Node, ...], pod: Pod,
                                                              args: dict[str, Any], order: list[int]) -> None:
    """Every node's raw and normalised batch score is its per-node score."""
    p = plugin_instance(NodeAffinity, args, nodes=node_list)
    snapshot = runtime_snapshot(p)
    for infos in subsets(snapshot, order):
        assert_score_agrees(p, pod, infos, snapshot)


# Steps on a scheduler cache: relabel node i with a random node's labels, or add a pod to node i.
STEPS = st.lists(st.tuples(st.sampled_from(("relabel", "pod")), st.integers(0, 7), nodes(0)), min_size=1,
                 max_size=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=CLUSTERS, steps=STEPS, pod=pods(), args=plugin_args())
def test_batch_forms_follow_the_cache_as_nodes_and_pods_change(node_list: tuple[Node, ...],
                                                               steps: list[tuple[str, int, Node]], pod: Pod,
                                                               args: dict[str, Any]) -> None:
    """After every node relabelled or pod added in a scheduler cache (the columns updated incrementally), the
    batch forms still equal the per-node hooks."""
    p = plugin_instance(NodeAffinity, args)
    cache = Cache()
    current = list(node_list)
    for node in current:
        cache.add_node(node)
    snapshot = runtime_snapshot(p)
    cache.update_snapshot(snapshot)
    for number, (action, index, template) in enumerate(steps):
        i = index % len(current)
        if action == "relabel":
            current[i] = attrs.evolve(current[i], metadata=attrs.evolve(current[i].metadata,
                                                                        labels=dict(template.labels)))
            cache.update_node(current[i])
        else:
            cache.add_pod(make_pod(f"s{number}").obj().with_node_name(current[i].name))
        cache.update_snapshot(snapshot)
        assert_filter_agrees(p, pod, snapshot.list(), snapshot)
        assert_score_agrees(p, pod, snapshot.list(), snapshot)


# -- the table cases through the batch form ---------------------------------------------------------------

def table_codes(args: dict[str, Any], pod: Pod, node: Node) -> tuple[int, int]:
    """(batch code, per-node code) of the table's node alone in a snapshot."""
    p = plugin_instance(NodeAffinity, args, nodes=[node])
    infos = p.handle.snapshot.list()
    state = CycleState()
    p.pre_filter(state, pod, infos)
    return (batch_codes(p, state, pod, NodeBatch.of(infos, p.handle.snapshot.columns))[0],
            per_node_codes(p, state, pod, infos)[0])


@pytest.mark.parametrize(("pod", "node", "expected"), FILTER_CASES)
def test_batch_filter_gives_the_table_verdicts(pod: Pod, node: Node, expected: tuple[Code, tuple[str, ...]]) -> None:
    """filter_nodes gives each table case's code."""
    batch, per_node = table_codes({}, pod, node)
    assert batch == per_node == int(expected[0])


@pytest.mark.parametrize(("pod", "node", "expected"), ADDED_FILTER_CASES)
def test_batch_filter_gives_the_added_affinity_table_verdicts(pod: Pod, node: Node,
                                                              expected: tuple[Code, tuple[str, ...]]) -> None:
    """filter_nodes gives each added-affinity table case's code."""
    batch, per_node = table_codes(added_required(ZONE_A), pod, node)
    assert batch == per_node == int(expected[0])


def test_batch_filter_sees_a_pod_on_the_node_unchanged() -> None:
    """Pods on a node do not change its labels' answer (the node's row refreshes without a label change)."""
    node = make_node("n1").labels({"zone": "a"}).obj()
    info = NodeInfo.of(node, [PodInfo.of(make_pod("q").obj().with_node_name("n1"))])
    p = plugin_instance(NodeAffinity, {}, nodes=[info])
    pod = make_pod("p").node_selector(zone="a").obj()
    state = CycleState()
    p.pre_filter(state, pod, p.handle.snapshot.list())
    assert p.filter_nodes(state, pod, NodeBatch.of(p.handle.snapshot.list(), p.handle.snapshot.columns)) is None


def test_batch_normalize_of_no_nodes_is_empty() -> None:
    """normalize_scores of an empty batch is an empty array."""
    p = plugin_instance(NodeAffinity, {})
    batch = NodeBatch.of([], p.handle.snapshot.columns)
    assert p.normalize_scores(CycleState(), make_pod("p").obj(), batch, np.zeros(0, dtype=np.int64)).tolist() == []

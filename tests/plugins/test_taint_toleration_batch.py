"""TaintToleration's batch forms: filter_nodes / score_nodes / normalize_scores give the per-node hooks' answers
node by node, on random taints and tolerations, on the table cases of test_taint_toleration.py, and as a scheduler
cache's nodes and pods change."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node, Taint
from kubesched.api.pod import Pod, Toleration
from kubesched.framework import Snapshot
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.framework._types import NodeScore
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.runtime import Cache, NodeSnapshot
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_taint_toleration import FILTER_CASES, TOLERATION_CASES, tainted

EFFECTS = ("NoSchedule", "NoExecute", "PreferNoSchedule")
TAINTS = st.builds(Taint, st.sampled_from(("a", "b")), st.sampled_from(EFFECTS), st.sampled_from(("1", "2", "")))
TOLERATIONS = st.builds(Toleration, key=st.sampled_from(("a", "b", "")),
                        operator=st.sampled_from(("Equal", "Exists", "", "Gt")),
                        value=st.sampled_from(("1", "2", "")), effect=st.sampled_from(("", *EFFECTS)))


def runtime_snapshot(plugin: Any) -> NodeSnapshot:
    """The runtime snapshot behind a kit-built plugin's handle (the cache refreshes it)."""
    snapshot = plugin.handle.snapshot
    assert isinstance(snapshot, NodeSnapshot)
    return snapshot


@st.composite
def nodes(draw: st.DrawFn, index: int) -> Node:
    """A node with zero to three random taints, in random order."""
    builder = make_node(f"n{index}")
    for taint in draw(st.lists(TAINTS, max_size=3)):
        builder = builder.taint(taint.key, taint.value, taint.effect)
    return builder.obj()


@st.composite
def pods(draw: st.DrawFn) -> Pod:
    """A pod with zero to three random tolerations."""
    builder = make_pod("p")
    for t in draw(st.lists(TOLERATIONS, max_size=3)):
        builder = builder.toleration(t.key, t.value, t.effect, t.operator)
    return builder.obj()


CLUSTERS = st.lists(st.integers(0, 7), min_size=1, max_size=8, unique=True).flatmap(
    lambda indexes: st.tuples(*(nodes(i) for i in indexes)))


def assert_batch_agrees(p: TaintToleration, pod: Pod, snapshot: Snapshot, order: list[int] | None = None) -> None:
    """filter_nodes, score_nodes and normalize_scores equal filter, score and normalize_score node by node."""
    infos = snapshot.list()
    if order is not None:
        infos = [infos[i % len(infos)] for i in order]
    batch = NodeBatch.of(infos, snapshot.columns)
    state = CycleState()
    out = p.filter_nodes(state, pod, batch)
    statuses = [p.filter(state, pod, info) for info in infos]
    assert ([0] * len(infos) if out is None else out.tolist()) == [0 if s is None else int(s.code) for s in statuses]
    p.pre_score(state, pod, infos)
    raw = p.score_nodes(state, pod, batch)
    expected = [p.score(state, pod, info) for info in infos]
    assert raw.tolist() == expected
    scores = [NodeScore(info.name, s) for info, s in zip(infos, expected, strict=True)]
    p.normalize_score(state, pod, scores)
    assert p.normalize_scores(state, pod, batch, raw).tolist() == [ns.score for ns in scores]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=CLUSTERS, pod=pods(), order=st.lists(st.integers(0, 7), max_size=6))
def test_batch_forms_equal_per_node_hooks_on_random_taints(node_list: tuple[Node, ...], pod: Pod,
                                                           order: list[int]) -> None:
    """Over every node and over a batch in another order, the batch codes and scores are the per-node ones."""
    p = plugin_instance(TaintToleration, nodes=node_list)
    assert_batch_agrees(p, pod, p.handle.snapshot)
    assert_batch_agrees(p, pod, p.handle.snapshot, order)


# Steps on a scheduler cache: retaint node i with a random node's taints, or add a pod to node i.
STEPS = st.lists(st.tuples(st.sampled_from(("retaint", "pod")), st.integers(0, 7), nodes(0)), min_size=1,
                 max_size=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_list=CLUSTERS, steps=STEPS, pod=pods())
def test_batch_forms_follow_the_cache_as_taints_and_pods_change(node_list: tuple[Node, ...],
                                                                steps: list[tuple[str, int, Node]],
                                                                pod: Pod) -> None:
    """After every node retainted or pod added in a scheduler cache (the columns updated incrementally), the batch
    forms still equal the per-node hooks."""
    p = plugin_instance(TaintToleration)
    cache = Cache()
    current = list(node_list)
    for node in current:
        cache.add_node(node)
    snapshot = runtime_snapshot(p)
    cache.update_snapshot(snapshot)
    for number, (action, index, template) in enumerate(steps):
        i = index % len(current)
        if action == "retaint":
            current[i] = attrs.evolve(current[i], spec=attrs.evolve(current[i].spec, taints=template.spec.taints))
            cache.update_node(current[i])
        else:
            cache.add_pod(make_pod(f"s{number}").obj().with_node_name(current[i].name))
        cache.update_snapshot(snapshot)
        assert_batch_agrees(p, pod, snapshot)


def single_node_code(pod: Pod, node: Node) -> int:
    """filter_nodes' code for the node alone in a snapshot."""
    p = plugin_instance(TaintToleration, nodes=[node])
    out = p.filter_nodes(CycleState(), pod, NodeBatch.of(p.handle.snapshot.list(), p.handle.snapshot.columns))
    return 0 if out is None else int(out[0])


@pytest.mark.parametrize(("node", "expected"), FILTER_CASES)
def test_batch_filter_gives_the_table_verdicts(node: Node, expected: tuple[Code, tuple[str, ...]]) -> None:
    """filter_nodes gives each filter table case's code."""
    pod = make_pod("p").toleration("tolerated", "yes", "NoSchedule").obj()
    assert single_node_code(pod, node) == int(expected[0])


@pytest.mark.parametrize(("toleration", "tolerated"), TOLERATION_CASES)
def test_batch_filter_gives_the_toleration_table_verdicts(toleration: tuple[str, str, str, str],
                                                          tolerated: bool) -> None:
    """filter_nodes accepts k=v:NoSchedule exactly for the tolerations the table says tolerate it."""
    key, value, effect, operator = toleration
    pod = make_pod("p").toleration(key, value, effect, operator).obj()
    expected = Code.SUCCESS if tolerated else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert single_node_code(pod, tainted(("k", "v", "NoSchedule"))) == int(expected)

"""NodeCost: budgets filter, prices score, and the batch forms answer exactly as the per-node hooks."""

from __future__ import annotations

import tomllib

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubesched import ArgsError, ClusterInput, Code, CycleState, Node, NodeInfo, NodeScore, Pod, Status
from kubesched.framework import NodeBatch
from kubesched.profiles import parse_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod, make_snapshot
from kubesched.testing.harness import plugin_instance

from kubesched_examples.node_cost import (
    ERR_REASON_COST,
    MAX_COST_ANNOTATION,
    UNPRICED,
    NodeCost,
    NodeCostArgs,
    parse_cost,
)

from support import with_annotation

COST = "example.com/hourly-cost"
#: Label values: prices (some shared), values that are no price, and None for no label.
VALUES = st.one_of(st.none(), st.sampled_from(["0", "40", "40", "75", "300", "999999999999999"]),
                   st.sampled_from(["", "cheap", "-5", "4.5", "1e3", "٣", "1000000000000000"]))


def priced_node(name: str, value: str | None) -> Node:
    """A node whose cost label is ``value`` (none when None)."""
    builder = make_node(name).capacity(cpu="4", memory="8Gi")
    return (builder.labels({COST: value}) if value is not None else builder).obj()


def budget_pod(budget: str | None) -> Pod:
    """A pod with the max-hourly-cost annotation ``budget`` (none when None)."""
    pod = make_pod("p").req(cpu="1").obj()
    return with_annotation(pod, MAX_COST_ANNOTATION, budget) if budget is not None else pod


@pytest.mark.parametrize(("value", "cost"), [
    ("40", 40), ("0", 0), ("007", 7), ("999999999999999", 999999999999999), (None, UNPRICED), ("", UNPRICED),
    ("cheap", UNPRICED), ("-5", UNPRICED), ("4.5", UNPRICED), ("٣", UNPRICED), ("1000000000000000", UNPRICED),
])
def test_a_label_value_is_a_price_only_when_it_is_at_most_15_plain_digits(value: str | None, cost: int) -> None:
    """Prices are ASCII digits, at most 15 of them; anything else leaves the node unpriced."""
    assert parse_cost(value) == cost


@pytest.mark.parametrize(("label", "budget", "expected"), [
    pytest.param("300", "100", Status.unresolvable(ERR_REASON_COST), id="over-budget"),
    pytest.param("100", "100", None, id="at-budget"),
    pytest.param(None, "100", None, id="unpriced-passes"),
    pytest.param("cheap", "0", None, id="no-price-passes"),
])
def test_filter_keeps_the_pod_off_priced_nodes_above_its_budget(label: str | None, budget: str,
                                                                expected: Status | None) -> None:
    """Filter rejects a priced node costing more than the budget, UnschedulableAndUnresolvable."""
    plugin, state, pod = plugin_instance(NodeCost), CycleState(), budget_pod(budget)
    assert plugin.pre_filter(state, pod, []) is None
    assert plugin.filter(state, pod, NodeInfo.of(priced_node("n1", label))) == expected


def test_pre_filter_skips_the_filter_for_a_pod_without_a_budget() -> None:
    """Without the annotation there is nothing to filter: PreFilter answers Skip."""
    assert plugin_instance(NodeCost).pre_filter(CycleState(), budget_pod(None), []) == Status.skip()


def test_pre_filter_rejects_a_budget_that_is_no_price() -> None:
    """An annotation that is not a whole number rejects the pod once, naming the annotation and its value."""
    status = plugin_instance(NodeCost).pre_filter(CycleState(), budget_pod("lots"), [])
    assert status == Status.unresolvable(f'invalid {MAX_COST_ANNOTATION} annotation "lots": must be a whole '
                                         "number of at most 15 digits")


def test_normalize_maps_the_cheapest_to_100_and_the_dearest_to_0() -> None:
    """Linear and floored between the cheapest and dearest priced node; unpriced nodes score 0."""
    scores = [NodeScore("a", 40), NodeScore("b", 75), NodeScore("c", 300), NodeScore("d", UNPRICED)]
    plugin_instance(NodeCost).normalize_score(CycleState(), budget_pod(None), scores)
    assert [s.score for s in scores] == [100, 86, 0, 0]


def test_the_cost_label_is_an_arg() -> None:
    """``cost-label`` names the label read, and must not be blank."""
    plugin = plugin_instance(NodeCost, NodeCostArgs(cost_label="billing/price"))
    node = make_node("n1").labels({"billing/price": "12"}).obj()
    assert plugin.score(CycleState(), budget_pod(None), NodeInfo.of(node)) == 12
    with pytest.raises(ArgsError, match="label key must be non-empty"):
        NodeCostArgs(cost_label=" ")


# -- the batch forms -------------------------------------------------------------------------------------------
def per_node_and_batch(values: list[str | None], budget: str | None,
                       order: list[int]) -> tuple[tuple[list[int], list[int], list[int]], ...]:
    """(filter codes, raw scores, normalised scores) per node of ``order`` (indexes into the nodes), from the
    per-node hooks and from the batch forms."""
    infos = [NodeInfo.of(priced_node(f"n{i}", value)) for i, value in enumerate(values)]
    snapshot = make_snapshot(infos)
    plugin, pod, state = plugin_instance(NodeCost), budget_pod(budget), CycleState()
    plugin.pre_filter(state, pod, infos)
    nodes = [infos[i] for i in order]
    codes = [int((plugin.filter(state, pod, ni) or Status()).code) for ni in nodes]
    raw = [plugin.score(state, pod, ni) for ni in nodes]
    node_scores = [NodeScore(ni.name, score) for ni, score in zip(nodes, raw, strict=True)]
    plugin.normalize_score(state, pod, node_scores)
    batch = NodeBatch.of(nodes, snapshot.columns)
    batch_codes = plugin.filter_nodes(state, pod, batch)
    batch_raw = plugin.score_nodes(state, pod, batch)
    batch_normalized = plugin.normalize_scores(state, pod, batch, batch_raw)
    return ((codes, raw, [ns.score for ns in node_scores]),
            ([0] * len(nodes) if batch_codes is None else batch_codes.tolist(), batch_raw.tolist(),
             batch_normalized.tolist()))


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[str | None], str | None, list[int]]:
    """Cost label values of 1 to 12 nodes, a budget (or none), and a batch: some of the nodes in some order."""
    values = draw(st.lists(VALUES, min_size=1, max_size=12))
    budget = draw(st.one_of(st.none(), st.sampled_from(["0", "40", "74", "75", "1000"])))
    order = draw(st.permutations(range(len(values))))
    return values, budget, order[:draw(st.integers(1, len(values)))]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=clusters())
def test_the_batch_forms_answer_as_the_per_node_hooks(case: tuple[list[str | None], str | None, list[int]]) -> None:
    """On random prices, budgets and batches (any subset, any order), filter_nodes, score_nodes and
    normalize_scores give node by node what filter, score and normalize_score give."""
    per_node, batch = per_node_and_batch(*case)
    assert batch == per_node


def test_filter_nodes_uses_the_filters_code() -> None:
    """Over budget is UnschedulableAndUnresolvable in the batch form too; within budget 0."""
    per_node, batch = per_node_and_batch(["300", "40", None], "100", [0, 1, 2])
    assert batch[0] == per_node[0] == [int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), 0, 0]


PROFILE = """
[[profiles]]
[profiles.plugins.multi-point]
enabled = [{ name = "NodeCost", weight = 2 }]
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(VALUES, min_size=2, max_size=8),
       budgets=st.lists(st.one_of(st.none(), st.sampled_from(["40", "75", "300"])), min_size=1, max_size=10),
       seed=st.integers(0, 1000))
def test_the_fast_path_places_pods_as_the_per_node_path(registry: PluginRegistry, values: list[str | None],
                                                         budgets: list[str | None], seed: int) -> None:
    """The default profile plus NodeCost, simulated with the fast path on and off: the same placements,
    messages and events, as nodes fill up (the columns follow every binding)."""
    nodes = [priced_node(f"n{i}", value) for i, value in enumerate(values)]
    pods = [with_annotation(make_pod(f"p{i}").req(cpu="1500m").obj(), MAX_COST_ANNOTATION, budget)
            if budget is not None else make_pod(f"p{i}").req(cpu="1500m").obj() for i, budget in enumerate(budgets)]
    config = parse_config(tomllib.loads(PROFILE), registry, "test profile")
    results = []
    for fast_path in (True, False):
        settings_ = attrs.evolve(config.settings, fast_path=fast_path)
        cluster = ClusterInput(nodes=tuple(nodes), pods=tuple(pods))
        results.append(Simulation(cluster, attrs.evolve(config, settings=settings_), registry, seed=seed).run())
    assert results[0].pods == results[1].pods
    assert results[0].events == results[1].events


def test_an_unpriced_batch_normalizes_to_zero() -> None:
    """A batch with no priced node scores 0 everywhere, as normalize_score does."""
    batch_scores = np.array([UNPRICED, UNPRICED], dtype=np.int64)
    snapshot = make_snapshot([NodeInfo.of(priced_node("a", None)), NodeInfo.of(priced_node("b", None))])
    batch = NodeBatch.of(snapshot.list(), snapshot.columns)
    out = plugin_instance(NodeCost).normalize_scores(CycleState(), budget_pod(None), batch, batch_scores)
    assert out.tolist() == [0, 0]

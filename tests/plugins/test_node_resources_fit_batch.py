"""NodeResourcesFit's batch forms: ``filter_nodes`` gives Filter's codes and ``score_nodes`` Score's values, node by
node, for every scoring strategy, on random clusters and on the per-node tables."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.pod import Pod
from kubesched.api.resources import NON_ZERO_DEFAULTS, pod_requests
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._resource import Resource
from kubesched.framework._status import Code
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.noderesources.resource_allocation import pod_resource
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import node_info
from tests.plugins.resources_batch import (
    FOO,
    GPU,
    RESOURCES,
    SCORABLE,
    batches,
    clusters,
    filter_codes,
    pods,
    score_values,
)
from tests.plugins.test_node_resources_fit import (
    FILTER_CASES,
    IGNORED_CASES,
    LEAST_ALLOCATED_CASES,
    MOST_ALLOCATED_CASES,
    RTCR_CASES,
    small_node,
)

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fit(args: dict[str, Any] | None = None) -> NodeResourcesFit:
    """The plugin built from kebab-case args."""
    return plugin_instance(NodeResourcesFit, args or {})


@st.composite
def fit_args(draw: st.DrawFn) -> dict[str, Any]:
    """Random args: ignored resources and groups, a scoring strategy over some resources with random weights."""
    resources = [{"name": name, "weight": draw(st.integers(1, 100))}
                 for name in draw(st.lists(st.sampled_from(SCORABLE), unique=True, max_size=4))]
    kind = draw(st.sampled_from(["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]))
    strategy: dict[str, Any] = {"type": kind, "resources": resources}
    if kind == "RequestedToCapacityRatio":
        utilizations = sorted(draw(st.lists(st.integers(0, 100), unique=True, min_size=1, max_size=4)))
        strategy["requested-to-capacity-ratio"] = {"shape": [
            {"utilization": u, "score": draw(st.integers(0, 10))} for u in utilizations]}
    return {"ignored-resources": draw(st.lists(st.sampled_from([FOO, GPU, "other.io/bar"]), unique=True)),
            "ignored-resource-groups": draw(st.lists(st.sampled_from(["example.com", "nvidia.com"]), unique=True)),
            "scoring-strategy": strategy}


@pytest.mark.slow
@PROPERTY
@given(args=fit_args(), cluster=clusters())
def test_filter_nodes_gives_filter_codes_node_by_node(args: dict[str, Any], cluster: tuple[list[NodeInfo], Pod]
                                                      ) -> None:
    """On random clusters, filter_nodes' code for each node is Filter's (over every node and over a subset)."""
    infos, pod = cluster
    plugin = fit(args)
    for batch in batches(infos):
        per_node, batch_codes = filter_codes(plugin, pod, batch)
        assert batch_codes == per_node


@pytest.mark.slow
@PROPERTY
@given(args=fit_args(), cluster=clusters())
def test_score_nodes_gives_score_values_node_by_node(args: dict[str, Any], cluster: tuple[list[NodeInfo], Pod]
                                                     ) -> None:
    """On random clusters and strategies, score_nodes' value for each node is Score's."""
    infos, pod = cluster
    plugin = fit(args)
    for batch in batches(infos):
        per_node, batch_scores = score_values(plugin, pod, batch)
        assert batch_scores == per_node


HUGE_REQUESTS = [
    pytest.param({"cpu": "9000000000000000"}, id="cpu-beyond-int64-millicores"),
    pytest.param({"memory": "100Ei"}, id="memory-beyond-int64"),
    pytest.param({FOO: 2**62}, id="extended-resource-near-int64-max"),
]


@pytest.mark.parametrize("requested", HUGE_REQUESTS)
@pytest.mark.parametrize("kind", ["LeastAllocated", "MostAllocated"])
def test_pod_requests_beyond_int64_get_the_per_node_answers(requested: dict[str, str | int], kind: str) -> None:
    """A pod asking for more than int64 holds is rejected and scored exactly as per node, without overflow."""
    infos = [node_info(small_node("n1", **{FOO: 4})), node_info(make_node("n2").obj())]
    plugin = fit({"scoring-strategy": {"type": kind, "resources": [{"name": n} for n in RESOURCES]}})
    pod = make_pod("p").req(**requested).obj()
    for batch in batches(infos):
        assert filter_codes(plugin, pod, batch)[1] == [int(Code.UNSCHEDULABLE)] * len(batch)
        per_node, batch_scores = score_values(plugin, pod, batch)
        assert batch_scores == per_node


@pytest.mark.parametrize(("pod", "node", "expected"), FILTER_CASES)
def test_filter_table_through_the_batch_form(pod: Pod, node: NodeInfo, expected: tuple[Code, tuple[str, ...]]) -> None:
    """Every Filter table case gives its code through filter_nodes too."""
    assert filter_codes(fit(), pod, batches([node])[0])[1] == [int(expected[0])]


@pytest.mark.parametrize(("args", "requests", "expected"), IGNORED_CASES)
def test_ignored_resources_table_through_the_batch_form(
        args: dict[str, Any], requests: dict[str, str | int], expected: tuple[Code, tuple[str, ...]]) -> None:
    """ignored-resources and ignored-resource-groups exempt the same resources in filter_nodes."""
    pod = make_pod("p").req(**requests).obj()
    assert filter_codes(fit(args), pod, batches([node_info(small_node())])[0])[1] == [int(expected[0])]


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), LEAST_ALLOCATED_CASES)
def test_least_allocated_table_through_the_batch_form(resources: list[dict[str, Any]], pod: Pod,
                                                      nodes: list[NodeInfo], expected: list[int]) -> None:
    """Every LeastAllocated table case scores the same through score_nodes."""
    plugin = fit({"scoring-strategy": {"type": "LeastAllocated", "resources": resources}})
    assert score_values(plugin, pod, batches(nodes)[0])[1] == expected


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), MOST_ALLOCATED_CASES)
def test_most_allocated_table_through_the_batch_form(resources: list[dict[str, Any]], pod: Pod,
                                                     nodes: list[NodeInfo], expected: list[int]) -> None:
    """Every MostAllocated table case scores the same through score_nodes."""
    plugin = fit({"scoring-strategy": {"type": "MostAllocated", "resources": resources}})
    assert score_values(plugin, pod, batches(nodes)[0])[1] == expected


@pytest.mark.parametrize(("resources", "param", "pod", "nodes", "expected"), RTCR_CASES)
def test_requested_to_capacity_ratio_table_through_the_batch_form(
        resources: list[dict[str, Any]], param: dict[str, Any], pod: Pod, nodes: list[NodeInfo],
        expected: list[int]) -> None:
    """Every RequestedToCapacityRatio table case scores the same through score_nodes."""
    plugin = fit({"scoring-strategy": {"type": "RequestedToCapacityRatio", "resources": resources,
                                       "requested-to-capacity-ratio": param}})
    assert score_values(plugin, pod, batches(nodes)[0])[1] == expected


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(pod_list=st.lists(pods("p"), min_size=1, max_size=6), non_zero=st.booleans())
def test_memoised_pod_request_equals_the_computed_one(pod_list: list[Pod], non_zero: bool) -> None:
    """pod_resource, shared by pods written alike, gives every pod exactly its own effective request."""
    for pod in pod_list:
        expected = Resource.from_amounts(pod_requests(pod, non_missing=NON_ZERO_DEFAULTS if non_zero else None))
        assert pod_resource(pod, non_zero=non_zero) == expected

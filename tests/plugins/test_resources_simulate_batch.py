"""Whole simulations with the resource plugins configured every way (each scoring strategy over cpu, memory,
ephemeral storage and an extended resource, ignored resources, BalancedAllocation over three resources) decide the
same with the fast path (batch forms) and without it, pod by pod."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles.parse import parse_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing.builders import make_node, make_pod

FOO = "example.com/foo"
IMAGES = ("a:1", "b:1")
RESOURCES = [{"name": "cpu"}, {"name": "memory", "weight": 2}, {"name": "ephemeral-storage"},
             {"name": FOO, "weight": 5}]
STRATEGIES: list[dict[str, Any]] = [
    {"type": "LeastAllocated", "resources": RESOURCES},
    {"type": "MostAllocated", "resources": RESOURCES},
    {"type": "RequestedToCapacityRatio", "resources": RESOURCES, "requested-to-capacity-ratio": {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 60, "score": 10}, {"utilization": 100, "score": 3}]}},
]


def document(strategy: dict[str, Any], ignored: bool) -> dict[str, Any]:
    """A default profile whose resource plugins use ``strategy`` (and ignore the example.com group if asked)."""
    return {"profiles": [{"plugin-config": {
        "NodeResourcesFit": {"scoring-strategy": strategy,
                             "ignored-resource-groups": ["example.com"] if ignored else []},
        "NodeResourcesBalancedAllocation": {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": FOO}]},
    }}]}


@st.composite
def cluster_nodes(draw: st.DrawFn) -> list[Node]:
    """Two to six nodes of random size, some with the extended resource, some holding images."""
    result = []
    for i in range(draw(st.integers(2, 6))):
        capacity: dict[str, str | int] = {
            "cpu": f"{draw(st.sampled_from([1000, 2000, 4000]))}m", "memory": f"{draw(st.sampled_from([2, 4, 8]))}Gi",
            "ephemeral-storage": f"{draw(st.sampled_from([10, 20]))}Gi", "pods": draw(st.sampled_from([3, 110]))}
        if draw(st.booleans()):
            capacity[FOO] = draw(st.integers(0, 4))
        builder = make_node(f"n{i}").capacity(**capacity)
        for image in draw(st.sets(st.sampled_from(IMAGES))):
            builder = builder.image(draw(st.sampled_from([50, 400, 900])) * 2**20, image)
        result.append(builder.obj())
    return result


@st.composite
def pending_pods(draw: st.DrawFn) -> list[Pod]:
    """One to twelve pods with random requests (some best-effort), extended resources and images."""
    result = []
    for i in range(draw(st.integers(1, 12))):
        requests: dict[str, str | int | float] = {}
        if draw(st.integers(0, 4)):
            requests["cpu"] = f"{draw(st.sampled_from([100, 250, 500, 1000]))}m"
        if draw(st.integers(0, 4)):
            requests["memory"] = f"{draw(st.sampled_from([128, 512, 1024, 3072]))}Mi"
        if draw(st.integers(0, 3)) == 0:
            requests["ephemeral-storage"] = f"{draw(st.sampled_from([1, 5, 15]))}Gi"
        if draw(st.integers(0, 2)) == 0:
            requests[FOO] = draw(st.integers(0, 2))
        builder = make_pod(f"p{i}").container(requests, image=draw(st.sampled_from([*IMAGES, "c:1"])))
        result.append(builder.obj())
    return result


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=cluster_nodes(), pods=pending_pods(), strategy=st.sampled_from(STRATEGIES), ignored=st.booleans(),
       seed=st.integers(0, 3))
def test_fast_path_places_pods_as_the_per_node_path(nodes: list[Node], pods: list[Pod], strategy: dict[str, Any],
                                                    ignored: bool, seed: int) -> None:
    """Every pod ends up on the same node (or pending with the same message) with and without the fast path."""
    registry = PluginRegistry.discover()
    config = parse_config(document(strategy, ignored), registry, "resources")
    results = []
    for fast_path in (True, False):
        chosen = attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=fast_path))
        results.append(Simulation(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), chosen, registry,
                                  seed=seed).run())
    assert results[0].pods == results[1].pods
    assert results[0].events == results[1].events

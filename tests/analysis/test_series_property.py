"""Invariants of the run metrics on random clusters: every pod has one outcome, and the series, replayed change by
change, ends at the figures computed on the final state."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing import make_node, make_pod


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[Pod]]:
    """1 to 4 nodes of 1 to 4 cpu; up to 8 pods of 100m to 2 cpu, priority 0 or 100, some bound by nodeName, some
    with a grace period (so victims linger)."""
    count = draw(st.integers(1, 4))
    nodes = [make_node(f"n{i}").capacity(cpu=str(draw(st.integers(1, 4))), memory="4Gi").obj() for i in range(count)]
    pods = []
    for i in range(draw(st.integers(0, 8))):
        builder = make_pod(f"p{i}").req(cpu=f"{draw(st.sampled_from([100, 500, 1000, 2000]))}m")
        builder = builder.priority(draw(st.sampled_from([0, 100]))).grace_period(draw(st.sampled_from([0, 30])))
        if draw(st.booleans()):
            builder = builder.node(f"n{draw(st.integers(0, count - 1))}")
        pods.append(builder.obj())
    return nodes, pods


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(clusters())
def test_the_series_ends_at_the_final_figures(registry: PluginRegistry, cluster: tuple[list[Node], list[Pod]]) -> None:
    """Each pod is counted once; the last sample of every count, amount and copy count equals the final metric, and
    every ratio and spread figure agrees to rounding."""
    nodes, pods = cluster
    result = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), load_config("default", registry), registry)
    assert result.analysis is not None
    metrics, series = result.analysis.metrics, result.analysis.series
    assert sum(metrics.pods.values()) == len(pods)
    flat = metrics.flat()
    for name, column in series.values.items():
        expected = flat.get(name)
        if name.startswith("preemptions.") or expected is None:
            continue
        if isinstance(expected, int):
            assert column[-1] == expected, name
        else:
            assert column[-1] == pytest.approx(expected, abs=1e-9), name
    assert series.values["preemptions.count"][-1] == metrics.preemptions.count

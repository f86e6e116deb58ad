"""NodeResourcesBalancedAllocation's batch form: ``score_nodes`` gives Score's value node by node, with the same
float operations (so the same truncated score even where the standard deviation sits on an integer boundary)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.pod import Pod
from kubesched.framework._node_info import NodeInfo
from kubesched.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
from kubesched.plugins.noderesources.resource_allocation import balanced_batch_scorer, balanced_scorer
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_pod
from tests.plugins.resources_batch import SCORABLE, batches, clusters, score_values
from tests.plugins.test_balanced_allocation import BEST_EFFORT_SCORE_CASES, SCORE_CASES

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def balanced(args: dict[str, Any] | None = None) -> NodeResourcesBalancedAllocation:
    """The plugin built from kebab-case args."""
    return plugin_instance(NodeResourcesBalancedAllocation, args or {})


@pytest.mark.slow
@PROPERTY
@given(names=st.lists(st.sampled_from(SCORABLE), unique=True, max_size=5), cluster=clusters())
def test_score_nodes_gives_score_values_node_by_node(names: list[str], cluster: tuple[list[NodeInfo], Pod]) -> None:
    """On random clusters and resource lists, score_nodes' value for each node is Score's."""
    infos, pod = cluster
    plugin = balanced({"resources": [{"name": name} for name in names]})
    for batch in batches(infos):
        per_node, batch_scores = score_values(plugin, pod, batch)
        assert batch_scores == per_node


@st.composite
def resource_rows(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]]]:
    """Per resource (two to five), requested and allocatable amounts of a few nodes; some allocatable are 0."""
    size = draw(st.integers(1, 8))
    count = draw(st.integers(2, 5))
    amount = st.one_of(st.integers(0, 10), st.integers(0, 2**52))
    allocatable = [[draw(st.one_of(st.just(0), amount)) for _ in range(size)] for _ in range(count)]
    requested = [[draw(amount) for _ in range(size)] for _ in range(count)]
    return requested, allocatable


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(rows=resource_rows())
def test_batch_scorer_rounds_exactly_as_the_per_node_scorer(rows: tuple[list[list[int]], list[list[int]]]) -> None:
    """The batch std (two fractions, more, or a node with fewer resources) truncates to the per-node score."""
    requested, allocatable = rows
    batch = balanced_batch_scorer([np.array(r, dtype=np.int64) for r in requested],
                                  [np.array(a, dtype=np.int64) for a in allocatable])
    per_node = [balanced_scorer([row[i] for row in requested], [row[i] for row in allocatable])
                for i in range(len(requested[0]))]
    assert batch.tolist() == per_node


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), SCORE_CASES)
def test_score_table_through_the_batch_form(resources: list[dict[str, Any]], pod: Pod, nodes: list[NodeInfo],
                                            expected: list[int]) -> None:
    """Every Score table case scores the same through score_nodes."""
    assert score_values(balanced({"resources": resources}), pod, batches(nodes)[0])[1] == expected


@pytest.mark.parametrize(("nodes", "expected"), BEST_EFFORT_SCORE_CASES)
def test_best_effort_table_through_the_batch_form(nodes: list[NodeInfo], expected: list[int]) -> None:
    """A pod without requests is scored on the node's own balance through score_nodes too."""
    assert score_values(balanced(), make_pod("p").obj(), batches(nodes)[0])[1] == expected

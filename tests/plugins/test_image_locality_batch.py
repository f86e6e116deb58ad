"""ImageLocality's batch form: ``score_nodes`` gives Score's value node by node, from an index of which nodes hold
each of the pod's images (nodes without them score 0)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.plugins.image_locality import ImageLocality
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_image_locality import CLUSTER_CASES, CONTAINER_CASES, MB, SPREAD_CASES, running

IMAGES = ("a:1", "b:1", "c", "c:latest", "registry.local:5000/d")
SIZES = (0, 5 * MB, 23 * MB, 300 * MB, 999 * MB, 1000 * MB, 2500 * MB)


def both(pod: Pod, nodes: tuple[Node, ...]) -> tuple[list[list[int]], list[list[int]]]:
    """(per-node scores, batch scores) over every node and over every other node in reverse order."""
    plugin = plugin_instance(ImageLocality, nodes=nodes)
    snapshot = plugin.handle.snapshot
    per_node, batch = [], []
    for infos in (snapshot.list(), snapshot.list()[::-2]):
        node_batch = NodeBatch.of(infos, snapshot.columns)
        per_node.append([plugin.score(CycleState(), pod, info) for info in infos])
        batch.append(plugin.score_nodes(CycleState(), pod, node_batch).tolist())
    return per_node, batch


@st.composite
def image_nodes(draw: st.DrawFn) -> tuple[Node, ...]:
    """One to six nodes, each holding some images (under one or two names) of random sizes."""
    result = []
    for i in range(draw(st.integers(1, 6))):
        builder = make_node(f"n{i}")
        for names in draw(st.lists(st.lists(st.sampled_from(IMAGES), unique=True, min_size=1, max_size=2),
                                   max_size=3)):
            builder.image(draw(st.sampled_from(SIZES)), *names)
        result.append(builder.obj())
    return tuple(result)


@st.composite
def image_pods(draw: st.DrawFn) -> Pod:
    """A pod with zero to two init containers and one to three containers using images of :data:`IMAGES`."""
    builder = make_pod("p")
    for image in draw(st.lists(st.sampled_from(IMAGES), max_size=2)):
        builder.init_container(image, sidecar=draw(st.booleans()))
    for image in draw(st.lists(st.sampled_from((*IMAGES, "absent:1")), min_size=1, max_size=3)):
        builder.container(image=image)
    return builder.obj()


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=image_nodes(), pod=image_pods())
def test_score_nodes_gives_score_values_node_by_node(nodes: tuple[Node, ...], pod: Pod) -> None:
    """On random clusters of images, score_nodes' value for each node is Score's."""
    per_node, batch = both(pod, nodes)
    assert batch == per_node


def test_pod_without_containers_scores_0_everywhere() -> None:
    """A pod with no containers (so no images) scores 0 on every node through the batch form too."""
    per_node, batch = both(make_pod("p").obj(), (make_node("n1").image(500 * MB, "a:1").obj(),))
    assert batch == per_node == [[0], [0]]


@pytest.mark.parametrize(("pod", "nodes", "expected"), CLUSTER_CASES)
def test_reference_clusters_through_the_batch_form(pod: Pod, nodes: tuple[Node, ...], expected: list[int]) -> None:
    """kube's reference table gives the same scores through score_nodes."""
    assert both(pod, nodes)[1][0] == expected


@pytest.mark.parametrize(("nodes", "expected"), SPREAD_CASES)
def test_spread_table_through_the_batch_form(nodes: tuple[Node, ...], expected: list[int]) -> None:
    """An image's spread scales it the same way through score_nodes."""
    assert both(running("app:1"), nodes)[1][0] == expected


@pytest.mark.parametrize(("pod", "expected"), CONTAINER_CASES)
def test_container_table_through_the_batch_form(pod: Pod, expected: int) -> None:
    """Init, sidecar and repeated images count the same through score_nodes."""
    node = (make_node("n1").image(300 * MB, "a:1").image(300 * MB, "b:1").image(600 * MB, "c:1")
            .image(500 * MB, "d:1").image(1000 * MB, "big:1").obj())
    assert both(pod, (node,))[1][0] == [expected]

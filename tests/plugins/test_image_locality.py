"""ImageLocality: nodes holding the pod's images score higher, scaled down by how widely each image has spread.

Score = 100 * (clamp(sum, 23 MiB, 1000 MiB * containers) - 23 MiB) // (1000 MiB * containers - 23 MiB), where sum adds,
for every init and regular container whose image the node holds, int(size * nodes_with_image / all_nodes).
Clusters are built with the kit (plugin_instance), whose snapshots share image states as the scheduler cache does.
"""

from __future__ import annotations

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import extension_points, marked_hooks
from kubesched.plugins.image_locality import ImageLocality, normalized_image_name
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod

MB = 1024 * 1024
DIGEST = "sha256:" + "ab" * 32


def cluster(*nodes: Node) -> ImageLocality:
    """The plugin over a cluster of ``nodes``; its handle's snapshot has the image states a scheduler cache
    records."""
    return plugin_instance(ImageLocality, nodes=nodes)


def running(*images: str) -> Pod:
    """A pod with one container per image."""
    builder = make_pod("p")
    for image in images:
        builder.container(image=image)
    return builder.obj()


def scores(pod: Pod, *nodes: Node) -> list[int]:
    """The pod's score on every node of a cluster made of exactly ``nodes``, in the given order."""
    plugin = cluster(*nodes)
    snapshot = plugin.handle.snapshot
    result = []
    for node in nodes:
        info = snapshot.get(node.name)
        assert info is not None
        result.append(plugin.score(CycleState(), pod, info))
    return result


def with_image(name: str, size: int, *names: str) -> Node:
    """A node holding one image (under all of ``names``) of ``size`` bytes."""
    return make_node(name).image(size, *names).obj()


# The nodes of kube's own table: machine1 has 40, 300 and 2000 MiB images, machine2 250 and 10 MiB, machine3 none.
MACHINE1 = (make_node("machine1").image(40 * MB, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1")
            .image(300 * MB, "gcr.io/300:latest", "gcr.io/300:v1").image(2000 * MB, "gcr.io/2000:latest").obj())
MACHINE2 = make_node("machine2").image(250 * MB, "gcr.io/250:latest").image(10 * MB, "gcr.io/10:latest",
                                                                             "gcr.io/10:v1").obj()
MACHINE3 = make_node("machine3").obj()

CLUSTER_CASES = [
    # machine1: 40/2 = 20 MiB < 23 MiB -> 0.  machine2: 250/2 = 125 MiB -> 100 * 102 // 1977 = 5.
    pytest.param(running("gcr.io/40", "gcr.io/250"), (MACHINE1, MACHINE2), [0, 5],
                 id="two-images-on-two-nodes-larger-wins"),
    # machine1: (40 + 300)/2 = 170 MiB -> 100 * 147 // 1977 = 7.
    pytest.param(running("gcr.io/40", "gcr.io/300"), (MACHINE1, MACHINE2), [7, 0], id="both-images-on-one-node"),
    # machine1: 2000/2 = 1000 MiB of a 2000 MiB maximum -> 100 * 977 // 1977 = 49.  machine2: 10/2 = 5 MiB -> 0.
    pytest.param(running("gcr.io/10", "gcr.io/2000"), (MACHINE1, MACHINE2), [49, 0], id="two-containers-max"),
    # machine1: int(2000 MiB / 3) = 699050666 bytes -> 100 * 674933418 // 2073034752 = 32.
    pytest.param(running("gcr.io/10", "gcr.io/2000"), (MACHINE1, MACHINE2, MACHINE3), [32, 0, 0],
                 id="node-without-images-counts-in-total"),
]


@pytest.mark.parametrize(("pod", "nodes", "expected"), CLUSTER_CASES)
def test_scores_on_kube_reference_clusters(pod: Pod, nodes: tuple[Node, ...], expected: list[int]) -> None:
    """kube's reference table, with today's maximum of 1000 MiB per container."""
    assert scores(pod, *nodes) == expected


SPREAD_CASES = [
    # 500 MiB * 2/2 -> 100 * 477 // 977 = 48 on both.
    pytest.param((with_image("n1", 500 * MB, "app:1"), with_image("n2", 500 * MB, "app:1")), [48, 48],
                 id="on-every-node"),
    # 500 MiB * 1/2 = 250 MiB -> 100 * 227 // 977 = 23; the other node has nothing.
    pytest.param((with_image("n1", 500 * MB, "app:1"), make_node("n2").obj()), [23, 0], id="on-one-of-two-nodes"),
]


@pytest.mark.parametrize(("nodes", "expected"), SPREAD_CASES)
def test_image_size_is_scaled_by_its_spread(nodes: tuple[Node, ...], expected: list[int]) -> None:
    """An image counts in proportion to the share of nodes that hold it (against node heating)."""
    assert scores(running("app:1"), *nodes) == expected


def test_spread_share_is_truncated_to_whole_bytes() -> None:
    """840695807 bytes on 1 of 3 nodes count int(280231935.67) = 280231935 bytes, one byte short of the 25-point mark
    (23 MiB + 977 MiB / 4 = 280231936), so the node scores 24."""
    nodes = (with_image("n1", 840695807, "app:1"), make_node("n2").obj(), make_node("n3").obj())
    assert scores(running("app:1"), *nodes) == [24, 0, 0]


def test_total_is_every_node_of_the_snapshot() -> None:
    """The spread divides by all nodes in the snapshot, not just the node being scored: 1000 MiB on 2 of 4 nodes
    counts 500 MiB -> 48."""
    nodes = [with_image("n1", 1000 * MB, "app:1"), with_image("n2", 1000 * MB, "app:1"),
             make_node("n3").obj(), make_node("n4").obj()]
    plugin = cluster(*nodes)
    info = plugin.handle.snapshot.get("n1")
    assert info is not None
    assert plugin.score(CycleState(), running("app:1"), info) == 48


THRESHOLD_CASES = [
    pytest.param(20 * MB, 0, id="under-23MiB"),
    pytest.param(23 * MB, 0, id="exactly-23MiB"),
    pytest.param(24 * MB, 0, id="just-over-23MiB"),  # 100 * 1 // 977
    pytest.param(33 * MB, 1, id="10MiB-over-the-minimum"),  # 100 * 10 // 977
    pytest.param(1000 * MB, 100, id="exactly-the-maximum"),
    pytest.param(2000 * MB, 100, id="over-the-maximum"),
]


@pytest.mark.parametrize(("size", "expected"), THRESHOLD_CASES)
def test_sum_is_clamped_between_thresholds(size: int, expected: int) -> None:
    """Below 23 MiB a node scores 0; at 1000 MiB per container it scores 100; integer-divided in between."""
    assert scores(running("app:1"), with_image("n1", size, "app:1")) == [expected]


NAME_CASES = [
    pytest.param("nginx", ("nginx:latest",), 48, id="untagged-means-latest"),
    pytest.param("nginx", ("nginx",), 0, id="untagged-node-name-never-matches"),
    pytest.param("nginx:1.25", ("nginx:latest",), 0, id="other-tag"),
    pytest.param("nginx:1.25", ("nginx:latest", "nginx:1.25"), 48, id="any-of-the-image-names"),
    pytest.param(f"nginx@{DIGEST}", (f"nginx@{DIGEST}", "nginx:1.25"), 48, id="digest"),
    pytest.param(f"nginx@{DIGEST}", ("nginx:latest",), 0, id="digest-is-not-latest"),
    pytest.param("registry.local:5000/app", ("registry.local:5000/app:latest",), 48, id="registry-port-is-not-a-tag"),
    pytest.param("registry.local:5000/app:v2", ("registry.local:5000/app:v2",), 48, id="registry-port-and-tag"),
]


@pytest.mark.parametrize(("image", "node_names", "expected"), NAME_CASES)
def test_pod_image_name_is_normalised_node_names_are_not(image: str, node_names: tuple[str, ...],
                                                         expected: int) -> None:
    """The pod's image gets ``:latest`` when it has no tag or digest; the node's names are looked up as reported.
    A 500 MiB image on the only node scores 100 * 477 // 977 = 48."""
    assert scores(running(image), with_image("n1", 500 * MB, *node_names)) == [expected]


@pytest.mark.parametrize(("name", "normalised"), [
    pytest.param("root", "root:latest", id="bare"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="registry-port"),
    pytest.param("root:tag", "root:tag", id="tagged"),
    pytest.param("gcr.io:5000/root:tag", "gcr.io:5000/root:tag", id="registry-port-and-tag"),
    pytest.param(f"root@{DIGEST}", f"root@{DIGEST}", id="digest"),
])
def test_normalized_image_name(name: str, normalised: str) -> None:
    """``:latest`` is appended only when no colon follows the last slash."""
    assert normalized_image_name(name) == normalised


CONTAINER_CASES = [
    # 300 + 300 MiB of a 3000 MiB maximum -> 100 * 577 // 2977 = 19.
    pytest.param(running("a:1", "b:1", "absent:1"), 19, id="three-containers-one-image-absent"),
    # The same image in two containers counts twice: 1200 MiB of 2000 -> 100 * 1177 // 1977 = 59.
    pytest.param(running("c:1", "c:1"), 59, id="image-shared-by-two-containers-counts-twice"),
    # Init container 1000 MiB + container 500 MiB of 2000 -> 100 * 1477 // 1977 = 74.
    pytest.param(make_pod("p").init_container("big:1").container(image="d:1").obj(), 74,
                 id="init-container-image-counts"),
    # Absent init image still raises the maximum: 1000 MiB of 2000 -> 100 * 977 // 1977 = 49.
    pytest.param(make_pod("p").init_container("absent:1").container(image="big:1").obj(), 49,
                 id="init-container-raises-the-maximum"),
    pytest.param(make_pod("p").init_container("big:1", sidecar=True).container(image="d:1").obj(), 74,
                 id="sidecar-image-counts"),
]


@pytest.mark.parametrize(("pod", "expected"), CONTAINER_CASES)
def test_every_init_and_regular_container_counts(pod: Pod, expected: int) -> None:
    """Each init and regular container adds its image and 1000 MiB to the maximum."""
    node = (make_node("n1").image(300 * MB, "a:1").image(300 * MB, "b:1").image(600 * MB, "c:1")
            .image(500 * MB, "d:1").image(1000 * MB, "big:1").obj())
    assert scores(pod, node) == [expected]


def test_score_only_without_normalize() -> None:
    """Score is the only extension point; scores are already in [0, 100], so there is no NormalizeScore."""
    assert [p.name for p in extension_points(ImageLocality)] == ["Score"]
    assert "normalize_score" not in marked_hooks(ImageLocality)

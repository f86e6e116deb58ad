"""kube-scheduler v1.32's ImageLocality tables (pkg/scheduler/framework/plugins/imagelocality/
image_locality_test.go: TestImageLocalityPriority, TestNormalizedImageName), case by case with kube's names and
expected values, written with the public testing kit only.

TestNormalizedImageName checks a private helper's output; each of its rows is expressed through Score instead: the
node holds a large image under the normalized name, so the pod's container image scores 100 there exactly when it
normalizes to that name.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from kubesched.testing import PATHS, make_node, make_pod, plugin_framework

NAME = "ImageLocality"
MB = 1024 * 1024


def pod_with(*images: str, init: tuple[str, ...] = ()) -> Any:
    """A pod whose containers (and init containers) run these images."""
    pod = make_pod("p")
    for image in images:
        pod.container(image=image)
    for image in init:
        pod.init_container(image)
    return pod


def node_with(name: str, *images: tuple[int, tuple[str, ...]]) -> Any:
    """A node holding images given as (size in MB, names)."""
    node = make_node(name)
    for size, names in images:
        node.image(size * MB, *names)
    return node


N403002000 = ((40, ("gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1")), (300, ("gcr.io/300:latest", "gcr.io/300:v1")),
              (2000, ("gcr.io/2000:latest",)))
N25010 = ((250, ("gcr.io/250:latest",)), (10, ("gcr.io/10:latest", "gcr.io/10:v1")))
N60040900 = ((600, ("gcr.io/600:latest",)), (40, ("gcr.io/40:latest",)), (900, ("gcr.io/900:latest",)))
N300600900 = ((300, ("gcr.io/300:latest",)), (600, ("gcr.io/600:latest",)), (900, ("gcr.io/900:latest",)))
N400030 = ((4000, ("gcr.io/4000:latest",)), (30, ("gcr.io/30:latest",)))
N203040 = ((20, ("gcr.io/20:latest",)), (30, ("gcr.io/30:latest",)), (40, ("gcr.io/40:latest",)))
MIN_MAX = pod_with("gcr.io/10", "gcr.io/4000")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "nodes", "want"), [
    pytest.param(pod_with("gcr.io/40", "gcr.io/250"), [node_with("node1", *N403002000), node_with("node2", *N25010)],
                 {"node1": 0, "node2": 5}, id="two images spread on two nodes, prefer the larger image one"),
    pytest.param(pod_with("gcr.io/40", "gcr.io/300"), [node_with("node1", *N403002000), node_with("node2", *N25010)],
                 {"node1": 7, "node2": 0}, id="two images on one node, prefer this node"),
    pytest.param(MIN_MAX, [node_with("node1", *N400030), node_with("node2", *N25010)], {"node1": 100, "node2": 0},
                 id="if exceed limit, use limit"),
    pytest.param(MIN_MAX, [node_with("node1", *N400030), node_with("node2", *N25010), node_with("node3")],
                 {"node1": 66, "node2": 0, "node3": 0},
                 id="if exceed limit, use limit (with node which has no images present)"),
    pytest.param(pod_with("gcr.io/300", "gcr.io/600", "gcr.io/900"),
                 [node_with("node1", *N60040900), node_with("node2", *N300600900), node_with("node3")],
                 {"node1": 32, "node2": 36, "node3": 0}, id="pod with multiple large images, node2 is preferred"),
    pytest.param(pod_with("gcr.io/30", "gcr.io/40"), [node_with("node1", *N203040), node_with("node2", *N400030)],
                 {"node1": 1, "node2": 0}, id="pod with multiple small images"),
    pytest.param(pod_with("gcr.io/30", init=("gcr.io/300",)),
                 [node_with("node1", *N403002000), node_with("node2", *N203040)], {"node1": 6, "node2": 0},
                 id="include InitContainers: two images spread on two nodes, prefer the larger image one"),
])
def test_score(path: Any, pod: Any, nodes: list[Any], want: dict[str, int]) -> None:
    """Score gives every node kube's score for the images it already holds, the same on both paths."""
    assert plugin_framework(NAME, path=path, nodes=nodes).run_score(pod) == want


ROOT_DIGEST = "root@sha256:" + hashlib.sha256(b"root").hexdigest()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("image", "normalized"), [
    pytest.param("root", "root:latest", id="add :latest postfix 1"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
    pytest.param("root:tag", "root:tag", id="keep it as is 1"),
    pytest.param(ROOT_DIGEST, ROOT_DIGEST, id="keep it as is 2"),
])
def test_normalized_image_name(path: Any, image: str, normalized: str) -> None:
    """A container image finds the node's image under its normalized name (":latest" added when it has no tag or
    digest): the node holding it scores 100, the other 0."""
    nodes = [node_with("holder", (2000, (normalized,))), node_with("other")]
    assert plugin_framework(NAME, path=path, nodes=nodes).run_score(pod_with(image)) == {"holder": 100, "other": 0}

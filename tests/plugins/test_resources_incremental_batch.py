"""The resource plugins' batch forms stay equal to their per-node answers while the scheduler cache changes the
snapshot incrementally: pods bound, assumed, forgotten and removed, nodes replaced (allocatable, images)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import ContainerImage, Node
from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._node_info import PodInfo
from kubesched.plugins.image_locality import ImageLocality
from kubesched.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.runtime import Cache, NodeSnapshot
from kubesched.testing import plugin_framework, plugin_instance
from tests.plugins.resources_batch import FOO, GPU, filter_codes, nodes, pods, score_values

IMAGES = ("a:1", "b:1")
FIT_ARGS: dict[str, Any] = {"scoring-strategy": {"type": "MostAllocated", "resources": [
    {"name": "cpu"}, {"name": "memory", "weight": 2}, {"name": FOO, "weight": 3}, {"name": GPU}]}}


@st.composite
def imaged_node(draw: st.DrawFn, name: str) -> Node:
    """A random node of :func:`tests.plugins.resources_batch.nodes` holding some of :data:`IMAGES`."""
    node = draw(nodes(name))
    images = tuple(ContainerImage((image,), draw(st.sampled_from([100, 400, 900])) * 2**20)
                   for image in draw(st.lists(st.sampled_from(IMAGES), unique=True)))
    return attrs.evolve(node, status=attrs.evolve(node.status, images=images))


def check(snapshot: NodeSnapshot, pod: Pod) -> None:
    """Every batch form over the whole snapshot equals its per-node answers for ``pod``."""
    batch = NodeBatch.of(snapshot.node_info_list, snapshot.columns)
    fit = plugin_instance(NodeResourcesFit, FIT_ARGS)
    per_node, batch_codes = filter_codes(fit, pod, batch)
    assert batch_codes == per_node
    for plugin in (fit, plugin_instance(NodeResourcesBalancedAllocation, {})):
        per_node, batch_scores = score_values(plugin, pod, batch)
        assert batch_scores == per_node
    framework = plugin_framework(ImageLocality)
    framework.handle.snapshot_ref = snapshot
    images = next(p for p in framework.plugins.values() if isinstance(p, ImageLocality))
    per_node, batch_scores = score_values(images, pod, batch)
    assert batch_scores == per_node


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_batch_forms_follow_cache_updates(data: st.DataObject) -> None:
    """After every cache change and snapshot update, the batch answers equal the per-node ones."""
    cache = Cache()
    names = [f"n{i}" for i in range(data.draw(st.integers(1, 5)))]
    for name in names:
        cache.add_node(data.draw(imaged_node(name)))
    snapshot = NodeSnapshot()
    placed: list[tuple[Pod, bool]] = []
    for step in range(data.draw(st.integers(1, 12))):
        action = data.draw(st.sampled_from(["bind", "assume", "remove", "forget", "replace-node"]))
        if action in ("bind", "assume"):
            pod = data.draw(pods(f"q{step}"))
            pod = attrs.evolve(pod, spec=attrs.evolve(pod.spec, node_name=data.draw(st.sampled_from(names))))
            if action == "bind":
                cache.add_pod(pod)
            else:
                cache.assume_pod(PodInfo.of(pod))
            placed.append((pod, action == "assume"))
        elif action in ("remove", "forget") and placed:
            pod, assumed = placed.pop(data.draw(st.integers(0, len(placed) - 1)))
            if assumed:
                cache.forget_pod(pod)
            else:
                cache.remove_pod(pod)
        elif action == "replace-node":
            cache.update_node(data.draw(imaged_node(data.draw(st.sampled_from(names)))))
        cache.update_snapshot(snapshot)
        pod = data.draw(pods("p", snapshot.node_info_list))
        pod = attrs.evolve(pod, spec=attrs.evolve(pod.spec, containers=tuple(
            attrs.evolve(c, image=data.draw(st.sampled_from(IMAGES))) for c in pod.spec.containers)))
        check(snapshot, pod)

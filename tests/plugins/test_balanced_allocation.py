"""NodeResourcesBalancedAllocation: 100 * (1 - std of requested/allocatable fractions), real requests only."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._args import ArgsError, structure
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.plugins.noderesources.balanced_allocation import (
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
)
from kubesched.plugins.noderesources.resource_allocation import ResourceSpec
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import node_info, raw_scores

GPU = "nvidia.com/gpu"
WITH_GPU = [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]


def balanced(args: dict[str, Any] | None = None) -> NodeResourcesBalancedAllocation:
    """The plugin built from kebab-case args."""
    return plugin_instance(NodeResourcesBalancedAllocation, args or {})


def small_node(name: str = "n1", /, **capacity: str | int) -> Node:
    """A node with 1 cpu and 1000Mi memory unless overridden."""
    return make_node(name).capacity(**{"cpu": "1", "memory": "1000Mi", **capacity}).obj()


SCORE_CASES = [
    pytest.param([], make_pod("p").req(cpu="300m", memory="500Mi").obj(), [node_info(small_node())], [90],
                 id="two-resources-std-is-half-the-difference"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="500Mi").obj(), [node_info(small_node())], [100],
                 id="equal-fractions-score-100"),
    pytest.param([], make_pod("p").req(cpu="2", memory="500Mi").obj(), [node_info(small_node())], [75],
                 id="fraction-capped-at-1"),
    pytest.param([], make_pod("p").req(cpu="500m").obj(), [node_info(small_node())], [75],
                 id="unset-request-counts-0-not-default"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="500Mi").obj(),
                 [node_info(small_node(), *(make_pod(f"e{i}").obj() for i in range(3)))], [100],
                 id="existing-best-effort-pods-count-0"),
    pytest.param([], make_pod("p").req(cpu="300m").obj(),
                 [node_info(small_node(), make_pod("e").req(cpu="200m", memory="600Mi").obj())], [95],
                 id="existing-requests-added"),
    pytest.param([], make_pod("p").req(cpu="300m", memory="500Mi").obj(),
                 [node_info(small_node("n1")), node_info(small_node("n2", cpu="3", memory="1000Mi"))], [90, 80],
                 id="differently-sized-nodes"),
    pytest.param(WITH_GPU, make_pod("p").req(cpu="250m", memory="500Mi", **{GPU: 3}).obj(),
                 [node_info(small_node(**{GPU: 4}))], [79], id="three-resources-population-std"),
    pytest.param(WITH_GPU, make_pod("p").req(cpu="300m", memory="500Mi").obj(),
                 [node_info(small_node(**{GPU: 4}))], [90], id="unrequested-extended-resource-skipped"),
    pytest.param(WITH_GPU, make_pod("p").req(cpu="250m", memory="500Mi", **{GPU: 3}).obj(),
                 [node_info(small_node())], [87], id="resource-missing-on-node-skipped"),
    pytest.param([{"name": "cpu"}], make_pod("p").req(cpu="300m").obj(), [node_info(small_node())], [100],
                 id="single-resource-always-balanced"),
]


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), SCORE_CASES)
def test_score(resources: list[dict[str, Any]], pod: Pod, nodes: list[NodeInfo], expected: list[int]) -> None:
    """int((1 - std) * 100) over min(requested/allocatable, 1) of the resources the node has."""
    assert raw_scores(balanced({"resources": resources}), pod, nodes) == expected


BEST_EFFORT_CASES = [
    pytest.param(make_pod("p").obj(), id="no-requests"),
    pytest.param(make_pod("p").req(cpu="0", memory="0").obj(), id="explicit-zero-requests"),
    pytest.param(make_pod("p").req(**{GPU: 1}).obj(), id="only-unscored-resources"),
]


@pytest.mark.parametrize("pod", BEST_EFFORT_CASES)
def test_pre_score_does_not_skip_best_effort_pods(pod: Pod) -> None:
    """PreScore succeeds for a pod requesting none of the scored resources (v1.32; only v1.33+ skips it)."""
    assert balanced().pre_score(CycleState(), pod, [node_info(small_node())]) is None


BEST_EFFORT_SCORE_CASES = [
    pytest.param([node_info(small_node())], [100], id="empty-node-is-balanced"),
    pytest.param([node_info(make_node("n1").capacity(cpu="4", memory="16Gi").obj(),
                            make_pod("e").req(cpu="2500m").obj())], [68], id="existing-requests-alone-decide"),
    pytest.param([node_info(make_node("n2").capacity(cpu="4", memory="8Gi").obj(),
                            make_pod("e").req(cpu="2", memory="4Gi").obj())], [100], id="balanced-node-scores-100"),
]


@pytest.mark.parametrize(("nodes", "expected"), BEST_EFFORT_SCORE_CASES)
def test_best_effort_pod_is_scored_on_existing_requests(nodes: list[NodeInfo], expected: list[int]) -> None:
    """A pod without requests adds 0 (not the non-zero defaults) and the node's own balance is scored."""
    assert raw_scores(balanced(), make_pod("p").obj(), nodes) == expected


def test_score_without_pre_score_scores_best_effort_pod() -> None:
    """Score computes the requests itself when PreScore did not run, and still scores a best-effort pod."""
    info = node_info(make_node("n1").capacity(cpu="4", memory="16Gi").obj(), make_pod("e").req(cpu="2500m").obj())
    assert balanced().score(CycleState(), make_pod("p").obj(), info) == 68


def test_default_args_are_cpu_and_memory_weight_1() -> None:
    """Without args the plugin balances cpu and memory, each with weight 1."""
    assert structure(NodeResourcesBalancedAllocationArgs, {}).resources == (
        ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def test_weight_other_than_1_is_rejected() -> None:
    """Every resource weight must be 1: weight 2 is an error at resources[i].weight."""
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesBalancedAllocationArgs,
                  {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}]})
    assert info.value.key == "resources[1].weight"
    assert "must be 1" in info.value.message


def test_weight_zero_defaults_to_one() -> None:
    """kube's v1 defaulting turns an explicit weight of 0 into 1, so it passes the must-be-1 check."""
    args = structure(NodeResourcesBalancedAllocationArgs, {"resources": [{"name": "cpu", "weight": 0}]})
    assert args.resources == (ResourceSpec("cpu", 1),)


def test_duplicate_resource_is_rejected() -> None:
    """A resource listed twice is an error at the second entry's name."""
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesBalancedAllocationArgs, {"resources": [{"name": "cpu"}, {"name": "cpu"}]})
    assert info.value.key == "resources[1].name"

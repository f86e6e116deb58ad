"""NodeResourcesFit: Filter on free resources and pod slots; LeastAllocated, MostAllocated and
RequestedToCapacityRatio scoring; args defaulting and validation (kube-scheduler v1.30-v1.33 behaviour)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._args import ArgsError, structure
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code
from kubesched.plugins.noderesources.fit import NodeResourcesFit, NodeResourcesFitArgs
from kubesched.plugins.noderesources.resource_allocation import ResourceSpec
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, raw_scores, run_filter, verdict

GPU = "nvidia.com/gpu"
UNSCHEDULABLE = Code.UNSCHEDULABLE


def fit(args: dict[str, Any] | None = None) -> NodeResourcesFit:
    """The plugin built from kebab-case args as a profile would give them."""
    return plugin_instance(NodeResourcesFit, args or {})


def small_node(name: str = "n1", /, **capacity: str | int) -> Node:
    """A node with 1 cpu, 1000Mi memory and 110 pod slots unless overridden."""
    return make_node(name).capacity(**{"cpu": "1", "memory": "1000Mi", **capacity}).obj()


# -- Filter -----------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(make_pod("p").obj(), node_info(small_node(), make_pod("e").req(cpu="1", memory="1000Mi").obj()),
                 SUCCESS, id="pod-requesting-nothing-fits-a-full-node"),
    pytest.param(make_pod("p").req(cpu="500m", memory="500Mi").obj(),
                 node_info(small_node(), make_pod("e").req(cpu="500m", memory="500Mi").obj()),
                 SUCCESS, id="exact-fit"),
    pytest.param(make_pod("p").req(cpu="501m").obj(), node_info(small_node(), make_pod("e").req(cpu="500m").obj()),
                 (UNSCHEDULABLE, ("Insufficient cpu",)), id="cpu-short-by-1m"),
    pytest.param(make_pod("p").req(memory="600Mi").obj(),
                 node_info(small_node(), make_pod("e").req(memory="500Mi").obj()),
                 (UNSCHEDULABLE, ("Insufficient memory",)), id="memory-short"),
    pytest.param(make_pod("p").req(memory="2000Mi", cpu="2").obj(), node_info(small_node()),
                 (UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory")), id="cpu-reported-before-memory"),
    pytest.param(make_pod("p").req(ephemeral_storage="3Gi").obj(),
                 node_info(small_node(ephemeral_storage="10Gi"), make_pod("e").req(ephemeral_storage="8Gi").obj()),
                 (UNSCHEDULABLE, ("Insufficient ephemeral-storage",)), id="ephemeral-storage-short"),
    pytest.param(make_pod("p").req(**{GPU: 1}).obj(), node_info(small_node()),
                 (UNSCHEDULABLE, (f"Insufficient {GPU}",)), id="extended-resource-absent-from-node"),
    pytest.param(make_pod("p").req(**{GPU: 2}).obj(),
                 node_info(small_node(**{GPU: 2}), make_pod("e").req(**{GPU: 1}).obj()),
                 (UNSCHEDULABLE, (f"Insufficient {GPU}",)), id="extended-resource-used-by-existing-pod"),
    pytest.param(make_pod("p").req(**{"hugepages-2Mi": "4Mi"}).obj(), node_info(small_node()),
                 (UNSCHEDULABLE, ("Insufficient hugepages-2Mi",)), id="hugepages-short"),
    pytest.param(make_pod("p").req(**{"example.com/zeta": 1, "example.com/alpha": 1}).obj(), node_info(small_node()),
                 (UNSCHEDULABLE, ("Insufficient example.com/alpha", "Insufficient example.com/zeta")),
                 id="extended-resources-sorted-by-name"),
    pytest.param(make_pod("p").req(cpu="2", memory="2000Mi", ephemeral_storage="1Gi",
                                   **{"example.com/b": 1, "example.com/a": 1}).obj(),
                 node_info(small_node(pods=1), make_pod("e").obj()),
                 (UNSCHEDULABLE, ("Too many pods", "Insufficient cpu", "Insufficient memory",
                                  "Insufficient ephemeral-storage", "Insufficient example.com/a",
                                  "Insufficient example.com/b")),
                 id="all-reasons-in-kube-order"),
    pytest.param(make_pod("p").req(cpu="1", memory="1000Mi").obj(),
                 node_info(small_node(), *(make_pod(f"e{i}").obj() for i in range(5))),
                 SUCCESS, id="best-effort-pods-take-no-room-in-filter"),
    pytest.param(make_pod("p").req(cpu="100m", **{"example.com/foo": 0}).obj(), node_info(small_node()),
                 SUCCESS, id="zero-extended-request-not-checked"),
]


@pytest.mark.parametrize(("pod", "node", "expected"), FILTER_CASES)
def test_filter_reports_each_insufficient_resource_in_kube_order(
        pod: Pod, node: NodeInfo, expected: tuple[Code, tuple[str, ...]]) -> None:
    """Filter is Unschedulable with one reason per short resource: pods, cpu, memory, storage, then scalars by name."""
    assert verdict(run_filter(fit(), pod, node)) == expected


POD_COUNT_CASES = [
    pytest.param(make_pod("p").obj(), 2, SUCCESS, id="free-slot-left"),
    pytest.param(make_pod("p").obj(), 1, (UNSCHEDULABLE, ("Too many pods",)), id="requesting-nothing-only-pod-count"),
    pytest.param(make_pod("p").req(cpu="100m").obj(), 1, (UNSCHEDULABLE, ("Too many pods",)),
                 id="fitting-request-still-too-many-pods"),
]


@pytest.mark.parametrize(("pod", "slots", "expected"), POD_COUNT_CASES)
def test_filter_counts_pod_slots(pod: Pod, slots: int, expected: tuple[Code, tuple[str, ...]]) -> None:
    """A node with one pod already running accepts another only if allocatable pods allows two."""
    node = node_info(small_node(pods=slots), make_pod("e").obj())
    assert verdict(run_filter(fit(), pod, node)) == expected


EFFECTIVE_REQUEST_CASES = [
    pytest.param(make_pod("p").req(cpu="1").req(cpu="500m").obj(), 1500, id="containers-summed"),
    pytest.param(make_pod("p").req(cpu="1").init_req(cpu="3").obj(), 3000, id="larger-init-container-wins"),
    pytest.param(make_pod("p").req(cpu="2").init_req(cpu="1").obj(), 2000, id="smaller-init-container-ignored"),
    pytest.param(make_pod("p").req(cpu="1").init_req(sidecar=True, cpu="1").obj(), 2000,
                 id="sidecar-added-to-containers"),
    pytest.param(make_pod("p").req(cpu="1").init_req(sidecar=True, cpu="1").init_req(cpu="2").obj(), 3000,
                 id="init-container-runs-beside-earlier-sidecars"),
    pytest.param(make_pod("p").req(cpu="1").init_req(cpu="2").init_req(sidecar=True, cpu="1").obj(), 2000,
                 id="init-container-before-sidecar-runs-alone"),
    pytest.param(make_pod("p").req(cpu="1").overhead(cpu="250m").obj(), 1250, id="overhead-added"),
    pytest.param(make_pod("p").req(cpu="1").init_req(cpu="3").overhead(cpu="500m").obj(), 3500,
                 id="overhead-added-to-init-peak"),
]


@pytest.mark.parametrize(("pod", "milli_cpu"), EFFECTIVE_REQUEST_CASES)
def test_filter_uses_effective_request_with_init_containers_sidecars_and_overhead(pod: Pod, milli_cpu: int) -> None:
    """The pod fits a node with exactly its effective cpu request free, and not one with a millicore less."""
    fits = node_info(make_node("n").capacity(cpu=f"{milli_cpu}m").obj())
    short = node_info(make_node("n").capacity(cpu=f"{milli_cpu - 1}m").obj())
    assert verdict(run_filter(fit(), pod, fits)) == SUCCESS
    assert verdict(run_filter(fit(), pod, short)) == (UNSCHEDULABLE, ("Insufficient cpu",))


IGNORED_CASES = [
    pytest.param({"ignored-resources": ["example.com/foo"]}, {"example.com/foo": 1}, SUCCESS,
                 id="ignored-resource-skipped"),
    pytest.param({"ignored-resources": ["example.com/foo"]}, {"example.com/bar": 1},
                 (UNSCHEDULABLE, ("Insufficient example.com/bar",)), id="other-resource-still-checked"),
    pytest.param({"ignored-resource-groups": ["example.com"]}, {"example.com/foo": 1, "example.com/bar": 2}, SUCCESS,
                 id="ignored-group-skips-every-resource-in-it"),
    pytest.param({"ignored-resource-groups": ["example.com"]}, {"other.io/foo": 1},
                 (UNSCHEDULABLE, ("Insufficient other.io/foo",)), id="other-group-still-checked"),
    pytest.param({"ignored-resource-groups": ["example"]}, {"example.com/foo": 1},
                 (UNSCHEDULABLE, ("Insufficient example.com/foo",)), id="group-must-equal-the-whole-prefix"),
    pytest.param({"ignored-resources": ["hugepages-2Mi"]}, {"hugepages-2Mi": "2Mi"},
                 (UNSCHEDULABLE, ("Insufficient hugepages-2Mi",)), id="only-extended-resources-can-be-ignored"),
    pytest.param({"ignored-resources": ["cpu"]}, {"cpu": "2"},
                 (UNSCHEDULABLE, ("Insufficient cpu",)), id="cpu-cannot-be-ignored"),
]


@pytest.mark.parametrize(("args", "requests", "expected"), IGNORED_CASES)
def test_filter_skips_ignored_extended_resources_and_groups(
        args: dict[str, Any], requests: dict[str, str | int], expected: tuple[Code, tuple[str, ...]]) -> None:
    """ignored-resources and ignored-resource-groups exempt extended resources (only those) from Filter."""
    pod = make_pod("p").req(**requests).obj()
    assert verdict(run_filter(fit(args), pod, node_info(small_node()))) == expected


# -- Score ------------------------------------------------------------------------------------------

def gpu_node(name: str, gpus: int, *pods: Pod) -> NodeInfo:
    """A 1-cpu, 1000Mi node with ``gpus`` GPUs."""
    return node_info(small_node(name, **{GPU: gpus}), *pods)


CPU_MEM_GPU2 = [{"name": "cpu"}, {"name": "memory"}, {"name": GPU, "weight": 2}]

LEAST_ALLOCATED_CASES = [
    pytest.param([], make_pod("p").obj(), [node_info(small_node())], [85],
                 id="best-effort-pod-counts-100m-cpu-and-200Mi-memory"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="300Mi").obj(),
                 [node_info(small_node(), make_pod("e1").obj(), make_pod("e2").obj())], [30],
                 id="existing-best-effort-pods-count-defaults"),
    pytest.param([], make_pod("p").req(cpu="500m").obj(), [node_info(small_node())], [65],
                 id="unset-memory-defaults-to-200Mi"),
    pytest.param([], make_pod("p").req(cpu="0", memory="0").obj(), [node_info(small_node())], [100],
                 id="explicit-zero-request-stays-zero"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="500Mi").obj(),
                 [node_info(small_node("n1")), node_info(small_node("n2", cpu="2"))], [50, 62],
                 id="differently-sized-nodes"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="400Mi").obj(),
                 [node_info(small_node(), make_pod("e").req(cpu="800m", memory="100Mi").obj())], [25],
                 id="over-capacity-resource-scores-0"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}],
                 make_pod("p").req(cpu="250m", memory="500Mi").obj(), [node_info(small_node())], [56],
                 id="weighted-average"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi").obj(), [gpu_node("n1", 4)], [50],
                 id="unrequested-extended-resource-skipped"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi", **{GPU: 1}).obj(),
                 [gpu_node("n1", 4)], [62], id="requested-extended-resource-scored"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi", **{GPU: 1}).obj(),
                 [gpu_node("n1", 4, make_pod("e").req(cpu="0", memory="0", **{GPU: 2}).obj())], [37],
                 id="existing-extended-requests-counted"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi", **{GPU: 1}).obj(),
                 [node_info(small_node())], [50], id="resource-missing-on-node-skipped"),
    pytest.param([], make_pod("p").req(cpu="500m").obj(), [node_info(make_node("n1").obj())], [0],
                 id="node-without-allocatable-scores-0"),
]


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), LEAST_ALLOCATED_CASES)
def test_least_allocated_score(resources: list[dict[str, Any]], pod: Pod, nodes: list[NodeInfo],
                               expected: list[int]) -> None:
    """LeastAllocated: weighted average of (alloc - req) * 100 // alloc, with non-zero cpu/memory defaults."""
    plugin = fit({"scoring-strategy": {"type": "LeastAllocated", "resources": resources}})
    assert raw_scores(plugin, pod, nodes) == expected


MOST_ALLOCATED_CASES = [
    pytest.param([], make_pod("p").obj(), [node_info(small_node())], [15],
                 id="best-effort-pod-counts-100m-cpu-and-200Mi-memory"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="250Mi").obj(),
                 [node_info(small_node(), make_pod("e").req(cpu="250m", memory="250Mi").obj())], [62],
                 id="existing-and-incoming-requests-summed"),
    pytest.param([], make_pod("p").req(cpu="500m", memory="400Mi").obj(),
                 [node_info(small_node(), make_pod("e").req(cpu="800m", memory="100Mi").obj())], [75],
                 id="over-capacity-capped-at-100"),
    pytest.param([], make_pod("p").req(cpu="0", memory="0").obj(), [node_info(small_node())], [0],
                 id="explicit-zero-request-stays-zero"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}],
                 make_pod("p").req(cpu="250m", memory="500Mi").obj(), [node_info(small_node())], [43],
                 id="weighted-average"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi").obj(), [gpu_node("n1", 4)], [50],
                 id="unrequested-extended-resource-skipped"),
    pytest.param(CPU_MEM_GPU2, make_pod("p").req(cpu="500m", memory="500Mi", **{GPU: 1}).obj(),
                 [gpu_node("n1", 4)], [37], id="requested-extended-resource-scored"),
]


@pytest.mark.parametrize(("resources", "pod", "nodes", "expected"), MOST_ALLOCATED_CASES)
def test_most_allocated_score(resources: list[dict[str, Any]], pod: Pod, nodes: list[NodeInfo],
                              expected: list[int]) -> None:
    """MostAllocated: weighted average of min(req, alloc) * 100 // alloc, with non-zero cpu/memory defaults."""
    plugin = fit({"scoring-strategy": {"type": "MostAllocated", "resources": resources}})
    assert raw_scores(plugin, pod, nodes) == expected


def shape(*points: tuple[int, int]) -> dict[str, Any]:
    """A requested-to-capacity-ratio table from (utilization, score) points."""
    return {"shape": [{"utilization": u, "score": s} for u, s in points]}


BIN_PACKING = shape((0, 0), (100, 10))
CPU_ONLY = [{"name": "cpu"}]
FOO = "intel.com/foo"


def foo_node(name: str, foo: int, *pods: Pod) -> NodeInfo:
    """A node with 4 cpu, 10000Mi memory and ``foo`` units of intel.com/foo."""
    return node_info(make_node(name).capacity(cpu="4", memory="10000Mi", **{FOO: foo}).obj(), *pods)


RTCR_CASES = [
    pytest.param([], BIN_PACKING, make_pod("p").req(cpu="300m", memory="500Mi").obj(), [node_info(small_node())],
                 [40], id="score-follows-utilisation"),
    pytest.param([], BIN_PACKING, make_pod("p").req(cpu="300m", memory="450Mi").obj(), [node_info(small_node())],
                 [38], id="average-rounded-half-up"),
    pytest.param([], BIN_PACKING, make_pod("p").req(cpu="0", memory="500Mi").obj(), [node_info(small_node())],
                 [50], id="resources-scoring-0-left-out-of-average"),
    pytest.param([], BIN_PACKING, make_pod("p").obj(), [node_info(small_node())], [15],
                 id="best-effort-pod-counts-100m-cpu-and-200Mi-memory"),
    pytest.param([], shape((0, 10), (100, 0)), make_pod("p").req(cpu="2", memory="250Mi").obj(),
                 [node_info(small_node())], [75], id="over-capacity-is-full-utilisation"),
    pytest.param([], shape((0, 2), (40, 10), (100, 0)), make_pod("p").req(cpu="200m", memory="700Mi").obj(),
                 [node_info(small_node())], [55], id="three-point-shape-interpolated"),
    pytest.param(CPU_ONLY, shape((0, 10), (30, 0)), make_pod("p").req(cpu="100m").obj(), [node_info(small_node())],
                 [67], id="interpolation-truncates-toward-zero"),
    pytest.param(CPU_ONLY, BIN_PACKING, make_pod("p").req(cpu="299m").obj(), [node_info(small_node())],
                 [29], id="utilisation-truncated-to-integer"),
    pytest.param(CPU_ONLY, shape((50, 5), (100, 10)), make_pod("p").req(cpu="100m").obj(), [node_info(small_node())],
                 [50], id="flat-below-first-point"),
    pytest.param(CPU_ONLY, shape((0, 0), (50, 5)), make_pod("p").req(cpu="800m").obj(), [node_info(small_node())],
                 [50], id="flat-above-last-point"),
    pytest.param([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}], BIN_PACKING,
                 make_pod("p").req(cpu="300m", memory="500Mi").obj(), [node_info(small_node())], [45],
                 id="weighted-average"),
    pytest.param([{"name": FOO}], shape((0, 0), (100, 1)), make_pod("p").obj(), [foo_node("n1", 8), foo_node("n2", 4)],
                 [0, 0], id="extended-resource-not-requested-scores-0"),
    pytest.param([{"name": FOO}], shape((0, 0), (100, 1)), make_pod("p").req(**{FOO: 2}).obj(),
                 [foo_node("n1", 8), foo_node("n2", 4)], [2, 5], id="extended-resource-requested"),
    pytest.param([{"name": FOO}], shape((0, 0), (100, 1)), make_pod("p").req(**{FOO: 2}).obj(),
                 [foo_node("n1", 8), foo_node("n2", 4, make_pod("e").req(**{FOO: 2}).obj())], [2, 10],
                 id="extended-resource-existing-requests-counted"),
]


@pytest.mark.parametrize(("resources", "param", "pod", "nodes", "expected"), RTCR_CASES)
def test_requested_to_capacity_ratio_score(resources: list[dict[str, Any]], param: dict[str, Any], pod: Pod,
                                           nodes: list[NodeInfo], expected: list[int]) -> None:
    """RequestedToCapacityRatio: shape(util) x10 per resource, rounded weighted average over scores above 0."""
    plugin = fit({"scoring-strategy": {"type": "RequestedToCapacityRatio", "resources": resources,
                                       "requested-to-capacity-ratio": param}})
    assert raw_scores(plugin, pod, nodes) == expected


def test_default_scoring_is_least_allocated_on_cpu_and_memory() -> None:
    """Without args the plugin scores LeastAllocated over cpu and memory with weight 1."""
    pod = make_pod("p").req(cpu="250m", memory="500Mi").obj()
    nodes = [node_info(small_node())]
    assert raw_scores(plugin_instance(NodeResourcesFit), pod, nodes) == [62]


# -- Args -------------------------------------------------------------------------------------------

def test_default_args() -> None:
    """Empty args mean LeastAllocated over cpu and memory, weight 1, nothing ignored."""
    args = structure(NodeResourcesFitArgs, {})
    assert args.scoring_strategy.type == "LeastAllocated"
    assert args.scoring_strategy.resources == (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    assert args.ignored_resources == ()
    assert args.ignored_resource_groups == ()


def test_empty_resource_list_defaults_to_cpu_and_memory() -> None:
    """A scoring strategy that lists no resources scores cpu and memory with weight 1."""
    args = structure(NodeResourcesFitArgs, {"scoring-strategy": {"type": "MostAllocated", "resources": []}})
    assert args.scoring_strategy.resources == (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def test_resource_weight_zero_defaults_to_one() -> None:
    """kube's v1 defaulting turns an explicit weight of 0 into 1 before validation."""
    args = structure(NodeResourcesFitArgs, {"scoring-strategy": {"resources": [{"name": "cpu", "weight": 0}]}})
    assert args.scoring_strategy.resources == (ResourceSpec("cpu", 1),)


@pytest.mark.parametrize("weight", [101, -1])
def test_resource_weight_outside_0_100_is_rejected(weight: int) -> None:
    """A weight above 100 or below 0 is an ArgsError at the weight's key path."""
    data = {"scoring-strategy": {"resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": weight}]}}
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, data)
    assert info.value.key == "scoring-strategy.resources[1].weight"
    assert "not in valid range (0, 100]" in info.value.message


def test_resource_weight_error_names_the_resource() -> None:
    """As in kube's validateResources, the message names the resource: "resource weight of cpu not in ..."."""
    data = {"scoring-strategy": {"resources": [{"name": "cpu", "weight": 101}]}}
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, data)
    assert "resource weight of cpu not in valid range (0, 100]" in info.value.message


def test_requested_to_capacity_ratio_requires_a_shape() -> None:
    """Type RequestedToCapacityRatio without requested-to-capacity-ratio is an error at that key."""
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, {"scoring-strategy": {"type": "RequestedToCapacityRatio"}})
    assert info.value.key == "scoring-strategy.requested-to-capacity-ratio"


SHAPE_ERRORS = [
    pytest.param([], "shape", "at least one point must be specified", id="empty"),
    pytest.param([(50, 1), (40, 2)], "shape[1].utilization", "sorted in increasing order", id="decreasing"),
    pytest.param([(50, 1), (50, 2)], "shape[1].utilization", "sorted in increasing order", id="repeated"),
    pytest.param([(0, 11)], "shape[0].score", "not in valid range [0, 10]", id="score-above-10"),
    pytest.param([(0, -1)], "shape[0].score", "not in valid range [0, 10]", id="negative-score"),
    pytest.param([(101, 1)], "shape[0].utilization", "not in valid range [0, 100]", id="utilization-above-100"),
]


@pytest.mark.parametrize(("points", "key", "message"), SHAPE_ERRORS)
def test_invalid_shape_is_rejected(points: list[tuple[int, int]], key: str, message: str) -> None:
    """Shape points need strictly increasing utilization in [0, 100] and a score in [0, 10]."""
    data = {"scoring-strategy": {"type": "RequestedToCapacityRatio", "requested-to-capacity-ratio": shape(*points)}}
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, data)
    assert info.value.key == f"scoring-strategy.requested-to-capacity-ratio.{key}"
    assert message in info.value.message


def test_unknown_scoring_type_is_rejected() -> None:
    """A scoring type other than the three strategies is an error at scoring-strategy.type."""
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, {"scoring-strategy": {"type": "Balanced"}})
    assert info.value.key == "scoring-strategy.type"
    assert 'Unsupported value: "Balanced"' in info.value.message


def test_ignored_resource_group_with_slash_is_rejected() -> None:
    """A resource group is a domain: "example.com/foo" is rejected at its index."""
    with pytest.raises(ArgsError) as info:
        structure(NodeResourcesFitArgs, {"ignored-resource-groups": ["example.com", "example.com/foo"]})
    assert info.value.key == "ignored-resource-groups[1]"
    assert "resource group name can't contain '/'" in info.value.message

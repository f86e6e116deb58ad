"""kube-scheduler v1.32's node-resources scoring tables, translated with the public testing kit: TestFitScore
(fit_test.go), TestLeastAllocatedScoringStrategy (least_allocated_test.go), TestMostAllocatedScoringStrategy
(most_allocated_test.go), TestRequestedToCapacityRatioScoringStrategy, TestResourceBinPackingSingleExtended and
TestResourceBinPackingMultipleExtended (requested_to_capacity_ratio_test.go), and
TestNodeResourcesBalancedAllocation (balanced_allocation_test.go). The four strategy files are the stored v1.32
versions; TestFitScore comes from the closest stored fit_test.go (v1.33 development). A real v1.32 kube-scheduler
(-v=10 plugin scores) gave the same scores for the sidecar rows of TestFitScore, BalancedAllocation's best-effort
pod ("no resources requested, pods scheduled with resources": scored, not skipped as from v1.33) and MostAllocated's
"no resources requested, pods scheduled, nonzero request for resource"; it rejects weights -1 and 101 at
``scoringStrategy.resources[i].weight`` and defaults a weight of 0 to 1 and an empty list to cpu and memory.

Both plugins have no NormalizeScore and weight 1 here, so a node's total is kube's raw Score. kube's
``st.MakePod().Obj()`` has no container at all (``make_pod(...).no_containers()``): a container without requests
would add the non-zero defaults (100m cpu, 200Mi memory) to the strategies' sums. kube's ``"cpu": "4000"`` is
4000 cores, as there.

kube cases not expressed here, and why:
- TestLeastAllocatedScoringStrategy and TestMostAllocatedScoringStrategy "Resources not set, pods scheduled with
  error": kube builds the plugin from internal args with no resources, bypassing the v1 config defaults; args given
  as a profile gives them (the kit's mapping) default an empty list to cpu and memory, as kube-scheduler's v1
  config does, so there is no plugin without resources to score with.
- ... "resource with zero weight": for the same reason; the v1 config defaults a weight of 0 to 1, so a profile
  cannot carry the 0 that kube's internal-args validation rejects.
- TestBrokenLinearFunction: a private helper called with points outside 0..100 and unscaled shape scores; the
  plugin only ever calls it with utilisations clamped to 0..100 and shape scores times 10, so no plugin input
  reproduces its assertions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import pytest

from kubesched.api import Node, Pod
from kubesched.framework import ArgsError, CycleState
from kubesched.testing import PATHS, PluginFramework, make_node, make_pod, plugin_framework

#: The scheduler path a table runs on (the kit's PATHS).
Path = Literal["per-node", "batch"]
FIT = "NodeResourcesFit"
BALANCED = "NodeResourcesBalancedAllocation"
MAX = 100
EXTENDED_RES = "abc.com/xyz"
GPU = "nvidia.com/gpu"
FOO = "intel.com/foo"
BAR = "intel.com/bar"

Amounts = Mapping[str, str | int | float]


def weights(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    """A ``resources`` list of kube's ``config.ResourceSpec``."""
    return [{"name": name, "weight": weight} for name, weight in pairs]


DEFAULT_RESOURCES = weights(("cpu", 1), ("memory", 1))
EXTENDED_RESOURCE_SET = weights(("cpu", 1), ("memory", 1), (EXTENDED_RES, 1))
SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]


def strategy(kind: str, resources: list[dict[str, Any]], shape: list[dict[str, int]] | None = None
             ) -> dict[str, Any]:
    """NodeResourcesFit args with this scoring strategy."""
    scoring: dict[str, Any] = {"type": kind, "resources": resources}
    if shape is not None:
        scoring["requested-to-capacity-ratio"] = {"shape": shape}
    return {"scoring-strategy": scoring}


def pod(*containers: Amounts, sidecars: Sequence[Amounts] = (), name: str = "pod", node: str = "",
        labels: Mapping[str, str] | None = None) -> Pod:
    """``st.MakePod()`` with one ``Req`` container per request set (none: no container), ``SidecarReq``
    sidecars, bound to ``node`` when given."""
    builder = make_pod(name).no_containers()
    for requests in containers:
        builder.container(dict(requests))
    for requests in sidecars:
        builder.init_req(True, **requests)
    if node:
        builder.node(node)
    if labels:
        builder.labels(labels)
    return builder.obj()


def on(node: str, *pods: Pod) -> list[Pod]:
    """``pods`` bound to ``node`` (named apart)."""
    bound = []
    for i, unbound in enumerate(pods):
        builder = make_pod(f"{node}-{i}").no_containers().node(node).labels(unbound.metadata.labels)
        for container in unbound.spec.containers:
            builder.container({name: str(q) for name, q in container.requests.items()})
        for container in unbound.spec.init_containers:
            builder.init_req(container.restart_policy == "Always",
                             **{name: str(q) for name, q in container.requests.items()})
        bound.append(builder.obj())
    return bound


def cap_node(name: str, **capacity: str) -> Node:
    """``st.MakeNode().Name(name).Capacity({...})``."""
    return make_node(name).capacity(**capacity).obj()


def make_kube_node(name: str, milli_cpu: int, memory: int, scalar: Mapping[str, int] | None = None) -> Node:
    """The noderesources test helper ``makeNode(name, milliCPU, memory, extendedResources)``."""
    return make_node(name).capacity(cpu=f"{milli_cpu}m", memory=memory, **(scalar or {})).obj()


def scores(plugin: str, args: Mapping[str, Any], path: Path, nodes: Sequence[Node], existing: Sequence[Pod],
           incoming: Pod) -> dict[str, int]:
    """PreScore and Score of ``plugin`` on every node (its raw score: no NormalizeScore, weight 1)."""
    framework = plugin_framework((plugin, args), path=path, nodes=nodes, pods=existing)
    return framework.run_score(incoming)


def scores_without_pre_score(framework: PluginFramework, plugin: str, incoming: Pod) -> dict[str, int]:
    """Score alone (PreScore not run: an empty cycle state) on every node of the framework's snapshot."""
    score = framework.hook(plugin, "score")
    assert score is not None
    state = CycleState()
    return {info.name: score(state, incoming, info) for info in framework.handle.snapshot.list()}


# -- TestFitScore ----------------------------------------------------------------------------------------------------

FIT_NODES = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="6000", memory="10000")]
FIT_EXISTING = [pod({"cpu": "2000", "memory": "4000"}, name="e1", node="node1"),
                pod({"cpu": "1000", "memory": "2000"}, name="e2", node="node2")]
RTCR_CASE1 = strategy("RequestedToCapacityRatio", DEFAULT_RESOURCES, SHAPE)
RTCR_CASE2 = strategy("RequestedToCapacityRatio", DEFAULT_RESOURCES,
                      [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}])
SIDECAR_NODES = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="4000", memory="10000")]
SIDECAR_EXISTING = [pod({"cpu": "1000", "memory": "2000"}, sidecars=[{"cpu": "1000", "memory": "2000"}],
                        name="e1", node="node1"),
                    pod({"cpu": "1000", "memory": "2000"}, name="e2", node="node2")]

FIT_SCORE = [
    pytest.param(RTCR_CASE1, pod({"cpu": "3000", "memory": "5000"}), FIT_NODES, FIT_EXISTING,
                 {"node1": 10, "node2": 32}, id="test case for ScoringStrategy RequestedToCapacityRatio case1"),
    pytest.param(RTCR_CASE2, pod({"cpu": "3000", "memory": "5000"}), FIT_NODES, FIT_EXISTING,
                 {"node1": 95, "node2": 68}, id="test case for ScoringStrategy RequestedToCapacityRatio case2"),
    pytest.param(strategy("MostAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}), FIT_NODES,
                 FIT_EXISTING, {"node1": 67, "node2": 36}, id="test case for ScoringStrategy MostAllocated"),
    pytest.param(strategy("LeastAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}), FIT_NODES,
                 FIT_EXISTING, {"node1": 32, "node2": 63}, id="test case for ScoringStrategy LeastAllocated"),
    pytest.param(strategy("MostAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}),
                 SIDECAR_NODES, SIDECAR_EXISTING, {"node1": 67, "node2": 45},
                 id="test case for ScoringStrategy MostAllocated with sidecar container"),
    pytest.param(strategy("LeastAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}),
                 SIDECAR_NODES, SIDECAR_EXISTING, {"node1": 32, "node2": 55},
                 id="test case for ScoringStrategy LeastAllocated with sidecar container"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("args", "incoming", "nodes", "existing", "want"), FIT_SCORE)
def test_fit_score(path: Path, args: Mapping[str, Any], incoming: Pod, nodes: list[Node], existing: list[Pod],
                   want: dict[str, int]) -> None:
    """Each scoring strategy scores the node with the pod added, sidecars counted (kube's TestFitScore)."""
    assert scores(FIT, args, path, nodes, existing, incoming) == want


FIT_SCORE_WITHOUT_PRE_SCORE = [
    pytest.param(RTCR_CASE1, pod({"cpu": "3000", "memory": "5000"}), {"node1": 10, "node2": 32},
                 id="test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called"),
    pytest.param(strategy("MostAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}),
                 {"node1": 67, "node2": 36},
                 id="test case for ScoringStrategy MostAllocated if PreScore is not called"),
    pytest.param(strategy("LeastAllocated", DEFAULT_RESOURCES), pod({"cpu": "1000", "memory": "2000"}),
                 {"node1": 32, "node2": 63},
                 id="test case for ScoringStrategy LeastAllocated if PreScore is not called"),
]


@pytest.mark.parametrize(("args", "incoming", "want"), FIT_SCORE_WITHOUT_PRE_SCORE)
def test_fit_score_without_pre_score(args: Mapping[str, Any], incoming: Pod, want: dict[str, int]) -> None:
    """Score computes the pod's requests itself when PreScore did not run (kube's TestFitScore)."""
    framework = plugin_framework((FIT, args), nodes=FIT_NODES, pods=FIT_EXISTING)
    assert scores_without_pre_score(framework, FIT, incoming) == want


# -- TestLeastAllocatedScoringStrategy and TestMostAllocatedScoringStrategy ------------------------------------------

EQUAL_NODES = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="4000", memory="10000")]
SIZED_NODES = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="6000", memory="10000")]
BIG_NODES = [cap_node("node1", cpu="10000", memory="20000"), cap_node("node2", cpu="10000", memory="20000")]
EXTENDED_NODES = [cap_node("node1", cpu="6000", memory="10000"),
                  cap_node("node2", cpu="6000", memory="10000", **{EXTENDED_RES: "4"})]
TWO_CONTAINERS = pod({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
CPU_3000 = {"cpu": "3000", "memory": "0"}
CPU_3000_MEMORY_5000 = {"cpu": "3000", "memory": "5000"}
NO_CONTAINERS = pod()

LEAST_ALLOCATED = [
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, EQUAL_NODES, [], {"node1": MAX, "node2": MAX},
                 id="nothing scheduled, nothing requested"),
    pytest.param(DEFAULT_RESOURCES, TWO_CONTAINERS, SIZED_NODES, [], {"node1": 37, "node2": 50},
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, EQUAL_NODES,
                 [*on("node1", pod(), pod()), *on("node2", pod(), pod())],
                 {"node1": MAX, "node2": MAX}, id="no resources requested, pods scheduled"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, BIG_NODES,
                 [*on("node1", pod(CPU_3000), pod(CPU_3000)), *on("node2", pod(CPU_3000), pod(CPU_3000_MEMORY_5000))],
                 {"node1": 70, "node2": 57}, id="no resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, TWO_CONTAINERS, BIG_NODES,
                 [*on("node1", pod(CPU_3000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 57, "node2": 45}, id="resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, TWO_CONTAINERS,
                 [cap_node("node1", cpu="10000", memory="20000"), cap_node("node2", cpu="10000", memory="50000")],
                 [*on("node1", pod(CPU_3000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 57, "node2": 60},
                 id="resources requested, pods scheduled with resources, differently sized nodes"),
    pytest.param(DEFAULT_RESOURCES, pod(CPU_3000), EQUAL_NODES,
                 [*on("node1", pod(CPU_3000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 50, "node2": 25}, id="requested resources exceed node capacity"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, [make_node("node1").obj(), make_node("node2").obj()],
                 [*on("node1", pod(CPU_3000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 0, "node2": 0}, id="zero node resources, pods scheduled with resources"),
    pytest.param(weights(("memory", 2), ("cpu", 1)), TWO_CONTAINERS, SIZED_NODES, [], {"node1": 41, "node2": 50},
                 id="nothing scheduled, resources requested with different weight on CPU and memory, differently "
                    "sized nodes"),
    pytest.param(EXTENDED_RESOURCE_SET, TWO_CONTAINERS, EXTENDED_NODES, [], {"node1": 50, "node2": 50},
                 id="bypass extended resource if the pod does not request"),
    pytest.param(EXTENDED_RESOURCE_SET, pod({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}),
                 [cap_node("node1", cpu="6000", memory="10000", **{EXTENDED_RES: "4"}),
                  cap_node("node2", cpu="6000", memory="10000", **{EXTENDED_RES: "10"})],
                 [], {"node1": 50, "node2": 60}, id="honor extended resource if the pod requests"),
    pytest.param(weights((EXTENDED_RES, 2), ("cpu", 1), ("memory", 1)), pod({"cpu": "3000", "memory": "4000"}),
                 EXTENDED_NODES, [], {"node1": 55, "node2": 55}, id="if the node doesn't have a resource"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("resources", "incoming", "nodes", "existing", "want"), LEAST_ALLOCATED)
def test_least_allocated_scoring_strategy(path: Path, resources: list[dict[str, Any]], incoming: Pod,
                                          nodes: list[Node], existing: list[Pod], want: dict[str, int]) -> None:
    """LeastAllocated: the weighted share each resource leaves free (kube's TestLeastAllocatedScoringStrategy)."""
    assert scores(FIT, strategy("LeastAllocated", resources), path, nodes, existing, incoming) == want


MOST_ALLOCATED = [
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, EQUAL_NODES, [], {"node1": 0, "node2": 0},
                 id="nothing scheduled, nothing requested"),
    pytest.param(DEFAULT_RESOURCES, TWO_CONTAINERS, SIZED_NODES, [], {"node1": 62, "node2": 50},
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, BIG_NODES,
                 [*on("node1", pod(CPU_3000), pod(CPU_3000)), *on("node2", pod(CPU_3000), pod(CPU_3000_MEMORY_5000))],
                 {"node1": 30, "node2": 42}, id="no resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, TWO_CONTAINERS, BIG_NODES,
                 [*on("node1", pod(CPU_3000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 42, "node2": 55}, id="resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, pod({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
                 [cap_node("node1", cpu="5000", memory="10000"), cap_node("node2", cpu="10000", memory="9000")],
                 [], {"node1": 95, "node2": 75}, id="resources requested equal node capacity"),
    # kube repeats the name "nothing scheduled, resources requested, differently sized nodes" for this weighted case.
    pytest.param(weights(("memory", 2), ("cpu", 1)), TWO_CONTAINERS, SIZED_NODES, [], {"node1": 58, "node2": 50},
                 id="nothing scheduled, resources requested, differently sized nodes (memory weight 2)"),
    pytest.param(DEFAULT_RESOURCES, make_pod("pod").container(name="container").obj(),
                 [cap_node("node1", cpu="250m", memory="1000Mi"), cap_node("node2", cpu="250m", memory="1000Mi")],
                 on("node1", make_pod("p").container(name="container").obj(),
                    make_pod("p").container(name="container").obj()),
                 {"node1": 80, "node2": 30}, id="no resources requested, pods scheduled, nonzero request for resource"),
    pytest.param(EXTENDED_RESOURCE_SET, TWO_CONTAINERS, EXTENDED_NODES, [], {"node1": 50, "node2": 50},
                 id="bypass extended resource if the pod does not request"),
    pytest.param(EXTENDED_RESOURCE_SET, pod({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}),
                 [cap_node("node1", cpu="6000", memory="10000", **{EXTENDED_RES: "4"}),
                  cap_node("node2", cpu="6000", memory="10000", **{EXTENDED_RES: "10"})],
                 [], {"node1": 50, "node2": 40}, id="honor extended resource if the pod request"),
    pytest.param(weights((EXTENDED_RES, 2), ("cpu", 1), ("memory", 1)), pod({"cpu": "3000", "memory": "4000"}),
                 EXTENDED_NODES, [], {"node1": 45, "node2": 45}, id="if the node doesn't have a resource"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("resources", "incoming", "nodes", "existing", "want"), MOST_ALLOCATED)
def test_most_allocated_scoring_strategy(path: Path, resources: list[dict[str, Any]], incoming: Pod,
                                         nodes: list[Node], existing: list[Pod], want: dict[str, int]) -> None:
    """MostAllocated: the weighted share of each resource in use (kube's TestMostAllocatedScoringStrategy)."""
    assert scores(FIT, strategy("MostAllocated", resources), path, nodes, existing, incoming) == want


INVALID_WEIGHTS = [
    pytest.param("LeastAllocated", weights(("memory", -1), ("cpu", 1)), "scoring-strategy.resources[0].weight",
                 id="TestLeastAllocatedScoringStrategy/resource with negative weight"),
    pytest.param("LeastAllocated", weights(("memory", 1), ("cpu", 101)), "scoring-strategy.resources[1].weight",
                 id="TestLeastAllocatedScoringStrategy/resource weight larger than MaxNodeScore"),
    pytest.param("MostAllocated", weights(("memory", -1), ("cpu", 1)), "scoring-strategy.resources[0].weight",
                 id="TestMostAllocatedScoringStrategy/resource with negative weight"),
    pytest.param("MostAllocated", weights(("memory", 101)), "scoring-strategy.resources[0].weight",
                 id="TestMostAllocatedScoringStrategy/resource weight larger than MaxNodeScore"),
]


@pytest.mark.parametrize(("kind", "resources", "field"), INVALID_WEIGHTS)
def test_invalid_resource_weight(kind: str, resources: list[dict[str, Any]], field: str) -> None:
    """A resource weight outside (0, 100] is invalid at that field (kube: ``scoringStrategy.resources[i].weight``)."""
    with pytest.raises(ArgsError) as error:
        plugin_framework((FIT, strategy(kind, resources)), nodes=[cap_node("node1", cpu="4000", memory="10000")])
    assert error.value.key == field
    assert error.value.message.startswith("Invalid value:")


# -- TestRequestedToCapacityRatioScoringStrategy and the bin-packing tables ------------------------------------------

RTCR = [
    pytest.param(NO_CONTAINERS, EQUAL_NODES, on("node1", pod(), pod()), {"node1": MAX, "node2": MAX},
                 id="nothing scheduled, nothing requested (default - least requested nodes have priority)"),
    pytest.param(TWO_CONTAINERS, SIZED_NODES, on("node1", pod(), pod()), {"node1": 38, "node2": 50},
                 id="nothing scheduled, resources requested, differently sized nodes (default - least requested nodes "
                    "have priority)"),
    pytest.param(NO_CONTAINERS, SIZED_NODES,
                 [*on("node1", pod(CPU_3000_MEMORY_5000)), *on("node2", pod(CPU_3000_MEMORY_5000))],
                 {"node1": 38, "node2": 50},
                 id="no resources requested, pods scheduled with resources (default - least requested nodes have "
                    "priority)"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "nodes", "existing", "want"), RTCR)
def test_requested_to_capacity_ratio_scoring_strategy(path: Path, incoming: Pod, nodes: list[Node],
                                                      existing: list[Pod], want: dict[str, int]) -> None:
    """RequestedToCapacityRatio with the shape (0, 10), (100, 0) prefers emptier nodes (kube's
    TestRequestedToCapacityRatioScoringStrategy)."""
    args = strategy("RequestedToCapacityRatio", DEFAULT_RESOURCES, SHAPE)
    assert scores(FIT, args, path, nodes, existing, incoming) == want


GIB_10000 = 10000 * 1024 * 1024
FOO_NODES = [make_kube_node("node1", 4000, GIB_10000, {FOO: 8}), make_kube_node("node2", 4000, GIB_10000, {FOO: 4})]
BIN_PACKING_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]

SINGLE_EXTENDED = [
    pytest.param(NO_CONTAINERS, on("node1"), {"node1": 0, "node2": 0}, id="nothing scheduled, nothing requested"),
    pytest.param(pod({FOO: "2"}), on("node1", pod()), {"node1": 2, "node2": 5},
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(pod({FOO: "2"}), on("node2", pod({FOO: "2"})), {"node1": 2, "node2": 10},
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    pytest.param(pod({FOO: "4"}), on("node1", pod()), {"node1": 5, "node2": 10},
                 id="resources requested, pods scheduled with more resources"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "existing", "want"), SINGLE_EXTENDED)
def test_resource_bin_packing_single_extended(path: Path, incoming: Pod, existing: list[Pod],
                                              want: dict[str, int]) -> None:
    """RequestedToCapacityRatio over one extended resource packs nodes (kube's
    TestResourceBinPackingSingleExtended)."""
    args = strategy("RequestedToCapacityRatio", weights((FOO, 1)), BIN_PACKING_SHAPE)
    assert scores(FIT, args, path, FOO_NODES, existing, incoming) == want


FOO_BAR_NODES = [make_kube_node("node1", 4000, GIB_10000, {FOO: 8, BAR: 4}),
                 make_kube_node("node2", 4000, GIB_10000, {FOO: 4, BAR: 8})]

MULTIPLE_EXTENDED = [
    pytest.param(NO_CONTAINERS, [], {"node1": 0, "node2": 0}, id="nothing scheduled, nothing requested"),
    pytest.param(pod({FOO: "2", BAR: "2"}), on("node1", pod()), {"node1": 4, "node2": 3},
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(pod({FOO: "2", BAR: "2"}), on("node2", pod({FOO: "4", BAR: "2"})), {"node1": 4, "node2": 7},
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    pytest.param(pod({FOO: "4", BAR: "2"}), on("node1", pod()), {"node1": 5, "node2": 5},
                 id="resources requested, pods scheduled with more resources"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("incoming", "existing", "want"), MULTIPLE_EXTENDED)
def test_resource_bin_packing_multiple_extended(path: Path, incoming: Pod, existing: list[Pod],
                                                want: dict[str, int]) -> None:
    """RequestedToCapacityRatio over two weighted extended resources (kube's
    TestResourceBinPackingMultipleExtended)."""
    args = strategy("RequestedToCapacityRatio", weights((FOO, 3), (BAR, 5)), BIN_PACKING_SHAPE)
    assert scores(FIT, args, path, FOO_BAR_NODES, existing, incoming) == want


# -- TestNodeResourcesBalancedAllocation -----------------------------------------------------------------------------

CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_AND_MEMORY_AND_GPU = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"})
LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}
CPU_MEMORY_GPU = weights(("cpu", 1), ("memory", 1), (GPU, 1))

BALANCED_ALLOCATION = [
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS,
                 [make_kube_node("node1", 4000, 10000), make_kube_node("node2", 4000, 10000)], [],
                 {"node1": MAX, "node2": MAX}, id="nothing scheduled, nothing requested"),
    pytest.param(DEFAULT_RESOURCES, pod(*CPU_AND_MEMORY),
                 [make_kube_node("node1", 4000, 10000), make_kube_node("node2", 6000, 10000)], [],
                 {"node1": 87, "node2": MAX}, id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS,
                 [make_kube_node("node1", 4000, 10000), make_kube_node("node2", 4000, 10000)],
                 [*on("node1", pod(labels=LABELS2), pod(labels=LABELS1)),
                  *on("node2", pod(labels=LABELS1), pod(labels=LABELS1))],
                 {"node1": MAX, "node2": MAX}, id="no resources requested, pods without container scheduled"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS,
                 [make_kube_node("node1", 250, 1000 * 1024 * 1024), make_kube_node("node2", 250, 1000 * 1024 * 1024)],
                 on("node1", pod(), pod()), {"node1": 100, "node2": 100},
                 id="no resources requested, pods with container scheduled"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS,
                 [make_kube_node("node1", 10000, 20000), make_kube_node("node2", 10000, 20000)],
                 [*on("node1", pod(*CPU_ONLY, labels=LABELS2), pod(*CPU_ONLY, labels=LABELS1)),
                  *on("node2", pod(*CPU_ONLY, labels=LABELS1), pod(*CPU_AND_MEMORY, labels=LABELS1))],
                 {"node1": 70, "node2": 82}, id="no resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, pod(*CPU_AND_MEMORY),
                 [make_kube_node("node1", 10000, 20000), make_kube_node("node2", 10000, 20000)],
                 [*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_AND_MEMORY))],
                 {"node1": 82, "node2": 95}, id="resources requested, pods scheduled with resources"),
    pytest.param(DEFAULT_RESOURCES, pod(*CPU_AND_MEMORY),
                 [make_kube_node("node1", 10000, 20000), make_kube_node("node2", 10000, 50000)],
                 [*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_AND_MEMORY))],
                 {"node1": 82, "node2": 80},
                 id="resources requested, pods scheduled with resources, differently sized nodes"),
    pytest.param(DEFAULT_RESOURCES, pod(*CPU_ONLY),
                 [make_kube_node("node1", 6000, 10000), make_kube_node("node2", 6000, 10000)],
                 [*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_AND_MEMORY))],
                 {"node1": 50, "node2": 75}, id="requested resources at node capacity"),
    pytest.param(DEFAULT_RESOURCES, NO_CONTAINERS, [make_kube_node("node1", 0, 0), make_kube_node("node2", 0, 0)],
                 [*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_AND_MEMORY))],
                 {"node1": 100, "node2": 100}, id="zero node resources, pods scheduled with resources"),
    pytest.param(CPU_MEMORY_GPU, pod({"memory": "0", GPU: "1"}),
                 [make_kube_node("node1", 3500, 40000, {GPU: 8}), make_kube_node("node2", 3500, 40000, {GPU: 8})],
                 [*on("node2", pod(*CPU_AND_MEMORY)), *on("node1", pod(*CPU_AND_MEMORY_AND_GPU))],
                 {"node1": 70, "node2": 65}, id="include scalar resource on a node for balanced resource allocation"),
    pytest.param(weights(("cpu", 1), (GPU, 1)), NO_CONTAINERS,
                 [make_kube_node("node1", 3500, 40000, {GPU: 8}), make_kube_node("node2", 3500, 40000)],
                 [*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_ONLY))],
                 {"node1": 100, "node2": 100}, id="node without the scalar resource results to a higher score"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("resources", "incoming", "nodes", "existing", "want"), BALANCED_ALLOCATION)
def test_node_resources_balanced_allocation(path: Path, resources: list[dict[str, Any]], incoming: Pod,
                                            nodes: list[Node], existing: list[Pod], want: dict[str, int]) -> None:
    """BalancedAllocation: 100 * (1 - the spread of the requested fractions), real requests, best-effort pods
    scored too as in v1.32 (kube's TestNodeResourcesBalancedAllocation)."""
    assert scores(BALANCED, {"resources": resources}, path, nodes, existing, incoming) == want


def test_node_resources_balanced_allocation_without_pre_score() -> None:
    """Score computes the pod's requests itself when PreScore did not run (kube's "resources requested, pods
    scheduled with resources if PreScore not called")."""
    framework = plugin_framework((BALANCED, {"resources": DEFAULT_RESOURCES}),
                                 nodes=[make_kube_node("node1", 10000, 20000), make_kube_node("node2", 10000, 20000)],
                                 pods=[*on("node1", pod(*CPU_ONLY)), *on("node2", pod(*CPU_AND_MEMORY))])
    assert scores_without_pre_score(framework, BALANCED, pod(*CPU_AND_MEMORY)) == {"node1": 82, "node2": 95}

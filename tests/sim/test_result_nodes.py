"""Specification of the result's per-node summary (the ``nodes`` key and the Nodes table): every resource a node
carries, its allocatable and the real sum of its pods' requests, as canonical quantities."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.resources import resource_order
from kubesched.api.storage import StorageObject
from kubesched.cli.render import console, print_nodes
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.node_usage import NodeUsage, quantity_text
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_csi_node, make_node, make_pod, make_pv, make_pvc

GPU = "nvidia.com/gpu"


def run(nodes: list[Node], pods: list[Pod], registry: PluginRegistry) -> SimulationResult:
    return simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), load_config("default", registry), registry)


def nodes_json(result: SimulationResult) -> Any:
    """The result's ``nodes`` key, as ``-o json`` prints it."""
    return json.loads(json.dumps(result.to_json()))["nodes"]


@pytest.mark.parametrize(("resource", "value", "text"), [
    pytest.param("cpu", 1500, "1500m", id="cpu-millicores"),
    pytest.param("cpu", 4000, "4", id="cpu-whole-cores"),
    pytest.param("cpu", 0, "0", id="cpu-none"),
    pytest.param("memory", 8 * 2**30, "8Gi", id="memory-binary"),
    pytest.param("memory", 5376 * 2**20, "5376Mi", id="memory-not-whole-gibibytes"),
    pytest.param("memory", 1500, "1500", id="memory-not-a-binary-multiple"),
    pytest.param("memory", 1000, "1k", id="memory-below-1024-is-decimal"),
    pytest.param("ephemeral-storage", 20 * 2**30, "20Gi", id="ephemeral-storage-binary"),
    pytest.param("hugepages-2Mi", 512 * 2**20, "512Mi", id="hugepages-binary"),
    pytest.param("pods", 110, "110", id="pods-count"),
    pytest.param(GPU, 2, "2", id="extended-count"),
    pytest.param(GPU, 2000, "2k", id="extended-decimal-suffix"),
])
def test_amounts_are_canonical_quantities_in_the_kubelets_notation(resource: str, value: int, text: str) -> None:
    """cpu in DecimalSI from millicores, bytes in BinarySI, counts in DecimalSI, as resource.Quantity prints."""
    assert quantity_text(resource, value) == text


def test_resources_are_ordered_cpu_memory_storage_pods_then_by_name() -> None:
    """The fixed four first, in their order, then every other resource sorted."""
    names = [GPU, "pods", "example.com/foo", "memory", "hugepages-2Mi", "ephemeral-storage", "cpu"]
    assert resource_order(names) == ["cpu", "memory", "ephemeral-storage", "pods", "example.com/foo",
                                     "hugepages-2Mi", GPU]


def test_nodes_key_lists_every_resource_each_node_carries_by_node_name(registry: PluginRegistry) -> None:
    """Each node's allocatable keys, extended resources and ephemeral-storage too, nodes sorted by name."""
    nodes = [make_node("worker").capacity(cpu="4", memory="8Gi", ephemeral_storage="100Gi").obj(),
             make_node("gpu").capacity(cpu="8", memory="32Gi", **{GPU: 4}).obj()]
    pod = make_pod("train").container({"cpu": "1500m", "memory": "2Gi", GPU: "1"}, limits={GPU: "1"}).obj()
    assert nodes_json(run(nodes, [pod], registry)) == [
        {"name": "gpu",
         "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", GPU: "4"},
         "requested": {"cpu": "1500m", "memory": "2Gi", "pods": "1", GPU: "1"}},
        {"name": "worker",
         "allocatable": {"cpu": "4", "memory": "8Gi", "ephemeral-storage": "100Gi", "pods": "110"},
         "requested": {"cpu": "0", "memory": "0", "ephemeral-storage": "0", "pods": "0"}},
    ]


def test_requested_is_the_real_sum_without_the_scorers_defaults(registry: PluginRegistry) -> None:
    """A container without requests adds nothing (not the 100m / 200Mi scoring assumes); the pod overhead counts,
    as in NodeInfo.Requested."""
    node = make_node("n1").capacity(cpu="4", memory="8Gi").obj()
    bare = make_pod("bare").container().obj()
    busy = make_pod("busy").req(cpu="500m").overhead(cpu="250m").obj()
    (usage,) = nodes_json(run([node], [bare, busy], registry))
    assert usage == {"name": "n1", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                     "requested": {"cpu": "750m", "memory": "0", "pods": "2"}}


def test_a_resource_the_node_lacks_is_requested_only(registry: PluginRegistry) -> None:
    """A pod bound by spec.nodeName to a node without GPUs: its GPU request shows, with no allocatable."""
    node = make_node("n1").capacity(cpu="4", memory="8Gi").obj()
    pod = make_pod("placed").container({"cpu": "1", GPU: "1"}, limits={GPU: "1"}).node("n1").obj()
    (usage,) = nodes_json(run([node], [pod], registry))
    assert usage == {"name": "n1", "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                     "requested": {"cpu": "1", "memory": "0", "pods": "1", GPU: "1"}}


def table(*usages: NodeUsage) -> str:
    out = io.StringIO()
    print_nodes(SimulationResult(seed=0, pods=(), preemptions=(), events=(), nodes=usages), console(out))
    return out.getvalue()


def test_nodes_table_has_a_column_per_resource_any_node_carries() -> None:
    """cpu, memory, pods, then nvidia.com/gpu; a node without GPUs shows "-" there; cells read
    requested/allocatable (percent)."""
    gpu = NodeUsage("gpu-1", {"cpu": 8000, "memory": 32 * 2**30, "pods": 110, GPU: 4},
                    {"cpu": 4000, "memory": 16 * 2**30, "pods": 1, GPU: 3})
    cpu = NodeUsage("cpu-1", {"cpu": 4000, "memory": 8 * 2**30, "pods": 110},
                    {"cpu": 1500, "memory": 2**29, "pods": 2})
    assert table(cpu, gpu).splitlines()[1:] == [
        "┏━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┓",
        "┃ NODE  ┃ CPU         ┃ MEMORY          ┃ PODS       ┃ NVIDIA.COM/GPU ┃",
        "┡━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━┩",
        "│ cpu-1 │ 1.5/4 (37%) │ 512Mi/8Gi (6%)  │ 2/110 (1%) │ -              │",
        "│ gpu-1 │ 4/8 (50%)   │ 16Gi/32Gi (50%) │ 1/110 (0%) │ 3/4 (75%)      │",
        "└───────┴─────────────┴─────────────────┴────────────┴────────────────┘",
    ]


def test_nodes_table_shows_ephemeral_storage_only_when_a_node_carries_it() -> None:
    """Without ephemeral-storage on any node there is no column; with it on one, the others show "-"."""
    plain = NodeUsage("a", {"cpu": 1000}, {"cpu": 0})
    storage = NodeUsage("b", {"cpu": 1000, "ephemeral-storage": 10 * 2**30}, {"cpu": 0, "ephemeral-storage": 2**30})
    assert "EPHEMERAL-STORAGE" not in table(plain)
    rows = table(plain, storage).splitlines()
    assert rows[2] == "┃ NODE ┃ CPU      ┃ EPHEMERAL-STORAGE ┃"
    assert rows[4:6] == ["│ a    │ 0/1 (0%) │ -                 │", "│ b    │ 0/1 (0%) │ 1Gi/10Gi (10%)    │"]


def test_usage_keeps_the_fields_it_had() -> None:
    """pods, max_pods and the cpu and memory fields read the per-resource maps, for code written against them."""
    usage = NodeUsage("n1", {"cpu": 4000, "memory": 2**33, "pods": 110}, {"cpu": 1500, "memory": 2**30, "pods": 3})
    assert (usage.pods, usage.max_pods, usage.cpu_requested, usage.cpu_allocatable, usage.memory_requested,
            usage.memory_allocatable) == (3, 110, 1500, 4000, 2**30, 2**33)


def test_a_nodes_csi_attach_limit_and_its_attached_volumes_are_shown(registry: PluginRegistry) -> None:
    """With a CSINode, each driver's allocatable count and the unique volumes of it the node's pods attach appear as
    ``attachable-volumes-csi-<driver>`` (a volume two pods share counts once); a node without one shows none."""
    driver = "ebs.csi.aws.com"
    storage: tuple[StorageObject, ...] = (make_csi_node("n1").driver(driver, 25).obj(),
               *(make_pv(f"pv{i}").csi(driver).bound_to("default", f"c{i}").obj() for i in (1, 2)),
               *(make_pvc(f"c{i}").bound(f"pv{i}").obj() for i in (1, 2)))
    pods = (make_pod("a").node("n1").pvc("c1").obj(), make_pod("b").node("n1").pvc("c1").obj(),
            make_pod("c").node("n1").pvc("c2").obj())
    nodes = (make_node("n1").capacity(cpu="4", memory="8Gi").obj(), make_node("n2").capacity(cpu="4").obj())
    result = simulate(ClusterInput(nodes=nodes, pods=pods, storage=storage), load_config("default", registry),
                      registry)
    by_name = {n["name"]: n for n in nodes_json(result)}
    key = f"attachable-volumes-csi-{driver}"
    assert (by_name["n1"]["allocatable"][key], by_name["n1"]["requested"][key]) == ("25", "2")
    assert key not in by_name["n2"]["allocatable"]

"""The fast path decides exactly as the per-node path: random clusters scheduled twice, compared byte for byte.

Each example is a random cluster (taints, cordons, zone and tier labels, images, running pods with priorities,
memory, host ports and volumes, CSINodes with attach limits, PDBs, pods already nominated) and pending pods using
node selectors, node affinity (required, preferred and by name), pod anti-affinity, topology spreading, host ports,
images, volumes (a GCE PD, zonal claims, a ReadWriteOncePod claim, an unbound claim), priorities (so preemption
happens) and the test plugins of :mod:`tests.runtime.batch_plugins` (batch and per-node forms, one
per-node only, one placed between built-ins, one returning Pending). :class:`~kubesched.sim.simulate.Simulation`
runs it with ``SchedulerSettings(fast_path=True)`` and ``fast_path=False``: every pod's phase, node, nominated
node and message, the preemptions, the events and the plugin errors must be identical, and so must what each
attempt saw (per-node statuses, feasible nodes in try order, scores, the chosen host), which explain shows.
"""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.storage import StorageObject
from kubesched.api.volume import Volume
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.profiles.parse import parse_config
from kubesched.runtime import CycleRecord, PluginRegistry
from kubesched.sim.simulate import Simulation, SimulationResult
from kubesched.testing import make_csi_node, make_node, make_pod, make_pv, make_pvc, make_storage_class
from tests.framework.preemption_cluster import pdb
from tests.runtime.batch_plugins import PLUGINS, TIER, WARMING, profile_document

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
APPS = ("a", "b", "c")
ZONES = ("z1", "z2", "z3")
IMAGES = ("registry.example/web:1", "registry.example/db:2", "registry.example/ml:3")
MEMORY = ("0", "256Mi", "1Gi", "4Gi")
DRIVER = "csi.example.com"
DISKS = ("d1", "d2")
#: Words of the volume plugins' rejections (one of them in a message shows the generator reached them).
VOLUME_REASONS = ("available disk", "ReadWriteOncePod", "max volume count", "volume zone")


def storage(cluster_nodes: list[Node], counts: list[int | None]) -> tuple[StorageObject, ...]:
    """A claim bound to a volume in each zone (``claim-<zone>``), a ReadWriteOncePod claim ``solo``, a claim
    ``later`` of a WaitForFirstConsumer class, and a CSINode per node with a count (None: no CSINode)."""
    objects: list[StorageObject] = [make_storage_class("wffc", DRIVER).wait_for_first_consumer().obj(),
                                    make_pvc("later").storage_class("wffc").obj()]
    for name, mode, labels in [*((f"claim-{z}", "ReadWriteOnce", {ZONE: z}) for z in ZONES),
                               ("solo", "ReadWriteOncePod", {})]:
        objects += [make_pv(name).csi(DRIVER).access_modes(mode).labels(labels).bound_to("default", name).obj(),
                    make_pvc(name).access_modes(mode).bound(name).obj()]
    objects += [make_csi_node(node.name).driver(DRIVER, count).obj()
                for node, count in zip(cluster_nodes, counts, strict=True) if count is not None]
    return tuple(objects)


def disk(draw: st.DrawFn) -> Volume:
    """A GCE PD of :data:`DISKS`, mounted read-only or not."""
    return Volume(name="disk", source="gcePersistentDisk", handle=draw(st.sampled_from(DISKS)),
                  read_only=draw(st.booleans()))


@attrs.frozen
class Example:
    """A cluster input, whether its profile scores, and the seed of its runs."""

    cluster: ClusterInput
    scored: bool
    seed: int


@st.composite
def nodes(draw: st.DrawFn, max_nodes: int) -> list[Node]:
    """Two to ``max_nodes`` nodes with random capacity, zone, tier, warming label, taint and cordon."""
    result = []
    for i in range(draw(st.integers(2, max_nodes))):
        builder = (make_node(f"n{i}").capacity(cpu=f"{draw(st.sampled_from([2000, 3000, 4000]))}m", memory="16Gi",
                                               pods=draw(st.sampled_from([3, 110, 110])))
                   .labels({ZONE: draw(st.sampled_from(ZONES))}))
        tier = draw(st.sampled_from(["gold", "silver", "bronze", None]))
        if tier is not None:
            builder = builder.labels({TIER: tier})
        if draw(st.integers(0, 3)) == 0:
            builder = builder.labels({WARMING: "true"})
        if draw(st.integers(0, 4)) == 0:
            builder = builder.taint("dedicated", "infra")
        if draw(st.integers(0, 9)) == 0:
            builder = builder.unschedulable()
        for image in draw(st.sets(st.sampled_from(IMAGES), max_size=2)):
            builder = builder.image(draw(st.sampled_from([50, 400, 900])) * 1024 * 1024, image)
        result.append(builder.obj())
    return result


@st.composite
def running_pods(draw: st.DrawFn, cluster_nodes: list[Node]) -> list[Pod]:
    """Zero to three pods per node, within its CPU, with random priority, app and host port."""
    pods: list[Pod] = []
    for node in cluster_nodes:
        used = 0
        capacity = node.status.allocatable["cpu"].milli_value()
        for _ in range(draw(st.integers(0, 3))):
            cpu = draw(st.sampled_from([250, 500, 1000]))
            if used + cpu > capacity:
                break
            used += cpu
            builder = (make_pod(f"{node.name}-r{len(pods)}").node(node.name)
                       .req(cpu=f"{cpu}m", memory=draw(st.sampled_from(MEMORY)))
                       .priority(draw(st.sampled_from([0, 10, 20]))).label(app=draw(st.sampled_from(APPS))))
            if draw(st.integers(0, 5)) == 0:
                builder = builder.host_port(8080)
            volume = draw(st.sampled_from(["disk", "zonal", "solo", None, None, None]))
            if volume == "disk":
                builder = builder.volume(disk(draw))
            elif volume is not None:
                builder = builder.pvc("solo" if volume == "solo" else f"claim-{node.labels[ZONE]}")
            pods.append(builder.obj())
    return pods


@st.composite
def pending_pod(draw: st.DrawFn, index: int, cluster_nodes: list[Node]) -> Pod:
    """A pending pod with a random mix of every feature the profile's plugins read."""
    app = draw(st.sampled_from(APPS))
    builder = (make_pod(f"p{index}").req(cpu=f"{draw(st.sampled_from([250, 500, 1000, 2000]))}m",
                                          memory=draw(st.sampled_from(MEMORY)))
               .priority(draw(st.sampled_from([0, 10, 20, 30, 100]))).label(app=app))
    names = [node.name for node in cluster_nodes]
    features = draw(st.sets(st.sampled_from(
        ["selector", "toleration", "affinity", "preferred", "names", "anti", "spread", "port", "gate", "headroom",
         "wait", "nominated", "image", "disk", "zonal", "solo", "later"]), max_size=4))
    if "selector" in features:
        builder = builder.node_selector(**{ZONE: draw(st.sampled_from(ZONES))})
    if "toleration" in features:
        builder = builder.toleration("dedicated", "infra", "NoSchedule")
    if "affinity" in features:
        builder = builder.node_affinity_in(TIER, "gold", "silver")
    if "preferred" in features:
        builder = builder.preferred_node_affinity(draw(st.integers(1, 100)), TIER, "gold")
    if "names" in features:  # NodeAffinity's PreFilter narrows the nodes: the batch is not every node
        builder = builder.node_affinity_names(*draw(st.lists(st.sampled_from(names), min_size=1, unique=True)))
    if "anti" in features:
        builder = builder.pod_affinity(HOSTNAME, anti=True, app=app)
    if "spread" in features:
        builder = builder.spread(1, ZONE, draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])), app=app)
    if "port" in features:
        builder = builder.host_port(8080)
    if "gate" in features:
        builder = builder.label(gate=draw(st.sampled_from(["strict", "soft"])))
    if "headroom" in features:
        builder = builder.label(headroom="yes")
    if "wait" in features:
        builder = builder.label(wait="yes")
    if "nominated" in features:
        builder = builder.nominated(draw(st.sampled_from(names)))
    if "image" in features:
        builder = builder.container({"cpu": "100m"}, image=draw(st.sampled_from(IMAGES)))
    if "disk" in features:
        builder = builder.volume(disk(draw))
    if "zonal" in features:
        builder = builder.pvc(f"claim-{draw(st.sampled_from(ZONES))}")
    for claim in ("solo", "later"):
        if claim in features:
            builder = builder.pvc(claim)
    return builder.obj()


@st.composite
def examples(draw: st.DrawFn, max_nodes: int, max_pending: int) -> Example:
    """A random cluster, its PDBs and pending pods, a scored or filter-only profile, and a seed."""
    cluster_nodes = draw(nodes(max_nodes))
    running = draw(running_pods(cluster_nodes))
    budgets: list[PodDisruptionBudget] = [
        pdb(f"pdb{i}", draw(st.sampled_from([0, 1])), app=draw(st.sampled_from(APPS)))
        for i in range(draw(st.integers(0, 2)))]
    pending = [draw(pending_pod(i, cluster_nodes)) for i in range(draw(st.integers(1, max_pending)))]
    counts = [draw(st.sampled_from([None, 1, 2, 3])) for _ in cluster_nodes]
    cluster = ClusterInput(nodes=tuple(cluster_nodes), pods=(*running, *pending), pdbs=tuple(budgets),
                           storage=storage(cluster_nodes, counts))
    return Example(cluster, draw(st.booleans()), draw(st.integers(0, 2**32 - 1)))


@pytest.fixture(scope="module")
def extended(registry: PluginRegistry) -> PluginRegistry:
    """The installed plugins plus the test plugins."""
    return registry.with_plugins(*PLUGINS)


def configs(registry: PluginRegistry, *, scored: bool) -> tuple[SchedulerConfiguration, SchedulerConfiguration]:
    """The test profile with the fast path on, then off."""
    config = parse_config(profile_document(scored=scored), registry, "batch-equivalence")
    return (attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=True)),
            attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=False)))


def digest(result: SimulationResult) -> str:
    """Every decision of a run as text: pods, preemptions, events, node usage and plugin errors."""
    errors = [(f.point, f.plugin, f.pod, f.node, f.message) for f in result.plugin_errors]
    return json.dumps([result.to_json(), [attrs.astuple(n) for n in result.nodes], errors], sort_keys=True)


def cycle_summary(record: CycleRecord) -> tuple[object, ...]:
    """What an attempt saw, as the explain output and ``run_plugin`` read it: per-node statuses (code, reasons,
    plugin) in the order they were recorded, the rejecting and pending plugins, the feasible nodes in try order,
    per-node scores, the host."""
    diagnosis = record.diagnosis
    statuses = [(name, status.code, status.reasons, status.plugin)
                for name, status in diagnosis.node_to_status.statuses.items()]
    scores = record.scores.node_scores() if record.scores is not None else None
    message = record.status.message() if record.status is not None else ""
    return (record.pod.key, statuses, sorted(diagnosis.unschedulable_plugins), sorted(diagnosis.pending_plugins),
            record.feasible_nodes, scores, record.suggested_host, message)


def simulate(example: Example, config: SchedulerConfiguration,
             registry: PluginRegistry) -> tuple[SimulationResult, list[tuple[object, ...]]]:
    """Run ``example`` with ``config``: the result and a summary of every attempt."""
    simulation = Simulation(example.cluster, config, registry, seed=example.seed)
    cycles: list[tuple[object, ...]] = []
    simulation.scheduler.cycle_observer = lambda record: cycles.append(cycle_summary(record))
    return simulation.run(), cycles


def assert_same_decisions(example: Example, registry: PluginRegistry) -> None:
    """Run ``example`` on both paths and compare the results, the digests and every attempt."""
    fast, reference = configs(registry, scored=example.scored)
    fast_result, fast_cycles = simulate(example, fast, registry)
    reference_result, reference_cycles = simulate(example, reference, registry)
    event(f"preemptions: {min(len(reference_result.preemptions), 2)}")
    event(f"pending pods: {min(sum(p.phase == 'Pending' for p in reference_result.pods), 2)}")
    event(f"volume rejections: {any(r in e.message for e in reference_result.events for r in VOLUME_REASONS)}")
    assert fast_result.pods == reference_result.pods
    assert fast_result.preemptions == reference_result.preemptions
    assert fast_result.events == reference_result.events
    assert digest(fast_result) == digest(reference_result)
    assert fast_cycles == reference_cycles


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=6, max_pending=6))
def test_fast_path_decides_as_the_per_node_path(extended: PluginRegistry, example: Example) -> None:
    """Small random clusters: the fast path's pods, preemptions and events equal the per-node path's."""
    assert_same_decisions(example, extended)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=12, max_pending=14))
def test_fast_path_decides_as_the_per_node_path_on_larger_clusters(extended: PluginRegistry,
                                                                   example: Example) -> None:
    """Larger random clusters, more examples: the fast path's decisions equal the per-node path's."""
    assert_same_decisions(example, extended)

"""The volume plugins end to end in ``simulate``, with preemption: VolumeRestrictions' and NodeVolumeLimits'
rejections are Unschedulable, so evicting the pod that holds a disk, a ReadWriteOncePod claim or an attachment slot
helps; VolumeZone's are UnschedulableAndUnresolvable, so preemption leaves those nodes alone. The messages are the
v1.32 binary's (tests/kube/test_fidelity_volumes.py compares them with the real kube-scheduler)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Volume
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PodResult, SimulationResult, simulate
from kubesched.testing import make_csi_node, make_node, make_pod, make_pv, make_pvc

HIGH, LOW = 1000, 10
DRIVER = "csi.example.com"
ZONE = "topology.kubernetes.io/zone"
RWOP = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
DISK = "node(s) had no available disk"
LIMIT = "node(s) exceed max volume count"
NO_ZONE = "node(s) had no available volume zone"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
PD = Volume(name="disk", source="gcePersistentDisk", handle="pd-1")


@pytest.fixture(scope="module")
def config(registry: PluginRegistry) -> SchedulerConfiguration:
    """The shipped default profile (the volume plugins in it, DefaultPreemption at PostFilter)."""
    return load_config("default", registry)


def claim(name: str, *, mode: str = "ReadWriteOnce", zone: str | None = None) -> list[Any]:
    """CSI volume ``name`` (in ``zone`` when given) and claim ``name`` bound to it."""
    pv = make_pv(name).csi(DRIVER).access_modes(mode).bound_to("default", name)
    if zone is not None:
        pv.labels({ZONE: zone})
    return [pv.obj(), make_pvc(name).access_modes(mode).bound(name).obj()]


def run(config: SchedulerConfiguration, registry: PluginRegistry, pods: list[Any], storage: list[Any],
        zones: tuple[str, ...] = ("z1", "z1")) -> SimulationResult:
    """Nodes n1, n2 (in ``zones``), the pods (builders) and storage objects, simulated."""
    nodes = tuple(make_node(f"n{i + 1}").capacity(cpu="4", memory="16Gi").labels({ZONE: zone}).obj()
                  for i, zone in enumerate(zones))
    return simulate(ClusterInput(nodes=nodes, pods=tuple(p.obj() for p in pods), storage=tuple(storage)), config,
                    registry)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    return {p.name: p for p in result.pods}


def failed(result: SimulationResult, pod: str) -> list[str]:
    """The FailedScheduling messages of ``pod``."""
    return [e.message for e in result.events if e.reason == "FailedScheduling" and e.object == f"default/{pod}"]


@pytest.mark.parametrize(("holder", "storage", "reason"), [
    pytest.param(make_pod("holder").pvc("data"), claim("data", mode="ReadWriteOncePod"), RWOP,
                 id="read-write-once-pod-claim"),
    pytest.param(make_pod("holder").volume(PD), [], DISK, id="same-gce-disk"),
])
def test_preemption_evicts_the_pod_holding_what_the_pod_needs(config: SchedulerConfiguration,
                                                              registry: PluginRegistry, holder: Any,
                                                              storage: list[Any], reason: str) -> None:
    """A higher-priority pod needing the claim or disk a lower-priority pod on n1 holds (n2 has no room for it)
    nominates n1, evicts the holder and binds there."""
    pod = make_pod("pod").priority(HIGH).req(cpu="1")
    pod = pod.pvc("data") if storage else pod.volume(PD)
    pods = [holder.node("n1").priority(LOW), make_pod("filler").node("n2").req(cpu="4").priority(HIGH), pod]
    result = run(config, registry, pods, storage)
    assert [(p.node, p.victims) for p in result.preemptions] == [("n1", ("default/holder",))]
    assert (by_name(result)["pod"].phase, by_name(result)["pod"].node) == ("Bound", "n1")
    assert by_name(result)["holder"].phase == "Evicted"
    first = failed(result, "pod")[0]
    assert reason in first
    assert "preemption" not in first  # preemption nominated a node: no PostFilter message


def test_a_claim_held_at_equal_priority_leaves_the_pod_pending(config: SchedulerConfiguration,
                                                               registry: PluginRegistry) -> None:
    """Every node rejects the pod while another pod uses its ReadWriteOncePod claim; no pod may be evicted for it."""
    pods = [make_pod("holder").node("n1").pvc("data"), make_pod("pod").pvc("data")]
    result = run(config, registry, pods, claim("data", mode="ReadWriteOncePod"))
    assert by_name(result)["pod"].message == (f"0/2 nodes are available: 2 {RWOP}. preemption: 0/2 nodes are "
                                              f"available: 2 {NO_VICTIMS}.")


def test_preemption_frees_an_attachment_slot(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """n1 attaches one volume of the driver; a higher-priority pod with a new volume (n2 has no room for it) evicts
    the pod holding the slot."""
    pods = [make_pod("holder").node("n1").pvc("a").priority(LOW),
            make_pod("filler").node("n2").req(cpu="4").priority(HIGH),
            make_pod("pod").pvc("b").priority(HIGH).req(cpu="1")]
    storage = [*claim("a"), *claim("b"), make_csi_node("n1").driver(DRIVER, 1).obj()]
    result = run(config, registry, pods, storage)
    assert [(p.node, p.victims) for p in result.preemptions] == [("n1", ("default/holder",))]
    assert LIMIT in failed(result, "pod")[0]


def test_volume_zone_rejections_are_not_preempted_for(config: SchedulerConfiguration,
                                                      registry: PluginRegistry) -> None:
    """A node of another zone than the pod's volume is UnschedulableAndUnresolvable: preemption does not help."""
    pods = [make_pod("pod").pvc("data").priority(HIGH), make_pod("low").node("n1").priority(LOW)]
    result = run(config, registry, pods, claim("data", zone="z2"), zones=("z1", "z3"))
    assert result.preemptions == ()
    assert by_name(result)["pod"].message == (f"0/2 nodes are available: 2 {NO_ZONE}. preemption: 0/2 nodes are "
                                              f"available: 2 {NOT_HELPFUL}.")


def test_a_missing_claim_is_rejected_at_pre_filter(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """VolumeRestrictions' PreFilter looks the claim up first: the lister's NotFound words, for every node."""
    result = run(config, registry, [make_pod("pod").pvc("nope")], [])
    assert by_name(result)["pod"].message == ('0/2 nodes are available: persistentvolumeclaim "nope" not found. '
                                              f"preemption: 0/2 nodes are available: 2 {NOT_HELPFUL}.")


def test_pods_without_volumes_schedule_as_before(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Every volume plugin skips a pod without volumes: it binds where it would without them."""
    result = run(config, registry, [make_pod("filler").node("n1").req(cpu="3"), make_pod("pod").req(cpu="2")], [])
    assert by_name(result)["pod"].node == "n2"

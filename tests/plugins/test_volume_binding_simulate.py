"""VolumeBinding end to end with preemption: its rejections are UnschedulableAndUnresolvable, so preemption looks
only at nodes the pod's volumes allow, on the fast path and the reference path alike."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod, make_pv, make_pvc, make_storage_class

ZONE = "topology.kubernetes.io/zone"
NODES = (make_node("n1").capacity(cpu="1", memory="4Gi").label(**{"topology.kubernetes.io/zone": "z1"}).obj(),
         make_node("n2").capacity(cpu="1", memory="4Gi").label(**{"topology.kubernetes.io/zone": "z2"}).obj())
RUNNING = (make_pod("low-1").node("n1").req(cpu="1").priority(10).obj(),
           make_pod("low-2").node("n2").req(cpu="1").priority(10).obj())


def storage(zone: str) -> tuple[Any, ...]:
    """A static class, the PV in ``zone`` and the claim bound to it."""
    return (make_storage_class("static", "kubernetes.io/no-provisioner").obj(),
            make_pv("pv").storage_class("static").capacity("5Gi").node_affinity_in(ZONE, zone)
            .bound_to("default", "data").obj(),
            make_pvc("data").storage_class("static").bound("pv").obj())


def run(registry: PluginRegistry, zone: str, fast: bool) -> SimulationResult:
    config = load_config("default", registry)
    config = attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=fast))
    high = make_pod("high").req(cpu="1").priority(1000).pvc("data").obj()
    return simulate(ClusterInput(nodes=NODES, pods=(*RUNNING, high), storage=storage(zone)), config, registry)


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "reference-path"])
def test_preemption_frees_room_where_the_volume_is(registry: PluginRegistry, fast: bool) -> None:
    """The volume is in z2: the pod preempts n2's pod (n1's would not help) and binds there."""
    result = run(registry, "z2", fast)
    assert [(p.preemptor, p.node, p.victims) for p in result.preemptions] == [("default/high", "n2",
                                                                               ("default/low-2",))]
    assert {p.name: (p.phase, p.node) for p in result.pods}["high"] == ("Bound", "n2")


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "reference-path"])
def test_preemption_cannot_help_a_volume_no_node_can_reach(registry: PluginRegistry, fast: bool) -> None:
    """The volume is in z3, where no node is: NodeResourcesFit rejects both nodes first (Filter stops at the first
    rejecting plugin), and preemption's dry run, without the victims, meets VolumeBinding's conflict."""
    result = run(registry, "z3", fast)
    assert result.preemptions == ()
    message = {p.name: p.message for p in result.pods}["high"]
    assert message == ("0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 node(s) "
                       "had volume node affinity conflict.")

"""NodePorts with preemption end to end: a node's used host ports are a set, as kube-scheduler v1.32 keeps them.

Two pods placed on one node with the same host port (by nodeName, as a kubelet or a dump can show) put the port
in the node's set once, so removing either frees it. Checked against the real kube-scheduler v1.32.
"""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PodResult, Simulation, SimulationResult, simulate
from kubesched.testing import make_node, make_pod

HIGH, MID, LOW = 1000, 100, 10
NO_FREE_PORTS = "node(s) didn't have free ports for the requested pod ports"


@pytest.fixture(scope="module")
def config(registry: PluginRegistry) -> SchedulerConfiguration:
    """The shipped default profile (DefaultPreemption at PostFilter)."""
    return load_config("default", registry)


def port_holders() -> list[Pod]:
    """port-high (priority 1000) and port-low (priority 10) on n1, both holding host port 8080."""
    return [make_pod("port-high").node("n1").priority(HIGH).host_port(8080).obj(),
            make_pod("port-low").node("n1").priority(LOW).host_port(8080).obj()]


def run(config: SchedulerConfiguration, registry: PluginRegistry, node_names: tuple[str, ...],
        pods: list[Pod]) -> SimulationResult:
    nodes = tuple(make_node(name).capacity(cpu="4", memory="16Gi", pods="110").obj() for name in node_names)
    return simulate(ClusterInput(nodes=nodes, pods=tuple(pods)), config, registry)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    return {p.name: p for p in result.pods}


def reproducer(config: SchedulerConfiguration, registry: PluginRegistry) -> Simulation:
    """The issue's reproducer, started: n1 runs port-high and port-low; a priority-100 pod wants port 8080 too."""
    pending = make_pod("pending").priority(MID).host_port(8080).obj()
    nodes = (make_node("n1").capacity(cpu="4", memory="16Gi", pods="110").obj(),)
    simulation = Simulation(ClusterInput(nodes=nodes, pods=(*port_holders(), pending)), config, registry)
    simulation.start()
    return simulation


def test_preemption_frees_a_port_two_pods_hold_and_nominates_the_node(config: SchedulerConfiguration,
                                                                      registry: PluginRegistry) -> None:
    """The first attempt fails on NodePorts, preempts port-low (not port-high) and nominates n1."""
    simulation = reproducer(config, registry)
    assert simulation.scheduler.schedule_one()
    pods = {p.name: p for p in simulation.cluster.pods.values()}
    assert pods["pending"].status.nominated_node_name == "n1"
    assert pods["port-low"].metadata.deletion_timestamp is not None
    assert pods["port-high"].metadata.deletion_timestamp is None


def test_the_preemptor_binds_beside_the_pod_still_holding_the_port(config: SchedulerConfiguration,
                                                                   registry: PluginRegistry) -> None:
    """Once port-low is gone the port is free in n1's set, so the pod binds to n1 next to port-high."""
    simulation = reproducer(config, registry)
    simulation.settle()
    result = simulation.result()
    pods = by_name(result)
    assert (pods["pending"].phase, pods["pending"].node) == ("Bound", "n1")
    assert (pods["port-high"].phase, pods["port-low"].phase) == ("Bound", "Evicted")
    assert [(e.reason, e.object, e.message) for e in result.events] == [
        ("Preempted", "default/port-low", "Preempted by pod default/pending-uid on node n1"),
        ("FailedScheduling", "default/pending", f"0/1 nodes are available: 1 {NO_FREE_PORTS}."),
        ("Scheduled", "default/pending", "Successfully assigned default/pending to n1"),
    ]
    assert result.to_json()["preemptions"] == [
        {"time": 0.0, "preemptor": "default/pending", "preemptorUid": "default/pending-uid", "node": "n1",
         "victims": ["default/port-low"], "victimUids": ["default/port-low-uid"], "victimsAlreadyTerminating": [False]}]


def test_the_shared_port_node_wins_over_one_needing_more_victims(config: SchedulerConfiguration,
                                                                 registry: PluginRegistry) -> None:
    """With n2 full of cpu (two victims needed), n1's single victim port-low makes n1 the candidate."""
    busy = [make_pod(name).node("n2").priority(LOW).req(cpu="2").obj() for name in ("busy-a", "busy-b")]
    pending = make_pod("pending").priority(MID).req(cpu="3").host_port(8080).obj()
    result = run(config, registry, ("n1", "n2"), [*port_holders(), *busy, pending])
    pods = by_name(result)
    assert (pods["pending"].phase, pods["pending"].node) == ("Bound", "n1")
    assert [(e.reason, e.object, e.message) for e in result.events if e.reason == "FailedScheduling"] == [
        ("FailedScheduling", "default/pending",
         f"0/2 nodes are available: 1 Insufficient cpu, 1 {NO_FREE_PORTS}.")]
    assert result.to_json()["preemptions"] == [
        {"time": 0.0, "preemptor": "default/pending", "preemptorUid": "default/pending-uid", "node": "n1",
         "victims": ["default/port-low"], "victimUids": ["default/port-low-uid"], "victimsAlreadyTerminating": [False]}]


def test_the_preemption_message_names_what_still_blocks_once_the_port_is_free(
        config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Removing port-low frees the port in the dry run, so the node fails there on cpu, not on ports."""
    holders = [make_pod("port-high").node("n1").priority(HIGH).req(cpu="3").host_port(8080).obj(),
               make_pod("port-low").node("n1").priority(LOW).host_port(8080).obj()]
    pending = make_pod("pending").priority(MID).req(cpu="2").host_port(8080).obj()
    pods = by_name(run(config, registry, ("n1",), [*holders, pending]))
    assert (pods["pending"].phase, pods["pending"].message) == (
        "Pending", f"0/1 nodes are available: 1 {NO_FREE_PORTS}. "
                   "preemption: 0/1 nodes are available: 1 Insufficient cpu.")

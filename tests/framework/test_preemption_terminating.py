"""Victims that are already terminating, as the real kube-scheduler v1.32 treats them: they are still chosen as
victims (they hold their resources until they are gone), preempted again (DisruptionTarget patched if missing,
a second Preempted event, the pending deletion left as it is), and the result says they were already terminating.
"""

from __future__ import annotations

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import RecordedPreemption
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod

LOW, MID, HIGH = 10, 100, 200
GRACE = 3600
PREEMPTED = PodCondition("DisruptionTarget", "True", "PreemptionByScheduler",
                         "default-scheduler: preempting to accommodate a higher priority pod")


def node() -> Node:
    """The one 2-CPU node of these tests."""
    return make_node("n1").capacity(cpu="2").obj()


def low(name: str = "low-a") -> Pod:
    """A LOW pod on n1 holding 1.5 CPU, with an hour of grace."""
    return make_pod(name).node("n1").priority(LOW).req(cpu="1500m").grace_period(GRACE).obj()


def pending(name: str, priority: int) -> Pod:
    """A pending pod wanting 1.5 CPU."""
    return make_pod(name).priority(priority).req(cpu="1500m").obj()


def started(registry: PluginRegistry, pods: list[Pod]) -> Simulation:
    """A started simulation of n1 and ``pods`` with the default profile, run until the queue is empty."""
    simulation = Simulation(ClusterInput(nodes=(node(),), pods=tuple(pods)), load_config("default", registry),
                            registry)
    simulation.start()
    drain(simulation)
    return simulation


def drain(simulation: Simulation) -> None:
    """Run every pod in activeQ now, without moving the clock."""
    while simulation.scheduler.schedule_one():
        simulation.scheduler.process_waiting_pods()


def live(simulation: Simulation, name: str) -> Pod:
    """The cluster's current version of default/``name``."""
    pod = simulation.cluster.get_pod("default", name)
    assert pod is not None
    return pod


def two_preemptions_of_low_a(registry: PluginRegistry) -> Simulation:
    """The real-binary experiment: mid-1 preempts low-a, then high-1 arrives while low-a still terminates."""
    simulation = started(registry, [low(), pending("mid-1", MID)])
    simulation.cluster.add_pod(pending("high-1", HIGH))
    drain(simulation)
    return simulation


def test_a_victim_still_terminating_is_chosen_again_by_a_more_important_pod(registry: PluginRegistry) -> None:
    """high-1 preempts the already-terminating low-a and takes over the nomination of n1 from mid-1."""
    simulation = two_preemptions_of_low_a(registry)
    assert [(p.preemptor, p.node, p.victims) for p in simulation.cluster.preemptions] == [
        ("default/mid-1", "n1", ("default/low-a",)), ("default/high-1", "n1", ("default/low-a",))]
    assert live(simulation, "high-1").status.nominated_node_name == "n1"
    assert live(simulation, "mid-1").status.nominated_node_name == ""


def test_the_record_says_which_victims_were_already_terminating(registry: PluginRegistry) -> None:
    """The first preemption found low-a running, the second found it terminating."""
    simulation = two_preemptions_of_low_a(registry)
    assert simulation.cluster.preemptions == [
        RecordedPreemption("default/mid-1", "n1", ("default/low-a",), (False,), "default/mid-1-uid",
                           ("default/low-a-uid",)),
        RecordedPreemption("default/high-1", "n1", ("default/low-a",), (True,), "default/high-1-uid",
                           ("default/low-a-uid",)),
    ]


def test_an_already_terminating_victim_gets_a_second_preempted_event(registry: PluginRegistry) -> None:
    """As kube-scheduler v1.32 does: one Preempted event on the victim per preemption that chose it."""
    simulation = two_preemptions_of_low_a(registry)
    preempted = [e.message for e in simulation.cluster.events if e.reason == "Preempted"]
    assert preempted == ["Preempted by pod default/mid-1-uid on node n1",
                         "Preempted by pod default/high-1-uid on node n1"]


def test_preempting_again_keeps_the_pending_deletion(registry: PluginRegistry) -> None:
    """The second delete changes neither the deletion time nor when the victim goes: it leaves after its grace."""
    simulation = started(registry, [low(), pending("mid-1", MID)])
    first = live(simulation, "low-a").metadata.deletion_timestamp
    simulation.clock.advance_to(10.0)
    simulation.cluster.add_pod(pending("high-1", HIGH))
    drain(simulation)
    assert live(simulation, "low-a").metadata.deletion_timestamp == first
    assert simulation.cluster.next_timer() == float(GRACE)


def test_a_pod_deleted_by_a_user_gets_the_disruption_target_when_chosen(registry: PluginRegistry) -> None:
    """A victim terminating for another reason (a user's delete) is patched with DisruptionTarget, as v1.32 does."""
    simulation = started(registry, [low()])
    simulation.cluster.delete_pod(live(simulation, "low-a"))
    assert live(simulation, "low-a").status.conditions == ()
    simulation.cluster.add_pod(pending("high-1", HIGH))
    drain(simulation)
    assert live(simulation, "low-a").status.conditions == (PREEMPTED,)
    assert simulation.cluster.preemptions == [
        RecordedPreemption("default/high-1", "n1", ("default/low-a",), (True,), "default/high-1-uid",
                           ("default/low-a-uid",))]


def test_the_simulate_json_marks_already_terminating_victims(registry: PluginRegistry) -> None:
    """Each preemption's victimsAlreadyTerminating has one boolean per victim, in the order of victims."""
    simulation = two_preemptions_of_low_a(registry)
    preemptions = simulation.result().to_json()["preemptions"]
    assert preemptions == [
        {"time": 0.0, "preemptor": "default/mid-1", "preemptorUid": "default/mid-1-uid", "node": "n1",
         "victims": ["default/low-a"], "victimUids": ["default/low-a-uid"], "victimsAlreadyTerminating": [False]},
        {"time": 0.0, "preemptor": "default/high-1", "preemptorUid": "default/high-1-uid", "node": "n1",
         "victims": ["default/low-a"], "victimUids": ["default/low-a-uid"], "victimsAlreadyTerminating": [True]},
    ]


def test_the_preemptor_whose_victim_terminates_keeps_waiting(registry: PluginRegistry) -> None:
    """Once low-a is gone, high-1 binds to n1; mid-1, which lost the node, stays pending."""
    simulation = two_preemptions_of_low_a(registry)
    simulation.settle()
    assert live(simulation, "high-1").spec.node_name == "n1"
    assert live(simulation, "mid-1").spec.node_name == ""

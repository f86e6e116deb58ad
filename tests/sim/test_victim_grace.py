"""When a preemption victim goes: with grace period 0 within the delete request, so before the next pod's scheduling
cycle (the API server deletes it at once and the scheduler's cache hears at once); with a grace period, when that
ends (its resources stay in use meanwhile)."""

from __future__ import annotations

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod


def simulation(registry: PluginRegistry, grace: int) -> Simulation:
    """n1 (1 CPU) full with a priority-0 victim of that grace period; high (priority 100, 500m) must preempt it,
    then next (priority 0, 500m, so it cannot preempt) comes from the queue."""
    pods = (make_pod("victim").node("n1").req(cpu="1").grace_period(grace).obj(),
            make_pod("high").priority(100).req(cpu="500m").obj(),
            make_pod("next").req(cpu="500m").obj())
    return Simulation(ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=pods),
                      load_config("default", registry), registry)


def events_of(sim: Simulation, name: str) -> list[tuple[float, str]]:
    """(time, reason) of every event about default/``name``."""
    return [(e.time, e.reason) for e in sim.cluster.events if e.object == f"default/{name}"]


def live(sim: Simulation, name: str) -> Pod | None:
    return sim.cluster.get_pod("default", name)


def test_a_victim_with_grace_zero_frees_its_node_before_the_next_pods_cycle(registry: PluginRegistry) -> None:
    """next's first attempt, right after high's preemption at time 0, already finds the victim gone: it binds."""
    sim = simulation(registry, grace=0)
    sim.start()
    sim.settle(until=0.0)
    assert live(sim, "victim") is None
    assert [(e.reason, e.object) for e in sim.cluster.events] == [
        ("Preempted", "default/victim"), ("FailedScheduling", "default/high"), ("Scheduled", "default/next")]
    assert events_of(sim, "next") == [(0.0, "Scheduled")]


def test_a_victim_with_a_grace_period_stays_terminating_until_its_timer(registry: PluginRegistry) -> None:
    """With 30 s of grace the victim holds n1 until time 30: next fails at time 0 and binds only then."""
    sim = simulation(registry, grace=30)
    sim.start()
    sim.settle(until=29.0)
    victim = live(sim, "victim")
    assert victim is not None
    assert victim.metadata.deletion_timestamp == sim.clock.at(30.0)
    assert events_of(sim, "next") == [(0.0, "FailedScheduling")]
    sim.settle()
    assert live(sim, "victim") is None
    assert events_of(sim, "next") == [(0.0, "FailedScheduling"), (30.0, "Scheduled")]


def test_a_grace_zero_delete_is_seen_as_the_deletion_timestamp_then_the_delete(registry: PluginRegistry) -> None:
    """As the API server's watch shows it: an update setting deletionTimestamp to now, then the delete, both
    before anything else happens."""
    sim = simulation(registry, grace=0)
    sim.start()
    seen: list[tuple[str, str, bool]] = []

    class Watcher:
        def on_pod_update(self, old: Pod, new: Pod) -> None:
            seen.append(("update", new.name, new.metadata.deletion_timestamp == sim.clock.timestamp()))

        def on_pod_delete(self, pod: Pod) -> None:
            seen.append(("delete", pod.name, True))

        def on_pod_add(self, pod: Pod) -> None:
            """Not watched."""

        def on_node_add(self, node: Node) -> None:
            """Not watched."""

        def on_node_update(self, node: Node) -> None:
            """Not watched."""

        def on_node_delete(self, name: str) -> None:
            """Not watched."""

    sim.cluster.subscribe(Watcher())
    victim = live(sim, "victim")
    assert victim is not None
    sim.cluster.delete_pod(victim)
    assert seen == [("update", "victim", True)]
    sim.settle(until=0.0)
    assert seen[:2] == [("update", "victim", True), ("delete", "victim", True)]

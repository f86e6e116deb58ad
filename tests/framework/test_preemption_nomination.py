"""Nominated pods around preemption (facts §5): set by the PostFilter result, kept while victims terminate,
cleared on bind, on delete and when a more important preemptor takes the node; the nominated-node fast path."""

from __future__ import annotations

import random

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import NodeToStatus, PostFilterResult
from kubesched.io.load import ClusterInput
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry, Scheduler
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import profile_of

HIGH, MID, LOW = 1000, 100, 1


def make(registry: PluginRegistry, nodes: list[Node], pods: list[Pod]) -> Simulation:
    """A started simulation (nothing scheduled yet) with the default profile (DefaultPreemption at PostFilter)."""
    simulation = Simulation(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), load_config("default", registry),
                            registry)
    simulation.start()
    return simulation


def drain(simulation: Simulation) -> None:
    """Run every pod in activeQ now, without moving the clock."""
    while simulation.scheduler.schedule_one():
        simulation.scheduler.process_waiting_pods()


def live(simulation: Simulation, name: str) -> Pod:
    return simulation.cluster.pods[f"default/{name}-uid"]


def test_nomination_is_kept_while_the_victim_terminates(registry: PluginRegistry) -> None:
    """Retried before its victim is gone, the preemptor does not preempt again: it keeps its nominated node."""
    nodes = [make_node("n1").capacity(cpu="2").obj(), make_node("n2").capacity(cpu="1").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").grace_period(60).obj(),
            make_pod("other").node("n2").priority(HIGH).req(cpu="1").grace_period(0).obj(),
            make_pod("p").priority(MID).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    assert live(simulation, "p").status.nominated_node_name == "n1"
    simulation.clock.advance_to(5.0)
    simulation.cluster.delete_pod(live(simulation, "other"))  # an unrelated delete retries the pod early
    simulation.cluster.fire_due_timers()
    simulation.clock.advance_to(6.0)
    simulation.scheduler.queue.flush_backoff_completed()
    drain(simulation)
    assert simulation.cluster.events[-1].message == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to a terminating pod on the "
        "nominated node.")
    assert live(simulation, "p").status.nominated_node_name == "n1"
    assert simulation.scheduler.nominator.nominated_node_of(live(simulation, "p")) == "n1"
    assert len(simulation.cluster.preemptions) == 1
    simulation.settle()
    assert live(simulation, "p").spec.node_name == "n1"
    assert not simulation.scheduler.nominator.has_nominations()


def test_nominated_node_is_tried_first(registry: PluginRegistry) -> None:
    """Once its victims are gone the pod binds to its nominated node, though another node now scores higher."""
    nodes = [make_node("n1").capacity(cpu="2").obj(), make_node("big").capacity(cpu="16").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj(),
            make_pod("leaving").node("big").priority(HIGH + 1).req(cpu="16").obj(),
            make_pod("p").priority(HIGH).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    simulation.cluster.delete_pod(live(simulation, "leaving"))  # frees "big" at the same time as the victim
    simulation.settle()
    assert live(simulation, "p").spec.node_name == "n1"
    assert live(simulation, "p").status.nominated_node_name == ""


def test_unresolvable_nominated_node_lets_the_pod_preempt_elsewhere(
        registry: PluginRegistry) -> None:
    """If the nominated node turns UnschedulableAndUnresolvable (tainted), the pod preempts on another node. The
    taint moves the pod NodeResourcesFit rejected: a plugin registering Node/Add also gets UpdateNodeTaint (v1.32)."""
    nodes = [make_node("n1").capacity(cpu="2").obj(), make_node("n2").capacity(cpu="2").obj()]
    pods = [make_pod("v1").node("n1").priority(LOW).req(cpu="2").grace_period(60).obj(),
            make_pod("v2").node("n2").priority(LOW + 1).req(cpu="2").obj(),
            make_pod("p").priority(HIGH).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    assert live(simulation, "p").status.nominated_node_name == "n1"
    simulation.clock.advance_to(5.0)
    tainted = make_node("n1").capacity(cpu="2").taint("maintenance").obj()
    simulation.cluster.nodes["n1"] = tainted
    simulation.scheduler.events.on_node_update(tainted)
    simulation.clock.advance_to(6.0)
    simulation.scheduler.queue.flush_backoff_completed()
    drain(simulation)
    assert live(simulation, "p").status.nominated_node_name == "n2"
    assert [(p.node, p.victims) for p in simulation.cluster.preemptions] == [
        ("n1", ("default/v1",)), ("n2", ("default/v2",))]
    simulation.settle()
    assert live(simulation, "p").spec.node_name == "n2"


def test_more_important_preemptor_takes_over_a_nominated_node(
        registry: PluginRegistry) -> None:
    """A higher-priority pod preempting on the same node clears the lower-priority pod's nomination there."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj(),
            make_pod("mid").priority(MID).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    assert live(simulation, "mid").status.nominated_node_name == "n1"
    simulation.clock.advance_to(5.0)
    simulation.cluster.add_pod(make_pod("high").priority(HIGH).req(cpu="2").obj())
    drain(simulation)
    assert live(simulation, "high").status.nominated_node_name == "n1"
    assert live(simulation, "mid").status.nominated_node_name == ""
    assert simulation.scheduler.nominator.nominated_node_of(live(simulation, "mid")) == ""
    last = simulation.cluster.preemptions[-1]
    assert (last.preemptor, last.node, last.victims) == ("default/high", "n1", ("default/victim",))
    simulation.settle()
    assert live(simulation, "high").spec.node_name == "n1"
    assert live(simulation, "mid").spec.node_name == ""


def test_pod_that_loses_its_nomination_waits_for_a_cluster_event(
        registry: PluginRegistry) -> None:
    """Clearing the nomination is a status update, which no rejecting plugin registered (v1.32's hints): the pod
    stays unschedulable until an event its plugins care about, such as the victim's deletion."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj(),
            make_pod("mid").priority(MID).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    assert [info.pod.name for info in simulation.scheduler.queue.unschedulable_pods()] == ["mid"]
    simulation.clock.advance_to(5.0)
    simulation.cluster.add_pod(make_pod("high").priority(HIGH).req(cpu="2").obj())
    assert simulation.scheduler.schedule_one()  # high preempts on n1 and clears mid's nomination
    assert "mid" in [info.pod.name for info in simulation.scheduler.queue.unschedulable_pods()]
    assert simulation.scheduler.queue.active_count() == 0


def test_deleted_pod_nomination_is_dropped(registry: PluginRegistry) -> None:
    """Deleting a nominated pod forgets its nomination, so its room is free for others."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj(),
            make_pod("p").priority(HIGH).req(cpu="2").grace_period(0).obj()]
    simulation = make(registry, nodes, pods)
    drain(simulation)
    assert simulation.scheduler.nominator.has_nominations()
    simulation.cluster.delete_pod(live(simulation, "p"))
    simulation.cluster.fire_due_timers()
    assert not simulation.scheduler.nominator.has_nominations()


class DeletesThenNominates(Plugin):
    """A PostFilter that deletes the pod being scheduled (as a concurrent client might) and nominates n1."""

    name = "DeletesThenNominates"
    cluster: InMemoryCluster

    @hookimpl
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        self.cluster.delete_pod(pod)
        self.cluster.fire_due_timers()
        return PostFilterResult.nominate("n1"), Status.success()


def test_pod_gone_during_its_cycle_is_not_nominated() -> None:
    """A pod deleted while being scheduled gets no nomination (kube's nominator checks the pod still exists)."""
    cluster = InMemoryCluster(VirtualClock())
    DeletesThenNominates.cluster = cluster
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, NodeResourcesFit, DeletesThenNominates)
    profile = profile_of({"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"],
                          "post-filter": ["DeletesThenNominates"]})
    scheduler = Scheduler([profile], registry, client=cluster, clock=cluster.clock, rng=random.Random(0))
    cluster.subscribe(scheduler.events)
    cluster.add_node(make_node("n1").capacity(cpu="1").obj())
    cluster.add_pod(make_pod("p").req(cpu="2").grace_period(0).obj())
    assert scheduler.schedule_one()
    assert "default/p-uid" not in cluster.pods
    assert not scheduler.nominator.has_nominations()


class PodUpdates:
    """A ClusterListener keeping every pod update it is told of, as (old, new)."""

    def __init__(self) -> None:
        self.updates: list[tuple[Pod, Pod]] = []

    def on_node_add(self, node: Node) -> None: ...

    def on_node_update(self, node: Node) -> None: ...

    def on_node_delete(self, name: str) -> None: ...

    def on_pod_add(self, pod: Pod) -> None: ...

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        self.updates.append((old, new))

    def on_pod_delete(self, pod: Pod) -> None: ...


def test_the_nomination_and_the_failure_condition_are_one_write(registry: PluginRegistry) -> None:
    """As kube-scheduler's updatePod patches once: watchers see the preemptor updated once, with its nominated
    node and PodScheduled=False together (never the nomination alone)."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="2").grace_period(60).obj(),
            make_pod("p").priority(MID).req(cpu="2").obj()]
    simulation = make(registry, nodes, pods)
    watcher = PodUpdates()
    simulation.cluster.subscribe(watcher)
    drain(simulation)
    seen = [(new.status.nominated_node_name, [(c.type, c.status, c.reason) for c in new.status.conditions])
            for old, new in watcher.updates if new.name == "p"]
    assert seen == [("n1", [("PodScheduled", "False", "Unschedulable")])]


def test_a_failure_that_changes_neither_the_condition_nor_the_nomination_writes_nothing(
        registry: PluginRegistry) -> None:
    """Retried while its victim terminates, the preemptor fails with the same message and keeps its node: no
    write, so no watch event; a new message is one write that leaves the nomination as it is."""
    simulation = make(registry, [make_node("n1").capacity(cpu="2").obj()], [])
    simulation.cluster.add_pod(make_pod("p").priority(MID).req(cpu="2").obj())
    watcher = PodUpdates()
    simulation.cluster.subscribe(watcher)
    pod = live(simulation, "p")
    simulation.cluster.set_scheduling_failure(pod, "Unschedulable", "no room", "n1")
    simulation.cluster.set_scheduling_failure(live(simulation, "p"), "Unschedulable", "no room", "n1")
    simulation.cluster.set_scheduling_failure(live(simulation, "p"), "Unschedulable", "still no room")
    assert [(new.status.nominated_node_name, new.status.conditions[-1].message) for _, new in watcher.updates] == [
        ("n1", "no room"), ("n1", "still no room")]

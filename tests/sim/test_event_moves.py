"""Which cluster event moves which rejected pod, through the default profile's built-in plugins (v1.32 hints)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry, Scheduler
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod

Change = Callable[[InMemoryCluster, Scheduler], None]


def node_update(node: Node) -> Change:
    """Replace the node as a backend reporting an update would."""
    def change(cluster: InMemoryCluster, scheduler: Scheduler) -> None:
        cluster.nodes[node.name] = node
        scheduler.events.on_node_update(node)
    return change


def pod_update(new: Pod) -> Change:
    """Replace the pod as a backend reporting an update would."""
    def change(cluster: InMemoryCluster, scheduler: Scheduler) -> None:
        old = cluster.pods[new.uid]
        cluster.pods[new.uid] = new
        scheduler.events.on_pod_update(old, new)
    return change


def node_add(node: Node) -> Change:
    """Add the node."""
    return lambda cluster, _scheduler: cluster.add_node(node)


SMALL = make_node("n1").capacity(cpu="1", pods="10").obj()


@pytest.mark.parametrize(("case", "node", "pod", "change", "moved"), [
    ("NodeResourcesFit: allocatable grows", SMALL, make_pod("p").req(cpu="2").obj(),
     node_update(make_node("n1").capacity(cpu="4", pods="10").obj()), True),
    ("NodeResourcesFit: a label is no help", SMALL, make_pod("p").req(cpu="2").obj(),
     node_update(make_node("n1").label(x="y").capacity(cpu="1", pods="10").obj()), False),
    ("NodeResourcesFit: a big node added", SMALL, make_pod("p").req(cpu="2").obj(),
     node_add(make_node("n2").capacity(cpu="4", pods="10").obj()), True),
    ("NodeResourcesFit: a small node added", SMALL, make_pod("p").req(cpu="2").obj(),
     node_add(make_node("n2").capacity(cpu="1", pods="10").obj()), False),
    ("NodeAffinity: the label arrives", SMALL, make_pod("p").node_selector(disk="ssd").obj(),
     node_update(make_node("n1").label(disk="ssd").capacity(cpu="1", pods="10").obj()), True),
    ("NodeAffinity: another label", SMALL, make_pod("p").node_selector(disk="ssd").obj(),
     node_update(make_node("n1").label(disk="hdd").capacity(cpu="1", pods="10").obj()), False),
    ("TaintToleration: the taint goes", make_node("n1").taint("gpu").capacity(cpu="1", pods="10").obj(),
     make_pod("p").obj(), node_update(SMALL), True),
    ("NodeUnschedulable: uncordoned", make_node("n1").unschedulable().capacity(cpu="1", pods="10").obj(),
     make_pod("p").obj(), node_update(SMALL), True),
    ("TaintToleration: the pod's own new toleration", make_node("n1").taint("gpu").capacity(cpu="1", pods="10").obj(),
     make_pod("p").obj(), pod_update(make_pod("p").toleration("gpu", operator="Exists").obj()), True),
    ("a label on the pod is no help to TaintToleration", make_node("n1").taint("gpu").capacity(cpu="1", pods="10")
     .obj(), make_pod("p").obj(), pod_update(make_pod("p").label(a="b").obj()), False),
])
def test_an_event_moves_the_pods_its_rejecting_plugin_says_it_may_help(
        registry: PluginRegistry, case: str, node: Node, pod: Pod, change: Change, moved: bool) -> None:
    """A pod rejected by one built-in leaves the unschedulable pods only on an event that plugin's hint Queues."""
    cluster = InMemoryCluster(VirtualClock())
    config = load_config("default", registry)
    scheduler = Scheduler(config.profiles, registry, client=cluster, clock=cluster.clock, rng=random.Random(0),
                          settings=config.settings)
    cluster.subscribe(scheduler.events)
    cluster.add_node(node)
    cluster.add_pod(pod)
    while scheduler.schedule_one():
        pass
    assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["p"]
    change(cluster, scheduler)
    assert (scheduler.queue.unschedulable_pods() == []) is moved

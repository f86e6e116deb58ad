"""Specification of Handle.subscribe: a plugin keeping its own ledger of the cluster from pod and node events."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._handle import Handle
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.runtime import PluginRegistry
from kubesched.runtime._scheduler import Scheduler
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import profile_of


class Ledger(Plugin):
    """Counts bound pods per node and remembers the nodes, from the events it subscribed to; rejects pods on
    nodes holding two pods (a quota its own ledger enforces)."""

    name = "Ledger"

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        self.per_node: Counter[str] = Counter()
        self.nodes: set[str] = set()
        self.calls: list[str] = []
        handle.subscribe(self)

    def on_node_add(self, node: Node) -> None:
        self.nodes.add(node.name)
        self.calls.append(f"node-add {node.name}")

    def on_node_update(self, node: Node) -> None:
        self.calls.append(f"node-update {node.name}")

    def on_node_delete(self, name: str) -> None:
        self.nodes.discard(name)
        self.calls.append(f"node-delete {name}")

    def on_pod_add(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self.per_node[pod.spec.node_name] += 1

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        if new.spec.node_name and not old.spec.node_name:
            self.per_node[new.spec.node_name] += 1

    def on_pod_delete(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self.per_node[pod.spec.node_name] -= 1

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        return Status.unschedulable("quota") if self.per_node[node_info.name] >= 2 else None


def scheduler_with_ledger() -> tuple[InMemoryCluster, Scheduler, Ledger]:
    import random

    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort

    cluster = InMemoryCluster(VirtualClock())
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, Ledger)
    scheduler = Scheduler([profile_of({"filter": ["Ledger"]})], registry, client=cluster, clock=cluster.clock,
                          rng=random.Random(0))
    cluster.subscribe(scheduler.events)
    ledger = scheduler.frameworks["default-scheduler"].plugins["Ledger"]
    return cluster, scheduler, ledger


def test_a_subscribed_plugin_sees_every_node_change() -> None:
    """Node additions, updates and deletions reach the plugin in order."""
    cluster, scheduler, ledger = scheduler_with_ledger()
    cluster.add_node(make_node("n1").obj())
    cluster.add_node(make_node("n2").obj())
    scheduler.events.on_node_update(make_node("n1").label(zone="a").obj())  # as the backend reports an update
    scheduler.events.on_node_delete("n2")
    assert ledger.calls == ["node-add n1", "node-add n2", "node-update n1", "node-delete n2"]
    assert ledger.nodes == {"n1"}


def test_a_plugin_ledger_follows_bindings_and_deletions() -> None:
    """The ledger, kept from pod events, matches the pod lister after pods are bound and deleted."""
    cluster, scheduler, ledger = scheduler_with_ledger()
    cluster.add_node(make_node("n1").capacity(pods="10").obj())
    for name in ("a", "b", "c"):
        cluster.add_pod(make_pod(name).obj())
    while scheduler.schedule_one():
        pass
    lister = scheduler.frameworks["default-scheduler"].handle.pod_lister
    assert ledger.per_node["n1"] == 2 == len(lister.on_node("n1"))
    bound = next(iter(lister.on_node("n1")))
    cluster.delete_pod(bound)
    cluster.clock.advance_to(60.0)
    cluster.fire_due_timers()
    assert ledger.per_node["n1"] == 1 == len(lister.on_node("n1"))

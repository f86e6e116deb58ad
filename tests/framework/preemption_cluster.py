"""A small cluster for preemption tests: nodes, running pods, PDBs and a Framework whose PostFilter is
DefaultPreemption, with the snapshot and nominator the Evaluator reads."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import IntOrPercent, PodDisruptionBudget, PodDisruptionBudgetStatus
from kubesched.framework import Evaluator
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Status
from kubesched.framework._types import NodeToStatus
from kubesched.framework.preemption import DRY_RUN_RULES
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.default_preemption import DefaultPreemption
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import Framework, Nominator, PluginEntry, PluginRegistry, Profile, ResourceAccelerator
from kubesched.runtime._preemption import DryRunShortcut
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing.harness import cluster_and_snapshot

T0 = datetime(2026, 1, 1, tzinfo=UTC)
#: Simulated "now" of every setup: a day after T0, so pods started at T0 + hours started before now.
NOW = datetime(2026, 1, 2, tzinfo=UTC)


def pdb(name: str, allowed: int | None = 0, *, namespace: str = "default", min_available: int | None = None,
        disrupted: Sequence[str] = (), **match_labels: str) -> PodDisruptionBudget:
    """A PDB selecting ``match_labels`` with ``disruptionsAllowed = allowed`` (None: computed from the spec)."""
    return PodDisruptionBudget(
        ObjectMeta(name=name, namespace=namespace), LabelSelector(match_labels=match_labels),
        min_available=IntOrPercent(min_available) if min_available is not None else None,
        status=PodDisruptionBudgetStatus(disruptions_allowed=allowed,
                                         disrupted_pods=dict.fromkeys(disrupted, "2026-01-01T00:00:00Z")))


@attrs.define
class PreemptionCluster:
    """The objects of one preemption test."""

    cluster: InMemoryCluster
    framework: Framework
    nominator: Nominator

    @property
    def plugin(self) -> DefaultPreemption:
        """The DefaultPreemption plugin instance."""
        plugin: DefaultPreemption = self.framework.plugins["DefaultPreemption"]
        return plugin

    @property
    def evaluator(self) -> Evaluator:
        """The plugin's Evaluator."""
        return self.plugin.evaluator

    def node(self, name: str) -> NodeInfo:
        """The snapshot's NodeInfo of a node."""
        info = self.framework.handle.snapshot.get(name)
        assert info is not None
        return info

    def pre_filter(self, pod: Pod) -> CycleState:
        """A cycle state after PreFilter for ``pod`` (which must pass it)."""
        state = CycleState()
        nodes = self.framework.handle.snapshot.list()
        _result, status, _plugins = self.framework.run_pre_filter_plugins(state, pod, nodes)
        assert status is None, status
        return state

    def filter_statuses(self, pod: Pod, state: CycleState) -> NodeToStatus:
        """Every node's Filter status for ``pod`` (the nodes that pass have none)."""
        statuses = NodeToStatus()
        for node_info in self.framework.handle.snapshot.list():
            status = self.framework.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if status is not None:
                statuses.set(node_info.name, status)
        return statuses

    def shortcut_request(self, state: CycleState, pod: Pod) -> DryRunShortcut | None:
        """What the accelerator's dry run by arithmetic needs for this cycle, or None when the dry run stays on the
        reference path: the Evaluator does not consult the accelerator (its switch, overridden rules, none on the
        handle), or the accelerator declines the cycle."""
        accelerator = self.evaluator.accelerator(DRY_RUN_RULES)
        if accelerator is None:
            return None
        assert isinstance(accelerator, ResourceAccelerator)
        return accelerator.shortcut_request(self.evaluator, state, pod)

    def post_filter(self, pod: Pod, statuses: NodeToStatus | None = None) -> tuple[Any, Status | None]:
        """Run the plugin's PostFilter for ``pod`` as the scheduler would after Filter."""
        state = self.pre_filter(pod)
        return self.plugin.post_filter(state, pod, statuses if statuses is not None else
                                       self.filter_statuses(pod, state))


def preemption_cluster(nodes: Sequence[Node], pods: Sequence[Pod] = (), *, pdbs: Sequence[PodDisruptionBudget] = (),
                       extra: Sequence[type[Any]] = (), points: Mapping[str, Sequence[str]] | None = None,
                       args: Any = None, seed: int = 0,
                       cluster: InMemoryCluster | None = None) -> PreemptionCluster:
    """Nodes and pods in a cluster (bound pods also in the snapshot, pods with a nominatedNodeName in the
    nominator) and a Framework: NodeResourcesFit at PreFilter and Filter, DefaultPreemption at PostFilter."""
    base = cluster if cluster is not None else InMemoryCluster(VirtualClock(NOW))
    cluster, snapshot = cluster_and_snapshot(nodes, pods, pdbs, cluster=base)
    nominator = Nominator()
    for pod in pods:
        if not pod.spec.node_name and pod.status.nominated_node_name:
            nominator.add_nominated_pod(PodInfo.of(pod))
    chosen: dict[str, Sequence[str]] = {"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"]}
    chosen.update(points or {})
    plugins: dict[str, tuple[PluginEntry, ...]] = {
        "queue-sort": (PluginEntry("PrioritySort"),), "bind": (PluginEntry("DefaultBinder"),),
        "post-filter": (PluginEntry("DefaultPreemption"),)}
    plugins.update({key: tuple(PluginEntry(n) for n in names) for key, names in chosen.items()})
    profile = Profile("default-scheduler", plugins, {"DefaultPreemption": args} if args is not None else {})
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, NodeResourcesFit, DefaultPreemption, *extra)
    framework = Framework(profile, registry, client=cluster, nominator=nominator, rng=random.Random(seed),
                          clock=cluster.clock, snapshot=snapshot)
    # The accelerator the scheduler's fast path hands over (tests of the reference path set it to None).
    framework.handle.accelerator = ResourceAccelerator(framework, snapshot, nominator)
    return PreemptionCluster(cluster, framework, nominator)


def names(pods: Sequence[Pod]) -> list[str]:
    """Pod names, in order."""
    return [p.name for p in pods]

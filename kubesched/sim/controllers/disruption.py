"""The disruption controller and the eviction API: PodDisruptionBudget status kept current, evictions checked
against it.

Status is computed as the disruption controller does: for maxUnavailable and percentage minAvailable the
expected count is the scale of the matching pods' controllers (a Deployment's replicas for the pods of its
ReplicaSets, a ReplicaSet's or StatefulSet's replicas), each controller once; pods of no controller count nothing
(getExpectedScale's unmanaged pods), and a pod of a controller without a scale (a Job, a DaemonSet) fails the
sync as "found no controllers", which leaves the budget fail-safe: no disruption allowed. A pod whose controller
is not simulated (an ownerReference in a manifest) counts one. Healthy pods are bound
and not terminating. The status is recomputed lazily, when the PDBs are next read after a pod changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget, PodDisruptionBudgetStatus
from kubesched.sim.controllers.base import ScaledController, is_available
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.controllers.replicaset import ReplicaSetController
from kubesched.sim.controllers.statefulset import StatefulSetController

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

#: The condition the eviction API adds to an evicted pod.
EVICTION_CONDITION = PodCondition("DisruptionTarget", "True", "EvictionByEvictionAPI",
                                  "Eviction API: evicting")


class DisruptionController:
    """Keeps every PDB's status current from the pods and the controllers' scale.

    Each PDB's matching pods are kept as the pods change, and a PDB's status is recomputed, when the PDBs are
    read, only if one of its pods changed (or a controller's scale did) since.
    """

    def __init__(self, manager: ControllerHost) -> None:
        self.manager = manager
        self._members: dict[tuple[str, str], dict[str, Pod]] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._pdbs_changed = True
        self._scales: tuple[int, ...] = ()
        manager.cluster.pdb_refresher = self.refresh
        manager.cluster.subscribe(self)

    def changed(self) -> None:
        """The PDBs themselves changed (one was added or deleted): recompute everything at the next read."""
        self._pdbs_changed = True

    def refresh(self) -> None:
        """Recompute the status of each PDB whose pods (or whose controllers' scale) changed since the last read."""
        cluster = self.manager.cluster
        if self._pdbs_changed:
            self._pdbs_changed = False
            self._members = {}
            for pdb in cluster.pdbs:
                selector = pdb.selector
                self._members[(pdb.namespace, pdb.name)] = {} if selector is None else {
                    p.uid: p for p in cluster.list_pods_in_namespace(pdb.namespace) if selector.matches(p.labels)}
            self._dirty = set(self._members)
        scales = tuple(c.replicas for c in self.manager.controllers.values() if isinstance(c, ScaledController))
        if scales != self._scales:
            self._scales = scales
            self._dirty = set(self._members)
        if not self._dirty:
            return
        cluster.pdbs = [self._status(pdb) if (pdb.namespace, pdb.name) in self._dirty else pdb
                        for pdb in cluster.pdbs]
        self._dirty.clear()

    def _status(self, pdb: PodDisruptionBudget) -> PodDisruptionBudget:
        matching = sorted(self._members.get((pdb.namespace, pdb.name), {}).values(), key=lambda p: p.uid)
        failed = False
        if pdb.max_unavailable is not None or (pdb.min_available is not None and pdb.min_available.is_percent):
            scale = self._expected_scale(matching)
            failed, expected = scale is None, scale or 0
        else:
            expected = len(matching)
        if pdb.max_unavailable is not None:
            desired = max(0, expected - pdb.max_unavailable.scaled(expected, round_up=True))
        elif pdb.min_available is not None:
            desired = pdb.min_available.scaled(expected, round_up=True)
        else:
            expected = desired = 0
        healthy = sum(1 for p in matching if is_available(p) and p.name not in pdb.status.disrupted_pods)
        allowed = max(0, healthy - desired) if expected > 0 and not failed else 0
        status = PodDisruptionBudgetStatus(allowed, healthy, desired, expected, pdb.status.disrupted_pods)
        return attrs.evolve(pdb, status=status)

    def _expected_scale(self, pods: list[Pod]) -> int | None:
        """getExpectedScale: the sum of the scales of the pods' controllers, each counted once; pods without a
        controller are skipped; None ("found no controllers") when a simulated controller of a pod has no scale."""
        controllers = self.manager.controllers
        seen: set[str] = set()
        total = 0
        for pod in pods:
            ref = next((r for r in pod.metadata.owner_references if r.controller), None)
            controller = controllers.get(ref.uid) if ref is not None else None
            if isinstance(controller, ReplicaSetController):
                parent = next((controllers.get(r.uid) for r in controller.metadata.owner_references if r.controller),
                              None)
                if isinstance(parent, DeploymentController):
                    if parent.metadata.uid not in seen:
                        seen.add(parent.metadata.uid)
                        total += parent.replicas
                    continue
            if isinstance(controller, ReplicaSetController | StatefulSetController):
                if controller.metadata.uid not in seen:
                    seen.add(controller.metadata.uid)
                    total += controller.replicas
                continue
            if controller is not None:
                return None
            if ref is not None:
                total += 1  # a controller outside the simulation (a manifest's ownerReference): its pods count
        return total

    def evict(self, pod: Pod) -> str | None:
        """The eviction API: evict ``pod`` unless a PDB forbids it; returns the refusal, or None once evicted."""
        cluster = self.manager.cluster
        pdbs = [p for p in cluster.list_pdbs() if p.namespace == pod.namespace and p.selector is not None
                and p.selector.matches(pod.labels)]
        if len(pdbs) > 1:
            return "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
        if pdbs and is_available(pod) and (pdbs[0].status.disruptions_allowed or 0) <= 0:
            return "Cannot evict pod as it would violate the pod's disruption budget."
        cluster.delete_pod(pod, condition=EVICTION_CONDITION)
        return None

    # -- the cluster's listener: a pod change may change the budgets that select it ------------------------------
    def _track(self, pod: Pod, present: bool) -> None:
        if self._pdbs_changed:
            return  # rebuilt at the next read
        for pdb in self.manager.cluster.pdbs:
            if pdb.namespace != pod.namespace:
                continue
            key = (pdb.namespace, pdb.name)
            members = self._members.setdefault(key, {})
            if present and pdb.selector is not None and pdb.selector.matches(pod.labels):
                members[pod.uid] = pod
                self._dirty.add(key)
            elif members.pop(pod.uid, None) is not None:
                self._dirty.add(key)

    def on_pod_add(self, pod: Pod) -> None:
        """A pod appeared."""
        self._track(pod, True)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod changed."""
        self._track(new, True)

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod went."""
        self._track(pod, False)

    def on_node_add(self, node: Node) -> None:
        """Nodes do not change budgets."""

    def on_node_update(self, node: Node) -> None:
        """Nodes do not change budgets."""

    def on_node_delete(self, name: str) -> None:
        """Nodes do not change budgets."""

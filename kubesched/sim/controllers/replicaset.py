"""The ReplicaSet controller (ReplicationControllers' too): keeps ``replicas`` active pods, named
``<replicaset>-<5 random characters>``.

As kube's manageReplicas: a terminating pod no longer counts (its replacement is created at once); surplus pods
are deleted unscheduled first, then the newest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kubesched.api.apps import ReplicaSet
from kubesched.api.pod import Pod
from kubesched.sim.cluster import EPOCH
from kubesched.sim.controllers.base import BURST_PODS, ScaledController, is_active, is_available

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost


class ReplicaSetController(ScaledController):
    """A ReplicaSet's controller; ``replicas`` changes when scaled (by a scenario step or its Deployment)."""

    kind = "ReplicaSet"

    def __init__(self, manager: ControllerHost, workload: ReplicaSet) -> None:
        super().__init__(manager, workload.metadata, workload.replicas)
        self.workload = workload
        # A ReplicationController is kept the same way; its pods' owner references and events name it.
        self.kind, self.api_version = workload.kind, workload.api_version


    def active_pods(self) -> list[Pod]:
        """Owned pods that count towards replicas."""
        return [p for p in self.pods() if is_active(p)]

    def available(self) -> int:
        """Pods available (bound), as status.availableReplicas."""
        return sum(1 for p in self.pods() if is_available(p))

    def sync(self) -> None:
        """Create or delete pods so that ``replicas`` are active."""
        active = self.active_pods()
        missing = self.replicas - len(active)
        prefix = f"{self.metadata.name}-"
        self.create_in_batches([self._maker(prefix)] * min(max(missing, 0), BURST_PODS))
        if missing < 0:
            # getPodsToDelete's ranking, simplified: unscheduled before scheduled, then the newest first.
            ranked = sorted(active, key=lambda p: (bool(p.spec.node_name),
                                                   -(p.metadata.creation_timestamp or EPOCH).timestamp(), p.name))
            for pod in ranked[:-missing]:
                self.manager.delete_pod(pod, f"Deleted pod: {pod.name}", self)

    def _maker(self, prefix: str) -> Callable[[], Pod]:
        """Makes a pod of the template under a generated name."""
        return lambda: self.make_pod(self.manager.generate_name(self.metadata.namespace, prefix),
                                     self.workload.template)

    def on_owned_pod_change(self, old: Pod | None, new: Pod | None) -> None:
        """Sync after the controller delay; tell the owning Deployment (it counts available pods)."""
        self.manager.queue(self)
        for ref in self.metadata.owner_references:
            owner = self.manager.controllers.get(ref.uid)
            if owner is not None and ref.controller:
                self.manager.queue(owner)

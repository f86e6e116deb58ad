"""The Deployment controller: one ReplicaSet per pod template, ``<deployment>-<pod-template-hash>``, rolled over
by RollingUpdate within maxSurge/maxUnavailable, or by Recreate.

The rolling rules are the deployment controller's (reconcileNewReplicaSet, reconcileOldReplicaSets with its
cleanup of unhealthy replicas): maxSurge rounds up, maxUnavailable down, and with both 0, maxUnavailable is 1.
A pod is available once bound (readiness is modelled as "bound").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from kubesched.api.apps import RECREATE, Deployment, PodTemplate, ReplicaSet
from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.sim.controllers.base import ScaledController, template_hash
from kubesched.sim.controllers.replicaset import ReplicaSetController

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

#: The label the Deployment controller adds to its ReplicaSets' selector and pods.
POD_TEMPLATE_HASH = "pod-template-hash"


class DeploymentController(ScaledController):
    """A Deployment's controller; ``replicas`` and the template change through scenario steps."""

    kind = "Deployment"

    def __init__(self, manager: ControllerHost, workload: Deployment) -> None:
        super().__init__(manager, workload.metadata, workload.replicas)
        self.workload = workload


    def update(self, workload: Deployment) -> None:
        """A new spec (a new template starts a rollout)."""
        self.workload = attrs.evolve(workload, metadata=self.metadata)
        self.replicas = workload.replicas
        self.manager.queue(self, 0.0)

    def replica_sets(self) -> list[ReplicaSetController]:
        """The ReplicaSets it owns, oldest first."""
        return [c for c in self.manager.children(self.metadata.uid) if isinstance(c, ReplicaSetController)]

    def _new_replica_set(self, owned: list[ReplicaSetController]) -> ReplicaSetController | None:
        template = self.workload.template
        for rs in owned:
            labels = {k: v for k, v in rs.workload.template.metadata.labels.items() if k != POD_TEMPLATE_HASH}
            if labels == dict(template.metadata.labels) and rs.workload.template.spec == template.spec and \
                    rs.workload.template.metadata.annotations == template.metadata.annotations:
                return rs
        return None

    def _create_replica_set(self, replicas: int) -> ReplicaSetController:
        template = self.workload.template
        digest = template_hash(template)
        labels = {**template.metadata.labels, POD_TEMPLATE_HASH: digest}
        selector = LabelSelector(match_labels={**self.workload.selector.match_labels, POD_TEMPLATE_HASH: digest},
                                 match_expressions=self.workload.selector.match_expressions)
        meta = ObjectMeta(name=f"{self.metadata.name}-{digest}", namespace=self.metadata.namespace, labels=labels)
        rs = ReplicaSet(meta, replicas, selector,
                        PodTemplate(attrs.evolve(template.metadata, labels=labels), template.spec, template.duration))
        controller = self.manager.add(rs, owner=self)
        assert isinstance(controller, ReplicaSetController)
        if replicas > 0:  # getNewReplicaSet reports a new ReplicaSet only when it starts with pods
            self.record_event("Normal", "ScalingReplicaSet", f"Scaled up replica set {meta.name} from 0 to {replicas}")
        return controller

    def _scale(self, rs: ReplicaSetController, replicas: int) -> None:
        if replicas == rs.replicas:
            return
        verb = "up" if replicas > rs.replicas else "down"
        self.record_event("Normal", "ScalingReplicaSet",
                          f"Scaled {verb} replica set {rs.metadata.name} from {rs.replicas} to {replicas}")
        rs.scale(replicas)

    def sync(self) -> None:
        """One step of the rollout (or of Recreate)."""
        owned = self.replica_sets()
        new = self._new_replica_set(owned)
        old = [rs for rs in owned if rs is not new]
        if self.workload.strategy == RECREATE:
            self._recreate(new, old)
            return
        surge = self.workload.max_surge.scaled(self.replicas, round_up=True)
        unavailable = self.workload.max_unavailable.scaled(self.replicas, round_up=False)
        if surge == 0 and unavailable == 0:
            unavailable = 1
        total = sum(rs.replicas for rs in owned)
        if new is None:
            # NewRSNewReplicas: as many as the surge allows, and all of them when nothing else runs.
            room = min(self.replicas + surge - total, self.replicas) if old else self.replicas
            new = self._create_replica_set(max(room, 0))
        elif new.replicas > self.replicas:
            self._scale(new, self.replicas)
        elif new.replicas < self.replicas:
            room = min(self.replicas + surge - total, self.replicas - new.replicas)
            if room > 0:
                self._scale(new, new.replicas + room)
        self._scale_down_old(new, old, unavailable)

    def _scale_down_old(self, new: ReplicaSetController, old: list[ReplicaSetController], unavailable: int) -> None:
        """reconcileOldReplicaSets: never below replicas - maxUnavailable available pods."""
        old = [rs for rs in old if rs.replicas > 0]
        if not old:
            return
        all_pods = new.replicas + sum(rs.replicas for rs in old)
        min_available = self.replicas - unavailable
        new_unavailable = new.replicas - new.available()
        budget = all_pods - min_available - new_unavailable
        if budget <= 0:
            return
        # cleanupUnhealthyReplicas: first the old pods that are not available anyway.
        for rs in old:
            unhealthy = rs.replicas - rs.available()
            cut = min(budget, unhealthy)
            if cut > 0:
                self._scale(rs, rs.replicas - cut)
                budget -= cut
            if budget <= 0:
                return
        available = new.available() + sum(min(rs.available(), rs.replicas) for rs in old)
        remaining = available - min_available
        for rs in old:
            if remaining <= 0:
                break
            cut = min(rs.replicas, remaining)
            if cut > 0:
                self._scale(rs, rs.replicas - cut)
                remaining -= cut

    def _recreate(self, new: ReplicaSetController | None, old: list[ReplicaSetController]) -> None:
        """Recreate: scale every old ReplicaSet to 0, wait until their pods are gone, then run the new one."""
        for rs in old:
            self._scale(rs, 0)
        if any(rs.pods() for rs in old):
            return
        if new is None:
            self._create_replica_set(self.replicas)
        else:
            self._scale(new, self.replicas)

    def delete(self) -> None:
        """Deleting a Deployment deletes its ReplicaSets and their pods."""
        self.deleted = True
        for rs in self.replica_sets():
            self.manager.remove(rs)

"""The StatefulSet controller: pods ``<statefulset>-<ordinal>``.

OrderedReady (the default) creates ordinal i+1 only once ordinals 0..i are running (bound, as kubesched models
readiness) and removes the highest ordinal first, one at a time; Parallel creates and removes them all at once.
A pod's replacement keeps its name, so it is created only once the old pod is gone (not merely terminating).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesched.api.apps import PARALLEL, StatefulSet
from kubesched.api.pod import Pod
from kubesched.sim.controllers.base import ScaledController, is_available

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


class StatefulSetController(ScaledController):
    """A StatefulSet's controller."""

    kind = "StatefulSet"

    def __init__(self, manager: ControllerHost, workload: StatefulSet) -> None:
        super().__init__(manager, workload.metadata, workload.replicas)
        self.workload = workload


    def created_message(self, pod: Pod) -> str:
        """The StatefulSet controller's own words (recordPodEvent)."""
        return f"create Pod {pod.name} in StatefulSet {self.metadata.name} successful"

    def failed_create_message(self, pod: Pod, error: str) -> str:
        """The StatefulSet controller's own words (recordPodEvent)."""
        return f"create Pod {pod.name} in StatefulSet {self.metadata.name} failed error: {error}"

    def _ordinal(self, pod: Pod) -> int | None:
        prefix = f"{self.metadata.name}-"
        tail = pod.name[len(prefix):]
        return int(tail) if pod.name.startswith(prefix) and tail.isdigit() else None

    def sync(self) -> None:
        """Create the missing ordinals below ``replicas`` and delete those at or above it, in order."""
        by_ordinal = {o: p for p in self.pods() if (o := self._ordinal(p)) is not None}
        ordered = self.workload.pod_management_policy != PARALLEL
        for ordinal in range(self.replicas):
            pod = by_ordinal.get(ordinal)
            if pod is None:
                name = f"{self.metadata.name}-{ordinal}"
                if self.manager.cluster.get_pod(self.metadata.namespace, name) is None:
                    self.create_pod(self.make_pod(name, self.workload.template,
                                                  {POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)}))
                if ordered:
                    return
            elif ordered and not is_available(pod):
                return  # wait until it is running (or, terminating, gone)
        surplus = sorted((o for o in by_ordinal if o >= self.replicas), reverse=True)
        for ordinal in surplus:
            pod = by_ordinal[ordinal]
            if pod.metadata.deletion_timestamp is None:
                self.manager.delete_pod(pod, f"delete Pod {pod.name} in StatefulSet {self.metadata.name} "
                                             "successful", self)
            if ordered:
                return

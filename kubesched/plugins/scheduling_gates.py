"""SchedulingGates (PreEnqueue): a pod with spec.schedulingGates stays out of the active queue."""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    Plugin,
    QueueingHint,
    Status,
    hookimpl,
)

NAME = "SchedulingGates"


class SchedulingGates(Plugin):
    """Gates pods until every scheduling gate is removed (pods are released by an update of the pod)."""

    name = NAME

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Only the removal of the pod's last gate releases it."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                                     self.hint_gates_eliminated)]

    def hint_gates_eliminated(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the pod whose gates are gone is the gated pod itself."""
        return QueueingHint.QUEUE if new_obj is not None and new_obj.uid == pod.uid else QueueingHint.QUEUE_SKIP

    @hookimpl
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """UnschedulableAndUnresolvable ``waiting for scheduling gates: [g1 g2]`` while gates remain."""
        gates = pod.spec.scheduling_gates
        if not gates:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"waiting for scheduling gates: [{' '.join(gates)}]",),
                      NAME)

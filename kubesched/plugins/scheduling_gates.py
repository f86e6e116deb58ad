"""SchedulingGates (PreEnqueue): a pod with spec.schedulingGates stays out of the active queue."""

from __future__ import annotations

from kubesched.api.pod import Pod
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.status import Code, Status

NAME = "SchedulingGates"


class SchedulingGates(Plugin):
    """Gates pods until every scheduling gate is removed (pods are released by an update of the pod)."""

    name = NAME

    @hookimpl
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """UnschedulableAndUnresolvable ``waiting for scheduling gates: [g1 g2]`` while gates remain."""
        gates = pod.spec.scheduling_gates
        if not gates:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"waiting for scheduling gates: [{' '.join(gates)}]",),
                      NAME)

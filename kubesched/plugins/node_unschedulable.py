"""NodeUnschedulable (Filter): cordoned nodes take only pods that tolerate the unschedulable taint."""

from __future__ import annotations

from kubesched.api.node import NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE
from kubesched.api.pod import Pod
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.status import Status

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_REJECTED = Status.unresolvable(ERR_REASON_UNSCHEDULABLE).with_plugin("NodeUnschedulable")


class NodeUnschedulable(Plugin):
    """Rejects nodes with spec.unschedulable unless the pod tolerates node.kubernetes.io/unschedulable."""

    name = "NodeUnschedulable"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable on a cordoned node the pod does not tolerate."""
        node = node_info.node
        if node is None or not node.spec.unschedulable:
            return None
        for toleration in pod.spec.tolerations:
            if toleration.tolerates(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE):
                return None
        return _REJECTED

"""NodeUnschedulable (Filter): cordoned nodes take only pods that tolerate the unschedulable taint."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE, Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    NodeBatch,
    NodeInfo,
    Plugin,
    QueueingHint,
    Status,
    hookimpl,
)

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_REJECTED = Status.unresolvable(ERR_REASON_UNSCHEDULABLE).with_plugin("NodeUnschedulable")
#: The columns' categories marking cordoned nodes (True; None for the others).
_CORDONED_INDEX = ("NodeUnschedulable", "cordoned")


def _cordoned(node_info: NodeInfo) -> bool | None:
    node = node_info.node
    return True if node is not None and node.spec.unschedulable else None


class NodeUnschedulable(Plugin):
    """Rejects nodes with spec.unschedulable unless the pod tolerates node.kubernetes.io/unschedulable."""

    name = "NodeUnschedulable"
    #: Filter reads only the Node object, so the runtime may overlay nominated pods' requests on the columns.
    filter_reads = FilterReads.NODE

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A schedulable node added or uncordoned (an UpdateNodeTaint event), or the pod's own new tolerations."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                                     self.hint_node_changed),
                ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
                                     self.hint_pod_tolerations_changed)]

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when a schedulable node is added, or a cordoned node is uncordoned."""
        if new_obj is None:
            return QueueingHint.QUEUE
        if not new_obj.spec.unschedulable and (old_obj is None or old_obj.spec.unschedulable):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_pod_tolerations_changed(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the rejected pod itself now tolerates the node.kubernetes.io/unschedulable taint."""
        if new_obj is not None and new_obj.uid == pod.uid and _tolerates_cordon(new_obj):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable on a cordoned node the pod does not tolerate."""
        node = node_info.node
        if node is None or not node.spec.unschedulable or _tolerates_cordon(pod):
            return None
        return _REJECTED

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch: cordoned ones are rejected unless the pod tolerates it."""
        codes, marks = node_batch.columns.categories(_CORDONED_INDEX, _cordoned)
        if not marks or _tolerates_cordon(pod):
            return None
        return np.where(node_batch.column(codes) >= 0, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                        np.int8(Code.SUCCESS))


def _tolerates_cordon(pod: Pod) -> bool:
    """Whether the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint."""
    return any(t.tolerates(TAINT_NODE_UNSCHEDULABLE, "", NO_SCHEDULE) for t in pod.spec.tolerations)

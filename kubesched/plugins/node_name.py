"""NodeName (Filter): a pod that names a node in spec.nodeName fits only there."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Node, Pod
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

ERR_REASON = "node(s) didn't match the requested node name"
_REJECTED = Status.unresolvable(ERR_REASON).with_plugin("NodeName")


class NodeName(Plugin):
    """Rejects every node but the one in spec.nodeName, if the pod names one."""

    name = "NodeName"
    #: Filter reads only the Node object, so the runtime may overlay nominated pods' requests on the columns.
    filter_reads = FilterReads.NODE

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Only a new node can be the one the pod names."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD), self.hint_node_added)]

    def hint_node_added(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when the added node is the one in the pod's spec.nodeName (or the pod names none)."""
        wanted = pod.spec.node_name
        if new_obj is None or not wanted or wanted == new_obj.name:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable on any other node."""
        wanted = pod.spec.node_name
        if not wanted or node_info.node is None or wanted == node_info.node.name:
            return None
        return _REJECTED

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch: every node but the named one is rejected."""
        wanted = pod.spec.node_name
        if not wanted:
            return None
        position = node_batch.columns.position.get(wanted, -1)
        return np.where(node_batch.positions == position, np.int8(Code.SUCCESS),
                        np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))

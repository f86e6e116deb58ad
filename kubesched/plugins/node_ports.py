"""NodePorts: a pod fits a node only if none of its host ports is already taken there.

PreFilter collects the pod's wanted host ports (its containers' ports with a hostPort: kube-scheduler v1.32 counts
no init container's, not even a sidecar's); Filter checks them against ``NodeInfo.used_ports``, a set per node as in
v1.32 (removing one of two pods holding a port frees it), also of containers' ports only. There are no PreFilter
extensions: the answer depends only on the NodeInfo, which the framework updates itself when it adds or removes
pods on a clone (nominated pods, preemption dry runs). Without PreFilter's state (PreFilter disabled in the
profile) Filter is an Error, as in v1.32. The batch form checks the wanted ports once per distinct set of used
ports among the nodes (kept by the columns as categories; nodes without used ports always pass).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    HostPort,
    HostPortInfo,
    NodeBatch,
    NodeInfo,
    Plugin,
    QueueingHint,
    StateKey,
    StateNotFoundError,
    Status,
    hookimpl,
    pod_host_ports,
)

NAME = "NodePorts"
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"

_REJECT = Status.unschedulable(ERR_REASON).with_plugin(NAME)
# The wanted ports are immutable, so a cloned CycleState may share them.
_PRE_FILTER_KEY = StateKey[tuple[HostPort, ...]]("PreFilterNodePorts")
#: Filter's Error without PreFilter's state (PreFilter disabled in the profile), in kube-scheduler v1.32's words.
NO_PRE_FILTER_STATE = f'reading "{_PRE_FILTER_KEY.name}" from cycleState: not found'
#: The columns' categories of the nodes' used ports, frozen (None for a node using none).
_USED_PORTS_INDEX = (NAME, "used")
UsedPorts = frozenset[tuple[str, frozenset[tuple[str, int]]]]


def _used_ports(node_info: NodeInfo) -> UsedPorts | None:
    ports = node_info.used_ports.ports
    return frozenset((ip, frozenset(used)) for ip, used in ports.items() if used) if ports else None


def fits_ports(wanted: tuple[HostPort, ...], used: HostPortInfo) -> bool:
    """Whether none of the ``wanted`` (host IP, protocol, port) triples clashes with the ports in ``used``."""
    return not any(used.conflicts(ip, protocol, port) for ip, protocol, port in wanted)


class NodePorts(Plugin):
    """Rejects nodes where a host port the pod asks for is already in use (Unschedulable: preemption can free it)."""

    name = NAME

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A deleted pod may free a port the pod wants; a new node has all ports free (always Queue)."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.hint_pod_deleted),
                ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]

    def hint_pod_deleted(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the deleted pod was bound and held a host port that clashes with one the pod wants."""
        if old_obj is None:
            return QueueingHint.QUEUE
        if not old_obj.spec.node_name:
            return QueueingHint.QUEUE_SKIP
        freed = pod_host_ports(old_obj)
        if not freed:
            return QueueingHint.QUEUE_SKIP
        used = HostPortInfo()
        for ip, protocol, port in freed:
            used.add(ip, protocol, port)
        return QueueingHint.QUEUE_SKIP if fits_ports(pod_host_ports(pod), used) else QueueingHint.QUEUE

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Record the pod's host ports; Skip (no Filter) when it asks for none."""
        wanted = pod_host_ports(pod)
        if not wanted:
            return Status.skip()
        state.write(_PRE_FILTER_KEY, wanted)
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable when any wanted host port conflicts with one used on the node; an Error without PreFilter's
        state."""
        wanted = state.get(_PRE_FILTER_KEY)
        if wanted is None:
            return Status.as_error(NO_PRE_FILTER_STATE)
        if fits_ports(wanted, node_info.used_ports):
            return None
        return _REJECT

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch, decided once per distinct set of used ports."""
        wanted = state.get(_PRE_FILTER_KEY)
        if wanted is None:
            raise StateNotFoundError(NO_PRE_FILTER_STATE)
        codes, used_sets = node_batch.columns.categories(_USED_PORTS_INDEX, _used_ports)
        if not used_sets:
            return None
        rejected = [not fits_ports(wanted, HostPortInfo({ip: set(used) for ip, used in ports}))
                    for ports in used_sets]
        if not any(rejected):
            return None
        # table[code] answers for a node with that set of used ports; table[-1] for a node using none.
        table = np.zeros(len(used_sets) + 1, dtype=np.int8)
        table[:-1][rejected] = Code.UNSCHEDULABLE
        out: npt.NDArray[np.int8] = table[node_batch.column(codes)]
        return out

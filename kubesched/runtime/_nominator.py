"""The nominator: pods nominated to nodes (status.nominatedNodeName), tracked per node."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeColumns
from kubesched.framework._node_info import PodInfo
from kubesched.framework._types import NominatingInfo, NominatingMode

#: Rows of :meth:`Nominator.nominated_sums`' array: how many pods, then their requested cpu, memory and ephemeral
#: storage, then their non-zero cpu and memory.
SUM_ROWS = 6
# How many changes the log keeps before the per-priority sums rebuild instead of catching up.
_MAX_LOG = 4096


class _Sums:
    """For one priority, per node the nominated pods of at least that priority and their summed requests over a
    snapshot's node positions, caught up on the nodes whose nominations changed."""

    __slots__ = ("columns", "extra", "pods", "position", "priority", "scalars", "shared", "synced")

    def __init__(self, priority: int, columns: NodeColumns, synced: int) -> None:
        self.priority = priority
        self.columns = columns
        self.position = columns.position
        self.extra: IntArray = np.zeros((SUM_ROWS, len(columns)), dtype=np.int64)
        self.pods: dict[str, tuple[PodInfo, ...]] = {}
        #: Nodes whose counted pods request an extended or scalar resource (the sums leave those out).
        self.scalars: set[str] = set()
        self.synced = synced
        #: Whether ``pods`` and ``extra`` were handed out: they are then copied before the next change.
        self.shared = False

    def set_node(self, name: str, nominated: Sequence[PodInfo]) -> None:
        if self.shared:
            self.pods, self.extra, self.shared = dict(self.pods), self.extra.copy(), False
        relevant = tuple(pi for pi in nominated if pi.pod.priority >= self.priority)
        at = self.columns.position.get(name)
        self.scalars.discard(name)
        if relevant:
            self.pods[name] = relevant
            if any(pi.requests.scalar_resources for pi in relevant):
                self.scalars.add(name)
        else:
            self.pods.pop(name, None)
        if at is not None:
            self.extra[:, at] = _row(relevant)


def _row(pods: Sequence[PodInfo]) -> tuple[int, ...]:
    """A node's column of the sums: count, requested cpu/memory/storage, non-zero cpu/memory."""
    return (len(pods), sum(pi.requests.milli_cpu for pi in pods), sum(pi.requests.memory for pi in pods),
            sum(pi.requests.ephemeral_storage for pi in pods), sum(pi.non_zero_requests.milli_cpu for pi in pods),
            sum(pi.non_zero_requests.memory for pi in pods))


class Nominator:
    """Which pods wait for room on which node, so other pods do not take that room first."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}
        # Nodes whose nominations changed, in order, for the per-priority sums to catch up on; the log starts at
        # change number ``_log_base``.
        self._log: list[str] = []
        self._log_base = 0
        self._sums: dict[int, _Sums] = {}

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        """Record a nomination: the Override node, else the pod's own status.nominatedNodeName.

        Any previous nomination of the pod is dropped first; an empty node name just clears it.
        """
        pod = pod_info.pod
        self.delete_nominated_pod_if_exists(pod)
        if nominating_info is not None and nominating_info.mode is NominatingMode.OVERRIDE:
            node = nominating_info.nominated_node_name
        else:
            node = pod.status.nominated_node_name
        if not node or pod.spec.node_name:
            return
        self._node_of[pod.uid] = node
        self._by_node.setdefault(node, []).append(pod_info)
        self._changed(node)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        """Forget the pod's nomination, if any."""
        node = self._node_of.pop(pod.uid, None)
        if node is None:
            return
        remaining = [p for p in self._by_node.get(node, []) if p.pod.uid != pod.uid]
        if remaining:
            self._by_node[node] = remaining
        else:
            self._by_node.pop(node, None)
        self._changed(node)

    def _changed(self, node: str) -> None:
        if not self._sums:
            return
        self._log.append(node)
        if len(self._log) > _MAX_LOG:
            # Drop the changes every kept sum has caught up on; only when some sum lags further does it rebuild.
            seen = min(sums.synced for sums in self._sums.values()) - self._log_base
            if seen > 0:
                del self._log[:seen]
                self._log_base += seen
            if len(self._log) > _MAX_LOG:
                self._log_base += len(self._log)
                self._log.clear()

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        """Follow a pod update; a nomination held only in memory survives updates that carry none."""
        node = self._node_of.get(old.uid)
        info = None
        if node and not old.status.nominated_node_name and not new_pod_info.pod.status.nominated_node_name:
            info = NominatingInfo(node, NominatingMode.OVERRIDE)
        self.add_nominated_pod(new_pod_info, info)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name``, in nomination order."""
        return list(self._by_node.get(node_name, ()))

    def nominated_node_of(self, pod: Pod) -> str:
        """The node the pod is nominated to, or ""."""
        return self._node_of.get(pod.uid, "")

    def nominated_node_names(self) -> list[str]:
        """The nodes that have nominated pods."""
        return list(self._by_node)

    def has_nominations(self) -> bool:
        """Whether any pod is nominated anywhere (lets Filter skip the two-pass path cheaply)."""
        return bool(self._node_of)

    def nominated_sums(self, pod: Pod, columns: NodeColumns
                       ) -> tuple[Mapping[str, tuple[PodInfo, ...]], IntArray] | None:
        """The pods the two-pass filter adds for ``pod`` (other pods of at least its priority), by node, and per
        node position of ``columns`` their count and summed requests (rows: see :data:`SUM_ROWS`); None when one
        of them requests an extended or scalar resource (callers then add the pods one by one).

        Kept per priority and caught up on the nodes whose nominations changed, so a cycle pays for the changes
        rather than for every nominated node. Both results are snapshots the caller must not change: later
        nominations do not change them (the sums copy themselves before changing what they handed out)."""
        now = self._log_base + len(self._log)
        sums = self._sums.get(pod.priority)
        if sums is None or sums.columns is not columns or sums.position is not columns.position \
                or sums.extra.shape[1] != len(columns) or sums.synced < self._log_base:
            if sums is None and len(self._sums) >= 8:
                self._sums.pop(next(iter(self._sums)))
            if not self._sums:
                self._log_base, self._log = now, []
            sums = self._sums[pod.priority] = _Sums(pod.priority, columns, now)
            for name, nominated in self._by_node.items():
                sums.set_node(name, nominated)
        elif sums.synced < now:
            for name in dict.fromkeys(self._log[sums.synced - self._log_base:]):
                sums.set_node(name, self._by_node.get(name, ()))
            sums.synced = now
        sums.shared = True  # handed out: the next change copies them first
        pods: Mapping[str, tuple[PodInfo, ...]] = sums.pods
        extra = sums.extra.view()
        extra.flags.writeable = False
        own = self._node_of.get(pod.uid)
        if own is not None and own in pods:
            mine = dict(pods)
            others = tuple(pi for pi in mine[own] if pi.pod.uid != pod.uid)
            if others:
                mine[own] = others
            else:
                del mine[own]
            pods = mine
            at = columns.position.get(own)
            if at is not None:
                extra = extra.copy()
                extra[:, at] = _row(others)
        if any(pi.requests.scalar_resources for name in sums.scalars for pi in pods.get(name, ())):
            return None
        return pods, extra

"""The nominator: pods nominated to nodes (status.nominatedNodeName), tracked per node."""

from __future__ import annotations

from kubesched.api.pod import Pod
from kubesched.framework.node_info import PodInfo
from kubesched.framework.types import NominatingInfo, NominatingMode


class Nominator:
    """Which pods wait for room on which node, so other pods do not take that room first."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}

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

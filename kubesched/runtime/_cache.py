"""The scheduler cache: live NodeInfos, assumed pods, and the incremental snapshot they feed."""

from __future__ import annotations

from collections import OrderedDict

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._node_info import ImageStateSummary, NodeInfo, PodInfo
from kubesched.runtime._snapshot import NodeSnapshot

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
BETA_ZONE_LABEL = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION_LABEL = "failure-domain.beta.kubernetes.io/region"


def zone_key(node: Node) -> str:
    """The node's region and zone as one key ("" when it has neither), as utilnode.GetZoneKey."""
    labels = node.labels
    zone = labels.get(ZONE_LABEL, labels.get(BETA_ZONE_LABEL, ""))
    region = labels.get(REGION_LABEL, labels.get(BETA_REGION_LABEL, ""))
    if not zone and not region:
        return ""
    return f"{region}:\x00:{zone}"


@attrs.define(slots=True)
class NodeTree:
    """Node names grouped by zone; :meth:`list` interleaves zones so early nodes span many zones."""

    zones: list[str] = attrs.field(factory=list)
    tree: dict[str, list[str]] = attrs.field(factory=dict)
    # Every node name in the tree, so adding a node is O(1) rather than a scan of its zone's list.
    members: set[str] = attrs.field(factory=set)

    def add(self, node: Node) -> None:
        """Add a node (no-op when already present)."""
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = [node.name]
            self.members.add(node.name)
        elif node.name not in self.members:
            names.append(node.name)
            self.members.add(node.name)

    def remove(self, node: Node) -> None:
        """Remove a node; an emptied zone disappears."""
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names is None or node.name not in self.members or node.name not in names:
            return
        names.remove(node.name)
        self.members.discard(node.name)
        if not names:
            del self.tree[zone]
            self.zones.remove(zone)

    def update(self, old: Node, new: Node) -> None:
        """Move a node whose zone labels changed."""
        if zone_key(old) != zone_key(new):
            self.remove(old)
            self.add(new)

    def list(self) -> list[str]:
        """All node names, taking one from each zone in turn."""
        out: list[str] = []
        columns = [self.tree[z] for z in self.zones]
        depth = max((len(c) for c in columns), default=0)
        for i in range(depth):
            out.extend(c[i] for c in columns if i < len(c))
        return out


@attrs.define(slots=True)
class _PodState:
    pod_info: PodInfo
    node_name: str
    assumed: bool = False
    binding_finished: bool = False


class CacheError(RuntimeError):
    """An inconsistent cache operation (a bug in the caller, never a user error)."""


class Cache:
    """Live cluster state as the scheduler sees it: bound and assumed pods per node.

    NodeInfos are kept in least-recently-updated order so :meth:`update_snapshot` only visits nodes that
    changed since the previous snapshot. Assumed pods never expire (kube-scheduler's TTL is 0).
    """

    def __init__(self) -> None:
        self._nodes: OrderedDict[str, NodeInfo] = OrderedDict()
        self._tree = NodeTree()
        self._pods: dict[str, _PodState] = {}
        self._images: dict[str, ImageStateSummary] = {}
        # Bumped whenever the set of nodes or their zone order changes; snapshots rebuild their lists then.
        self._tree_version = 0

    # -- nodes -------------------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        """Add (or re-add) a node."""
        info = self._nodes.get(node.name)
        if info is None:
            info = NodeInfo()
            self._nodes[node.name] = info
        if info.node is not None:
            self._remove_images(info.node)
            self._tree.update(info.node, node)
        else:
            self._tree.add(node)
        info.set_node(node)
        self._add_images(node, info)
        self._nodes.move_to_end(node.name)
        self._tree_version += 1

    def update_node(self, node: Node) -> None:
        """Replace a node object (labels, taints, allocatable may change)."""
        info = self._nodes.get(node.name)
        if info is None or info.node is None:
            self.add_node(node)
            return
        old = info.node
        self._remove_images(old)
        info.set_node(node)
        self._add_images(node, info)
        self._tree.update(old, node)
        self._nodes.move_to_end(node.name)
        self._tree_version += 1

    def remove_node(self, name: str) -> None:
        """Remove a node; its NodeInfo lingers as a ghost while pods remain on it."""
        info = self._nodes.get(name)
        if info is None or info.node is None:
            return
        self._remove_images(info.node)
        self._tree.remove(info.node)
        if info.pods:
            info.remove_node()
            self._nodes.move_to_end(name)
        else:
            del self._nodes[name]
        self._tree_version += 1

    def _add_images(self, node: Node, info: NodeInfo) -> None:
        states: dict[str, ImageStateSummary] = {}
        for image in node.status.images:
            for name in image.names:
                state = self._images.get(name)
                if state is None:
                    state = self._images[name] = ImageStateSummary(image.size_bytes)
                state.nodes.add(node.name)
                states.setdefault(name, state)
        info.image_states = states

    def _remove_images(self, node: Node) -> None:
        for image in node.status.images:
            for name in image.names:
                state = self._images.get(name)
                if state is None:
                    continue
                state.nodes.discard(node.name)
                if not state.nodes:
                    del self._images[name]

    # -- pods --------------------------------------------------------------------------------------
    def _node_info_for(self, name: str) -> NodeInfo:
        info = self._nodes.get(name)
        if info is None:  # a pod on a node the cache has not seen yet: a ghost until the node arrives
            info = self._nodes[name] = NodeInfo(node=None, name=name)
        return info

    def _add_to_node(self, pod_info: PodInfo, node_name: str) -> None:
        self._node_info_for(node_name).add_pod(pod_info)
        self._nodes.move_to_end(node_name)

    def _remove_from_node(self, pod: Pod, node_name: str) -> None:
        info = self._nodes.get(node_name)
        if info is None:
            return
        info.remove_pod(pod)
        if info.node is None and not info.pods:
            del self._nodes[node_name]
        else:
            self._nodes.move_to_end(node_name)

    def assume_pod(self, pod_info: PodInfo) -> None:
        """Account a pod on its spec.nodeName before binding completes."""
        pod = pod_info.pod
        if pod.uid in self._pods:
            raise CacheError(f"pod {pod.key} is already in the cache, so can't be assumed")
        self._add_to_node(pod_info, pod.spec.node_name)
        self._pods[pod.uid] = _PodState(pod_info, pod.spec.node_name, assumed=True)

    def finish_binding(self, pod: Pod) -> None:
        """Mark an assumed pod's binding as done."""
        state = self._pods.get(pod.uid)
        if state is not None and state.assumed:
            state.binding_finished = True

    def forget_pod(self, pod: Pod) -> None:
        """Undo :meth:`assume_pod`."""
        state = self._pods.get(pod.uid)
        if state is None or not state.assumed:
            raise CacheError(f"pod {pod.key} wasn't assumed so cannot be forgotten")
        self._remove_from_node(state.pod_info.pod, state.node_name)
        del self._pods[pod.uid]

    def is_assumed_pod(self, pod: Pod) -> bool:
        """Whether the pod is assumed and not yet confirmed by the cluster."""
        state = self._pods.get(pod.uid)
        return state is not None and state.assumed

    def add_pod(self, pod: Pod) -> None:
        """A bound pod appeared in the cluster (or an assumed one was confirmed)."""
        state = self._pods.get(pod.uid)
        info = state.pod_info.for_pod(pod) if state is not None else PodInfo.of(pod)
        if state is not None:
            self._remove_from_node(state.pod_info.pod, state.node_name)
        self._add_to_node(info, pod.spec.node_name)
        self._pods[pod.uid] = _PodState(info, pod.spec.node_name)

    def update_pod(self, pod: Pod) -> None:
        """A bound pod changed."""
        self.add_pod(pod)

    def remove_pod(self, pod: Pod) -> None:
        """A bound pod is gone."""
        state = self._pods.pop(pod.uid, None)
        if state is not None:
            self._remove_from_node(state.pod_info.pod, state.node_name)

    def get_pod(self, uid: str) -> Pod | None:
        """The cached version of a pod."""
        state = self._pods.get(uid)
        return state.pod_info.pod if state else None

    def pod_count(self) -> int:
        """Pods in the cache, assumed ones included."""
        return len(self._pods)

    def node_info(self, name: str) -> NodeInfo | None:
        """The live NodeInfo of a node (not a snapshot copy)."""
        return self._nodes.get(name)

    # -- snapshot ----------------------------------------------------------------------------------
    def update_snapshot(self, snapshot: NodeSnapshot) -> None:
        """Bring ``snapshot`` up to date, copying only NodeInfos changed since its generation."""
        update_all = snapshot.tree_version != self._tree_version
        update_affinity = False
        newest = snapshot.generation
        changed: list[NodeInfo] = []  # rows to refresh once the node set is followed (see below)
        for name in reversed(self._nodes):
            info = self._nodes[name]
            if info.generation <= snapshot.generation:
                break
            newest = max(newest, info.generation)
            if info.node is None:
                continue
            existing = snapshot.node_info_map.get(name)
            if existing is None:
                update_all = True
                snapshot.node_info_map[name] = info.clone()
                continue
            if (bool(existing.pods_with_affinity) != bool(info.pods_with_affinity)
                    or bool(existing.pods_with_required_anti_affinity)
                    != bool(info.pods_with_required_anti_affinity)):
                update_affinity = True
            existing.copy_from(info)
            if not update_all:
                snapshot.columns.update(existing)
            else:
                changed.append(existing)
        snapshot.generation = newest
        if update_all:
            live = {n for n, info in self._nodes.items() if info.node is not None}
            for gone in [n for n in snapshot.node_info_map if n not in live]:
                del snapshot.node_info_map[gone]
            snapshot.node_info_list = [snapshot.node_info_map[n] for n in self._tree.list()]
            snapshot.tree_version = self._tree_version
            # One node added or removed (or none, a node object changed): one row moves, the indexes stay.
            if snapshot.columns.follow(snapshot.node_info_list):
                for existing in changed:
                    snapshot.columns.update(existing)
            else:
                snapshot.columns.rebuild(snapshot.node_info_list)
            update_affinity = True
        if update_affinity:
            snapshot.rebuild_affinity_lists()

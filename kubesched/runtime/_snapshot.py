"""The runtime's snapshot: every node's NodeInfo by name and in scheduling order, the affinity sub-lists and the
columns, refreshed incrementally by the cache before each cycle; plugins read it as a
:class:`~kubesched.framework.Snapshot`."""

from __future__ import annotations

import attrs

from kubesched.framework._node_info import NodeInfo
from kubesched.runtime._columns import ColumnStore


@attrs.define(slots=True, eq=False)
class NodeSnapshot:
    """NodeInfos by name and in scheduling order (zones interleaved), plus the affinity sub-lists.

    The cache refreshes it incrementally before each cycle (:meth:`Cache.update_snapshot`); plugins must
    treat it as read-only.
    """

    node_info_map: dict[str, NodeInfo] = attrs.field(factory=dict)
    node_info_list: list[NodeInfo] = attrs.field(factory=list)
    # The affinity sub-lists, built when first read after a change (None: stale); most cycles never read them.
    _with_affinity: list[NodeInfo] | None = attrs.field(default=None, alias="_with_affinity")
    _with_required_anti_affinity: list[NodeInfo] | None = attrs.field(default=None,
                                                                      alias="_with_required_anti_affinity")
    generation: int = 0
    #: The cache's node-set version the lists were built from (-1: never built).
    tree_version: int = -1
    #: The same nodes as numpy columns by position in :attr:`node_info_list` (for batch Filter and Score forms).
    columns: ColumnStore = attrs.field(factory=ColumnStore)

    @classmethod
    def of(cls, node_infos: list[NodeInfo]) -> NodeSnapshot:
        """A snapshot over the given NodeInfos, in the given order (for tests and tools)."""
        snapshot = cls({ni.name: ni for ni in node_infos}, list(node_infos))
        snapshot.rebuild_affinity_lists()
        snapshot.columns.rebuild(snapshot.node_info_list)
        return snapshot

    def rebuild_affinity_lists(self) -> None:
        """Note that which nodes hold pods with (anti-)affinity may have changed; the lists are rebuilt when read."""
        self._with_affinity = None
        self._with_required_anti_affinity = None

    @property
    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """The nodes holding pods with pod affinity or anti-affinity, in scheduling order."""
        if self._with_affinity is None:
            self._with_affinity = [ni for ni in self.node_info_list if ni.pods_with_affinity]
        return self._with_affinity

    @property
    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        """The nodes holding pods with required pod anti-affinity, in scheduling order."""
        if self._with_required_anti_affinity is None:
            self._with_required_anti_affinity = [ni for ni in self.node_info_list
                                                 if ni.pods_with_required_anti_affinity]
        return self._with_required_anti_affinity

    def list(self) -> list[NodeInfo]:
        """Every node, in scheduling order."""
        return self.node_info_list

    def get(self, name: str) -> NodeInfo | None:
        """The NodeInfo of a node, or None."""
        return self.node_info_map.get(name)

    def num_nodes(self) -> int:
        """How many nodes the snapshot holds."""
        return len(self.node_info_list)

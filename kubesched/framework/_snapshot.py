"""Snapshot: the per-cycle, read-only view of every node that plugins see (kube-scheduler's SharedLister)."""

from __future__ import annotations

from typing import Protocol

from kubesched.framework._columns import NodeColumns
from kubesched.framework._node_info import NodeInfo


class Snapshot(Protocol):
    """Every node's NodeInfo by name and in scheduling order (zones interleaved), the nodes holding pods with
    (anti-)affinity, and the same nodes as numpy columns. The runtime refreshes it before each cycle; plugins must
    treat it, and every NodeInfo in it, as read-only."""

    @property
    def columns(self) -> NodeColumns:
        """The same nodes as numpy columns by position in :meth:`list` (for batch forms)."""

    @property
    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """The nodes holding pods with pod affinity or anti-affinity, in scheduling order."""

    @property
    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        """The nodes holding pods with required pod anti-affinity, in scheduling order."""

    def list(self) -> list[NodeInfo]:
        """Every node, in scheduling order."""

    def get(self, name: str) -> NodeInfo | None:
        """The NodeInfo of a node, or None."""

    def num_nodes(self) -> int:
        """How many nodes the snapshot holds."""

"""The columnar view of a snapshot as plugins see it: numpy arrays indexed by node position, for batch forms.

``pre_filter_nodes``, ``filter_nodes``, ``pre_score_nodes`` and ``score_nodes`` (see docs/hooks.md) receive a
:class:`NodeBatch`: the nodes to work on as NodeInfos plus their positions in the snapshot's :class:`NodeColumns`,
whose arrays hold per node the allocatable and requested amount of every resource, the pod count, and on demand the
codes of a label's values and counts of pods matching a predicate. The runtime keeps the columns in step with the
snapshot incrementally; values are exact integers. Everything here is read-only for plugins.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, overload

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from kubesched.framework._node_info import NodeInfo, PodInfo

IntArray = npt.NDArray[np.int64]


#: How many forgotten positions :class:`NodeRows` lists before its readers fall back to scanning ``known``.
FORGOTTEN_LISTED = 64


class NodeRows:
    """Per-node results a reader works out when it first needs them, forgotten when the node changes.

    ``known[i]`` says whether row ``i`` holds a result; the reader sets it after writing ``numbers[i]`` (an int64
    row of the width it asked for) and ``values[i]`` (any object). The columns clear ``known`` for every node whose
    pods or Node object change, so a row is a cache of something that depends only on the node.
    """

    __slots__ = ("forgotten", "known", "numbers", "synced", "values")

    def __init__(self, size: int, width: int, synced: int) -> None:
        self.known: npt.NDArray[np.bool_] = np.zeros(size, dtype=bool)
        self.numbers: IntArray = np.zeros((size, width), dtype=np.int64)
        self.values: list[Any] = [None] * size
        self.synced = synced
        #: The positions forgotten since a reader last emptied this list (some may be known again, or repeated), so
        #: a reader that had every row can find the unknown ones without scanning ``known``; None once more than
        #: :data:`FORGOTTEN_LISTED` were forgotten (the reader then scans).
        self.forgotten: list[int] | None = []

    def set_row(self, position: int, info: NodeInfo) -> None:
        """Forget row ``position`` (its node changed)."""
        self.known[position] = False
        self.values[position] = None
        forgotten = self.forgotten
        if forgotten is not None:
            if len(forgotten) < FORGOTTEN_LISTED:
                forgotten.append(position)
            else:
                self.forgotten = None


class NodeColumns(Protocol):
    """Per-node arrays over a snapshot's nodes, in the snapshot's order (position ``i`` is the snapshot's ``i``-th
    node). ``allocatable`` and ``requested`` map a resource name (``cpu`` in millicores, ``memory``,
    ``ephemeral-storage``, ``pods`` for allocatable only, and every extended or scalar resource seen) to an int64
    array; ``non_zero_requested`` holds cpu and memory with kube-scheduler's non-zero defaults; ``pod_count`` the
    number of pods (assumed ones included). Read-only: writing to an array raises."""

    @property
    def names(self) -> Sequence[str]:
        """The nodes' names by position."""

    @property
    def infos(self) -> Sequence[NodeInfo]:
        """The NodeInfos by position."""

    @property
    def position(self) -> Mapping[str, int]:
        """Each node's position by name."""

    @property
    def allocatable(self) -> Mapping[str, IntArray]:
        """Allocatable amount per resource."""

    @property
    def requested(self) -> Mapping[str, IntArray]:
        """Requested amount per resource (the node's pods, assumed ones included)."""

    @property
    def non_zero_requested(self) -> Mapping[str, IntArray]:
        """Requested cpu and memory with kube-scheduler's non-zero defaults for pods that ask for none."""

    @property
    def pod_count(self) -> IntArray:
        """How many pods each node holds."""

    @property
    def exact(self) -> bool:
        """Whether every amount fits exact integer arithmetic (the runtime takes the per-node path otherwise)."""

    def __len__(self) -> int:
        """The number of nodes."""

    def all_positions(self) -> IntArray:
        """``0 .. len-1``: every node, in snapshot order."""

    def infos_at(self, positions: IntArray) -> list[NodeInfo]:
        """The NodeInfos at ``positions``, in that order."""

    def resource(self, name: str) -> tuple[IntArray, IntArray]:
        """(allocatable, requested) of resource ``name``, zeros for a resource no node has."""

    def categories(self, key: Hashable, value_of: Callable[[NodeInfo], Hashable | None]
                   ) -> tuple[npt.NDArray[np.int32], list[Any]]:
        """(codes, values): per node the code of ``value_of(node_info)`` in ``values`` (-1 for None), kept under
        ``key`` and refreshed only for changed nodes (the same key must always mean the same ``value_of``)."""

    def label_values(self, key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        """(codes, values) of node label ``key``; code -1 where the node lacks the label."""

    def pod_counts(self, key: Hashable, count: Callable[[PodInfo], int]) -> IntArray:
        """Per node, ``sum(count(pod_info))`` over its pods; kept under ``key`` like :meth:`categories`."""

    def pod_totals(self, key: Hashable, amounts: Callable[[PodInfo], Sequence[int]], width: int) -> IntArray:
        """Per node (rows) the sums over its pods of ``amounts(pod_info)`` (``width`` columns), kept under ``key``."""

    def node_rows(self, key: Hashable, width: int) -> NodeRows:
        """Rows of per-node results kept under ``key`` (see :class:`NodeRows`), each with ``width`` integers; rows of
        nodes changed since the last read come back unknown."""


class NodeBatch(Sequence["NodeInfo"]):
    """The nodes a batch hook works on: a sequence of NodeInfo plus their ``positions`` in ``columns``.

    ``columns.allocatable["cpu"][nodes.positions]`` is the batch's allocatable cpu, in the batch's order.
    """

    __slots__ = ("columns", "infos", "positions")

    def __init__(self, infos: Sequence[NodeInfo], positions: IntArray, columns: NodeColumns) -> None:
        self.infos = infos
        self.positions = positions
        self.columns = columns

    @classmethod
    def of(cls, infos: Sequence[NodeInfo], columns: NodeColumns) -> NodeBatch:
        """A batch over ``infos``, which must be nodes of ``columns`` (the columns' own list: every node, cheaply)."""
        if infos is columns.infos:
            return cls(infos, columns.all_positions(), columns)
        position = columns.position
        return cls(infos, np.fromiter((position[ni.name] for ni in infos), dtype=np.int64, count=len(infos)),
                   columns)

    def __len__(self) -> int:
        return len(self.infos)

    @overload
    def __getitem__(self, index: int) -> NodeInfo: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[NodeInfo]: ...

    def __getitem__(self, index: int | slice) -> NodeInfo | Sequence[NodeInfo]:
        return self.infos[index]

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self.infos)

    def column(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """``values`` (an array over all nodes of the columns) restricted to this batch, in its order."""
        if self.positions is self.columns.all_positions():
            return values
        return values[self.positions]

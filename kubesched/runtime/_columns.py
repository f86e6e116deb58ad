"""The snapshot's columns as the runtime keeps them (:class:`ColumnStore`, the :class:`~kubesched.framework.NodeColumns`
plugins read): a changed node refreshes its row (O(1) per pod added, removed or assumed); the on-demand indexes
(label codes, pod counts, pod totals, node rows) catch up on the rows changed since they were last read. When an
amount is too large for exact int64 arithmetic (over 2**53) the columns say so (``exact`` is False) and the scheduler
takes the per-node path.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from kubesched.framework._columns import IntArray, NodeRows

if TYPE_CHECKING:
    from kubesched.framework._node_info import NodeInfo, PodInfo

#: Amounts at or above this are not exact in float64; batch forms then step aside.
EXACT_LIMIT = 2**53
#: How many on-demand indexes (label codes, pod counts) are kept; the least recently read go first.
MAX_INDEXES = 256
#: Resource column names besides extended/scalar resources (cpu in millicores, memory and storage in bytes).
CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
_NATIVE = (CPU, MEMORY, EPHEMERAL_STORAGE)


class _Categories:
    """Codes of a per-node value (-1 when the node has none) and the values the codes stand for."""

    __slots__ = ("codes", "index", "synced", "value_of", "values", "view")

    def __init__(self, size: int, value_of: Callable[[NodeInfo], Hashable | None], synced: int) -> None:
        self.codes: npt.NDArray[np.int32] = np.full(size, -1, dtype=np.int32)
        self.view = _read_only(self.codes)
        self.values: list[Any] = []
        self.index: dict[Any, int] = {}
        self.value_of = value_of
        self.synced = synced

    def take(self, rows: IntArray) -> None:
        """Keep the rows ``rows`` (old positions, in their new order)."""
        self.codes = self.codes[rows]
        self.view = _read_only(self.codes)

    def set_row(self, position: int, info: NodeInfo) -> None:
        value = self.value_of(info)
        if value is None:
            self.codes[position] = -1
            return
        code = self.index.get(value)
        if code is None:
            code = self.index[value] = len(self.values)
            self.values.append(value)
        self.codes[position] = code


class _PodCounts:
    """Per node, the sum of a count function over the node's pods."""

    __slots__ = ("count", "counts", "synced", "view")

    def __init__(self, size: int, count: Callable[[PodInfo], int], synced: int) -> None:
        self.counts: IntArray = np.zeros(size, dtype=np.int64)
        self.view = _read_only(self.counts)
        self.count = count
        self.synced = synced

    def take(self, rows: IntArray) -> None:
        """Keep the rows ``rows`` (old positions, in their new order)."""
        self.counts = self.counts[rows]
        self.view = _read_only(self.counts)

    def set_row(self, position: int, info: NodeInfo) -> None:
        count = self.count
        self.counts[position] = sum(count(p) for p in info.pods)


class _PodTotals:
    """Per node, the column-wise sums of a function giving ``width`` amounts per pod."""

    __slots__ = ("amounts", "synced", "totals", "view", "width")

    def __init__(self, size: int, amounts: Callable[[PodInfo], Sequence[int]], width: int, synced: int) -> None:
        self.totals: IntArray = np.zeros((size, width), dtype=np.int64)
        self.view = _read_only(self.totals)
        self.amounts = amounts
        self.width = width
        self.synced = synced

    def take(self, rows: IntArray) -> None:
        """Keep the rows ``rows`` (old positions, in their new order)."""
        self.totals = self.totals[rows]
        self.view = _read_only(self.totals)

    def set_row(self, position: int, info: NodeInfo) -> None:
        row = [0] * self.width
        amounts = self.amounts
        for pod_info in info.pods:
            for k, amount in enumerate(amounts(pod_info)):
                row[k] += amount
        self.totals[position] = row


class ColumnStore:
    """The runtime's :class:`~kubesched.framework.NodeColumns`: per-node arrays over a snapshot's nodes, in the
    snapshot's order (position ``i`` is ``node_info_list[i]``), kept in step by the cache.

    ``allocatable`` and ``requested`` map a resource name (``cpu`` in millicores, ``memory``, ``ephemeral-storage``,
    ``pods`` for allocatable only, and every extended or scalar resource seen) to an int64 array;
    ``non_zero_requested`` holds cpu and memory with kube-scheduler's non-zero defaults; ``pod_count`` the number of
    pods (assumed ones included). Read-only for plugins.
    """

    def __init__(self) -> None:
        self.names: list[str] = []
        self.infos: list[NodeInfo] = []
        # The same NodeInfos as an object array, so a cycle's feasible nodes are gathered in one take.
        self._info_array: npt.NDArray[np.object_] = np.empty(0, dtype=object)
        self.position: dict[str, int] = {}
        self.allocatable: dict[str, IntArray] = {}
        self.requested: dict[str, IntArray] = {}
        self.non_zero_requested: dict[str, IntArray] = {}
        self.pod_count: IntArray = np.zeros(0, dtype=np.int64)
        self._allocatable: dict[str, IntArray] = {}
        self._requested: dict[str, IntArray] = {}
        self._non_zero_requested: dict[str, IntArray] = {}
        self._pod_count: IntArray = np.zeros(0, dtype=np.int64)
        #: False when some amount is too large for exact integer arithmetic (the scheduler then skips batch forms).
        self.exact = True
        self._all: IntArray = np.zeros(0, dtype=np.int64)
        self._zeros: IntArray = np.zeros(0, dtype=np.int64)
        # Change numbers: each row update takes the next one, and each row remembers its latest, so an on-demand
        # index synced at change ``n`` catches up on the rows numbered above ``n``. A rebuild drops every index.
        # The positions of the latest changes, in order, from change number ``_recent_from`` on, let an index
        # that is only a little behind catch up without scanning every row.
        self._version = 0
        self._changed_at: IntArray = np.zeros(0, dtype=np.int64)
        self._recent: list[int] = []
        self._recent_from = 1
        self._indexes: OrderedDict[Hashable, _Index] = OrderedDict()
        #: False on an overlay (the two-pass filter's columns with nominated pods added): its nodes are not the
        #: snapshot's, so node rows kept for those must not be read there (see :meth:`node_rows`).
        self.snapshot_rows = True

    def __len__(self) -> int:
        return len(self.infos)

    # -- maintenance (the cache) --------------------------------------------------------------------------
    def rebuild(self, infos: Sequence[NodeInfo]) -> None:
        """Recompute every column for ``infos`` (the node set or its order changed)."""
        size = len(infos)
        # The snapshot's own list when given one, so a batch over it is recognised by identity (NodeBatch.of).
        self.infos = infos if isinstance(infos, list) else list(infos)
        self._info_array = np.fromiter(self.infos, dtype=object, count=size)
        self.names = [info.name for info in infos]
        self.position = {name: i for i, name in enumerate(self.names)}
        self._all = np.arange(size, dtype=np.int64)
        self._zeros = np.zeros(size, dtype=np.int64)
        # The cache writes into these; plugins get read-only views of them (the public dicts and pod_count).
        self._allocatable = {name: np.zeros(size, dtype=np.int64) for name in (*_NATIVE, PODS)}
        self._requested = {name: np.zeros(size, dtype=np.int64) for name in _NATIVE}
        self._non_zero_requested = {name: np.zeros(size, dtype=np.int64) for name in (CPU, MEMORY)}
        self._pod_count = np.zeros(size, dtype=np.int64)
        self.allocatable = {name: _read_only(column) for name, column in self._allocatable.items()}
        self.requested = {name: _read_only(column) for name, column in self._requested.items()}
        self.non_zero_requested = {name: _read_only(column) for name, column in self._non_zero_requested.items()}
        self.pod_count = _read_only(self._pod_count)
        self.exact = True
        self._indexes.clear()
        self._changed_at = np.zeros(size, dtype=np.int64)
        for position, info in enumerate(infos):
            self._set_row(position, info)
        self._all.flags.writeable = self._zeros.flags.writeable = False

    def follow(self, infos: list[NodeInfo]) -> bool:
        """Take ``infos`` as the node list when it is the current one with one node added or removed (or the same):
        one row inserted or deleted, every other row and on-demand index kept. False, with nothing changed, for any
        other change (then :meth:`rebuild`). Rows of nodes whose pods or object changed still need :meth:`update`."""
        old = self.infos
        shift = len(infos) - len(old)
        if not self.exact or not old or abs(shift) > 1:
            return False
        common = min(len(old), len(infos))
        at = next((i for i, (a, b) in enumerate(zip(old, infos, strict=False)) if a is not b), common)
        if not all(map(operator.is_, old[at + max(-shift, 0):], infos[at + max(shift, 0):])):
            return False
        size = len(infos)
        take = np.arange(size, dtype=np.int64)  # per new row, the old row it comes from
        if shift < 0:
            take[at:] += 1
        elif shift > 0:
            take[at + 1:] -= 1
            take[at] = 0  # the inserted row: set below
        self.infos = infos
        if not shift:
            return True
        self._info_array = np.fromiter(infos, dtype=object, count=size)
        self.names = [info.name for info in infos]
        self.position = {name: i for i, name in enumerate(self.names)}
        self._all, self._zeros = np.arange(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
        self._all.flags.writeable = self._zeros.flags.writeable = False
        for table, views in ((self._allocatable, self.allocatable), (self._requested, self.requested),
                             (self._non_zero_requested, self.non_zero_requested)):
            for name, column in table.items():
                table[name] = column[take]
                views[name] = _read_only(table[name])
        self._pod_count = self._pod_count[take]
        self.pod_count = _read_only(self._pod_count)
        self._changed_at = self._changed_at[take]
        self._recent.clear()  # positions moved: an index behind scans the change numbers instead
        self._recent_from = self._version + 1
        for index in self._indexes.values():
            if isinstance(index, NodeRows):
                index.known, index.numbers = index.known[take], index.numbers[take]
                index.values = list(map(index.values.__getitem__, take.tolist()))
            else:
                index.take(take)
        if shift > 0:
            self._set_row(at, infos[at])
            for index in self._indexes.values():
                index.set_row(at, infos[at])
        return True

    def update(self, info: NodeInfo) -> None:
        """Refresh the row of ``info`` (its pods or its node object changed)."""
        position = self.position.get(info.name)
        if position is None:
            return
        self._set_row(position, info)
        self._version += 1
        self._changed_at[position] = self._version
        recent = self._recent
        if len(recent) > len(self.infos) // 8 + 64:
            recent.clear()
            self._recent_from = self._version
        recent.append(position)

    def _set_row(self, i: int, info: NodeInfo) -> None:
        alloc, used, non_zero = info.allocatable, info.requested, info.non_zero_requested
        values = (alloc.milli_cpu, alloc.memory, alloc.ephemeral_storage, alloc.allowed_pod_number,
                  used.milli_cpu, used.memory, used.ephemeral_storage, non_zero.milli_cpu, non_zero.memory)
        if not (min(values) > -EXACT_LIMIT and max(values) < EXACT_LIMIT):
            self.exact = False
            return
        columns = self._allocatable
        columns[CPU][i], columns[MEMORY][i], columns[EPHEMERAL_STORAGE][i], columns[PODS][i] = values[:4]
        columns = self._requested
        columns[CPU][i], columns[MEMORY][i], columns[EPHEMERAL_STORAGE][i] = values[4:7]
        self._non_zero_requested[CPU][i], self._non_zero_requested[MEMORY][i] = values[7:]
        self._pod_count[i] = len(info.pods)
        for table, views, amounts, native in ((self._allocatable, self.allocatable, alloc.scalar_resources, 4),
                                              (self._requested, self.requested, used.scalar_resources, 3)):
            if not amounts and len(table) == native:  # no scalar resource here or in any column: nothing to set
                continue
            for name in table.keys() - _NATIVE - {PODS}:
                if name not in amounts:
                    table[name][i] = 0
            for name, value in amounts.items():
                if not -EXACT_LIMIT < value < EXACT_LIMIT:
                    self.exact = False
                    return
                column = table.get(name)
                if column is None:
                    column = table[name] = np.zeros(len(self.infos), dtype=np.int64)
                    views[name] = _read_only(column)
                column[i] = value

    # -- reading ---------------------------------------------------------------------------------------------
    def all_positions(self) -> IntArray:
        """``0 .. len-1``: every node, in snapshot order."""
        return self._all

    def infos_at(self, positions: IntArray) -> list[NodeInfo]:
        """The NodeInfos at ``positions``, in that order (one array take instead of a lookup per node)."""
        infos: list[NodeInfo] = self._info_array[positions].tolist()
        return infos

    def resource(self, name: str) -> tuple[IntArray, IntArray]:
        """(allocatable, requested) of resource ``name``, zeros for a resource no node has."""
        return self.allocatable.get(name, self._zeros), self.requested.get(name, self._zeros)

    def categories(self, key: Hashable, value_of: Callable[[NodeInfo], Hashable | None]
                   ) -> tuple[npt.NDArray[np.int32], list[Any]]:
        """(codes, values): per node the code of ``value_of(node_info)`` in ``values`` (-1 for None).

        Kept under ``key`` and refreshed only for changed nodes, so the same key must always mean the same
        ``value_of``. Values stay listed after the last node holding them changes (their code is then unused).
        """
        index = self._index(("categories", key), lambda synced: _Categories(len(self.infos), value_of, synced))
        assert isinstance(index, _Categories)
        return index.view, index.values

    def label_values(self, key: str) -> tuple[npt.NDArray[np.int32], list[str]]:
        """(codes, values) of node label ``key``; code -1 where the node lacks the label."""
        return self.categories(("label", key), lambda info: _label(info, key))

    def pod_counts(self, key: Hashable, count: Callable[[PodInfo], int]) -> IntArray:
        """Per node, ``sum(count(pod_info))`` over its pods; kept under ``key`` like :meth:`categories`."""
        index = self._index(("pods", key), lambda synced: _PodCounts(len(self.infos), count, synced))
        assert isinstance(index, _PodCounts)
        return index.view

    def pod_totals(self, key: Hashable, amounts: Callable[[PodInfo], Sequence[int]], width: int) -> IntArray:
        """Per node (rows) the sums over its pods of ``amounts(pod_info)`` (``width`` columns); kept under ``key``
        like :meth:`pod_counts`, for several sums read together."""
        index = self._index(("totals", key, width), lambda synced: _PodTotals(len(self.infos), amounts, width, synced))
        assert isinstance(index, _PodTotals)
        return index.view

    def node_rows(self, key: Hashable, width: int) -> NodeRows:
        """Rows of per-node results kept under ``key`` (see :class:`NodeRows`), each with ``width`` integers; rows of
        nodes changed since the last read come back unknown. The same key must always mean the same computation.
        On an overlay every row comes back unknown, in rows kept nowhere."""
        if not self.snapshot_rows:
            return NodeRows(len(self.infos), width, self._version)
        index = self._index(("rows", key, width), lambda synced: NodeRows(len(self.infos), width, synced))
        assert isinstance(index, NodeRows)
        return index

    def _index(self, key: Hashable, make: Callable[[int], _Index]) -> _Index:
        now = self._version
        index = self._indexes.get(key)
        if index is None:
            index = make(now)
            if not isinstance(index, NodeRows):  # new rows start unknown
                for position, info in enumerate(self.infos):
                    index.set_row(position, info)
            self._indexes[key] = index
            if len(self._indexes) > MAX_INDEXES:
                self._indexes.popitem(last=False)
        elif index.synced < now:
            behind = index.synced + 1 - self._recent_from
            changed = set(self._recent[behind:]) if behind >= 0 else \
                np.flatnonzero(self._changed_at > index.synced).tolist()
            for position in changed:
                index.set_row(position, self.infos[position])
            index.synced = now
            self._indexes.move_to_end(key)
        return index


_Index = _Categories | _PodCounts | _PodTotals | NodeRows


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A read-only view of ``array``: it sees every later write to ``array`` but cannot be written through, so an
    in-place operation on a column in a batch form raises instead of corrupting the snapshot."""
    view = array.view()
    view.flags.writeable = False
    return view


def _label(info: NodeInfo, key: str) -> str | None:
    node = info.node
    return node.labels.get(key) if node is not None else None


class PickedNodes(Sequence["NodeInfo"]):
    """The nodes of ``infos`` at ``indexes``, each looked up when read: a sub-batch's NodeInfos without building a
    list (batch forms mostly read only the columns)."""

    __slots__ = ("indexes", "infos")

    def __init__(self, infos: Sequence[NodeInfo], indexes: IntArray) -> None:
        self.infos = infos
        self.indexes = indexes

    def __len__(self) -> int:
        return len(self.indexes)

    @overload
    def __getitem__(self, index: int) -> NodeInfo: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[NodeInfo]: ...

    def __getitem__(self, index: int | slice) -> NodeInfo | Sequence[NodeInfo]:
        if isinstance(index, slice):
            return [self.infos[at] for at in self.indexes[index].tolist()]
        return self.infos[int(self.indexes[index])]

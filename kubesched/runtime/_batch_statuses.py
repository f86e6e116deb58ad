"""The statuses of the nodes a batch Filter pass rejected, built only when something reads them: the rejecting
plugin's per-node hook per node (once per group of nodes whose resource rows are equal when the plugin declares it
reads only resources), their codes without messages, their reason counts (a plugin's ``filter_reason_counts``), and
their codes by column position (what the preemption accelerator reads)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kubesched.framework._columns import IntArray, NodeBatch, NodeColumns
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, declared_filter_reads, filter_reason_counts_of
from kubesched.framework._status import Code, Status
from kubesched.runtime._columns import PickedNodes
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, describe_exception
from kubesched.runtime._statuses import PositionalCodes

if TYPE_CHECKING:
    from kubesched.runtime._batch_filter import BatchFilter

NOT_REJECTED = np.int16(32767)  # "no batch plugin rejected the node" (as the batch Filter pass marks it)


def distinct(values: npt.NDArray[np.integer[Any]]) -> list[int]:
    """The distinct values, ascending: two reductions when all are equal (the common case: one rejecting plugin,
    one code), else a sort."""
    if not len(values):
        return []
    low, high = int(values.min()), int(values.max())
    return [low] if low == high else np.unique(values).tolist()


def _resource_rows(columns: NodeColumns, positions: IntArray) -> IntArray:
    """Per node position in ``positions``, its pod count then every resource's allocatable and requested amounts."""
    names = sorted(columns.allocatable.keys() | columns.requested.keys())
    table = np.empty((len(positions), 1 + 2 * len(names)), dtype=np.int64)
    table[:, 0] = columns.pod_count[positions]
    for i, name in enumerate(names):
        allocatable, requested = columns.resource(name)
        table[:, 1 + 2 * i] = allocatable[positions]
        table[:, 2 + 2 * i] = requested[positions]
    return table


class BatchRejections:
    """The rejections of one batch Filter pass, read back per node (as :meth:`statuses`, :meth:`codes`,
    :meth:`reason_tally`, :meth:`positional` give them to a deferred fill)."""

    def __init__(self, runner: BatchFilter) -> None:
        self._runner = runner

    def _names(self, rejected: IntArray) -> list[str]:
        """The names of the nodes at batch indexes ``rejected``."""
        names = self._runner.batch.columns.names
        return list(map(names.__getitem__, self._runner.batch.positions[rejected].tolist()))

    def codes(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
               known: dict[int, Status]) -> Iterable[tuple[str, tuple[Code, str]]]:
        """Every rejection's (node, (code, plugin)) in try order, as :meth:`_statuses` yields them, without
        messages."""
        names = [name for name, _hook in self._runner.filters]
        keys = list(zip(first.tolist(), codes.tolist(), strict=True))
        pairs = {key: (Code(key[1]), names[key[0]]) for key in set(keys) if key[0] != NOT_REJECTED}
        if known:
            entries = [(s.code, s.plugin) if (s := known.get(j)) is not None else pairs[key]
                       for j, key in zip(rejected.tolist(), keys, strict=True)]
        else:
            entries = list(map(pairs.__getitem__, keys))
        return zip(self._names(rejected), entries, strict=True)

    def _row_groups(self, rejected: IntArray, first: npt.NDArray[np.int16], known: dict[int, Status]
                    ) -> npt.NDArray[np.int64] | None:
        """Per rejection, a group number shared by rejections whose statuses are equal because one plugin declaring
        it reads only resources (``FilterReads.RESOURCES``) rejected nodes with equal resource rows (allocatable,
        requested and pod count, with the nominated pods counted where they rejected the node); -1 for the others.
        None when no two share."""
        plugins = self._runner.framework.plugins
        ks = [k for k, (name, _hook) in enumerate(self._runner.filters)
              if declared_filter_reads(plugins.get(name)) == FilterReads.RESOURCES]
        if not ks:
            return None
        chosen = np.isin(first, ks)
        if known:
            chosen &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        if int(chosen.sum()) < 2:
            return None
        indexes = rejected[chosen]
        positions = self._runner.batch.positions[indexes]
        table = _resource_rows(self._runner.batch.columns, positions)
        if self._runner.overlay is not None:
            flags = self._runner.with_mask[indexes]
            if flags.any():
                with_pods = _resource_rows(self._runner.overlay, positions[flags])
                if with_pods.shape[1] != table.shape[1]:  # a scalar resource only nominated pods request
                    return None
                table[flags] = with_pods
        if len(ks) > 1:  # rejections by different plugins never share a status
            table = np.column_stack((table, first[chosen]))
        table = table[:, (table != table[0]).any(axis=0)]  # the columns that tell rows apart
        groups = np.full(len(rejected), -1, dtype=np.int64)
        if not table.shape[1]:
            groups[chosen] = 0
            return groups
        order = np.lexsort(table.T)
        ordered = table[order]
        starts = np.ones(len(order), dtype=np.int64)
        starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
        inverse = np.empty(len(order), dtype=np.int64)
        inverse[order] = np.cumsum(starts) - 1
        groups[chosen] = inverse
        return groups

    def positional(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
                    known: dict[int, Status]) -> PositionalCodes:
        """Every rejection's column position, code and rejecting plugin (an index into the returned names), as
        :meth:`_codes` gives them by name."""
        names = [name for name, _hook in self._runner.filters]
        entry_codes = codes.copy()
        plugins = first.copy()
        if known:
            index = {name: k for k, name in enumerate(names)}
            where = {j: i for i, j in enumerate(rejected.tolist())}
            for j, status in known.items():
                i = where[j]
                entry_codes[i] = status.code
                plugins[i] = index.setdefault(status.plugin, len(index))
                if len(index) > len(names):
                    names.append(status.plugin)
        return self._runner.batch.positions[rejected], entry_codes, plugins, names

    def reason_tally(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
                      known: dict[int, Status]) -> tuple[int, dict[str, int]]:
        """The rejections' number and reason counts, as the statuses of :meth:`_statuses` would give them, without
        node names or a status per node: a plugin's ``filter_reason_counts`` over the nodes it rejected (on the
        overlaid columns where the nominated pods made it reject), else one hook call per group of
        :meth:`_row_groups`, counted by group size."""
        counts: dict[str, int] = {}

        def add(status: Status, times: int) -> None:
            for reason in status.reasons:
                counts[reason] = counts.get(reason, 0) + times

        size = len(rejected)
        rest = self._tally_by_plugins(rejected, first, known, counts)
        if rest is not None:
            rejected, first, codes = rejected[rest], first[rest], codes[rest]
        groups = self._row_groups(rejected, first, known) if len(rejected) else None
        remaining: Iterable[int] = range(len(rejected))
        if groups is not None:
            grouped = np.flatnonzero(groups >= 0)
            _unique, representatives, sizes = np.unique(groups[grouped], return_index=True, return_counts=True)
            for i, times in zip(grouped[representatives].tolist(), sizes.tolist(), strict=True):
                add(self._status(int(rejected[i]), int(first[i]), int(codes[i])), times)
            remaining = np.flatnonzero(groups < 0).tolist()
        for i in remaining:
            j = int(rejected[i])
            status = known.get(j) if known else None
            add(status if status is not None else self._status(j, int(first[i]), int(codes[i])), 1)
        return size, counts

    def _tally_by_plugins(self, rejected: IntArray, first: npt.NDArray[np.int16], known: dict[int, Status],
                          counts: dict[str, int]) -> npt.NDArray[np.bool_] | None:
        """Add to ``counts`` the reasons of the batch rejections whose plugin has ``filter_reason_counts``; the mask
        of the rejections left to count (None: all of them)."""
        counted: npt.NDArray[np.bool_] | None = None
        batch, plugins = self._runner.batch, self._runner.framework.plugins
        by_batch = first != NOT_REJECTED
        if known:
            by_batch &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        for k in distinct(first[by_batch]):
            reason_counts = filter_reason_counts_of(plugins.get(self._runner.filters[k][0]))
            if reason_counts is None:
                continue
            chosen = by_batch & (first == k)
            indexes = rejected[chosen]
            flags = self._runner.with_mask[indexes]
            found: list[Mapping[str, int]] = []
            # Where every node with nominated pods was rejected with them, the overlay serves all in one call.
            parts = ((indexes, self._runner.overlay),) if self._runner.overlay is not None and \
                not (self._runner.has_extra[indexes] & ~flags).any() else \
                ((indexes[~flags], batch.columns), (indexes[flags], self._runner.overlay))
            try:
                for part, columns in parts:
                    if len(part) and columns is not None:
                        found.append(reason_counts(self._runner.state, self._runner.pod, NodeBatch(
                            PickedNodes(batch.infos, part), batch.positions[part], columns)))
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES:
                continue  # its per-node hook's statuses say what it rejected with
            for tally in found:
                for reason, times in tally.items():
                    counts[reason] = counts.get(reason, 0) + times
            counted = chosen if counted is None else counted | chosen
        return None if counted is None else ~counted

    def _with_pods(self, info: NodeInfo, nominated: Sequence[PodInfo]) -> Status | None:
        """The first pass of the two-pass filter, which rejected the node: Filter on a copy of it with
        ``nominated`` added (no AddPod extension runs, see :func:`nominated_overlay_exact`)."""
        copy_with = info.clone()
        for pod_info in nominated:
            copy_with.add_pod(pod_info)
        return self._runner.framework.run_filter_plugins(self._runner.state, self._runner.pod, copy_with)

    def statuses(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
                  known: dict[int, Status]) -> Iterable[tuple[str, Status]]:
        """Every rejection's status in try order: those already known, and batch rejections from each rejecting
        plugin's per-node hook (once per group of :meth:`_row_groups`, whose members share the status)."""
        groups = self._row_groups(rejected, first, known)
        if groups is not None and not known and int(groups.min()) >= 0:
            # Every rejection is in a group: one hook call per group, its status shared by the members.
            _unique, representatives = np.unique(groups, return_index=True)
            shared = [self._status(int(rejected[i]), int(first[i]), int(codes[i])) for i in representatives.tolist()]
            return zip(self._names(rejected), map(shared.__getitem__, groups.tolist()), strict=True)
        group_list = groups.tolist() if groups is not None else [-1] * len(rejected)
        statuses: list[Status] = []
        by_group: dict[int, Status] = {}
        for j, k, code, group in zip(rejected.tolist(), first.tolist(), codes.tolist(), group_list, strict=True):
            status = known.get(j) if known else None
            if status is None:
                status = by_group.get(group) if group >= 0 else None
                if status is None:
                    status = self._status(j, k, code)
                    if group >= 0:
                        by_group[group] = status
            statuses.append(status)
        return zip(self._names(rejected), statuses, strict=True)

    def _status(self, j: int, k: int, code: int) -> Status:
        """The status of the node at batch index ``j``, which filter ``k`` rejected with ``code`` in its batch
        form: its per-node hook's (on the node with its nominated pods where they made it fail)."""
        info = self._runner.batch.infos[j]
        name, hook = self._runner.filters[k]
        status: Any
        try:
            status = self._with_pods(info, self._runner.nominated[info.name]) if self._runner.with_mask[j] else \
                hook(self._runner.state, self._runner.pod, info)
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            status = Status(Code(code), (f"filter_nodes rejected the node; filter raised {describe_exception(exc)}",))
        if not isinstance(status, Status) or not status.is_rejected():
            status = Status(Code(code), ("filter_nodes rejected the node but filter accepts it",))
        checked: Status = status
        return checked.with_plugin(name)

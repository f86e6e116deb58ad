"""The batch path of Filter and Score: plugins' ``filter_nodes`` / ``score_nodes`` over the columnar snapshot.

kube-scheduler's semantics are applied to the arrays: nodes are tried from nextStartNodeIndex in snapshot order,
the search stops once numFeasibleNodesToFind nodes passed, and a node's rejection is recorded for the first
rejecting plugin in the profile's order. Plugins without batch forms run per node, interleaved in that order.
Nodes with nominated pods take kube-scheduler's two-pass filter: on the columns with the nominated pods' requests
overlaid when the plugins' ``filter_reads`` declarations make that exact (:func:`nominated_overlay_exact`), else
per node. Statuses are materialised from the
per-node hooks only when read (see :meth:`NodeToStatus.defer`). Decisions equal the per-node path's; see
docs/performance.md.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeBatch, NodeColumns
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, declared_filter_reads, filter_reason_counts_of
from kubesched.framework._status import Code, Status
from kubesched.framework._types import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Diagnosis,
    NodeScore,
)
from kubesched.runtime._columns import CPU, EPHEMERAL_STORAGE, EXACT_LIMIT, MEMORY, ColumnStore, PickedNodes
from kubesched.runtime._failures import PLUGIN_FAILURES, Hook, describe_exception
from kubesched.runtime._invoke import FILTER, NORMALIZE, SCORE
from kubesched.runtime._scores import ScoreTable
from kubesched.runtime._statuses import DeferredNodeToStatus, PositionalCodes

if TYPE_CHECKING:
    from kubesched.runtime._framework import Framework

_NONE = np.int16(32767)  # "no batch plugin rejected the node"
_PENDING = int(Code.PENDING)
_ALLOWED_CODES = frozenset({int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING)})
# The PreFilter extension the two-pass filter runs for every nominated pod it adds to a node.
_ADD_POD_HOOK = "pre_filter_add_pod"


#: The declared reads under which the nominated pods' requests may be overlaid on the columns.
_OVERLAY_READS = FilterReads.NODE | FilterReads.RESOURCES


def nominated_overlay_exact(framework: Framework, state: CycleState, filters: Sequence[tuple[str, Hook]]) -> bool:
    """Whether the two-pass filter may run on columns with the nominated pods' requests overlaid: every cycle
    filter has a batch form and declares that it reads only the Node object and the node's resource amounts and
    pod count (:class:`~kubesched.framework._plugin.FilterReads`), and no PreFilter AddPod extension runs for the
    pod (adding a nominated pod then changes only what the overlay changes)."""
    fitting = _overlay_filters.get(framework)
    if fitting is None:
        plugins, batch_hooks = framework.plugins, framework.batch_filter_hooks
        fitting = _overlay_filters[framework] = (frozenset(
            name for name in batch_hooks
            if (reads := declared_filter_reads(plugins.get(name))) is not None and not reads & ~_OVERLAY_READS),
            tuple(framework.plugins_at(_ADD_POD_HOOK)))
    names, add_pod = fitting
    if not all(name in names for name, _hook in filters):
        return False
    skipped = state.skip_filter_plugins
    return all(name in skipped for name in add_pod)


# Per framework (its plugins are fixed once built): the Filter plugins the overlay may stand in for, and the
# PreFilter AddPod extensions that must be skipped.
_overlay_filters: weakref.WeakKeyDictionary[Framework, tuple[frozenset[str], tuple[str, ...]]] = \
    weakref.WeakKeyDictionary()


def _overlay_columns(columns: ColumnStore, extra: IntArray) -> ColumnStore | None:
    """``columns`` with nominated pods' sums added (``extra``'s rows, per node position: count, requested cpu,
    memory and ephemeral storage, non-zero cpu and memory) to the pod count, requested and non-zero requested
    columns, other columns and indexes shared; None when a sum is too large to be exact."""
    overlay = copy.copy(columns)
    requested, non_zero = dict(columns.requested), dict(columns.non_zero_requested)
    overlay.pod_count = columns.pod_count + extra[0]
    for row, (target, name) in enumerate(((requested, CPU), (requested, MEMORY), (requested, EPHEMERAL_STORAGE),
                                          (non_zero, CPU), (non_zero, MEMORY)), start=1):
        target[name] = target[name] + extra[row]
    for column in (overlay.pod_count, *requested.values(), *non_zero.values()):
        if len(column) and (int(column.max()) >= EXACT_LIMIT or int(column.min()) <= -EXACT_LIMIT):
            return None
        column.flags.writeable = False
    overlay.requested = requested
    overlay.non_zero_requested = non_zero
    return overlay


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


class BatchError(Exception):
    """A plugin failed in a batch form; ``status`` is its Error status (already recorded as a failure)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


_NO_INDEXES: IntArray = np.zeros(0, dtype=np.int64)
_NO_INDEXES.flags.writeable = False
# Per batch size, an all-``_NONE`` array of first rejections (read-only): a cycle's starts as a copy of it.
_UNREJECTED: dict[int, npt.NDArray[np.int16]] = {}


def _unrejected(size: int) -> npt.NDArray[np.int16]:
    """The shared read-only all-``_NONE`` array of ``size`` (copying it is cheaper than ``np.full``)."""
    template = _UNREJECTED.get(size)
    if template is None:
        if len(_UNREJECTED) >= 64:
            _UNREJECTED.clear()
        template = _UNREJECTED[size] = np.full(size, _NONE, dtype=np.int16)
        template.flags.writeable = False
    return template


def _is_int_array(value: object, size: int) -> bool:
    return (isinstance(value, np.ndarray) and value.shape == (size,) and value.dtype.kind in "iu")


class BatchFilter:
    """One cycle's batch Filter pass over ``batch`` for ``framework``'s cycle filters."""

    def __init__(self, framework: Framework, state: CycleState, pod: Pod, batch: NodeBatch,
                 filters: Sequence[tuple[str, Hook]]) -> None:
        self.framework = framework
        self.state = state
        self.pod = pod
        self.batch = batch
        self.filters = filters
        size = len(batch)
        #: Per node, the index in ``filters`` of the first batch plugin that rejected it (``_NONE``: none did).
        self.first = _unrejected(size).copy()
        # Whether any batch form rejected any node (when none did, every node passes them: no scan needed).
        self._rejected_any = False
        self.codes = np.zeros(size, dtype=np.int8)
        #: Indexes in ``filters`` of the plugins without a batch form.
        self.per_node: list[int] = []
        # The overlaid columns and the nominated pods by node (a copy: the statuses may be read after the
        # nominations change); which batch indexes were rejected with their nominated pods counted.
        self._overlay: ColumnStore | None = None
        self._nominated: Mapping[str, Sequence[PodInfo]] = {}
        self._with_mask = np.zeros(size, dtype=bool)
        # Batch indexes whose node holds nominated pods that count (the overlay differs from the columns only there).
        self._has_extra = np.zeros(size, dtype=bool)

    def run_batch_forms(self) -> None:
        """Call every batch form once over the whole batch; raise BatchError if one fails."""
        self.per_node = self._run_forms(self.batch, self.first, self.codes)

    def _run_forms(self, batch: NodeBatch, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8]) -> list[int]:
        """Run every batch form over ``batch``, recording each node's first rejection in ``first``/``codes``; the
        indexes of the filters without a batch form."""
        batch_hooks = self.framework.batch_filter_hooks
        size = len(batch)
        per_node: list[int] = []
        for k, (name, _hook) in enumerate(self.filters):
            batch_hook = batch_hooks.get(name)
            if batch_hook is None:
                per_node.append(k)
                continue
            try:
                out = batch_hook(self.state, self.pod, batch)
            except PLUGIN_FAILURES as exc:
                raise BatchError(self.framework.guard.failed(FILTER, name, self.pod, exc=exc)) from None
            if out is None:
                continue
            if not _is_int_array(out, size):
                raise BatchError(self.framework.guard.failed(
                    FILTER, name, self.pod, value=out, expected=f"an integer array of {size} status codes or None"))
            rejected = out != 0
            if not rejected.any():
                continue
            self._rejected_any = True
            bad = set(_distinct(out[rejected])) - _ALLOWED_CODES
            if bad:
                raise BatchError(self.framework.guard.failed(
                    FILTER, name, self.pod, detail=f"returned status code {min(bad)}, which Filter may not return"))
            new = rejected & (first == _NONE)
            np.putmask(first, new, k)  # masked stores: about twice as fast as boolean-index assignment
            np.copyto(codes, out, casting="unsafe", where=new)  # codes checked above: they fit an int8
        return per_node

    def add_nominated_pods(self, indexes: IntArray, extra: IntArray,
                           nominated: Mapping[str, Sequence[PodInfo]]) -> bool:
        """The two-pass filter on the nodes at batch indexes ``indexes``, for a cycle
        :func:`nominated_overlay_exact` accepts. ``extra`` holds per node position the count and summed requests of
        the pods the two-pass filter adds (``nominated``, by node name). The batch forms run again over those nodes
        on columns with the sums overlaid, and a node's first rejection becomes the one with the pods if any, else
        the one without. False (nothing changed) when the overlay is not exact; the caller then takes the per-node
        two-pass filter."""
        batch = self.batch
        columns = batch.columns
        overlay = _overlay_columns(columns, extra) if isinstance(columns, ColumnStore) else None
        if overlay is None:
            return False
        sub = NodeBatch(PickedNodes(batch.infos, indexes), batch.positions[indexes], overlay)
        first = np.full(len(sub), _NONE, dtype=np.int16)
        codes = np.zeros(len(sub), dtype=np.int8)
        self._run_forms(sub, first, codes)
        with_pods = first != _NONE
        changed = indexes[with_pods]
        self.first[changed] = first[with_pods]
        self.codes[changed] = codes[with_pods]
        self._overlay = overlay
        self._nominated = nominated
        self._with_mask[changed] = True
        self._has_extra[indexes] = True
        return True

    def find(self, start: int, to_find: int, diagnosis: Diagnosis,
             special: dict[int, Callable[[NodeInfo], Status | None]]) -> tuple[IntArray, IntArray]:
        """Try nodes from ``start`` until ``to_find`` pass; returns (feasible batch indexes in try order, batch
        indexes of the rejections deferred to the diagnosis). ``special`` maps batch indexes to a full per-node
        filter (nodes with nominated pods), whose statuses are recorded right away."""
        size = len(self.batch)
        start %= size
        if self.per_node or special:
            order = np.arange(start, start + size, dtype=np.int64)
            order[size - start:] -= size
            return self._find_mixed(order, to_find, diagnosis, special)
        if not self._rejected_any:  # every node passes: the first ``to_find`` from ``start`` (the usual cycle)
            feasible = np.arange(start, start + min(to_find, size), dtype=np.int64)
            feasible[feasible >= size] -= size
            return feasible, _NO_INDEXES
        passed = self.first == _NONE
        if start:
            passed = np.concatenate((passed[start:], passed[:start]))
        feasible = np.flatnonzero(passed)  # positions in try order
        if len(feasible) >= to_find:
            feasible = feasible[:to_find]
            tried = int(feasible[-1]) + 1
        else:
            tried = size
        rejected = np.flatnonzero(~passed[:tried])
        if start:  # back from try order to batch indexes
            feasible += start
            feasible[feasible >= size] -= size
            rejected += start
            rejected[rejected >= size] -= size
        self._defer(diagnosis, rejected)
        return feasible, rejected

    def _find_mixed(self, order: IntArray, to_find: int, diagnosis: Diagnosis,
                    special: dict[int, Callable[[NodeInfo], Status | None]]) -> tuple[IntArray, IntArray]:
        framework, state, pod, infos = self.framework, self.state, self.pod, self.batch.infos
        filters = self.filters
        # For a first batch rejection at index k, the per-node plugins configured before k (all of them for none).
        prefix: dict[int, list[tuple[str, Hook]]] = {}
        first_list = self.first.tolist()
        feasible: list[int] = []
        rejected: list[int] = []
        # Statuses the walk already has (per-node plugins, nominated-pod nodes), by batch index: recorded with the
        # batch rejections in try order, so the statuses keep the order the per-node path records them in.
        known: dict[int, Status] = {}
        for j in order.tolist():
            info = infos[j]
            run_special = special.get(j)
            if run_special is not None:
                status = run_special(info)
            else:
                k = first_list[j]
                subset = prefix.get(k)
                if subset is None:
                    subset = prefix[k] = [filters[i] for i in self.per_node if i < k]
                status = framework.run_filters(subset, state, pod, info) if subset else None
                if status is None and k != _NONE:
                    rejected.append(j)
                    continue
            if status is None:
                feasible.append(j)
                if len(feasible) >= to_find:
                    break
            elif status.code is Code.ERROR:
                raise BatchError(status)
            else:
                rejected.append(j)
                known[j] = status
                diagnosis.add_plugin_status(status)
        deferred = np.asarray(rejected, dtype=np.int64)
        self._defer(diagnosis, deferred, known)
        return np.asarray(feasible, dtype=np.int64), deferred

    def _defer(self, diagnosis: Diagnosis, rejected: IntArray, known: dict[int, Status] | None = None) -> None:
        """Record the rejections at batch indexes ``rejected`` (in try order): the batch plugins now, statuses when
        read; ``known`` holds the statuses already computed per node."""
        if not len(rejected):
            return
        first = self.first[rejected]
        codes = self.codes[rejected]
        by_batch = first != _NONE
        if known:
            by_batch &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        statuses = diagnosis.node_to_status
        assert isinstance(statuses, DeferredNodeToStatus), "the runtime's diagnoses record deferred statuses"
        rejecting = _distinct(first[by_batch])
        for k in rejecting:
            name = self.filters[k][0]
            # The usual case, one rejecting plugin: its codes need no mask of their own.
            plugin_codes = codes[by_batch] if len(rejecting) == 1 else codes[by_batch & (first == k)]
            if (plugin_codes == _PENDING).any():
                diagnosis.pending_plugins.add(name)
            if (plugin_codes != _PENDING).any():
                diagnosis.unschedulable_plugins.add(name)
        statuses.defer(lambda: self._statuses(rejected, first, codes, known or {}),
                       lambda: self._codes(rejected, first, codes, known or {}),
                       lambda: self._reason_tally(rejected, first, codes, known or {}),
                       lambda: self._positional(rejected, first, codes, known or {}))

    def _names(self, rejected: IntArray) -> list[str]:
        """The names of the nodes at batch indexes ``rejected``."""
        names = self.batch.columns.names
        return list(map(names.__getitem__, self.batch.positions[rejected].tolist()))

    def _codes(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
               known: dict[int, Status]) -> Iterable[tuple[str, tuple[Code, str]]]:
        """Every rejection's (node, (code, plugin)) in try order, as :meth:`_statuses` yields them, without
        messages."""
        names = [name for name, _hook in self.filters]
        keys = list(zip(first.tolist(), codes.tolist(), strict=True))
        pairs = {key: (Code(key[1]), names[key[0]]) for key in set(keys) if key[0] != _NONE}
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
        plugins = self.framework.plugins
        ks = [k for k, (name, _hook) in enumerate(self.filters)
              if declared_filter_reads(plugins.get(name)) == FilterReads.RESOURCES]
        if not ks:
            return None
        chosen = np.isin(first, ks)
        if known:
            chosen &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        if int(chosen.sum()) < 2:
            return None
        indexes = rejected[chosen]
        positions = self.batch.positions[indexes]
        table = _resource_rows(self.batch.columns, positions)
        if self._overlay is not None:
            flags = self._with_mask[indexes]
            if flags.any():
                with_pods = _resource_rows(self._overlay, positions[flags])
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

    def _positional(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
                    known: dict[int, Status]) -> PositionalCodes:
        """Every rejection's column position, code and rejecting plugin (an index into the returned names), as
        :meth:`_codes` gives them by name."""
        names = [name for name, _hook in self.filters]
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
        return self.batch.positions[rejected], entry_codes, plugins, names

    def _reason_tally(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
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
        batch, plugins = self.batch, self.framework.plugins
        by_batch = first != _NONE
        if known:
            by_batch &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        for k in _distinct(first[by_batch]):
            reason_counts = filter_reason_counts_of(plugins.get(self.filters[k][0]))
            if reason_counts is None:
                continue
            chosen = by_batch & (first == k)
            indexes = rejected[chosen]
            flags = self._with_mask[indexes]
            found: list[Mapping[str, int]] = []
            # Where every node with nominated pods was rejected with them, the overlay serves all in one call.
            parts = ((indexes, self._overlay),) if self._overlay is not None and \
                not (self._has_extra[indexes] & ~flags).any() else \
                ((indexes[~flags], batch.columns), (indexes[flags], self._overlay))
            try:
                for part, columns in parts:
                    if len(part) and columns is not None:
                        found.append(reason_counts(self.state, self.pod, NodeBatch(
                            PickedNodes(batch.infos, part), batch.positions[part], columns)))
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
        return self.framework.run_filter_plugins(self.state, self.pod, copy_with)

    def _statuses(self, rejected: IntArray, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8],
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
        info = self.batch.infos[j]
        name, hook = self.filters[k]
        status: Any
        try:
            status = self._with_pods(info, self._nominated[info.name]) if self._with_mask[j] else \
                hook(self.state, self.pod, info)
        except PLUGIN_FAILURES as exc:
            status = Status(Code(code), (f"filter_nodes rejected the node; filter raised {describe_exception(exc)}",))
        if not isinstance(status, Status) or not status.is_rejected():
            status = Status(Code(code), ("filter_nodes rejected the node but filter accepts it",))
        checked: Status = status
        return checked.with_plugin(name)


# The range check [MIN_NODE_SCORE, MAX_NODE_SCORE] of an int64 column in one reduction: viewed as unsigned, a negative
# score wraps above MAX_NODE_SCORE (this needs MIN_NODE_SCORE == 0, as kube-scheduler's MinNodeScore is).
_umax = np.maximum.reduce
assert MIN_NODE_SCORE == 0


def score_batch(framework: Framework, state: CycleState, pod: Pod, batch: NodeBatch) -> ScoreTable:
    """Score ``batch`` with every non-skipped Score plugin (batch forms where they exist), normalise, check the
    range and apply weights, as :meth:`Framework.run_score_plugins`; raise BatchError on a plugin failure."""
    size = len(batch)
    infos = batch.infos
    table = ScoreTable(_Names(batch), totals=np.zeros(size, dtype=np.int64))
    skip = state.skip_score_plugins
    batch_scores = framework.batch_score_hooks
    batch_normalizers = framework.batch_normalize_hooks
    totals: npt.NDArray[np.int64] = np.zeros(size, dtype=np.int64)
    for name, hook in framework.score_hooks:
        if name in skip:
            continue
        batch_hook = batch_scores.get(name)
        if batch_hook is not None:
            try:
                raw: Any = batch_hook(state, pod, batch)
            except PLUGIN_FAILURES as exc:
                raise BatchError(framework.guard.failed(SCORE, name, pod, exc=exc)) from None
            if not _is_int_array(raw, size):
                raise BatchError(framework.guard.failed(SCORE, name, pod, value=raw,
                                                        expected=f"an integer array of {size} scores"))
            column = raw.astype(np.int64, copy=False)
        else:
            node_info: NodeInfo | None = None
            try:
                scores: list[Any] = [hook(state, pod, node_info := ni) for ni in infos]
            except PLUGIN_FAILURES as exc:
                raise BatchError(framework.guard.failed(SCORE, name, pod, node_info.name if node_info is not None
                                                        else "", exc=exc)) from None
            column = _as_column(scores)
        column = _normalize(framework, state, pod, batch, name, column, batch_normalizers.get(name))
        if len(column) and int(_umax(column.view(np.uint64))) > MAX_NODE_SCORE:
            index = int(np.flatnonzero((column < MIN_NODE_SCORE) | (column > MAX_NODE_SCORE))[0])
            failed = framework.invalid_score(name, pod, [int(column[index])], [table.nodes[index]])
            assert failed is not None
            raise BatchError(failed)
        weight = framework.score_weight(name)
        if weight != 1:
            column = column * weight
        table.plugins.append(name)
        table.columns.append(column)
        totals += column
    table.totals = totals
    return table


def _distinct(values: npt.NDArray[np.integer[Any]]) -> list[int]:
    """The distinct values, ascending: two reductions when all are equal (the common case: one rejecting plugin,
    one code), else a sort."""
    if not len(values):
        return []
    low, high = int(values.min()), int(values.max())
    return [low] if low == high else np.unique(values).tolist()


class _Names(Sequence[str]):
    """The names of a batch's nodes, looked up only when read (select_host reads one)."""

    __slots__ = ("_batch",)

    def __init__(self, batch: NodeBatch) -> None:
        self._batch = batch

    def __len__(self) -> int:
        return len(self._batch)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [info.name for info in self._batch.infos[index]]
        return self._batch.infos[index].name


def _as_column(scores: list[Any]) -> npt.NDArray[Any]:
    """Per-node scores as an int64 array, or an object array when some value is not a plain int (so the range check
    reports it as the per-node path does)."""
    if all(type(value) is int and -(2**62) < value < 2**62 for value in scores):
        return np.array(scores, dtype=np.int64)
    return np.array(scores, dtype=object)


def _normalize(framework: Framework, state: CycleState, pod: Pod, batch: NodeBatch, name: str,
               column: npt.NDArray[Any], batch_normalize: Hook | None) -> npt.NDArray[Any]:
    if batch_normalize is not None and column.dtype != object:
        try:
            out = batch_normalize(state, pod, batch, column)
        except PLUGIN_FAILURES as exc:
            raise BatchError(framework.guard.failed(NORMALIZE, name, pod, exc=exc)) from None
        if not _is_int_array(out, len(batch)):
            raise BatchError(framework.guard.failed(NORMALIZE, name, pod, value=out,
                                                    expected=f"an integer array of {len(batch)} scores"))
        return np.asarray(out, dtype=np.int64)
    if framework.normalizer(name) is None:
        return _checked(framework, pod, name, column, batch)
    node_scores = [NodeScore(ni.name, s) for ni, s in zip(batch.infos, column.tolist(), strict=True)]
    status = framework.run_normalize(name, state, pod, node_scores, [ni.name for ni in batch.infos])
    if status is not None:
        raise BatchError(status)
    return _checked(framework, pod, name, _as_column([ns.score for ns in node_scores]), batch)


def _checked(framework: Framework, pod: Pod, name: str, column: npt.NDArray[Any],
             batch: NodeBatch) -> npt.NDArray[Any]:
    """``column`` as int64, or the per-node path's error for its first value that is not an int in range."""
    if column.dtype != object:
        return column
    failed = framework.invalid_score(name, pod, column.tolist(), _Names(batch))
    assert failed is not None, "an object column always holds a value out of range"
    raise BatchError(failed)

"""The batch Filter pass: plugins' ``filter_nodes`` over the columnar snapshot.

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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, declared_filter_reads
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis
from kubesched.runtime._batch_statuses import NOT_REJECTED, BatchRejections, distinct
from kubesched.runtime._columns import CPU, EPHEMERAL_STORAGE, EXACT_LIMIT, MEMORY, ColumnStore, PickedNodes
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, Hook
from kubesched.runtime._invoke import FILTER
from kubesched.runtime._statuses import DeferredNodeToStatus

if TYPE_CHECKING:
    from kubesched.runtime._framework import Framework

_PENDING = int(Code.PENDING)
_ALLOWED_CODES = frozenset({int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING)})
#: The PreFilter extension the two-pass filter runs for every nominated pod it adds to a node.
OVERLAY_ADD_POD_HOOK = "pre_filter_add_pod"


#: The declared reads under which the nominated pods' requests may be overlaid on the columns.
_OVERLAY_READS = FilterReads.NODE | FilterReads.RESOURCES


def overlay_reads(plugin: object) -> bool:
    """Whether a Filter plugin's ``filter_reads`` declaration lets the overlay stand in for its node copies: it
    reads only the Node object and the node's resource amounts and pod count."""
    reads = declared_filter_reads(plugin)
    return reads is not None and not reads & ~_OVERLAY_READS


def nominated_overlay_exact(framework: Framework, state: CycleState, filters: Sequence[tuple[str, Hook]]) -> bool:
    """Whether the two-pass filter may run on columns with the nominated pods' requests overlaid: every cycle
    filter has a batch form and declares that it reads only the Node object and the node's resource amounts and
    pod count (:class:`~kubesched.framework._plugin.FilterReads`), and no PreFilter AddPod extension runs for the
    pod (adding a nominated pod then changes only what the overlay changes)."""
    fitting = _overlay_filters.get(framework)
    if fitting is None:
        plugins, batch_hooks = framework.plugins, framework.batch_filter_hooks
        fitting = _overlay_filters[framework] = (
            frozenset(name for name in batch_hooks if overlay_reads(plugins.get(name))),
            tuple(framework.plugins_at(OVERLAY_ADD_POD_HOOK)))
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
    overlay.snapshot_rows = False
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


class BatchError(Exception):
    """A plugin failed in a batch form; ``status`` is its Error status (already recorded as a failure)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


_NO_INDEXES: IntArray = np.zeros(0, dtype=np.int64)
_NO_INDEXES.flags.writeable = False
# Per (size, dtype, value), a shared read-only array of that value: a cycle's per-node arrays start as these and
# are copied only when written (most cycles reject no node and add no nominated pods, so never).
_FILLED: dict[tuple[int, str, int], npt.NDArray[Any]] = {}


def _filled(size: int, dtype: str, value: int) -> npt.NDArray[Any]:
    """The shared read-only array of ``size`` elements of ``dtype``, all ``value`` (copy it to write)."""
    key = (size, dtype, value)
    template = _FILLED.get(key)
    if template is None:
        if len(_FILLED) >= 256:
            _FILLED.clear()
        template = _FILLED[key] = np.full(size, value, dtype=dtype)
        template.flags.writeable = False
    return template


def _unrejected(size: int) -> npt.NDArray[np.int16]:
    """The shared read-only all-``NOT_REJECTED`` array of ``size`` (copying it is cheaper than ``np.full``)."""
    return _filled(size, "int16", int(NOT_REJECTED))


def _writable(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``array``, or a copy of it when it is a shared read-only one."""
    return array if array.flags.writeable else array.copy()


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
        #: Per node, the index in ``filters`` of the first batch plugin that rejected it (``NOT_REJECTED``: none did).
        self.first = _unrejected(size)
        # Whether any batch form rejected any node (when none did, every node passes them: no scan needed).
        self._rejected_any = False
        self.codes: npt.NDArray[np.int8] = _filled(size, "int8", 0)
        #: Indexes in ``filters`` of the plugins without a batch form.
        self.per_node: list[int] = []
        # The overlaid columns and the nominated pods by node (a copy: the statuses may be read after the
        # nominations change); which batch indexes were rejected with their nominated pods counted.
        self.overlay: ColumnStore | None = None
        self.nominated: Mapping[str, Sequence[PodInfo]] = {}
        self.with_mask: npt.NDArray[np.bool_] = _filled(size, "bool", 0)
        # Batch indexes whose node holds nominated pods that count (the overlay differs from the columns only there).
        self.has_extra: npt.NDArray[np.bool_] = _filled(size, "bool", 0)

    def run_batch_forms(self) -> None:
        """Call every batch form once over the whole batch; raise BatchError if one fails."""
        self.per_node, self.first, self.codes = self._run_forms(self.batch, self.first, self.codes)

    def _run_forms(self, batch: NodeBatch, first: npt.NDArray[np.int16], codes: npt.NDArray[np.int8]
                   ) -> tuple[list[int], npt.NDArray[np.int16], npt.NDArray[np.int8]]:
        """Run every batch form over ``batch``, recording each node's first rejection in ``first``/``codes`` (copied
        first when shared read-only ones); the indexes of the filters without a batch form, ``first``, ``codes``."""
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
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
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
            bad = set(distinct(out[rejected])) - _ALLOWED_CODES
            if bad:
                raise BatchError(self.framework.guard.failed(
                    FILTER, name, self.pod, detail=f"returned status code {min(bad)}, which Filter may not return"))
            if not first.flags.writeable:
                first, codes = first.copy(), _writable(codes)
            new = rejected & (first == NOT_REJECTED)
            np.putmask(first, new, k)  # masked stores: about twice as fast as boolean-index assignment
            np.copyto(codes, out, casting="unsafe", where=new)  # codes checked above: they fit an int8
        return per_node, first, codes

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
        first = np.full(len(sub), NOT_REJECTED, dtype=np.int16)
        codes = np.zeros(len(sub), dtype=np.int8)
        _, first, codes = self._run_forms(sub, first, codes)
        with_pods = first != NOT_REJECTED
        changed = indexes[with_pods]
        self.first, self.codes = _writable(self.first), _writable(self.codes)
        self.first[changed] = first[with_pods]
        self.codes[changed] = codes[with_pods]
        self.overlay = overlay
        self.nominated = nominated
        self.with_mask, self.has_extra = _writable(self.with_mask), _writable(self.has_extra)
        self.with_mask[changed] = True
        self.has_extra[indexes] = True
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
        passed = self.first == NOT_REJECTED
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
                if status is None and k != NOT_REJECTED:
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
        by_batch = first != NOT_REJECTED
        if known:
            by_batch &= ~np.isin(rejected, np.fromiter(known, dtype=np.int64, count=len(known)))
        statuses = diagnosis.node_to_status
        assert isinstance(statuses, DeferredNodeToStatus), "the runtime's diagnoses record deferred statuses"
        rejecting = distinct(first[by_batch])
        for k in rejecting:
            name = self.filters[k][0]
            # The usual case, one rejecting plugin: its codes need no mask of their own.
            plugin_codes = codes[by_batch] if len(rejecting) == 1 else codes[by_batch & (first == k)]
            if (plugin_codes == _PENDING).any():
                diagnosis.pending_plugins.add(name)
            if (plugin_codes != _PENDING).any():
                diagnosis.unschedulable_plugins.add(name)
        read = BatchRejections(self)
        statuses.defer(lambda: read.statuses(rejected, first, codes, known or {}),
                       lambda: read.codes(rejected, first, codes, known or {}),
                       lambda: read.reason_tally(rejected, first, codes, known or {}),
                       lambda: read.positional(rejected, first, codes, known or {}))

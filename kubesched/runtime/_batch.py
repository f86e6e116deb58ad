"""The batch path of Filter and Score: plugins' ``filter_nodes`` / ``score_nodes`` over the columnar snapshot.

kube-scheduler's semantics are applied to the arrays: nodes are tried from nextStartNodeIndex in snapshot order,
the search stops once numFeasibleNodesToFind nodes passed, and a node's rejection is recorded for the first
rejecting plugin in the profile's order. Plugins without batch forms run per node, interleaved in that order,
and nodes with nominated pods take the per-node two-pass filter. Statuses are materialised from the per-node
hooks only when read (see :meth:`NodeToStatus.defer`). Decisions equal the per-node path's; see
docs/performance.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework.columns import IntArray, NodeBatch
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.status import Code, Status
from kubesched.framework.types import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Diagnosis,
    NodeScore,
    ScoreTable,
)
from kubesched.runtime._failures import PLUGIN_FAILURES, Hook, _cause, _returned

if TYPE_CHECKING:
    from kubesched.runtime._framework import Framework

_NONE = np.int16(32767)  # "no batch plugin rejected the node"
_ALLOWED_CODES = frozenset({int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING)})


class BatchError(Exception):
    """A plugin failed in a batch form; ``status`` is its Error status (already recorded as a failure)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


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
        self.first = np.full(size, _NONE, dtype=np.int16)
        self.codes = np.zeros(size, dtype=np.int8)
        #: Indexes in ``filters`` of the plugins without a batch form.
        self.per_node: list[int] = []

    def run_batch_forms(self) -> None:
        """Call every batch form once over the whole batch; raise BatchError if one fails."""
        batch_hooks = self.framework.batch_filter_hooks
        size = len(self.batch)
        first, codes = self.first, self.codes
        for k, (name, _hook) in enumerate(self.filters):
            batch_hook = batch_hooks.get(name)
            if batch_hook is None:
                self.per_node.append(k)
                continue
            try:
                out = batch_hook(self.state, self.pod, self.batch)
            except PLUGIN_FAILURES as exc:
                raise self._error(name, _cause(None, exc), exc) from None
            if out is None:
                continue
            if not _is_int_array(out, size):
                raise self._error(name, _returned(out, f"an integer array of {size} status codes or None"), None)
            rejected = out != 0
            if not rejected.any():
                continue
            bad = set(np.unique(out[rejected]).tolist()) - _ALLOWED_CODES
            if bad:
                raise self._error(name, f"returned status code {min(bad)}, which Filter may not return", None)
            new = rejected & (first == _NONE)
            first[new] = k
            codes[new] = out[new]

    def _error(self, name: str, detail: str, cause: BaseException | None) -> BatchError:
        return BatchError(self.framework.record_failure("Filter", name, self.pod, "",
                                                        f'running "{name}" filter plugin: {detail}', detail, cause))

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
        for k in np.unique(first[by_batch]).tolist():
            name = self.filters[k][0]
            plugin_codes = codes[by_batch & (first == k)]
            if (plugin_codes == Code.PENDING).any():
                diagnosis.pending_plugins.add(name)
            if (plugin_codes != Code.PENDING).any():
                diagnosis.unschedulable_plugins.add(name)
        diagnosis.node_to_status.defer(
            lambda: self._statuses(rejected, first.tolist(), codes.tolist(), known or {}))

    def _statuses(self, rejected: IntArray, first: list[int], codes: list[int],
                  known: dict[int, Status]) -> Iterator[tuple[str, Status]]:
        """Every rejection's status in try order: those already known, and batch rejections from each rejecting
        plugin's per-node hook."""
        infos, state, pod = self.batch.infos, self.state, self.pod
        for j, k, code in zip(rejected.tolist(), first, codes, strict=True):
            info = infos[j]
            status: Any = known.get(j)
            if status is not None:
                yield info.name, status
                continue
            name, hook = self.filters[k]
            try:
                status = hook(state, pod, info)
            except PLUGIN_FAILURES as exc:
                status = Status(Code(code), (f"filter_nodes rejected the node; filter raised {_cause(None, exc)}",))
            if not isinstance(status, Status) or not status.is_rejected():
                status = Status(Code(code), ("filter_nodes rejected the node but filter accepts it",))
            yield info.name, status.with_plugin(name)


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
                raise _score_error(framework, pod, name, "", exc) from None
            if not _is_int_array(raw, size):
                detail = _returned(raw, f"an integer array of {size} scores")
                raise BatchError(framework.record_failure("Score", name, pod, "", 'running Score plugins: plugin '
                                                          f'"{name}" {detail}', detail))
            column = raw.astype(np.int64, copy=False)
        else:
            node_info: NodeInfo | None = None
            try:
                scores: list[Any] = [hook(state, pod, node_info := ni) for ni in infos]
            except PLUGIN_FAILURES as exc:
                raise _score_error(framework, pod, name, node_info.name if node_info is not None else "",
                                   exc) from None
            column = _as_column(scores)
        column = _normalize(framework, state, pod, batch, name, column, batch_normalizers.get(name))
        if len(column) and (int(column.min()) < MIN_NODE_SCORE or int(column.max()) > MAX_NODE_SCORE):
            index = int(np.flatnonzero((column < MIN_NODE_SCORE) | (column > MAX_NODE_SCORE))[0])
            value = int(column[index])
            detail = (f"returns an invalid score {value!r}, it should in the range of [{MIN_NODE_SCORE}, "
                      f"{MAX_NODE_SCORE}] after normalizing")
            raise BatchError(framework.record_failure("Score", name, pod, table.nodes[index], 'applying score '
                                                      f'defaultWeights on Score plugins: plugin "{name}" {detail}',
                                                      detail))
        weight = framework.score_weight(name)
        if weight != 1:
            column = column * weight
        table.plugins.append(name)
        table.columns.append(column)
        totals += column
    table.totals = totals
    return table


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
            detail = _cause(None, exc)
            raise BatchError(framework.record_failure("NormalizeScore", name, pod, "", 'running Normalize on Score '
                                                      f'plugins: plugin "{name}" failed with: {detail}', detail,
                                                      exc)) from None
        if not _is_int_array(out, len(batch)):
            detail = _returned(out, f"an integer array of {len(batch)} scores")
            raise BatchError(framework.record_failure("NormalizeScore", name, pod, "", 'running Normalize on Score '
                                                      f'plugins: plugin "{name}" {detail}', detail))
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
    for index, value in enumerate(column.tolist()):
        if type(value) is not int or not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
            detail = (f"returns an invalid score {value!r}, it should in the range of [{MIN_NODE_SCORE}, "
                      f"{MAX_NODE_SCORE}] after normalizing")
            raise BatchError(framework.record_failure("Score", name, pod, batch.infos[index].name,
                                                      'applying score defaultWeights on Score plugins: plugin '
                                                      f'"{name}" {detail}', detail))
    raise AssertionError("unreachable: an object column always holds a value out of range")


def _score_error(framework: Framework, pod: Pod, name: str, node: str, exc: BaseException) -> BatchError:
    detail = _cause(None, exc)
    return BatchError(framework.record_failure("Score", name, pod, node, f'running Score plugins: plugin "{name}" '
                                               f"failed with: {detail}", detail, exc))


def select_host_index(totals: npt.NDArray[np.int64], rng: random.Random) -> int:
    """The index select_host picks from ``totals``: the highest, ties broken by the same reservoir draws, consumed
    in one call. ``rng.random()`` is two 32-bit words of the generator, ``(a >> 5) * 2**26 + (b >> 6)`` over 2**53;
    ``getrandbits(64 * n)`` yields the same ``2 * n`` words in order, so the stream ends where n calls would."""
    best = totals.max()
    ties = np.flatnonzero(totals == best)
    draws = len(ties) - 1
    if draws == 0:
        return int(ties[0])
    words = np.frombuffer(rng.getrandbits(64 * draws).to_bytes(8 * draws, "little"), dtype="<u4")
    uniform = ((words[0::2] >> 5) * 67108864.0 + (words[1::2] >> 6)) * (1.0 / 9007199254740992.0)
    replaced = np.flatnonzero(uniform * np.arange(2, draws + 2) < 1.0)
    return int(ties[replaced[-1] + 1]) if len(replaced) else int(ties[0])

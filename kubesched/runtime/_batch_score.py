"""The batch Score pass: plugins' ``score_nodes`` and ``normalize_scores`` over the feasible nodes, per-node hooks for
plugins without them, the [0, 100] check and the weights, as the per-node path applies them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._types import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore
from kubesched.runtime._batch_filter import BatchError, _is_int_array
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, Hook
from kubesched.runtime._invoke import NORMALIZE, SCORE
from kubesched.runtime._scores import ScoreTable

if TYPE_CHECKING:
    from kubesched.runtime._framework import Framework


# The range check [MIN_NODE_SCORE, MAX_NODE_SCORE] of an int64 column in one reduction: viewed as unsigned, a negative
# score wraps above MAX_NODE_SCORE (this needs MIN_NODE_SCORE == 0, as kube-scheduler's MinNodeScore is).
_umax = np.maximum.reduce
assert MIN_NODE_SCORE == 0


@attrs.frozen(slots=True)
class ScoreStep:
    """One Score plugin as the batch pass runs it, resolved once per hook table instead of per plugin and pod."""

    name: str
    hook: Hook
    batch_hook: Hook | None
    batch_normalize: Hook | None
    #: Whether a per-node NormalizeScore must run (no batch form of it).
    normalizes: bool
    weight: int
    #: A built-in plugin's batch scores, normalised, are in [0, 100] by construction (the per-node path and the
    #: conformance check ``batch-forms`` check them): the shape and range checks are for plugins from outside.
    proven: bool


def score_plan(framework: Framework, foreign: frozenset[str]) -> tuple[ScoreStep, ...]:
    """The Score plugins of ``framework``'s current hook table as :class:`ScoreStep` rows, in order."""
    batch_scores, batch_normalizers = framework.batch_score_hooks, framework.batch_normalize_hooks
    steps = []
    for name, hook in framework.score_hooks:
        batch_hook, batch_normalize = batch_scores.get(name), batch_normalizers.get(name)
        normalizes = batch_normalize is None and framework.normalizer(name) is not None
        steps.append(ScoreStep(name, hook, batch_hook, batch_normalize, normalizes, framework.score_weight(name),
                               batch_hook is not None and not normalizes and name not in foreign))
    return tuple(steps)


def score_batch(framework: Framework, state: CycleState, pod: Pod, batch: NodeBatch) -> ScoreTable:
    """Score ``batch`` with every non-skipped Score plugin (batch forms where they exist), normalise, check the
    range and apply weights, as :meth:`Framework.run_score_plugins`; raise BatchError on a plugin failure."""
    size = len(batch)
    table = ScoreTable(_Names(batch))
    skip = state.skip_score_plugins
    totals: npt.NDArray[np.int64] = np.zeros(size, dtype=np.int64)
    plugins, columns = table.plugins, table.columns
    plan = framework.batch_score_plan
    if plan is None:
        plan = framework.batch_score_plan = score_plan(framework, framework.foreign_plugins)
    step: ScoreStep
    for step in plan:
        name = step.name
        if name in skip:
            continue
        batch_hook = step.batch_hook
        if batch_hook is not None:
            try:
                raw: Any = batch_hook(state, pod, batch)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                raise BatchError(framework.guard.failed(SCORE, name, pod, exc=exc)) from None
            if step.proven:
                column = raw.astype(np.int64, copy=False)
                if step.batch_normalize is not None:
                    column = _normalize(framework, state, pod, batch, name, column, step.batch_normalize)
                _add(step, column, totals, plugins, columns)
                continue
            if not _is_int_array(raw, size):
                raise BatchError(framework.guard.failed(SCORE, name, pod, value=raw,
                                                        expected=f"an integer array of {size} scores"))
            column = raw.astype(np.int64, copy=False)
        else:
            node_info: NodeInfo | None = None
            hook = step.hook
            try:
                scores: list[Any] = [hook(state, pod, node_info := ni) for ni in batch.infos]
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                raise BatchError(framework.guard.failed(SCORE, name, pod, node_info.name if node_info is not None
                                                        else "", exc=exc)) from None
            column = _as_column(scores)
        column = _normalize(framework, state, pod, batch, name, column, step.batch_normalize)
        if len(column) and int(_umax(column.view(np.uint64))) > MAX_NODE_SCORE:
            index = int(np.flatnonzero((column < MIN_NODE_SCORE) | (column > MAX_NODE_SCORE))[0])
            failed = framework.invalid_score(name, pod, [int(column[index])], [table.nodes[index]])
            assert failed is not None
            raise BatchError(failed)
        _add(step, column, totals, plugins, columns)
    table.totals = totals
    return table


def _add(step: ScoreStep, column: npt.NDArray[np.int64], totals: npt.NDArray[np.int64], plugins: list[str],
         columns: list[Any]) -> None:
    """Weigh ``column`` and add it to the table's columns and ``totals`` (in place)."""
    if step.weight != 1:
        column = column * step.weight
    plugins.append(step.name)
    columns.append(column)
    totals += column


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
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            raise BatchError(framework.guard.failed(NORMALIZE, name, pod, exc=exc)) from None
        if not _is_int_array(out, len(batch)):
            raise BatchError(framework.guard.failed(NORMALIZE, name, pod, value=out,
                                                    expected=f"an integer array of {len(batch)} scores"))
        return np.asarray(out, dtype=np.int64)
    if framework.normalizer(name) is None:
        return _checked(framework, pod, name, column, batch)
    node_scores = [NodeScore(ni.name, s) for ni, s in zip(batch.infos, column.tolist(), strict=True)]
    status = framework.scoring.normalize(name, state, pod, node_scores, [ni.name for ni in batch.infos])
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

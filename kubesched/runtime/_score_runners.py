"""PreScore, Score and NormalizeScore as the Framework runs them on the per-node path (the batch path's score pass
is ``_batch_score.py``): Skip, the range check [0, 100] after normalising, and the weights."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED
from kubesched.runtime._invoke import NORMALIZE, PRE_SCORE, SCORE, WEIGHTS, Guard, first_invalid_score, invalid_score
from kubesched.runtime._plugin_set import PluginSet
from kubesched.runtime._scores import ScoreTable

_SUCCESS = Code.SUCCESS
#: Told one Score plugin's scores over the nodes: (plugin, nodes, raw, normalised, weighted).
ScoreRecorder = Callable[[str, Sequence[str], Sequence[int], Sequence[int], Sequence[int]], None]


class ScoreRunners:
    """Runs one profile's PreScore, Score and NormalizeScore hooks through the guard."""

    def __init__(self, plugins: PluginSet, guard: Guard) -> None:
        self._plugins = plugins
        self._guard = guard

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                  batch: NodeBatch | None = None) -> Status | None:
        """Run PreScore over the feasible ``nodes``; Skip removes the plugin's Score for this cycle. Given ``batch``
        (the same nodes as a NodeBatch, on the batch path), a plugin's ``pre_score_nodes`` runs instead."""
        skipped: set[str] = set()
        batch_hooks = self._plugins.by_name["pre_score_nodes"] if batch is not None else None
        for name, hook in self._plugins.hooks["pre_score"]:
            args: tuple[object, ...] = (state, pod, nodes)
            if batch_hooks and name in batch_hooks:
                hook, args = batch_hooks[name], (state, pod, batch)
            try:  # inline, not through the guard: PreScore runs every cycle
                status = hook(*args)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                return self._guard.failed(PRE_SCORE, name, pod, exc=exc)
            if status is None:
                continue
            if not isinstance(status, Status):
                return self._guard.failed(PRE_SCORE, name, pod, value=status)
            if status.code is _SUCCESS:
                continue
            if status.code is Code.SKIP:
                skipped.add(name)
                continue
            return self._guard.failed(PRE_SCORE, name, pod, status=status)
        state.skip_score_plugins = skipped
        return None

    def normalize(self, name: str, state: CycleState, pod: Pod, node_scores: list[NodeScore],
                  nodes: Sequence[str]) -> Status | None:
        """Run ``name``'s NormalizeScore on ``node_scores`` (in place); None, or its Error status."""
        hook = self._plugins.by_name["normalize_score"][name]
        status, failed = self._guard.status_of(NORMALIZE, name, hook, (state, pod, node_scores), pod)
        if failed is not None:
            return failed
        if status is not None and status.code is not _SUCCESS:
            return self._guard.failed(NORMALIZE, name, pod, status=status)
        if len(node_scores) != len(nodes) or any(ns.name != n for ns, n in zip(node_scores, nodes, strict=True)):
            return self._guard.failed(NORMALIZE, name, pod, detail="changed the list of nodes (it must rewrite scores "
                                     "in place, keeping every node in order)")
        return None

    def invalid_score(self, name: str, pod: Pod, scores: Sequence[Any], nodes: Sequence[str]) -> Status | None:
        """The Error for the first of ``name``'s normalised scores outside [0, 100] (or not an int), else None."""
        index = first_invalid_score(scores)
        if index is None:
            return None
        return self._guard.failed(WEIGHTS, name, pod, nodes[index], detail=invalid_score(scores[index]))

    def score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
              recorder: ScoreRecorder | None = None) -> tuple[ScoreTable, Status | None]:
        """Score every node with every non-skipped plugin, normalise, check [0, 100], apply weights; ``recorder``
        (explain) is told each plugin's raw, normalised and weighted scores."""
        skip = state.skip_score_plugins
        normalizers = self._plugins.by_name["normalize_score"]
        table = ScoreTable([ni.name for ni in nodes], totals=[0] * len(nodes))
        for name, hook in self._plugins.hooks["score"]:
            if name in skip:
                continue
            node_info: NodeInfo | None = None
            try:
                # The assignment expression keeps the node being scored, so a failure can name it.
                scores: list[Any] = [hook(state, pod, node_info := ni) for ni in nodes]
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                return table, self._guard.failed(SCORE, name, pod, node_info.name if node_info is not None else "",
                                                exc=exc)
            raw = scores
            if name in normalizers:
                node_scores = [NodeScore(n, s) for n, s in zip(table.nodes, scores, strict=True)]
                status = self.normalize(name, state, pod, node_scores, table.nodes)
                if status is not None:
                    return table, status
                scores = [ns.score for ns in node_scores]
            normalized = scores
            status = self.invalid_score(name, pod, scores, table.nodes)
            if status is not None:
                return table, status
            weight = self._plugins.score_weights[name]
            if weight != 1:
                scores = [value * weight for value in scores]
            if recorder is not None:
                recorder(name, table.nodes, raw, normalized, scores)
            table.plugins.append(name)
            table.columns.append(scores)
            table.totals = list(map(operator.add, table.totals, scores))
        return table, None

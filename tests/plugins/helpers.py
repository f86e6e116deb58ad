"""Shared helpers for the built-in plugin tests: run hooks the way the framework does, on small clusters.

Plugins are built with the public kit (:func:`kubesched.testing.plugin_instance`), as a third party would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore


class FilterPlugin(Protocol):
    """A plugin with a Filter hook."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Filter."""


class ScorePlugin(Protocol):
    """A plugin with PreScore and Score hooks."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """PreScore."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """Score."""


class NormalizingScorePlugin(ScorePlugin, Protocol):
    """A Score plugin with NormalizeScore."""

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """NormalizeScore."""


def node_info(node: Node, *pods: Pod) -> NodeInfo:
    """A NodeInfo for ``node`` with ``pods`` already running on it."""
    return NodeInfo.of(node, [PodInfo.of(p) for p in pods])


def verdict(status: Status | None) -> tuple[Code, tuple[str, ...]]:
    """A status as (code, reasons); ``None`` is Success with no reasons."""
    if status is None:
        return Code.SUCCESS, ()
    return status.code, status.reasons


SUCCESS: tuple[Code, tuple[str, ...]] = (Code.SUCCESS, ())


def run_filter(plugin: FilterPlugin, pod: Pod, node: NodeInfo) -> Status | None:
    """The plugin's verdict on one node as the framework reaches it: PreFilter (if any), then Filter.

    A PreFilter Skip means the Filter does not run (the node passes); any other PreFilter failure is returned.
    """
    state = CycleState()
    pre_filter: Any = getattr(plugin, "pre_filter", None)
    if pre_filter is not None:
        outcome = pre_filter(state, pod, [node])
        if isinstance(outcome, Status):
            if outcome.code is Code.SKIP:
                return None
            if outcome.code is not Code.SUCCESS:
                return outcome
    return plugin.filter(state, pod, node)


def raw_scores(plugin: ScorePlugin, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int]:
    """Score per node after a successful PreScore (the test fails if PreScore does not succeed)."""
    state = CycleState()
    status = plugin.pre_score(state, pod, list(nodes))
    assert status is None or status.code is Code.SUCCESS, f"PreScore returned {status}"
    return [plugin.score(state, pod, n) for n in nodes]


def normalized_scores(plugin: NormalizingScorePlugin, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int]:
    """PreScore, Score on every node, then NormalizeScore, as the framework runs one Score plugin."""
    state = CycleState()
    status = plugin.pre_score(state, pod, list(nodes))
    assert status is None or status.code is Code.SUCCESS, f"PreScore returned {status}"
    scores = [NodeScore(n.name, plugin.score(state, pod, n)) for n in nodes]
    result = plugin.normalize_score(state, pod, scores)
    assert result is None or result.code is Code.SUCCESS, f"NormalizeScore returned {result}"
    return [s.score for s in scores]


def normalize(plugin: NormalizingScorePlugin, pod: Pod, raw: Sequence[int]) -> list[int]:
    """NormalizeScore applied to given raw scores (nodes named n0, n1, ...)."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    result = plugin.normalize_score(CycleState(), pod, scores)
    assert result is None or result.code is Code.SUCCESS, f"NormalizeScore returned {result}"
    return [s.score for s in scores]

"""Plugins with batch forms for the batch-forms conformance check: one consistent, others each wrong in one way.

On the suite's default examples the Filter rejects node-c (label ``disk=hdd``) and passes the others; Score is
the node's unrequested CPU in whole cores, scaled so the freest node scores 100.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._events import NODE_ADD, ClusterEventWithHint
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore


class EventsDeclared(Plugin):
    """Declares the NodeAdd event, so each fixture fails only the check of its own defect (declares-events aside)."""

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD)]

HDD_REASON = "node(s) had an hdd disk"


class Consistent(EventsDeclared):
    """Filter, Score and NormalizeScore with batch forms giving exactly their answers."""

    name = "Consistent"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable on a node labelled ``disk=hdd``."""
        node = node_info.node
        return Status.unschedulable(HDD_REASON) if node is not None and node.labels.get("disk") == "hdd" else None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """The same from the disk label's codes."""
        codes, values = node_batch.columns.label_values("disk")
        if "hdd" not in values:
            return None
        return np.where(node_batch.column(codes) == values.index("hdd"), int(Code.UNSCHEDULABLE), 0)

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """Unrequested CPU in whole cores."""
        return max(node_info.allocatable.milli_cpu - node_info.requested.milli_cpu, 0) // 1000

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """The same over the cpu columns."""
        allocatable, requested = node_batch.columns.resource("cpu")
        free: npt.NDArray[np.int64] = np.maximum(node_batch.column(allocatable) - node_batch.column(requested), 0)
        return free // 1000

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale so the highest score is 100."""
        highest = max((ns.score for ns in scores), default=0)
        for ns in scores:
            ns.score = ns.score * 100 // highest if highest else 0
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        """The same over the array."""
        highest = int(batch_scores.max()) if len(batch_scores) else 0
        return batch_scores * 100 // highest if highest else np.zeros_like(batch_scores)


class WrongFilterCode(Consistent):
    """filter_nodes says UnschedulableAndUnresolvable where filter says Unschedulable."""

    name = "WrongFilterCode"

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        codes = super().filter_nodes(state, pod, node_batch)
        return None if codes is None else np.where(codes != 0, int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), 0)


class IgnoresPositions(Consistent):
    """filter_nodes reads the label column in snapshot order instead of the batch's (right only for every node)."""

    name = "IgnoresPositions"

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        codes, values = node_batch.columns.label_values("disk")
        if "hdd" not in values:
            return None
        return np.where(codes[:len(node_batch)] == values.index("hdd"), int(Code.UNSCHEDULABLE), 0)


class ScoresAllocatable(Consistent):
    """score_nodes forgets the requested CPU."""

    name = "ScoresAllocatable"

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        allocatable, _requested = node_batch.columns.resource("cpu")
        scores: npt.NDArray[np.int64] = node_batch.column(allocatable) // 1000
        return scores


class ScalesToTen(Consistent):
    """normalize_scores scales the highest score to 10 where normalize_score scales it to 100."""

    name = "ScalesToTen"

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        highest = int(batch_scores.max()) if len(batch_scores) else 0
        return batch_scores * 10 // highest if highest else np.zeros_like(batch_scores)


class FloatScores(Consistent):
    """score_nodes answers floats."""

    name = "FloatScores"

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        return np.zeros(len(node_batch), dtype=np.float64)


class PerNodeOnly(EventsDeclared):
    """Filter without a batch form."""

    name = "PerNodeOnly"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Accept every node."""
        return None


BATCHES_KEY = StateKey[list[int]]("CountsBatchesInState")


class CountsBatchesInState(Consistent):
    """filter_nodes notes the size of each batch in a list its PreFilter stored: the batch form changes the state
    the per-node Filter reads (it answers alike, so only the state shows it)."""

    name = "CountsBatchesInState"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(BATCHES_KEY, [])
        return None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        state.read(BATCHES_KEY).append(len(node_batch))
        return super().filter_nodes(state, pod, node_batch)

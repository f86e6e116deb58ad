"""TaintToleration: Filter on NoSchedule/NoExecute taints; Score against PreferNoSchedule taints.

The batch forms evaluate the pod's tolerations once per distinct taint list among the nodes (kept by the columns
as categories) and index the answers by node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api import PREFER_NO_SCHEDULE, Node, Pod, Taint, Toleration, find_untolerated_taint, tolerated
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    NodeBatch,
    NodeInfo,
    NodeScore,
    Plugin,
    QueueingHint,
    StateKey,
    StateNotFoundError,
    Status,
    default_normalize_score,
    default_normalize_scores,
    hookimpl,
)

NAME = "TaintToleration"
_PREFER_TOLERATIONS = StateKey[tuple[Toleration, ...]]("PreScoreTaintToleration")
#: Score's error without PreScore's state (PreScore disabled in the profile), in kube-scheduler v1.32's words.
_NO_PRE_SCORE_STATE = f'failed to read "{_PREFER_TOLERATIONS.name}" from cycleState: not found'
#: The columns' categories of the nodes' taint lists (None for a node without taints).
_TAINTS_INDEX = (NAME, "taints")


def _node_taints(node_info: NodeInfo) -> tuple[Taint, ...] | None:
    node = node_info.node
    return node.spec.taints if node is not None and node.spec.taints else None


def _prefer_tolerations(pod: Pod) -> tuple[Toleration, ...]:
    """The tolerations that can tolerate PreferNoSchedule taints (effect empty or PreferNoSchedule)."""
    return tuple(t for t in pod.spec.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))


def _prefer_untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> int:
    """How many PreferNoSchedule taints none of ``tolerations`` tolerates."""
    return sum(1 for taint in taints if taint.effect == PREFER_NO_SCHEDULE and not tolerated(taint, tolerations))


class TaintToleration(Plugin):
    """Keeps pods off nodes whose hard taints they do not tolerate; prefers nodes with fewer soft ones."""

    name = NAME
    #: Filter reads only the Node object, so the runtime may overlay nominated pods' requests on the columns.
    filter_reads = FilterReads.NODE

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added or whose taints changed may be tolerated now; so may any node once the pod's own
        tolerations change."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                                     self.hint_node_changed),
                ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
                                     self.hint_pod_tolerations_changed)]

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when the node has no NoSchedule/NoExecute taint the pod does not tolerate, and had one before (a
        new node counts as having had one)."""
        if new_obj is None:
            return QueueingHint.QUEUE
        tolerations = pod.spec.tolerations
        was_untolerated = old_obj is None or find_untolerated_taint(old_obj.spec.taints, tolerations) is not None
        is_untolerated = find_untolerated_taint(new_obj.spec.taints, tolerations) is not None
        return QueueingHint.QUEUE if was_untolerated and not is_untolerated else QueueingHint.QUEUE_SKIP

    def hint_pod_tolerations_changed(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the pod that changed its tolerations is the rejected pod itself."""
        return QueueingHint.QUEUE if new_obj is not None and new_obj.uid == pod.uid else QueueingHint.QUEUE_SKIP

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable naming the first untolerated NoSchedule/NoExecute taint."""
        node = node_info.node
        if node is None or not node.spec.taints:
            return None
        taint = find_untolerated_taint(node.spec.taints, pod.spec.tolerations)
        if taint is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      (f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}",), NAME)

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch, decided once per distinct taint list."""
        codes, taint_lists = node_batch.columns.categories(_TAINTS_INDEX, _node_taints)
        if not taint_lists:
            return None
        tolerations = pod.spec.tolerations
        rejected = [find_untolerated_taint(taints, tolerations) is not None for taints in taint_lists]
        if not any(rejected):
            return None
        # table[code] answers for a node with that taint list; table[-1] for a node without taints.
        table = np.zeros(len(taint_lists) + 1, dtype=np.int8)
        table[:-1][rejected] = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        out: npt.NDArray[np.int8] = table[node_batch.column(codes)]
        return out

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Keep the tolerations that can tolerate PreferNoSchedule taints (effect empty or PreferNoSchedule)."""
        state.write(_PREFER_TOLERATIONS, _prefer_tolerations(pod))
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The number of PreferNoSchedule taints the pod does not tolerate (fewer is better)."""
        tolerations = _pre_score_state(state)
        node = node_info.node
        if node is None or not node.spec.taints:
            return 0
        return _prefer_untolerated(node.spec.taints, tolerations)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """Score of every node of the batch, counted once per distinct taint list."""
        tolerations = _pre_score_state(state)
        codes, taint_lists = node_batch.columns.categories(_TAINTS_INDEX, _node_taints)
        if not taint_lists:
            return np.zeros(len(node_batch), dtype=np.int64)
        table = np.zeros(len(taint_lists) + 1, dtype=np.int64)
        table[:-1] = [_prefer_untolerated(taints, tolerations) for taints in taint_lists]
        scores: npt.NDArray[np.int64] = table[node_batch.column(codes)]
        return scores

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Reverse normalisation over the batch's scores at once."""
        return default_normalize_scores(batch_scores, reverse=True)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Reverse-normalise: the node with the most untolerated taints scores 0, none scores 100."""
        default_normalize_score(scores, reverse=True)
        return None


def _pre_score_state(state: CycleState) -> tuple[Toleration, ...]:
    """PreScore's tolerations; StateNotFoundError (kube's Score error) without them."""
    tolerations = state.get(_PREFER_TOLERATIONS)
    if tolerations is None:
        raise StateNotFoundError(_NO_PRE_SCORE_STATE)
    return tolerations

"""InterPodAffinity: required pod affinity and anti-affinity as a Filter, preferred terms as a Score."""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework.columns import NodeBatch
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.handle import Handle
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.status import Status
from kubesched.framework.types import NodeScore
from kubesched.plugins.inter_pod_affinity import columnar
from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    InterPodAffinityArgs,
    NamespaceLabelCache,
    TermCache,
)
from kubesched.plugins.inter_pod_affinity.domains import ValueCodes
from kubesched.plugins.inter_pod_affinity.filtering import (
    PRE_FILTER_STATE_KEY,
    build_pre_filter_state,
    filter_node,
    update_with_pod,
)
from kubesched.plugins.inter_pod_affinity.scoring import (
    PRE_SCORE_STATE_KEY,
    build_topology_scores,
    normalize,
    score_node,
)

_NO_PRE_FILTER_STATE = f'error reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: not found'


class InterPodAffinity(Plugin):
    """Filters by required pod affinity and anti-affinity (both directions); scores preferred terms."""

    name = NAME
    Args = InterPodAffinityArgs

    def __init__(self, handle: Handle, args: InterPodAffinityArgs | None = None) -> None:
        super().__init__(handle, args or InterPodAffinityArgs())
        self._terms = TermCache()
        self._existing_terms = columnar.ExistingTerms(self._terms)
        self._value_codes = ValueCodes()

    def assigned_pod_may_help(self, pod: Pod, assigned: Pod) -> bool:
        """An assigned pod may satisfy the pod's required affinity (it can only worsen anti-affinity)."""
        affinity = pod.spec.affinity
        return bool(affinity and affinity.pod_affinity and affinity.pod_affinity.required)

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods per topology pair; Skip when no required term can reject a node.

        Over the snapshot's node list (the usual case) the counts come from the columns' incremental indexes;
        over any other list, from a walk over its pods."""
        client = self.handle.client
        columns = self.handle.snapshot.columns
        if self.handle.fast_path and nodes is columns.infos:
            pre_filter_state = columnar.build_pre_filter_state(pod, columns, self._terms, self._existing_terms, client,
                                                               NamespaceLabelCache(client))
        else:
            pre_filter_state = build_pre_filter_state(pod, nodes, self._terms, NamespaceLabelCache(client))
        if pre_filter_state is None:
            return Status.skip()
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state)
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        """Count ``pod_info_to_add`` as if it ran on ``node_info``."""
        return self._update(state, pod_info_to_add.pod, node_info, 1)

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        """Stop counting ``pod_info_to_remove`` on ``node_info``."""
        return self._update(state, pod_info_to_remove.pod, node_info, -1)

    def _update(self, state: CycleState, other: Pod, node_info: NodeInfo, delta: int) -> Status | None:
        pre_filter_state = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter_state is None:
            return Status.as_error(_NO_PRE_FILTER_STATE)
        update_with_pod(pre_filter_state, other, self._terms.get(other), node_info, delta)
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject on the pod's affinity (Unresolvable), its anti-affinity, then existing pods' anti-affinity."""
        pre_filter_state = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter_state is None:
            return Status.as_error(_NO_PRE_FILTER_STATE)
        return filter_node(pre_filter_state, node_info)

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's codes for every node of the batch, from PreFilter's counts as arrays."""
        pre_filter_state = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter_state is None:
            raise LookupError(_NO_PRE_FILTER_STATE)
        return columnar.filter_codes(pre_filter_state, node_batch, self._value_codes)

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Sum term weights per topology pair over the snapshot (not only ``nodes``); Skip when none scored."""
        client = self.handle.client
        snapshot = self.handle.snapshot
        args = self.args
        if self.handle.fast_path and snapshot.columns.infos is snapshot.node_info_list:
            scores = columnar.build_topology_scores(
                pod, snapshot.columns, self._terms, self._existing_terms, client, NamespaceLabelCache(client),
                args.hard_pod_affinity_weight, args.ignore_preferred_terms_of_existing_pods)
        else:
            terms = self._terms.get(pod)
            scores = build_topology_scores(
                pod, terms, snapshot.list() if terms.has_preferred else snapshot.have_pods_with_affinity,
                self._terms, NamespaceLabelCache(client), args.hard_pod_affinity_weight,
                args.ignore_preferred_terms_of_existing_pods)
        if scores is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, scores)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The summed scores of the node's topology pairs; may be negative."""
        return score_node(state.read(PRE_SCORE_STATE_KEY), node_info)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """Score of every node of the batch."""
        return columnar.score_array(state.read(PRE_SCORE_STATE_KEY), node_batch, self._value_codes)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Min-max onto 0..100 (truncated); all 0 when every node scored the same."""
        if state.get(PRE_SCORE_STATE_KEY) is None:
            return Status.as_error(f'failed to read "{PRE_SCORE_STATE_KEY.name}" from cycleState: not found')
        normalize(scores)
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """NormalizeScore over the batch's scores at once."""
        if state.get(PRE_SCORE_STATE_KEY) is None:
            raise LookupError(f'failed to read "{PRE_SCORE_STATE_KEY.name}" from cycleState: not found')
        return columnar.normalize_array(batch_scores)

"""InterPodAffinity: required pod affinity and anti-affinity as a Filter, preferred terms as a Score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy.typing as npt

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EventResource,
    Handle,
    NodeBatch,
    NodeInfo,
    NodeScore,
    Plugin,
    PodInfo,
    QueueingHint,
    StateNotFoundError,
    Status,
    hookimpl,
)
from kubesched.plugins.inter_pod_affinity import columnar
from kubesched.plugins.inter_pod_affinity.common import (
    NAME,
    InterPodAffinityArgs,
    NamespaceLabelCache,
    PodTerms,
    TermCache,
    matches_all,
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
    TopologyScores,
    build_topology_scores,
    normalize,
    score_node,
)

# Without PreFilter's or PreScore's state (that point disabled in the profile), in kube-scheduler v1.32's words.
_NO_PRE_FILTER_STATE = f'error reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: not found'
_NO_PRE_SCORE_STATE = f'failed to read "{PRE_SCORE_STATE_KEY.name}" from cycleState: not found'


def _no_labels(namespace: str) -> Mapping[str, str]:
    """Namespace labels as kube-scheduler's hints see them: none (a namespaceSelector term matches only when empty)."""
    return {}


_NO_NS = _no_labels


class InterPodAffinity(Plugin):
    """Filters by required pod affinity and anti-affinity (both directions); scores preferred terms."""

    name = NAME
    Args = InterPodAffinityArgs

    def __init__(self, handle: Handle, args: InterPodAffinityArgs | None = None) -> None:
        super().__init__(handle, args or InterPodAffinityArgs())
        self._terms = TermCache()
        self._existing_terms = columnar.ExistingTerms(self._terms)
        self._value_codes = ValueCodes()

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Assigned pods added, relabelled or deleted, and nodes added or relabelled, may change the pod's
        required (anti-)affinity verdicts."""
        pods = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, pods), self.hint_pod_changed),
                ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                                     self.hint_node_changed)]

    def hint_pod_changed(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue for an assigned pod that now matches all of the pod's required affinity terms (added, or
        relabelled to match), or no longer matches all its anti-affinity terms (relabelled away, or deleted).
        Only the pod's own terms count: deleting a pod whose OWN anti-affinity blocked it is a Skip (v1.32)."""
        if (new_obj is not None and not new_obj.spec.node_name) or (old_obj is not None and not old_obj.spec.node_name):
            return QueueingHint.QUEUE_SKIP
        terms = self._terms.get(pod)
        affinity, anti = terms.required_affinity, terms.required_anti_affinity
        if new_obj is not None and old_obj is not None:
            if not matches_all(affinity, old_obj, _NO_NS) and matches_all(affinity, new_obj, _NO_NS):
                return QueueingHint.QUEUE
            if matches_all(anti, old_obj, _NO_NS) and not matches_all(anti, new_obj, _NO_NS):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new_obj is not None:
            return QueueingHint.QUEUE if matches_all(affinity, new_obj, _NO_NS) else QueueingHint.QUEUE_SKIP
        if old_obj is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE if matches_all(anti, old_obj, _NO_NS) else QueueingHint.QUEUE_SKIP

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when a node gains (or changes) the topology key of a required affinity term, when a node is added
        and the pod has required anti-affinity, or when a node loses (or changes) an anti-affinity topology key."""
        if new_obj is None:
            return QueueingHint.QUEUE
        terms = self._terms.get(pod)
        new_labels = new_obj.labels
        old_labels = old_obj.labels if old_obj is not None else None
        for term in terms.required_affinity:
            key = term.topology_key
            if old_labels is None:
                if key in new_labels:
                    return QueueingHint.QUEUE
            elif key in new_labels and (key not in old_labels or old_labels[key] != new_labels[key]):
                return QueueingHint.QUEUE
        for term in terms.required_anti_affinity:
            if old_labels is None:
                return QueueingHint.QUEUE
            key = term.topology_key
            if key in old_labels and (key not in new_labels or old_labels[key] != new_labels[key]):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods per topology pair over ``nodes``' pods; Skip when no required term can reject a
        node; UnschedulableAndUnresolvable when kube-scheduler cannot parse the pod's terms."""
        parse_error = self._terms.get(pod).parse_error
        if parse_error is not None:
            return Status.unresolvable(f"parsing pod: {parse_error}")
        pre_filter_state = build_pre_filter_state(pod, nodes, self._terms, NamespaceLabelCache(self.handle.client))
        if pre_filter_state is None:
            return Status.skip()
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state)
        return None

    @hookimpl
    def pre_filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
        """:meth:`pre_filter` over every node, the counts read from the columns' incremental indexes."""
        terms = self._terms.get(pod)
        if terms.parse_error is not None:
            return Status.unresolvable(f"parsing pod: {terms.parse_error}")
        client = self.handle.client
        columns = node_batch.columns
        if (not terms.required_affinity and not terms.required_anti_affinity
                and columnar.no_existing_required_anti_affinity(columns, self._existing_terms)):
            return Status.skip()  # no term of the pod nor of any pod on a node: the state would be empty
        pre_filter_state = columnar.build_pre_filter_state(pod, columns, self._terms, self._existing_terms, client,
                                                           NamespaceLabelCache(client))
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
            raise StateNotFoundError(_NO_PRE_FILTER_STATE)
        return columnar.filter_codes(pre_filter_state, node_batch, self._value_codes)

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Sum term weights per topology pair over the snapshot (not only ``nodes``); Skip when none scored; an
        Error for a pod whose terms kube-scheduler cannot parse (unless it would skip without parsing them)."""
        client = self.handle.client
        snapshot = self.handle.snapshot
        args = self.args
        terms = self._terms.get(pod)
        error = self._parse_error(pod, terms, len(nodes))
        if error is not None:
            return error
        scores = build_topology_scores(
            pod, terms, snapshot.list() if terms.has_preferred else snapshot.have_pods_with_affinity,
            self._terms, NamespaceLabelCache(client), args.hard_pod_affinity_weight,
            args.ignore_preferred_terms_of_existing_pods)
        if scores is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, scores)
        return None

    @hookimpl
    def pre_score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
        """:meth:`pre_score` with the sums over every node read from the columns' indexes."""
        client = self.handle.client
        columns = node_batch.columns
        args = self.args
        terms = self._terms.get(pod)
        error = self._parse_error(pod, terms, len(node_batch))
        if error is not None:
            return error
        if not terms.has_preferred and columnar.no_existing_scored_terms(columns,
                                                                                       self._existing_terms):
            return Status.skip()  # no preferred term of the pod and no scored term of any pod on a node
        scores = columnar.build_topology_scores(
            pod, columns, self._terms, self._existing_terms, client, NamespaceLabelCache(client),
            args.hard_pod_affinity_weight, args.ignore_preferred_terms_of_existing_pods)
        if scores is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, scores)
        return None

    def _parse_error(self, pod: Pod, terms: PodTerms, feasible: int) -> Status | None:
        """PreScore's Error for a pod whose ``terms`` kube-scheduler cannot parse, unless it skips before parsing
        them (no feasible node, or only existing pods' preferred terms and those ignored)."""
        parse_error = terms.parse_error
        if parse_error is None or not feasible or (
                self.args.ignore_preferred_terms_of_existing_pods and not _has_preferred(pod)):
            return None
        return Status.as_error(f"failed to parse pod: {parse_error}")

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The summed scores of the node's topology pairs; may be negative."""
        return score_node(_pre_score_state(state), node_info)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """Score of every node of the batch."""
        return columnar.score_array(_pre_score_state(state), node_batch, self._value_codes)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Min-max onto 0..100 (truncated); all 0 when every node scored the same."""
        if state.get(PRE_SCORE_STATE_KEY) is None:
            return Status.as_error(_NO_PRE_SCORE_STATE)
        normalize(scores)
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """NormalizeScore over the batch's scores at once."""
        if state.get(PRE_SCORE_STATE_KEY) is None:
            raise StateNotFoundError(_NO_PRE_SCORE_STATE)
        return columnar.normalize_array(batch_scores)


def _pre_score_state(state: CycleState) -> TopologyScores:
    """PreScore's scores; StateNotFoundError (kube's Score error) without them."""
    scores = state.get(PRE_SCORE_STATE_KEY)
    if scores is None:
        raise StateNotFoundError(_NO_PRE_SCORE_STATE)
    return scores


def _has_preferred(pod: Pod) -> bool:
    """Whether the pod's spec has preferred pod (anti-)affinity terms, parsed or not."""
    affinity = pod.spec.affinity
    return affinity is not None and bool((affinity.pod_affinity and affinity.pod_affinity.preferred)
                                         or (affinity.pod_anti_affinity and affinity.pod_anti_affinity.preferred))

"""PodTopologySpread: spread pods across topology domains. DoNotSchedule constraints filter nodes,
ScheduleAnyway constraints score them; pods without constraints get the configured default constraints."""

from __future__ import annotations

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
    default_selector,
    hookimpl,
)
from kubesched.plugins.pod_topology_spread import columnar
from kubesched.plugins.pod_topology_spread.common import (
    DO_NOT_SCHEDULE,
    HONOR,
    NAME,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULTING,
    InclusionCheck,
    PodTopologySpreadArgs,
    SpreadConstraint,
    default_constraints,
    has_all_keys,
    pod_constraints,
)
from kubesched.plugins.pod_topology_spread.filtering import (
    PRE_FILTER_KEY,
    PreFilterState,
    build_pre_filter_state,
    filter_node,
    update_with_pod,
)
from kubesched.plugins.pod_topology_spread.scoring import (
    PRE_SCORE_KEY,
    PreScoreState,
    build_pre_score_state,
    normalize,
    score_node,
)

# Without PreFilter's or PreScore's state (that point disabled in the profile), in kube-scheduler v1.32's words.
_NO_PRE_FILTER_STATE = f'reading "{PRE_FILTER_KEY.name}" from cycleState: not found'
_NO_PRE_SCORE_STATE = f'error reading "{PRE_SCORE_KEY.name}" from cycleState: not found'


class PodTopologySpread(Plugin):
    """Keeps matching pods within maxSkew of the emptiest domain (Filter) and favours emptier domains (Score)."""

    name = NAME
    Args = PodTopologySpreadArgs

    def __init__(self, handle: Handle, args: PodTopologySpreadArgs | None = None) -> None:
        super().__init__(handle, args or PodTopologySpreadArgs())
        config: PodTopologySpreadArgs = self.args
        self._system_defaulted = config.defaulting_type == SYSTEM_DEFAULTING
        defaults = config.effective_defaults()
        self._defaults = {action: tuple(c for c in defaults if c.when_unsatisfiable == action)
                          for action in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)}

    def constraints(self, pod: Pod, action: str) -> tuple[SpreadConstraint, ...]:
        """The pod's constraints for ``action``; the defaults, with its workload's selector, if it has none."""
        if pod.spec.topology_spread_constraints:
            return pod_constraints(pod.spec.topology_spread_constraints, pod.labels, action)
        defaults = self._defaults[action]
        if not defaults:
            return ()
        selector = default_selector(pod, self.handle.client)
        if selector is None:
            return ()
        return default_constraints(defaults, selector)

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pods added, relabelled or deleted change domain counts (the pod's own new tolerations matter under
        nodeTaintsPolicy Honor); nodes added, deleted, relabelled or retainted change the domains."""
        pods = ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.UPDATE_POD_TOLERATIONS | ActionType.DELETE
        nodes = ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, pods), self.hint_pod_changed),
                ClusterEventWithHint(ClusterEvent(EventResource.NODE, nodes), self.hint_node_changed)]

    def hint_pod_changed(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue for an assigned pod of the same namespace that is added or deleted matching a DoNotSchedule
        constraint's selector, or relabelled into or out of one; or for the pod's own new tolerations when a
        constraint honours taints. Unscheduled pods and other namespaces are a Skip."""
        for changed in (new_obj, old_obj):
            if changed is not None and changed.uid != pod.uid and \
                    (not changed.spec.node_name or changed.namespace != pod.namespace):
                return QueueingHint.QUEUE_SKIP
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        if new_obj is not None and old_obj is not None:
            if new_obj.uid == pod.uid and new_obj.spec.tolerations != old_obj.spec.tolerations and \
                    any(c.node_taints_policy == HONOR for c in constraints):
                return QueueingHint.QUEUE
            if new_obj.labels == old_obj.labels:
                return QueueingHint.QUEUE_SKIP
            changed_match = any(c.selects(old_obj.labels) != c.selects(new_obj.labels) for c in constraints)
            return QueueingHint.QUEUE if changed_match else QueueingHint.QUEUE_SKIP
        present = new_obj if new_obj is not None else old_obj
        if present is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE if any(c.selects(present.labels) for c in constraints) else QueueingHint.QUEUE_SKIP

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when the added or deleted node carries every topology key of the pod's DoNotSchedule constraints;
        for an update, when it gains or loses one of them, or keeps them all and changes a topology key's value or
        its taints (kube-scheduler v1.32's isSchedulableAfterNodeChange)."""
        if old_obj is None and new_obj is None:
            return QueueingHint.QUEUE
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        old_matching = old_obj is not None and has_all_keys(old_obj.labels, constraints)
        new_matching = new_obj is not None and has_all_keys(new_obj.labels, constraints)
        if old_obj is not None and new_obj is not None:
            if old_matching != new_matching:
                return QueueingHint.QUEUE
            old_labels, new_labels = old_obj.labels, new_obj.labels
            if new_matching and (any(old_labels.get(c.topology_key) != new_labels.get(c.topology_key)
                                     for c in constraints) or old_obj.spec.taints != new_obj.spec.taints):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if old_matching or new_matching else QueueingHint.QUEUE_SKIP

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods per domain over every node; Skip when the pod has no DoNotSchedule constraint."""
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return Status.skip()
        state.write(PRE_FILTER_KEY, build_pre_filter_state(pod, constraints, nodes))
        return None

    @hookimpl
    def pre_filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
        """:meth:`pre_filter` over every node, the counts read from the columns' incremental per-node indexes."""
        constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return Status.skip()
        state.write(PRE_FILTER_KEY, columnar.build_pre_filter_state(pod, constraints, node_batch.columns))
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        """Count ``pod_info_to_add`` on ``node_info`` as if it had been there at PreFilter."""
        pre_filter_state = state.get(PRE_FILTER_KEY)
        if pre_filter_state is None:
            return Status.as_error(_NO_PRE_FILTER_STATE)
        update_with_pod(pre_filter_state, pod_info_to_add.pod, node_info.node, 1)
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        """Stop counting ``pod_info_to_remove`` on ``node_info``."""
        pre_filter_state = state.get(PRE_FILTER_KEY)
        if pre_filter_state is None:
            return Status.as_error(_NO_PRE_FILTER_STATE)
        update_with_pod(pre_filter_state, pod_info_to_remove.pod, node_info.node, -1)
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unresolvable without a topology key; Unschedulable when placing the pod here exceeds a maxSkew; an Error
        without PreFilter's state."""
        pre_filter_state = state.get(PRE_FILTER_KEY)
        if pre_filter_state is None:
            return Status.as_error(_NO_PRE_FILTER_STATE)
        return filter_node(pre_filter_state, node_info)

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """:meth:`filter`'s codes for every node of the batch at once, from the counts per label code."""
        return columnar.filter_codes(_pre_filter_state(state), node_batch)

    def _score_constraints(self, pod: Pod) -> tuple[tuple[SpreadConstraint, ...], bool]:
        """The pod's ScheduleAnyway constraints, and whether a node needs every topology key to count (only the
        system defaults tolerate nodes without every key, so zone-less nodes still spread by hostname)."""
        constraints = self.constraints(pod, SCHEDULE_ANYWAY) if self.handle.snapshot.num_nodes() else ()
        return constraints, bool(pod.spec.topology_spread_constraints) or not self._system_defaulted

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods per domain of the feasible nodes; Skip without ScheduleAnyway constraints."""
        constraints, require_all = self._score_constraints(pod)
        if not constraints:
            return Status.skip()
        state.write(PRE_SCORE_KEY, build_pre_score_state(
            constraints, pod.namespace, InclusionCheck(pod, constraints), nodes, self.handle.snapshot.list(),
            require_all))
        return None

    @hookimpl
    def pre_score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
        """:meth:`pre_score` with the counts over every node read from the columns' indexes."""
        constraints, require_all = self._score_constraints(pod)
        if not constraints:
            return Status.skip()
        state.write(PRE_SCORE_KEY, columnar.build_pre_score_state(
            constraints, pod, node_batch.infos, node_batch.positions, node_batch.columns, require_all))
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The weighted count of matching pods in the node's domains (fewer is better)."""
        return score_node(_pre_score_state(state), node_info)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Map the lowest raw score to 100 and the highest towards 0; nodes missing a key score 0."""
        pre_score_state = state.get(PRE_SCORE_KEY)
        if pre_score_state is None:
            return Status.as_error(_NO_PRE_SCORE_STATE)
        normalize(pre_score_state, scores)
        return None

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """:meth:`score` of every node of the batch at once."""
        return columnar.score_batch(_pre_score_state(state), node_batch)

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """:meth:`normalize_score` over the batch's raw scores."""
        return columnar.normalize_batch(_pre_score_state(state), node_batch, batch_scores)


def _pre_filter_state(state: CycleState) -> PreFilterState:
    """PreFilter's counts; StateNotFoundError (kube's Filter error) without them."""
    pre_filter_state = state.get(PRE_FILTER_KEY)
    if pre_filter_state is None:
        raise StateNotFoundError(_NO_PRE_FILTER_STATE)
    return pre_filter_state


def _pre_score_state(state: CycleState) -> PreScoreState:
    """PreScore's counts; StateNotFoundError (kube's Score error) without them."""
    pre_score_state = state.get(PRE_SCORE_KEY)
    if pre_score_state is None:
        raise StateNotFoundError(_NO_PRE_SCORE_STATE)
    return pre_score_state

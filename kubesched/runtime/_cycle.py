"""One scheduling attempt's placement, kube-scheduler's schedulePod and findNodesThatFitPod: PreFilter, the
pod's nominated node first, then the node search from nextStartNodeIndex (which moves on by the nodes processed),
PostFilter when no node fits, then scoring and the choice of the host; and what an attempt leaves on record."""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, FitError, NominatingInfo, NominatingMode, PreFilterResult
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._cache import Cache
from kubesched.runtime._cycle_observer import CycleObserver
from kubesched.runtime._framework import Framework
from kubesched.runtime._node_search import NodeSearch, NodeSearches, SearchError, num_feasible_nodes_to_find
from kubesched.runtime._scores import ScoreTable, select_host
from kubesched.runtime._snapshot import NodeSnapshot

NO_NODES_AVAILABLE = "no nodes available to schedule pods"
CLEAR_NOMINATED_NODE = NominatingInfo("", NominatingMode.OVERRIDE)


@attrs.define
class CycleRecord:
    """What one scheduling attempt saw: per-node Filter statuses and per-plugin scores.

    Nodes absent from ``diagnosis.node_to_status`` passed every Filter plugin (or were never checked
    once enough feasible nodes were found).
    """

    pod: Pod
    profile: str
    diagnosis: Diagnosis
    feasible_nodes: list[str] = attrs.field(factory=list)
    scores: ScoreTable | None = None
    suggested_host: str = ""
    status: Status | None = None


class CycleFailed(Exception):  # noqa: N818 - control flow, not an error type
    """A failed scheduling cycle, carrying the status and the nominating decision."""

    def __init__(self, status: Status, nominating: NominatingInfo | None = None, fit_error: FitError | None = None):
        super().__init__(status.message())
        self.status = status
        self.nominating = nominating
        self.fit_error = fit_error


class Placement:
    """Places one pod per call, over the scheduler's cache, snapshot and node searches."""

    def __init__(self, cache: Cache, snapshot: NodeSnapshot, searches: NodeSearches, metrics: SchedulerMetrics,
                 rng: random.Random, percentage_of_nodes_to_score: int) -> None:
        self._cache = cache
        self._snapshot = snapshot
        self._searches = searches
        self._metrics = metrics
        self._rng = rng
        self._percentage = percentage_of_nodes_to_score
        #: kube-scheduler's nextStartNodeIndex: where the next search for feasible nodes starts.
        self.next_start_node_index = 0
        #: Pods whose failed cycle skips PostFilter (no preemption, no PostFilter message); None skips none.
        self.skip_post_filter: Callable[[Pod], bool] | None = None

    def schedule_pod(self, framework: Framework, state: CycleState, pod: Pod, record: CycleRecord,
                     observer: CycleObserver, *, keep: bool) -> str:
        """The pod's host: PreFilter, Filter from the nominated node or nextStartNodeIndex, PostFilter when no node
        fits (raising :class:`CycleFailed` with its nomination), else scoring and the host choice. ``keep``: the
        record outlives the cycle (build what it holds now)."""
        self._cache.update_snapshot(self._snapshot)
        if self._snapshot.num_nodes() == 0:
            raise CycleFailed(Status.unresolvable(NO_NODES_AVAILABLE), CLEAR_NOMINATED_NODE)
        search = self._searches.for_cycle(observer)
        try:
            feasible = self._find_nodes_that_fit(search, framework, state, pod, record.diagnosis, observer)
        except SearchError as error:
            raise CycleFailed(error.status, CLEAR_NOMINATED_NODE) from None
        observer.filtering_done(self._snapshot.list())
        if keep:  # the record outlives the cycle: build what it holds now
            record.feasible_nodes = [ni.name for ni in feasible]
            record.diagnosis.node_to_status.materialise()
        if not feasible:
            fit_error = FitError(pod, self._snapshot.num_nodes(), record.diagnosis)
            nominating = None
            skip = self.skip_post_filter
            if framework.has_post_filter_plugins() and (skip is None or not skip(pod)):
                self._metrics.preemption_attempt()
                result, status = framework.run_post_filter_plugins(state, pod, record.diagnosis.node_to_status)
                record.diagnosis.post_filter_msg = status.message()
                observer.post_filter(result, status)
                if result is not None:
                    nominating = result.nominating_info
            raise CycleFailed(Status(Code.UNSCHEDULABLE, (str(fit_error),)), nominating, fit_error)
        if len(feasible) == 1:
            record.suggested_host = feasible[0].name
            return record.suggested_host
        if not framework.has_score_plugins():
            scores = ScoreTable([ni.name for ni in feasible], totals=[1] * len(feasible))
        else:
            try:
                scores = search.prioritize(framework, state, pod, feasible, observer)
            except SearchError as error:
                raise CycleFailed(error.status, CLEAR_NOMINATED_NODE) from None
        record.scores = scores
        record.suggested_host = select_host(scores, self._rng)
        return record.suggested_host

    def _find_nodes_that_fit(self, search: NodeSearch, framework: Framework, state: CycleState, pod: Pod,
                             diagnosis: Diagnosis, observer: CycleObserver) -> list[NodeInfo]:
        """kube-scheduler's findNodesThatFitPod: PreFilter, the nominated node first, then the search from
        nextStartNodeIndex, which moves on by the nodes processed."""
        all_nodes = self._snapshot.list()
        pre_result, status, narrowing = search.pre_filter(framework, state, pod, all_nodes)
        diagnosis.unschedulable_plugins = set(narrowing)
        observer.pre_filter(pre_result, status, narrowing, state.skip_filter_plugins)
        if observer.per_node:  # an observer of every per-node verdict may wrap the Filter plugins to see them
            framework.record_filters(state, observer.filters)
        if status is not None and status.code is not Code.SUCCESS:
            if not status.is_rejected():
                raise CycleFailed(status, CLEAR_NOMINATED_NODE)
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return []
        nominated = pod.status.nominated_node_name
        if nominated:
            node_info = self._snapshot.get(nominated)
            if node_info is not None:
                try:
                    feasible, _lazy = self._searches.per_node.find_feasible(framework, state, pod, diagnosis,
                                                                            [node_info], 0, 1)
                except SearchError:
                    feasible = []  # kube-scheduler logs an error on the nominated node and checks all nodes
                if feasible:
                    observer.nominated_node_fits()
                    return feasible
        nodes = all_nodes
        if pre_result is not None and not pre_result.all_nodes():
            nodes = _narrow(all_nodes, pre_result)
            diagnosis.node_to_status.absent_nodes_status = Status.unresolvable(
                "node(s) didn't satisfy plugin(s) [" + " ".join(sorted(narrowing)) + "]")
        percentage = framework.profile.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self._percentage
        to_find = num_feasible_nodes_to_find(percentage, len(nodes)) if framework.has_score_plugins() else 1
        feasible, lazy = search.find_feasible(framework, state, pod, diagnosis, nodes, self.next_start_node_index,
                                              to_find)
        processed = len(feasible) + len(diagnosis.node_to_status.recorded_names()) + lazy
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return feasible


def _narrow(all_nodes: list[NodeInfo], result: PreFilterResult) -> list[NodeInfo]:
    names = result.node_names or frozenset()
    return [ni for ni in all_nodes if ni.name in names]


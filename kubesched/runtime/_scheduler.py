"""The scheduling loop: kube-scheduler's scheduleOne, its failure handling, and its event handlers.

One pod at a time: pop, pick the profile by spec.schedulerName, snapshot, PreFilter, Filter (round-robin
start, numFeasibleNodesToFind), PostFilter on failure, PreScore/Score/NormalizeScore, select the host
(ties broken by the seeded RNG), assume, Reserve, Permit, then PreBind/Bind/PostBind. The binding cycle
runs right away, or later if Permit made the pod wait.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs
import numpy as np

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.backend import Clock, ClusterClient, ClusterListener
from kubesched.errors import ProfileError
from kubesched.framework._columns import IntArray, NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    NODE_DELETE,
    ClusterEvent,
    node_events,
    pod_events,
)
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._snapshot import Snapshot
from kubesched.framework._status import Code, Status
from kubesched.framework._types import (
    Diagnosis,
    FitError,
    NominatingInfo,
    NominatingMode,
    PreFilterResult,
    QueuedPodInfo,
    ScoreTable,
    fit_error_message,
)
from kubesched.metrics import (
    PLUGIN_SAMPLE_PERIOD,
    RESULT_ERROR,
    RESULT_SCHEDULED,
    RESULT_UNSCHEDULABLE,
    SchedulerMetrics,
)
from kubesched.runtime._batch import (
    BatchError,
    BatchFilter,
    nominated_overlay_exact,
    score_batch,
    select_host_index,
)
from kubesched.runtime._cache import Cache
from kubesched.runtime._explain import AttemptRecorder, Explainer
from kubesched.runtime._failures import PluginFailure, SlowCalls
from kubesched.runtime._framework import Framework
from kubesched.runtime._metrics import MeteredClient
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._profile import Profile
from kubesched.runtime._queue import (
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    SchedulingQueue,
    Strategy,
)
from kubesched.runtime._registry import PluginRegistry

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODES_AVAILABLE = "no nodes available to schedule pods"
POD_REASON_UNSCHEDULABLE = "Unschedulable"
POD_REASON_SCHEDULER_ERROR = "SchedulerError"
# Event notes are truncated like kube-scheduler's (the PodScheduled condition keeps the full text).
MAX_EVENT_MESSAGE = 1024

CLEAR_NOMINATED_NODE = NominatingInfo("", NominatingMode.OVERRIDE)


@attrs.frozen
class SchedulerSettings:
    """Scheduler-wide settings from the profile file."""

    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF
    pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF
    #: A plugin call taking longer than this is reported (None: calls are not timed).
    plugin_call_budget_seconds: float | None = None
    #: Use plugins' batch forms (filter_nodes, score_nodes) over the columnar snapshot; False runs the plain
    #: per-node path (``kubesched bench --reference``). Decisions are the same either way.
    fast_path: bool = True


class AttemptObserver(Protocol):
    """Follows scheduling attempts, for a driver that decides when to stop (the simulator)."""

    def attempt_started(self, pod: Pod) -> None:
        """``pod`` was popped for a scheduling attempt."""

    def attempt_failed(self, pod: Pod, status: Status, *, binding_cycle: bool) -> None:
        """The attempt failed with ``status``, in the binding cycle (Permit, PreBind, Bind) or the scheduling
        cycle before it; the pod is requeued."""

    def assumed_pod_forgotten(self, pod: Pod, woken: Sequence[Pod]) -> None:
        """``pod``'s binding cycle failed and its reservation was dropped; ``woken`` are the pods that failed while
        it was reserved, moved for another try because its room is free again."""


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


class _CycleFailed(Exception):  # noqa: N818 - control flow, not an error type
    """A failed scheduling cycle, carrying the status and the nominating decision."""

    def __init__(self, status: Status, nominating: NominatingInfo | None = None, fit_error: FitError | None = None):
        super().__init__(status.message())
        self.status = status
        self.nominating = nominating
        self.fit_error = fit_error


@attrs.define
class _Binding:
    framework: Framework
    state: CycleState
    queued: QueuedPodInfo
    assumed: PodInfo
    node_name: str
    #: When the pod was assumed (the scheduler's sequence): pods that failed after that saw its reservation.
    assumed_at: int
    #: When the attempt started (time.perf_counter), for scheduler_scheduling_attempt_duration_seconds.
    started: float = 0.0
    #: Where its scheduling cycle timed plugin calls (a sampled cycle), so a resumed binding cycle does the same.
    metering: SchedulerMetrics | None = None


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (adaptive when ``percentage`` is 0)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def select_host(table: ScoreTable, rng: random.Random) -> str:
    """The highest-scoring node; ties are broken uniformly by reservoir sampling in node order: the ``count``-th
    tie replaces the choice when ``rng.random() * count < 1`` (one draw per tie after the first, a fixed number of
    words of the generator, so the batch path replays the same draws in one go)."""
    totals = table.totals
    if isinstance(totals, np.ndarray):
        return table.nodes[select_host_index(totals, rng)]
    best = max(totals)
    chosen = -1
    count = 0
    draw = rng.random
    for i, total in enumerate(totals):
        if total == best:
            count += 1
            if count == 1 or draw() * count < 1.0:
                chosen = i
    return table.nodes[chosen]


class Scheduler:
    """Schedules pods with one Framework per profile, against a cluster backend."""

    def __init__(self, profiles: Sequence[Profile], registry: PluginRegistry, *, client: ClusterClient,
                 clock: Clock, rng: random.Random, settings: SchedulerSettings | None = None,
                 metrics: SchedulerMetrics | None = None) -> None:
        if not profiles:
            raise ProfileError("at least one profile is required")
        self.settings = settings or SchedulerSettings()
        self.client = client
        #: kube-scheduler's metrics of this scheduler (docs/metrics.md); a new registry unless one is given.
        self.metrics = metrics if metrics is not None else SchedulerMetrics()
        plugin_client = MeteredClient(client, self.metrics).as_client()
        self.clock = clock
        self.rng = rng
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.nominator = Nominator()
        self.frameworks: dict[str, Framework] = {
            p.scheduler_name: Framework(p, registry, client=plugin_client, nominator=self.nominator, rng=rng,
                                        clock=clock,
                                        snapshot=self.snapshot,
                                        call_budget=self.settings.plugin_call_budget_seconds)
            for p in profiles
        }
        for framework in self.frameworks.values():
            framework.handle.fast_path = self.settings.fast_path
        first = next(iter(self.frameworks.values()))
        self.queue = SchedulingQueue(first.queue_sort_less, clock=clock, nominator=self.nominator,
                                     pre_enqueue=self._pre_enqueue,
                                     hints=(first.queueing_hint_strategy if len(self.frameworks) == 1
                                            else self._queueing_hint_strategy),
                                     interested=(first.plugins_interested_in if len(self.frameworks) == 1
                                                 else self._plugins_interested_in),
                                     initial_backoff=self.settings.pod_initial_backoff_seconds,
                                     max_backoff=self.settings.pod_max_backoff_seconds, metrics=self.metrics)
        self.metrics.watch_pending_pods(self.queue.pending_counts)
        self.next_start_node_index = 0
        #: Unassigned pods whose schedulerName matches no profile: left alone, as kube-scheduler does.
        self.ignored: dict[str, Pod] = {}
        #: Receives a record of every scheduling attempt (for explain output); None keeps nothing.
        self.cycle_observer: Callable[[CycleRecord], None] | None = None
        #: Told when attempts start and fail (the simulator's settling policy); None tells nobody.
        self.attempt_observer: AttemptObserver | None = None
        #: Records every attempt of the pods it explains (``--explain``); None explains nothing, at no cost.
        self.explainer: Explainer | None = None
        # The explained attempt under way: it runs on the per-node path, with recording hooks.
        self._recording: AttemptRecorder | None = None
        self._parked: dict[str, _Binding] = {}
        # Orders assumptions and failures: a pod that failed after a pod was assumed saw that pod's reservation.
        self._sequence = itertools.count()
        self._failed_at: dict[str, int] = {}
        # The snapshot positions of this cycle's feasible nodes when the batch Filter path found them.
        self._feasible_positions: IntArray | None = None

    # -- event handlers (the informers) ------------------------------------------------------------
    # Each change becomes kube-scheduler's cluster events; the queue moves only the pods that the hints of the
    # plugins which rejected them say the event may help (see docs/queue.md).
    def _listeners(self) -> list[ClusterListener]:
        """The plugins' subscribed listeners, profile by profile."""
        return [listener for framework in self.frameworks.values() for listener in framework.handle.listeners]

    def on_node_add(self, node: Node) -> None:
        """A node joined: the NodeAdd event."""
        self.cache.add_node(node)
        self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
        for listener in self._listeners():
            listener.on_node_add(node)

    def on_node_update(self, node: Node) -> None:
        """A node changed: one Node update event per kind of change (labels, taints, allocatable...)."""
        info = self.cache.node_info(node.name)
        old = info.node if info is not None else None
        self.cache.update_node(node)
        if old is None:
            self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
        else:
            for event in node_events(node, old):
                self.queue.move_all_to_active_or_backoff(event, old, node)
        for listener in self._listeners():
            listener.on_node_update(node)

    def on_node_delete(self, name: str) -> None:
        """A node left: the NodeDelete event (PodTopologySpread's domains may shrink), then the cache forgets it."""
        info = self.cache.node_info(name)
        if info is not None and info.node is not None:
            self.queue.move_all_to_active_or_backoff(NODE_DELETE, info.node, None)
        self.cache.remove_node(name)
        for listener in self._listeners():
            listener.on_node_delete(name)

    def on_pod_add(self, pod: Pod) -> None:
        """A pod appeared: assigned pods go to the cache (the AssignedPodAdd event), unassigned ones to the queue."""
        self._pod_added(pod)
        for listener in self._listeners():
            listener.on_pod_add(pod)

    def _pod_added(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self.cache.add_pod(pod)
            self._failed_at.pop(pod.uid, None)
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, pod)
        elif pod.spec.scheduler_name in self.frameworks:
            self.queue.add(pod)
        else:
            self.ignored[pod.uid] = pod

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod changed (bound, nominated, relabelled, marked for deletion...). A write that changed nothing is no
        event (the API server keeps the resourceVersion and sends no watch event)."""
        if new.spec.node_name == old.spec.node_name and new == old:  # a binding always differs: no full compare
            return
        if new.spec.node_name:
            if not old.spec.node_name:
                self.queue.delete(old)
                self._pod_added(new)
            else:
                self.cache.update_pod(new)
                for event in pod_events(new, old):
                    self.queue.move_all_to_active_or_backoff(event, old, new)
        elif new.spec.scheduler_name in self.frameworks:
            self.queue.update(old, new)
        for listener in self._listeners():
            listener.on_pod_update(old, new)

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod is gone: an assigned pod is the AssignedPodDelete event; a pod Permit held is rejected."""
        self.ignored.pop(pod.uid, None)
        self._failed_at.pop(pod.uid, None)
        if pod.spec.node_name:
            self.cache.remove_pod(pod)
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)
        else:
            self.queue.delete(pod)
            waiting = self._parked.get(pod.uid)
            if waiting is not None:
                wp = waiting.framework.handle.get_waiting_pod(pod.uid)
                if wp is not None:
                    wp.reject("", "pod was deleted")
        for listener in self._listeners():
            listener.on_pod_delete(pod)

    def _plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """The plugins of any profile that registered ``event`` (the queue's pre-check before asking hints)."""
        if len(self.frameworks) == 1:
            return next(iter(self.frameworks.values())).plugins_interested_in(event)
        return frozenset().union(*(f.plugins_interested_in(event) for f in self.frameworks.values()))

    def _queueing_hint_strategy(self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
        """The hints of the pod's own profile decide; a pod of no known profile is retried after its backoff."""
        framework = self.frameworks.get(info.pod.spec.scheduler_name)
        if framework is None:
            return Strategy.AFTER_BACKOFF
        return framework.queueing_hint_strategy(info, event, old, new)

    def plugin_failures(self) -> list[PluginFailure]:
        """Every plugin error so far, profile by profile, each in order."""
        return [failure for framework in self.frameworks.values() for failure in framework.failures]

    def slow_calls(self) -> list[SlowCalls]:
        """Plugin calls over the call budget, per profile, extension point and plugin."""
        return [record for framework in self.frameworks.values() for record in framework.slow_calls.values()]

    def _pre_enqueue(self, pod: Pod) -> Status | None:
        framework = self.frameworks.get(pod.spec.scheduler_name)
        return framework.run_pre_enqueue_plugins(pod) if framework else None

    # -- scheduleOne -------------------------------------------------------------------------------
    def schedule_one(self) -> bool:
        """Schedule the next pod in activeQ; return False when activeQ is empty."""
        queued = self.queue.pop()
        if queued is None:
            return False
        started = time.perf_counter()
        pod = queued.pod
        if self.attempt_observer is not None:
            self.attempt_observer.attempt_started(pod)
        framework = self.frameworks[pod.spec.scheduler_name]
        # Plugin calls are timed in every PLUGIN_SAMPLE_PERIOD-th cycle, as kube-scheduler samples 10%.
        framework.meter_plugins(self.metrics if self.queue.scheduling_cycle % PLUGIN_SAMPLE_PERIOD == 0 else None)
        if pod.metadata.deletion_timestamp is not None:
            self.client.record_event(pod, "Warning", "FailedScheduling", f"skip schedule deleting pod: {pod.key}")
            self.queue.done(pod.uid)
            return True
        if self.cache.is_assumed_pod(pod):
            self.queue.done(pod.uid)
            return True
        state = CycleState()
        record = CycleRecord(pod, framework.profile_name, Diagnosis())
        if self.explainer is not None and self.explainer.wants(pod):
            self._recording = self.explainer.start(pod, framework.profile_name, self.clock.now(), self.nominator)
            framework.handle.preemption_observer = self._recording.preemption
        try:
            binding = self._scheduling_cycle(framework, state, queued, record, started)
        except _CycleFailed as failure:
            record.status = failure.status
            self._observe(record)
            self._handle_failure(queued, failure, started=started)
            return True
        self._observe(record)
        if binding is not None:
            self._binding_cycle(binding, None)
        return True

    def _observe(self, record: CycleRecord) -> None:
        if self._recording is not None:
            self._finish_recording(self._recording, record)
        if self.cycle_observer is not None:
            record.diagnosis.node_to_status.materialise()
            if record.scores is not None:
                record.scores.as_lists()
            self.cycle_observer(record)

    def _finish_recording(self, recording: AttemptRecorder, record: CycleRecord) -> None:
        self._recording = None
        self.frameworks[record.profile].handle.preemption_observer = None
        table = record.scores
        totals = {} if table is None else {name: int(total) for name, total in zip(table.nodes, table.totals,
                                                                                    strict=True)}
        assert self.explainer is not None
        self.explainer.add(recording.finish(self.snapshot.list(), record.suggested_host, totals, record.status))

    def _scheduling_cycle(self, framework: Framework, state: CycleState, queued: QueuedPodInfo,
                          record: CycleRecord, started: float) -> _Binding | None:
        pod = queued.pod
        host = self._schedule_pod(framework, state, pod, record)
        assumed = queued.pod_info.for_pod(pod.with_node_name(host))
        self.cache.assume_pod(assumed)
        self.nominator.delete_nominated_pod_if_exists(pod)
        status = framework.run_reserve_plugins_reserve(state, assumed.pod, host)
        if status is not None:
            framework.run_reserve_plugins_unreserve(state, assumed.pod, host)
            self.cache.forget_pod(assumed.pod)
            raise self._single_node_failure(pod, host, status)
        status = framework.run_permit_plugins(state, assumed.pod, host)
        if status is not None and not status.is_wait():
            framework.run_reserve_plugins_unreserve(state, assumed.pod, host)
            self.cache.forget_pod(assumed.pod)
            raise self._single_node_failure(pod, host, status)
        binding = _Binding(framework, state, queued, assumed, host, next(self._sequence), started, framework.metering)
        if status is not None:  # Wait: the binding cycle resumes when the waiting pod is resolved
            self._parked[pod.uid] = binding
            return None
        return binding

    def _single_node_failure(self, pod: Pod, host: str, status: Status) -> _CycleFailed:
        if not status.is_rejected():
            return _CycleFailed(status, CLEAR_NOMINATED_NODE)
        diagnosis = Diagnosis()
        diagnosis.node_to_status.set(host, status)
        diagnosis.add_plugin_status(status)
        fit_error = FitError(pod, 1, diagnosis)
        return _CycleFailed(Status(status.code, (str(fit_error),), status.plugin), CLEAR_NOMINATED_NODE, fit_error)

    def _schedule_pod(self, framework: Framework, state: CycleState, pod: Pod, record: CycleRecord) -> str:
        self.cache.update_snapshot(self.snapshot)
        if self.snapshot.num_nodes() == 0:
            raise _CycleFailed(Status.unresolvable(NO_NODES_AVAILABLE), CLEAR_NOMINATED_NODE)
        self._feasible_positions = None
        feasible = self._find_nodes_that_fit(framework, state, pod, record.diagnosis)
        if self._recording is not None:
            self._recording.filtering_done(self.snapshot.list())
        if self.cycle_observer is not None:  # the record outlives the cycle: build what it holds now
            record.feasible_nodes = [ni.name for ni in feasible]
            record.diagnosis.node_to_status.materialise()
        if not feasible:
            fit_error = FitError(pod, self.snapshot.num_nodes(), record.diagnosis)
            nominating = None
            if framework.has_post_filter_plugins():
                self.metrics.preemption_attempt()
                result, status = framework.run_post_filter_plugins(state, pod, record.diagnosis.node_to_status)
                record.diagnosis.post_filter_msg = status.message()
                if self._recording is not None:
                    self._recording.post_filter(result, status)
                if result is not None:
                    nominating = result.nominating_info
            raise _CycleFailed(Status(Code.UNSCHEDULABLE, (str(fit_error),)), nominating, fit_error)
        if len(feasible) == 1:
            record.suggested_host = feasible[0].name
            return record.suggested_host
        scores = self._prioritize(framework, state, pod, feasible)
        record.scores = scores
        record.suggested_host = select_host(scores, self.rng)
        return record.suggested_host

    def _find_nodes_that_fit(self, framework: Framework, state: CycleState, pod: Pod,
                             diagnosis: Diagnosis) -> list[NodeInfo]:
        all_nodes = self.snapshot.list()
        batch = NodeBatch.of(all_nodes, self.snapshot.columns) if self._batch_path() else None
        pre_result, status, narrowing = framework.run_pre_filter_plugins(state, pod, all_nodes, batch)
        diagnosis.unschedulable_plugins = set(narrowing)
        recording = self._recording
        if recording is not None:
            recording.pre_filter(pre_result, status, narrowing, state.skip_filter_plugins)
            framework.record_filters(state, recording.filter_hooks)
        if status is not None and status.code is not Code.SUCCESS:
            if not status.is_rejected():
                raise _CycleFailed(status, CLEAR_NOMINATED_NODE)
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return []
        nominated = pod.status.nominated_node_name
        if nominated:
            node_info = self.snapshot.get(nominated)
            if node_info is not None:
                try:
                    feasible = self._find_nodes_that_pass_filters(framework, state, pod, diagnosis, [node_info])
                except _CycleFailed:
                    feasible = []  # kube-scheduler logs an error on the nominated node and checks all nodes
                if feasible:
                    if recording is not None:
                        recording.nominated_node_fits()
                    return feasible
        nodes = all_nodes
        if pre_result is not None and not pre_result.all_nodes():
            nodes = _narrow(all_nodes, pre_result)
            diagnosis.node_to_status.absent_nodes_status = Status.unresolvable(
                "node(s) didn't satisfy plugin(s) [" + " ".join(sorted(narrowing)) + "]")
        lazy = 0
        if self._batch_filter_usable(framework, state, nodes):
            feasible, lazy = self._find_nodes_batch(framework, state, pod, diagnosis, nodes)
        else:
            feasible = self._find_nodes_that_pass_filters(framework, state, pod, diagnosis, nodes)
        processed = len(feasible) + len(diagnosis.node_to_status.recorded_names()) + lazy
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return feasible

    def _batch_path(self) -> bool:
        """Whether this cycle takes the batch path: enabled, exact columns, and no explained attempt."""
        return self.settings.fast_path and self.snapshot.columns.exact and self._recording is None

    def _batch_filter_usable(self, framework: Framework, state: CycleState, nodes: list[NodeInfo]) -> bool:
        """Whether the batch Filter path applies: enabled, exact columns, and some cycle filter has a batch form."""
        if (not self.settings.fast_path or len(nodes) < 2 or not self.snapshot.columns.exact
                or self._recording is not None):
            return False
        batch_hooks = framework.batch_filter_hooks
        return bool(batch_hooks) and any(name in batch_hooks for name, _ in framework.cycle_filters(state))

    def _find_nodes_batch(self, framework: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                          nodes: list[NodeInfo]) -> tuple[list[NodeInfo], int]:
        """The batch form of :meth:`_find_nodes_that_pass_filters`; also returns how many rejections it deferred
        that are not already recorded (so the caller counts processed nodes as kube-scheduler does)."""
        columns = self.snapshot.columns
        batch = NodeBatch.of(nodes, columns)
        full = batch.positions is columns.all_positions()
        percentage = framework.profile.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self.settings.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(percentage, len(nodes)) if framework.has_score_plugins() else 1
        index_of = columns.position if full else {ni.name: j for j, ni in enumerate(nodes)}
        already = [index_of[name] for name in diagnosis.node_to_status.recorded_names() if name in index_of]
        filters = framework.cycle_filters(state)
        runner = BatchFilter(framework, state, pod, batch, filters)
        special: dict[int, Callable[[NodeInfo], Status | None]] = {}
        sums = self.nominator.nominated_sums(pod, columns) if self.nominator.has_nominations() else None
        if sums is not None:
            indexes = np.flatnonzero(batch.column(sums[1][0]))
        elif self.nominator.has_nominations():
            indexes = np.fromiter(self._relevant_nominated_nodes(pod, index_of), dtype=np.int64)
        else:
            indexes = np.zeros(0, dtype=np.int64)
        try:
            runner.run_batch_forms()
            if len(indexes) and not (sums is not None and nominated_overlay_exact(framework, state, filters)
                                     and runner.add_nominated_pods(indexes, sums[1], sums[0])):
                # Only nodes with nominated pods that count for this pod need the per-node two-pass filter.
                run = framework.run_filter_plugins_with_nominated_pods
                special = dict.fromkeys(indexes.tolist(), lambda info: run(state, pod, info))
            found, rejected = runner.find(self.next_start_node_index, to_find, diagnosis, special)
        except BatchError as error:
            raise _CycleFailed(error.status, CLEAR_NOMINATED_NODE) from None
        lazy = len(rejected) - sum(1 for j in already if bool((rejected == j).any()))
        positions = self._feasible_positions = batch.positions[found]
        return columns.infos_at(positions), lazy

    def _relevant_nominated_nodes(self, pod: Pod, index_of: Mapping[str, int]) -> list[int]:
        """The batch indexes of the nodes where the two-pass filter adds pods for ``pod``: other pods of at least its
        priority are nominated there (the other nodes take the ordinary filter)."""
        priority, uid = pod.priority, pod.uid
        nominator = self.nominator
        found: list[int] = []
        for name in nominator.nominated_node_names():
            j = index_of.get(name)
            if j is not None and any(pi.pod.priority >= priority and pi.pod.uid != uid
                                     for pi in nominator.nominated_pods_for_node(name)):
                found.append(j)
        return found

    def _find_nodes_that_pass_filters(self, framework: Framework, state: CycleState, pod: Pod,
                                      diagnosis: Diagnosis, nodes: list[NodeInfo]) -> list[NodeInfo]:
        count = len(nodes)
        if count == 0:
            return []
        percentage = framework.profile.percentage_of_nodes_to_score
        if percentage is None:
            percentage = self.settings.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(percentage, count) if framework.has_score_plugins() else 1
        start = self.next_start_node_index
        if not framework.has_filter_plugins():
            return [nodes[(start + i) % count] for i in range(min(to_find, count))]
        feasible: list[NodeInfo] = []
        # Without nominations the two-pass filter is a single pass: skip its wrapper on the hot path.
        run = (framework.run_filter_plugins_with_nominated_pods if self.nominator.has_nominations()
               else framework.run_filter_plugins)
        node_to_status = diagnosis.node_to_status
        for i in range(count):
            node_info = nodes[(start + i) % count]
            status = run(state, pod, node_info)
            if status is None:
                feasible.append(node_info)
                if len(feasible) >= to_find:
                    break
            elif status.code is Code.ERROR:
                raise _CycleFailed(status, CLEAR_NOMINATED_NODE)
            else:
                node_to_status.set(node_info.name, status)
                diagnosis.add_plugin_status(status)
        return feasible

    def _prioritize(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> ScoreTable:
        if not framework.has_score_plugins():
            return ScoreTable([ni.name for ni in nodes], totals=[1] * len(nodes))
        recording = self._recording
        columns = self.snapshot.columns
        batch: NodeBatch | None = None
        if self._batch_path():
            positions = self._feasible_positions
            batch = (NodeBatch(nodes, positions, columns) if positions is not None and len(positions) == len(nodes)
                     else NodeBatch.of(nodes, columns))
        status = framework.run_pre_score_plugins(state, pod, nodes, batch)
        if status is not None:
            raise _CycleFailed(status, CLEAR_NOMINATED_NODE)
        if batch is not None and framework.batch_score_hooks:
            try:
                return score_batch(framework, state, pod, batch)
            except BatchError as error:
                raise _CycleFailed(error.status, CLEAR_NOMINATED_NODE) from None
        if recording is not None:
            recording.score_skipped(state.skip_score_plugins)
        scores, status = framework.run_score_plugins(state, pod, nodes, recording.scored if recording else None)
        if status is not None:
            raise _CycleFailed(status, CLEAR_NOMINATED_NODE)
        return scores

    # -- binding cycle -----------------------------------------------------------------------------
    def process_waiting_pods(self) -> None:
        """Resume the binding cycles of waiting pods that were allowed, rejected, or timed out."""
        if not self._parked:
            return
        now = self.clock.now()
        for uid, binding in list(self._parked.items()):
            waiting = binding.framework.handle.get_waiting_pod(uid)
            if waiting is None:
                continue
            waiting.expire(now)
            if waiting.outcome is None:
                continue
            del self._parked[uid]
            binding.framework.handle.remove_waiting_pod(uid)
            binding.framework.meter_plugins(binding.metering)  # sampled as its scheduling cycle was
            self._binding_cycle(binding, waiting.outcome)

    def next_wakeup(self) -> float | None:
        """The earliest Permit timeout among waiting pods."""
        deadlines = [d for b in self._parked.values()
                     if (wp := b.framework.handle.get_waiting_pod(b.assumed.pod.uid)) is not None
                     and (d := wp.next_deadline()) is not None]
        return min(deadlines, default=None)

    def has_waiting_pods(self) -> bool:
        """Whether any pod is held by Permit."""
        return bool(self._parked)

    def _binding_cycle(self, binding: _Binding, permit_outcome: Status | None) -> None:
        framework, state, pod, host = binding.framework, binding.state, binding.assumed.pod, binding.node_name
        status = permit_outcome if permit_outcome is not None and not permit_outcome.is_success() else None
        if status is not None and status.is_rejected():
            diagnosis = Diagnosis(unschedulable_plugins={status.plugin} if status.plugin else set())
            diagnosis.node_to_status.set(host, status)
            status = Status(status.code, (fit_error_message(1, diagnosis),), status.plugin)
        if status is None:
            self.queue.done(pod.uid)
            status = framework.run_pre_bind_plugins(state, pod, host)
        if status is None:
            status = framework.run_bind_plugins(state, pod, host)
            self.cache.finish_binding(pod)
            if status is None:
                self.client.record_event(pod, "Normal", "Scheduled",
                                         f"Successfully assigned {pod.key} to {host}")
                self._record_scheduled(framework, binding)
                framework.run_post_bind_plugins(state, pod, host)
                return
        framework.run_reserve_plugins_unreserve(state, pod, host)
        forgotten = self.cache.is_assumed_pod(pod)
        if forgotten:
            self.cache.forget_pod(pod)
        if status.is_rejected() and status.plugin:
            binding.queued.unschedulable_plugins = {status.plugin}
        failure = _CycleFailed(status, CLEAR_NOMINATED_NODE)
        woken: list[Pod] = []

        def saw_reservation(info: QueuedPodInfo) -> bool:
            # As handleBindingCycleError, forgetting the assumed pod is an AssignedPodDelete event; it is news
            # only to pods that failed while the pod held its room (not to the pod itself, nor to earlier failures).
            if info.pod.uid == pod.uid or self._failed_at.get(info.pod.uid, -1) < binding.assumed_at:
                return False
            if not info.gating_plugin:
                woken.append(info.pod)
            return True

        if status.is_rejected():
            # The move is deferred past the failure handling, as in kube-scheduler, so a rejected pod waits in the
            # unschedulable pods instead of being sent to backoff by its own forget.
            self._handle_failure(binding.queued, failure, binding_cycle=True, started=binding.started)
            if forgotten:
                self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, binding.assumed.pod, None,
                                                         saw_reservation)
        else:
            if forgotten:
                self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, binding.assumed.pod, None,
                                                         saw_reservation)
            self._handle_failure(binding.queued, failure, binding_cycle=True, started=binding.started)
        if forgotten and self.attempt_observer is not None:
            self.attempt_observer.assumed_pod_forgotten(pod, woken)

    # -- failures ----------------------------------------------------------------------------------
    def _record_scheduled(self, framework: Framework, binding: _Binding) -> None:
        """Metrics of a bound pod: a scheduled attempt, and its scheduling SLI in the scheduler clock's time."""
        queued = binding.queued
        self.metrics.schedule_attempt(RESULT_SCHEDULED, framework.profile_name, time.perf_counter() - binding.started)
        first = queued.initial_attempt_timestamp
        if first is not None:  # as kube-scheduler, which observes only pods with an initial attempt time
            self.metrics.pod_scheduled_sli(queued.attempts, self.clock.now() - first)

    def _handle_failure(self, queued: QueuedPodInfo, failure: _CycleFailed, *, started: float,
                        binding_cycle: bool = False) -> None:
        status = failure.status
        pod = queued.pod
        reason = POD_REASON_UNSCHEDULABLE if status.is_rejected() else POD_REASON_SCHEDULER_ERROR
        self.metrics.schedule_attempt(RESULT_UNSCHEDULABLE if status.is_rejected() else RESULT_ERROR,
                                      pod.spec.scheduler_name, time.perf_counter() - started)
        self._failed_at[pod.uid] = next(self._sequence)
        if failure.fit_error is not None:
            queued.unschedulable_plugins = set(failure.fit_error.diagnosis.unschedulable_plugins)
            queued.pending_plugins = set(failure.fit_error.diagnosis.pending_plugins)
        message = status.message()  # a FitError's message was built once, into the failure's status
        current = self.client.get_pod(pod.namespace, pod.name)
        if current is not None and not current.spec.node_name and current.uid == pod.uid:
            queued.pod_info = queued.pod_info.for_pod(current)
            self.queue.add_unschedulable_if_not_present(queued, self.queue.scheduling_cycle)
            self.nominator.add_nominated_pod(queued.pod_info, failure.nominating)
        else:
            self.queue.done(pod.uid)
            # As the nominator's lister check: a pod gone or bound meanwhile is never nominated.
            self.nominator.delete_nominated_pod_if_exists(pod)
        note = message if len(message) <= MAX_EVENT_MESSAGE else message[: MAX_EVENT_MESSAGE - 4] + " ..."
        self.client.record_event(pod, "Warning", "FailedScheduling", note)
        if self.attempt_observer is not None:
            self.attempt_observer.attempt_failed(pod, status, binding_cycle=binding_cycle)
        if current is not None:
            # One write for the condition and the nomination, as kube-scheduler's updatePod patches once.
            nominating = failure.nominating
            node = None
            if nominating is not None and nominating.mode is NominatingMode.OVERRIDE \
                    and nominating.nominated_node_name != current.status.nominated_node_name:
                node = nominating.nominated_node_name
            self.client.set_scheduling_failure(current, reason, message, node)


def _narrow(all_nodes: list[NodeInfo], result: PreFilterResult) -> list[NodeInfo]:
    names = result.node_names or frozenset()
    return [ni for ni in all_nodes if ni.name in names]


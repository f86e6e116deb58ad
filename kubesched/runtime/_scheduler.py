"""The scheduling loop: kube-scheduler's scheduleOne and its failure handling.

One pod at a time: pop, pick the profile by spec.schedulerName, snapshot, PreFilter, Filter (round-robin
start, numFeasibleNodesToFind), PostFilter on failure, PreScore/Score/NormalizeScore, select the host
(ties broken by the seeded RNG), assume, Reserve, Permit, then PreBind/Bind/PostBind. The binding cycle
runs right away, or later if Permit made the pod wait. How nodes are searched and scored is the node search's
(``_node_search.py``); what the cluster tells the scheduler goes through its event handlers
(``_event_handlers.py``).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from kubesched.api.pod import Pod
from kubesched.backend import Clock, ClusterClient
from kubesched.errors import ProfileError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import (
    ASSIGNED_POD_DELETE,
    ClusterEvent,
)
from kubesched.framework._status import Status
from kubesched.framework._types import (
    Diagnosis,
    FitError,
    NominatingMode,
    QueuedPodInfo,
    fit_error_message,
)
from kubesched.metrics import (
    PLUGIN_SAMPLE_PERIOD,
    RESULT_ERROR,
    RESULT_SCHEDULED,
    RESULT_UNSCHEDULABLE,
    SchedulerMetrics,
)
from kubesched.runtime._cache import Cache
from kubesched.runtime._cycle import CLEAR_NOMINATED_NODE, CycleFailed, CycleRecord, Placement
from kubesched.runtime._cycle_observer import QUIET, CycleObserver
from kubesched.runtime._event_handlers import EventHandlers
from kubesched.runtime._explain import AttemptRecorder, Explainer
from kubesched.runtime._failures import PluginFailure, SlowCalls
from kubesched.runtime._framework import Framework
from kubesched.runtime._inputs import InputWatch, Snapshot
from kubesched.runtime._metrics import MeteredClient
from kubesched.runtime._node_search import NodeSearches
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._preemption import ResourceAccelerator
from kubesched.runtime._profile import Profile
from kubesched.runtime._queue import (
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    SchedulingQueue,
    Strategy,
)
from kubesched.runtime._registry import PluginRegistry
from kubesched.runtime._snapshot import NodeSnapshot
from kubesched.runtime._statuses import new_diagnosis
from kubesched.runtime._waiting import Binding, WaitingBindings

POD_REASON_UNSCHEDULABLE = "Unschedulable"
POD_REASON_SCHEDULER_ERROR = "SchedulerError"
# Event notes are truncated like kube-scheduler's (the PodScheduled condition keeps the full text).
MAX_EVENT_MESSAGE = 1024



@attrs.frozen
class SchedulerSettings:
    """Scheduler-wide settings from the profile file."""

    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF
    pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF
    #: A plugin call taking longer than this is reported (None: calls are not timed).
    plugin_call_budget_seconds: float | None = None
    #: A plugin call running longer than this is interrupted and fails its pod (None: no limit).
    plugin_timeout_seconds: float | None = None
    #: Check the pod after every plugin call, naming a plugin that changed it (``--strict``); without it the pod is
    #: checked once, after its scheduling cycle.
    check_plugin_inputs: bool = False
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
        self.snapshot = NodeSnapshot()
        self.nominator = Nominator()
        #: The pod in its scheduling cycle as it was before any plugin ran (a plugin's change is undone).
        self.input_watch = InputWatch()
        self.frameworks: dict[str, Framework] = {
            p.scheduler_name: Framework(p, registry, client=plugin_client, nominator=self.nominator, rng=rng,
                                        clock=clock,
                                        snapshot=self.snapshot,
                                        call_budget=self.settings.plugin_call_budget_seconds,
                                        timeout=self.settings.plugin_timeout_seconds,
                                        watch=self.input_watch if self.settings.check_plugin_inputs else None)
            for p in profiles
        }
        #: Whether any profile runs a plugin from outside kubesched: only then is the pod checked for changes.
        self._watch_inputs = any(f.foreign_plugins for f in self.frameworks.values())
        if self.settings.fast_path:  # the reference path (``--reference``) runs preemption's reference dry run
            for framework in self.frameworks.values():
                framework.handle.accelerator = ResourceAccelerator(framework, self.snapshot, self.nominator)
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
        #: What the cluster tells the scheduler (subscribe it to the backend: it is the ClusterListener).
        self.events = EventHandlers(self.cache, self.queue, self.frameworks, self._forget_failure)
        client.storage.subscribe(self.events.on_storage_change)
        self._searches = NodeSearches(self.snapshot, self.nominator, batch=self.settings.fast_path)
        self._placement = Placement(self.cache, self.snapshot, self._searches, self.metrics, rng,
                                    self.settings.percentage_of_nodes_to_score)
        #: Receives a record of every scheduling attempt (for explain output); None keeps nothing.
        self.cycle_observer: Callable[[CycleRecord], None] | None = None
        #: Told when attempts start and fail (the simulator's settling policy); None tells nobody.
        self.attempt_observer: AttemptObserver | None = None
        #: Records every attempt of the pods it explains (``--explain``); None explains nothing, at no cost.
        self.explainer: Explainer | None = None
        #: Binding cycles held by Permit or waiting in PreBind.
        self._waiting = WaitingBindings(clock)
        # Orders assumptions and failures: a pod that failed after a pod was assumed saw that pod's reservation.
        self._sequence = itertools.count()
        self._failed_at: dict[str, int] = {}

    @property
    def next_start_node_index(self) -> int:
        """kube-scheduler's nextStartNodeIndex: where the next search for feasible nodes starts."""
        return self._placement.next_start_node_index

    @property
    def ignored(self) -> dict[str, Pod]:
        """Unassigned pods whose schedulerName matches no profile: left alone, as kube-scheduler does."""
        return self.events.ignored

    def skip_post_filter(self, skip: Callable[[Pod], bool] | None) -> None:
        """Run no PostFilter plugin (no preemption) when a pod ``skip`` names fails its cycle, as a profile without
        PostFilter plugins would (``kubesched capacity`` counts free room only); None runs them for every pod."""
        self._placement.skip_post_filter = skip

    def _forget_failure(self, uid: str) -> None:
        """A pod bound or gone: its last failure no longer orders anything."""
        self._failed_at.pop(uid, None)

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
        record = CycleRecord(pod, framework.profile_name, new_diagnosis())
        observer: CycleObserver = QUIET
        recorder: AttemptRecorder | None = None
        if self.explainer is not None and self.explainer.wants(pod):
            observer = recorder = self.explainer.start(pod, framework.profile_name, self.clock.now(), self.nominator)
        framework.handle.observer = observer  # what the preemption's candidate choice is told to
        if self._watch_inputs:
            self.input_watch.snapshot = Snapshot(pod)
        try:
            binding = self._scheduling_cycle(framework, state, queued, record, started, observer)
        except CycleFailed as failure:
            self.input_watch.check()  # a failed cycle's change is undone too
            record.status = failure.status
            self._observe(framework, record, recorder)
            self._handle_failure(queued, failure, started=started)
            return True
        finally:
            self.input_watch.snapshot = None
        self._observe(framework, record, recorder)
        if binding is not None:
            self._binding_cycle(binding, None)
        return True

    def _observe(self, framework: Framework, record: CycleRecord, recorder: AttemptRecorder | None) -> None:
        framework.handle.observer = QUIET
        if recorder is not None:
            self._finish_recording(recorder, record)
        if self.cycle_observer is not None:
            record.diagnosis.node_to_status.materialise()
            if record.scores is not None:
                record.scores.as_lists()
            self.cycle_observer(record)

    def _finish_recording(self, recording: AttemptRecorder, record: CycleRecord) -> None:
        table = record.scores
        totals = {} if table is None else {name: int(total) for name, total in zip(table.nodes, table.totals,
                                                                                    strict=True)}
        assert self.explainer is not None
        self.explainer.add(recording.finish(self.snapshot.list(), record.suggested_host, totals, record.status))

    def _scheduling_cycle(self, framework: Framework, state: CycleState, queued: QueuedPodInfo,
                          record: CycleRecord, started: float, observer: CycleObserver) -> Binding | None:
        pod = queued.pod
        host = self._placement.schedule_pod(framework, state, pod, record, observer,
                                            keep=self.cycle_observer is not None)
        _unchanged(self.input_watch, pod)
        assumed = queued.pod_info.for_pod(pod.with_node_name(host))
        self.cache.assume_pod(assumed)
        self.nominator.delete_nominated_pod_if_exists(pod)
        status = framework.binding.reserve(state, assumed.pod, host)
        if status is not None:
            framework.binding.unreserve(state, assumed.pod, host)
            self.cache.forget_pod(assumed.pod)
            raise self._single_node_failure(pod, host, status)
        status = framework.binding.permit(state, assumed.pod, host)
        if status is not None and not status.is_wait():
            framework.binding.unreserve(state, assumed.pod, host)
            self.cache.forget_pod(assumed.pod)
            raise self._single_node_failure(pod, host, status)
        try:
            _unchanged(self.input_watch, pod)
        except CycleFailed:
            framework.binding.unreserve(state, assumed.pod, host)
            self.cache.forget_pod(assumed.pod)
            raise
        binding = Binding(framework, state, queued, assumed, host, next(self._sequence), started, framework.metering)
        if status is not None:  # Wait: the binding cycle resumes when the waiting pod is resolved
            self._waiting.parked[pod.uid] = binding
            return None
        return binding

    def _single_node_failure(self, pod: Pod, host: str, status: Status) -> CycleFailed:
        if not status.is_rejected():
            return CycleFailed(status, CLEAR_NOMINATED_NODE)
        diagnosis = Diagnosis()
        diagnosis.node_to_status.set(host, status)
        diagnosis.add_plugin_status(status)
        fit_error = FitError(pod, 1, diagnosis)
        return CycleFailed(Status(status.code, (str(fit_error),), status.plugin), CLEAR_NOMINATED_NODE, fit_error)

    # -- binding cycle -----------------------------------------------------------------------------
    def process_waiting_pods(self) -> bool:
        """Resume the binding cycles of waiting pods that were allowed, rejected, or timed out, and poll the PreBind
        plugins that asked to wait and are due; whether any binding cycle went on."""
        waiting = self._waiting
        if not waiting:
            return False
        resumed = False
        for binding, outcome in waiting.permitted():
            binding.framework.meter_plugins(binding.metering)  # sampled as its scheduling cycle was
            self._binding_cycle(binding, outcome)
            resumed = True
        for wait in waiting.polls_due():
            binding = wait.binding
            binding.framework.meter_plugins(binding.metering)
            status = waiting.pre_bind(binding, wait.plugin, wait)
            if status is None or not status.is_wait():
                self._finish_binding(binding, status)
                resumed = True
        return resumed

    def next_wakeup(self) -> float | None:
        """The earliest Permit timeout among waiting pods, or the earliest poll of a PreBind plugin that waits."""
        return self._waiting.next_wakeup()

    def has_waiting_pods(self) -> bool:
        """Whether any pod is held by Permit or waits in PreBind."""
        return bool(self._waiting)

    def pre_bind_wait(self, uid: str) -> Status | None:
        """The Wait a PreBind plugin holds pod ``uid``'s binding with (its reasons say what for), or None."""
        return self._waiting.pre_bind_wait(uid)

    def _binding_cycle(self, binding: Binding, permit_outcome: Status | None) -> None:
        pod, host = binding.assumed.pod, binding.node_name
        status = permit_outcome if permit_outcome is not None and not permit_outcome.is_success() else None
        if status is not None and status.is_rejected():
            diagnosis = Diagnosis(unschedulable_plugins={status.plugin} if status.plugin else set())
            diagnosis.node_to_status.set(host, status)
            status = Status(status.code, (fit_error_message(1, diagnosis),), status.plugin)
        if status is None:
            self.queue.done(pod.uid)
            status = self._waiting.pre_bind(binding, 0)
            if status is not None and status.is_wait():
                return  # polled by process_waiting_pods
        self._finish_binding(binding, status)

    def _finish_binding(self, binding: Binding, status: Status | None) -> None:
        """Bind after PreBind succeeded (``status`` None), or undo the binding cycle after its failure."""
        framework, state, pod, host = binding.framework, binding.state, binding.assumed.pod, binding.node_name
        if status is None:
            status = framework.binding.bind(state, pod, host)
            self.cache.finish_binding(pod)
            if status is None:
                self.client.record_event(pod, "Normal", "Scheduled",
                                         f"Successfully assigned {pod.key} to {host}")
                self._record_scheduled(framework, binding)
                framework.binding.post_bind(state, pod, host)
                return
        framework.binding.unreserve(state, pod, host)
        forgotten = self.cache.is_assumed_pod(pod)
        if forgotten:
            self.cache.forget_pod(pod)
        if status.is_rejected() and status.plugin:
            binding.queued.unschedulable_plugins = {status.plugin}
        failure = CycleFailed(status, CLEAR_NOMINATED_NODE)
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
    def _record_scheduled(self, framework: Framework, binding: Binding) -> None:
        """Metrics of a bound pod: a scheduled attempt, and its scheduling SLI in the scheduler clock's time."""
        queued = binding.queued
        self.metrics.schedule_attempt(RESULT_SCHEDULED, framework.profile_name, time.perf_counter() - binding.started)
        first = queued.initial_attempt_timestamp
        if first is not None:  # as kube-scheduler, which observes only pods with an initial attempt time
            self.metrics.pod_scheduled_sli(queued.attempts, self.clock.now() - first)

    def _handle_failure(self, queued: QueuedPodInfo, failure: CycleFailed, *, started: float,
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


def _unchanged(watch: InputWatch, pod: Pod) -> None:
    """Fail the attempt (CycleFailed, an Error) when a plugin changed ``pod`` during its scheduling cycle; the
    change is undone first, so no decision rests on it."""
    if (changed := watch.check()) is not None:
        raise CycleFailed(Status.as_error(f'a plugin changed pod "{pod.key}" during its scheduling cycle ({changed}); '
                                          "the change was undone (--strict names the plugin)"), CLEAR_NOMINATED_NODE)

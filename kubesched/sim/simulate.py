"""Run a cluster through the scheduler on a virtual clock until nothing more can happen.

Pods with spec.nodeName are running at time 0; every other pod is queued at time 0 in creation order
(input order for pods without a creationTimestamp, after the timestamped ones). Time is the agenda's
(kubesched/sim/agenda.py): the scheduler tries every pod it can at one time, then the agenda moves the clock
to its next entry. The run ends when no pod can be attempted with a chance of a different outcome: the queue
holds only pods that already failed since the cluster last changed, and no entry (backoff, grace period,
Permit timeout, controller delay) is pending.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from kubesched.admission.errors import AdmissionError
from kubesched.analysis import RunAnalysis, RunRecorder, analyse
from kubesched.api.apps import CronJob
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError
from kubesched.framework._node_info import pod_has_affinity, pod_host_ports
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import (
    POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    Explainer,
    PluginRegistry,
    Scheduler,
)
from kubesched.sim.admission import ApiAdmission
from kubesched.sim.agenda import EPOCH, Agenda, Entry, Phase, VirtualClock
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.controllers import ControllerManager, ControllerSettings, StorageController, StorageSettings
from kubesched.sim.controllers.disruption import DisruptionController
from kubesched.sim.instant import InstantGuard
from kubesched.sim.outcome import gated_messages, node_usages, pending_message, plugin_warnings, pod_results
from kubesched.sim.result import ENDED_MESSAGES as ENDED_MESSAGES
from kubesched.sim.result import PHASE_BOUND as PHASE_BOUND
from kubesched.sim.result import PHASE_DELETED as PHASE_DELETED
from kubesched.sim.result import PHASE_EVICTED as PHASE_EVICTED
from kubesched.sim.result import PHASE_PENDING as PHASE_PENDING
from kubesched.sim.result import PHASE_REJECTED as PHASE_REJECTED
from kubesched.sim.result import NodeUsage as NodeUsage
from kubesched.sim.result import PodResult as PodResult
from kubesched.sim.result import Preemption as Preemption
from kubesched.sim.result import SimulationResult as SimulationResult
from kubesched.sim.settling import SettlingPolicy

TERMINATED_PHASES = ("Succeeded", "Failed")
# kube-scheduler flushes unschedulable pods older than 5 minutes every 30 seconds.
LEFTOVER_AGE = 300.0
LEFTOVER_PERIOD = 30.0

# Pod features and the plugin that enforces each: a profile without that plugin silently ignores them.
FEATURE_PLUGINS: tuple[tuple[str, str, Callable[[Pod], bool]], ...] = (
    ("pod affinity or anti-affinity", "InterPodAffinity", pod_has_affinity),
    ("topology spread constraints", "PodTopologySpread", lambda pod: bool(pod.spec.topology_spread_constraints)),
    ("host ports", "NodePorts", lambda pod: bool(pod_host_ports(pod))),
    ("scheduling gates", "SchedulingGates", lambda pod: bool(pod.spec.scheduling_gates)),
)


def unenforced_features(pods: list[Pod], config: SchedulerConfiguration) -> list[str]:
    """Warnings for pending pods using a feature their profile has no plugin for."""
    warnings = []
    for profile in config.profiles:
        enabled = set(profile.plugin_names())
        mine = [p for p in pods if not p.spec.node_name and p.spec.scheduler_name == profile.scheduler_name]
        for feature, plugin, uses in FEATURE_PLUGINS:
            users = [p for p in mine if uses(p)]
            if users and plugin not in enabled:
                warnings.append(f"{len(users)} pod(s) use {feature} (first: {users[0].key}) but profile "
                                f'"{profile.scheduler_name}" has no {plugin} plugin: it is not enforced')
    return warnings


class SimulationError(KubeschedError):
    """The simulation could not finish (a safety bound was hit); :attr:`result` holds where it got to."""

    result: SimulationResult | None = None


def _base_time(cluster_input: ClusterInput) -> datetime:
    """Simulated time 0: the latest timestamp in the input, of any object (so "now" is after everything it saw: a
    CronJob never fires before it was created, nor before its last run)."""
    objects = (*cluster_input.nodes, *cluster_input.pods, *cluster_input.priority_classes, *cluster_input.pdbs,
               *cluster_input.namespaces, *cluster_input.services, *cluster_input.controllers,
               *cluster_input.workloads, *cluster_input.limit_ranges, *cluster_input.resource_quotas,
               *cluster_input.runtime_classes, *cluster_input.storage)
    stamps = [o.metadata.creation_timestamp for o in objects]
    stamps += [p.status.start_time for p in cluster_input.pods]
    stamps += [w.last_schedule_time for w in cluster_input.workloads if isinstance(w, CronJob)]
    present = [s for s in stamps if s is not None]
    return max(present) if present else EPOCH


def queue_order(pods: list[Pod]) -> list[Pod]:
    """Creation order: by creationTimestamp, pods without one after, each group in input order."""
    indexed = list(enumerate(pods))
    indexed.sort(key=lambda ip: (ip[1].metadata.creation_timestamp is None,
                                 ip[1].metadata.creation_timestamp or EPOCH, ip[0]))
    return [p for _, p in indexed]


class SimulationProgress(Protocol):
    """Where a run reports how far it got (the progress bar of ``kubesched simulate`` on a terminal)."""

    def started(self, pods: int, clock: VirtualClock) -> None:
        """The run starts with ``pods`` pods to schedule; ``clock`` is its simulated time."""

    def pod_bound(self) -> None:
        """One more pod got a node."""


class _BindingCounter:
    """A cluster listener telling a :class:`SimulationProgress` of every binding."""

    def __init__(self, progress: SimulationProgress) -> None:
        self._progress = progress

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod that got a node is one more scheduled."""
        if new.spec.node_name and not old.spec.node_name:
            self._progress.pod_bound()

    def on_node_add(self, node: Node) -> None:
        """Nothing to count."""

    def on_node_update(self, node: Node) -> None:
        """Nothing to count."""

    def on_node_delete(self, name: str) -> None:
        """Nothing to count."""

    def on_pod_add(self, pod: Pod) -> None:
        """Nothing to count."""

    def on_pod_delete(self, pod: Pod) -> None:
        """Nothing to count."""


class Simulation:
    """A scheduler wired to an in-memory cluster; :meth:`run` drives it to the end."""

    def __init__(self, cluster_input: ClusterInput, config: SchedulerConfiguration, registry: PluginRegistry,
                 *, seed: int = 0, progress: SimulationProgress | None = None,
                 explainer: Explainer | None = None, controllers: ControllerSettings | None = None,
                 storage: StorageSettings | None = None, reference_pod: Mapping[str, int] | None = None,
                 record: bool = True) -> None:
        self.input = cluster_input
        self.seed = seed
        #: The workload controllers, running when the input has workloads or ``controllers`` settings are given
        #: (a scenario); they start with :meth:`start`.
        self.manager: ControllerManager | None = None
        self.disruption: DisruptionController | None = None
        self._controller_settings = controllers
        self.clock = VirtualClock(_base_time(cluster_input))
        #: Every wake-up of the run, in order: the one owner of simulated time.
        self.agenda = Agenda(self.clock)
        self.cluster = InMemoryCluster(self.clock, self.agenda)
        self.cluster.pdbs = list(cluster_input.pdbs)
        self.cluster.add_workloads(cluster_input.namespaces, cluster_input.services, cluster_input.controllers)
        #: The API server's admission of the pods the run creates; :attr:`rejected` the pods it refused (uid ->
        #: the API server's message), which end in phase Rejected.
        self.admission = ApiAdmission(self.cluster)
        self.admission.add(cluster_input.limit_ranges, cluster_input.runtime_classes, cluster_input.priority_classes,
                           cluster_input.resource_quotas)
        self.rejected: dict[str, str] = {}
        self.scheduler = Scheduler(config.profiles, registry, client=self.cluster, clock=self.clock,
                                   rng=random.Random(seed), settings=config.settings)
        self.cluster.subscribe(self.scheduler.events)
        self.scheduler.explainer = explainer
        self.policy = SettlingPolicy()
        self.cluster.subscribe(self.policy)
        self.cluster.storage.subscribe(self.policy.on_storage_change)
        #: The PV controller, provisioners and ephemeral volume controller (kubesched/sim/controllers/storage.py).
        self.storage = StorageController(self.cluster, seed=seed, settings=storage)
        self.scheduler.attempt_observer = self.policy
        #: The run's log for its metrics (kubesched.analysis); ``reference_pod`` is their fragmentation's pod.
        #: Without ``record`` (``kubesched bench``, which measures scheduling alone) there is no log and no metrics.
        self.recorder = RunRecorder(self.clock) if record else None
        if self.recorder is not None:
            self.cluster.subscribe(self.recorder)
        self.reference_pod = reference_pod
        self.pods = [p for p in cluster_input.pods if p.status.phase not in TERMINATED_PHASES]
        self.progress = progress
        if progress is not None:
            self.cluster.subscribe(_BindingCounter(progress))
        self.warnings = list(cluster_input.warnings)
        self.warnings.extend(unenforced_features(self.pods, config))
        # The scheduler's wake-up on the agenda, the entry that ends the settle under way, and the attempt bound.
        self._wake = self.agenda.alarm()
        self._stop: Entry | None = None
        self._stopped = False
        self._max_attempts: int | None = None
        self._limit = 0
        self._attempts = 0
        self._bound_since = 0.0
        skipped = len(cluster_input.pods) - len(self.pods)
        if skipped:
            self.warnings.append(f"skipped {skipped} terminated pod(s) (phase Succeeded or Failed): "
                                 "they hold no resources and are not scheduled")

    def _next_retry(self) -> float | None:
        queue = self.scheduler.queue
        worth_retrying = self.policy.worth_retrying
        backoff, unschedulable = queue.waiting_views()
        times = [queue.backoff_expiry(info) for info in backoff if worth_retrying(info)]
        for info in unschedulable:
            if not info.gating_plugin and worth_retrying(info):
                due = info.timestamp + LEFTOVER_AGE
                times.append((math.floor(due / LEFTOVER_PERIOD) + 1) * LEFTOVER_PERIOD)
        return min(times, default=None)

    def _next_wakeup(self) -> float | None:
        """When the scheduler next needs the clock: its earliest Permit deadline, or the first retry (a backoff
        ending, the flush of unschedulable pods) of a pod worth retrying."""
        times = [t for t in (self.scheduler.next_wakeup(), self._next_retry()) if t is not None]
        return min(times, default=None)

    def run(self, max_attempts: int | None = None) -> SimulationResult:
        """Start the cluster, schedule until nothing more can happen, then report. If the run cannot settle, the
        :class:`SimulationError` carries the result so far."""
        self.start()
        try:
            self.settle(max_attempts)
        except SimulationError as error:
            error.result = self.result()
            raise
        return self.result()

    def start(self) -> None:
        """Create the input's objects at time 0: nodes, running pods, then queued pods in creation order."""
        if self.progress is not None:
            self.progress.started(sum(1 for p in self.pods if not p.spec.node_name), self.clock)
        for obj in self.input.storage:
            self.cluster.storage.put(obj)
        self.storage.resync()
        for node in self.input.nodes:
            self.cluster.add_node(node)
        created = self.input.created
        for pod in self.pods:
            if pod.spec.node_name:
                self.create_pod(pod, admitted_at_load=pod.uid in created)
        for pod in queue_order([p for p in self.pods if not p.spec.node_name]):
            self.create_pod(pod, admitted_at_load=pod.uid in created)
        if self.input.workloads or self._controller_settings is not None:
            self.start_controllers()

    def start_controllers(self) -> ControllerManager:
        """Run the workload controllers (and the disruption controller) from now on, starting with the input's
        workloads; the pods they create join the result."""
        if self.manager is None:
            self.manager = ControllerManager(self.cluster, self.clock, seed=self.seed, admission=self.admission,
                                             settings=self._controller_settings, on_created=self.pods.append)
            self.disruption = DisruptionController(self.manager)
            for workload in self.input.workloads:
                self.manager.add(workload)
        return self.manager

    def create_pod(self, pod: Pod, *, admitted_at_load: bool) -> bool:
        """Create an input's (or a scenario step's) pod now, one of :attr:`pods`. A pod the loader admitted meets
        ResourceQuota, the API server's last step, first: refused, it is not created and ends Rejected."""
        if admitted_at_load:
            try:
                self.admission.quotas.admit(pod)
            except AdmissionError as error:
                self.rejected[pod.uid] = error.api_message()
                if self.recorder is not None:
                    self.recorder.rejected(pod)
                return False
        self.cluster.add_pod(pod)
        return True

    def add_pods(self, pods: Iterable[Pod]) -> None:
        """Create more pods now, queued in the order given, after :meth:`start` (and perhaps :meth:`settle`): a
        driver feeding the cluster in phases (``kubesched bench``) calls :meth:`settle` again afterwards."""
        for pod in pods:
            self.pods.append(pod)
            self.cluster.add_pod(pod)

    def settle(self, max_attempts: int | None = None, *, until: float | None = None) -> None:
        """Schedule, dispatching the agenda, until nothing more can happen; with ``until``, until the clock
        reaches that time (background entries, such as CronJob schedules, then count too), and stop there.

        At each time the scheduler first tries every pod it can (what a request finished, such as a pod deleted
        with grace period 0, lands before each attempt); then the agenda moves the clock to its next entry and
        dispatches everything due then, and the scheduler's housekeeping runs (Permit timeouts, backoffQ and the
        unschedulable pods flushed), as kube-scheduler's periodic loops would have by then."""
        agenda = self.agenda
        if until is not None:
            self.stop_at(until)
        self.restart_attempt_bound(max_attempts)
        guard = InstantGuard()
        try:
            while not self._stopped:
                self._schedule_all()
                if guard.over(self.clock.now(), self.cluster.pods):
                    raise SimulationError(guard.message(self.cluster.events))
                self._wake.set(self._next_wakeup())
                if agenda.next_time(background=False) is None:
                    if agenda.quiescence_reached():
                        continue
                    break
                if agenda.step():
                    self._housekeeping()
        finally:
            self._wake.set(None)
            if self._stop is not None:
                agenda.cancel(self._stop)
                self._stop = None
            self._stopped = False

    def stop_at(self, when: float) -> None:
        """End the settle under way (or the next one) when the clock reaches ``when``, once everything due by then
        has happened; the clock is then at ``when`` (or where it was, if later)."""
        if self._stop is not None:
            self.agenda.cancel(self._stop)
        self._stop = self.agenda.at(when, self._halt, phase=Phase.STEP)

    def _halt(self) -> None:
        self._stop = None
        self._stopped = True

    def restart_attempt_bound(self, max_attempts: int | None = None) -> None:
        """Count the attempts afresh against ``max_attempts`` (by default 200 per pod, plus 2000, as the pods are
        now): each settle does, and each scenario step (a run in stages)."""
        self._max_attempts = max_attempts
        self._bound_since = self.clock.now()
        self._limit = max_attempts if max_attempts is not None else self._allowance()
        self._attempts = 0

    def _allowance(self) -> int:
        """The default attempt bound: 200 per pod plus 2000, and two more per pod for every five minutes of
        virtual time since the count began, since kube-scheduler retries each unschedulable pod that often (a
        pod pending for days is retried, not stuck)."""
        periods = int((self.clock.now() - self._bound_since) // POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION)
        return 200 * (len(self.pods) + 10) + 2 * len(self.pods) * periods

    def _schedule_all(self) -> None:
        """Attempt pods until the active queue is empty, dispatching before each attempt what requests finished."""
        scheduler, dispatch_requests = self.scheduler, self.agenda.dispatch_requests
        dispatch_requests()
        while scheduler.schedule_one():
            dispatch_requests()
            if scheduler.process_waiting_pods():  # only then can a request be due again before the next attempt
                dispatch_requests()
            self._attempts += 1
            if self._attempts > self._limit:
                if self._max_attempts is None and self._limit < (allowance := self._allowance()):
                    self._limit = allowance  # controllers created pods, or time went on, meanwhile
                    continue
                raise SimulationError(f"the simulation did not settle after {self._limit} scheduling attempts; "
                                      f"pods still being retried: {self._cycling()}")

    def _housekeeping(self) -> None:
        """What kube-scheduler does periodically, done each time the clock moves: Permit timeouts and decisions,
        backoffQ's expired pods, and unschedulable pods waiting five minutes, but not a pod the settling policy gave
        up on (its errors repeat while nothing changes: the clock moving for another pod, or for its own PreBind
        wait, must not keep retrying it)."""
        scheduler, worth = self.scheduler, self.policy.still_trying
        scheduler.process_waiting_pods()
        scheduler.queue.flush_backoff_completed(worth)
        scheduler.queue.flush_unschedulable_leftover(worth)

    def _cycling(self, shown: int = 5) -> str:
        """The pods the latest attempts kept retrying (still unbound), with their attempts and last messages."""
        parts = []
        for uid in self.policy.recently_attempted():
            pod = self.cluster.pods.get(uid)
            if pod is None or pod.spec.node_name:
                continue
            last = next((c.message for c in pod.status.conditions if c.type == "PodScheduled"), "")
            parts.append(f"{pod.key} ({self.policy.attempts[uid]} attempts, last: "
                         f"{json.dumps(last, ensure_ascii=False)})")
        more = f", and {len(parts) - shown} more" if len(parts) > shown else ""
        return ", ".join(parts[:shown]) + more

    def pending_message(self, pod: Pod) -> str:
        """What the result would say of ``pod``, pending now: its FitError, gate, Permit or PreBind wait."""
        return pending_message(self.scheduler, pod, gated_messages(self.scheduler, pod.uid))

    def result(self) -> SimulationResult:
        """Where every input pod ended up, with the events so far."""
        results = pod_results(self.pods, self.cluster, self.scheduler, self.rejected)
        preemptions = tuple(Preemption(p.preemptor, p.node, p.victims, p.already_terminating, p.preemptor_uid,
                                       p.victim_uids, p.time) for p in self.cluster.preemptions)
        explainer = self.scheduler.explainer
        explain = None if explainer is None else {key: tuple(a) for key, a in explainer.attempts.items()}
        return SimulationResult(self.seed, tuple(results), preemptions, tuple(self.cluster.events),
                                node_usages(self.cluster, self.scheduler),
                                tuple(self.warnings + plugin_warnings(self.scheduler)),
                                tuple(self.scheduler.plugin_failures()), self.scheduler.metrics, explain,
                                analysis=self.analysis(results, preemptions))

    def analysis(self, pods: Sequence[PodResult], preemptions: Sequence[Preemption]) -> RunAnalysis | None:
        """The run metrics so far (docs/analysis.md), from the run's log and its pods' outcomes (None unrecorded)."""
        if self.recorder is None:
            return None
        attempts = self.scheduler.metrics.total("scheduler_schedule_attempts_total")
        return analyse(self.recorder.log, end_time=self.clock.now(), phases=[(p.uid, p.phase) for p in pods],
                       preemptions=[(p.time, p.victim_uids) for p in preemptions], attempts=int(attempts),
                       reference=self.reference_pod)


def simulate(cluster_input: ClusterInput, config: SchedulerConfiguration, registry: PluginRegistry, *,
             seed: int = 0, progress: SimulationProgress | None = None,
             explainer: Explainer | None = None, storage: StorageSettings | None = None,
             reference_pod: Mapping[str, int] | None = None) -> SimulationResult:
    """Simulate scheduling ``cluster_input`` with ``config``; the same input and seed give the same result.
    ``progress`` is told how far the run got and ``explainer`` records the attempts of the pods it names; neither
    changes a placement. ``storage`` sets the provisioning delay and which provisioners run; ``reference_pod``
    the requests of the fragmentation metrics' reference pod."""
    return Simulation(cluster_input, config, registry, seed=seed, progress=progress, explainer=explainer,
                      storage=storage, reference_pod=reference_pod).run()

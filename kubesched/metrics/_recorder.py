"""SchedulerMetrics: the registry the scheduler runtime writes to, named and bucketed as kube-scheduler v1.32's
(pkg/scheduler/metrics/metrics.go), independent of the backend (simulator or API server)."""

from __future__ import annotations

from collections.abc import Iterator

from kubesched.metrics._store import Family, GaugeSource, LabelValues, MetricSpec, exponential_buckets

SCHEDULE_ATTEMPTS = MetricSpec(
    "scheduler_schedule_attempts_total", "counter",
    "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while "
    "'error' means an internal scheduler problem.", ("result", "profile"))
ATTEMPT_DURATION = MetricSpec(
    "scheduler_scheduling_attempt_duration_seconds", "histogram",
    "Scheduling attempt latency in seconds (scheduling algorithm + binding); wall-clock time.",
    ("result", "profile"), exponential_buckets(0.001, 2, 15), real_time=True)
PREEMPTION_ATTEMPTS = MetricSpec(
    "scheduler_preemption_attempts_total", "counter", "Total preemption attempts in the cluster till now")
PREEMPTION_VICTIMS = MetricSpec(
    "scheduler_preemption_victims", "histogram", "Number of selected preemption victims", (),
    exponential_buckets(1, 2, 7))
PENDING_PODS = MetricSpec(
    "scheduler_pending_pods", "gauge",
    "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of "
    "pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to "
    "schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to "
    "schedule because they are gated.", ("queue",))
SLI_DURATION = MetricSpec(
    "scheduler_pod_scheduling_sli_duration_seconds", "histogram",
    "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve "
    "multiple scheduling attempts; simulated time in the simulator.", ("attempts",),
    exponential_buckets(0.01, 2, 20))
PLUGIN_DURATION = MetricSpec(
    "scheduler_plugin_execution_duration_seconds", "histogram",
    "Duration for running a plugin at a specific extension point; wall-clock time, sampled in 10% of cycles.",
    ("plugin", "extension_point", "status"), exponential_buckets(0.00001, 1.5, 20), real_time=True)
INCOMING_PODS = MetricSpec(
    "scheduler_queue_incoming_pods_total", "counter",
    "Number of pods added to scheduling queues by event and queue type.", ("queue", "event"))

#: Every metric, in the order they are exported.
SPECS: tuple[MetricSpec, ...] = (SCHEDULE_ATTEMPTS, ATTEMPT_DURATION, PREEMPTION_ATTEMPTS, PREEMPTION_VICTIMS,
                                 PENDING_PODS, SLI_DURATION, PLUGIN_DURATION, INCOMING_PODS)

#: The queues of scheduler_pending_pods, always exported (0 when empty) as kube-scheduler does.
PENDING_QUEUES = ("active", "backoff", "unschedulable", "gated")
#: The share of scheduling cycles whose plugin calls are timed: every PLUGIN_SAMPLE_PERIOD-th (kube-scheduler
#: samples 10% at random; a fixed period keeps runs reproducible and uses no random numbers).
PLUGIN_SAMPLE_PERIOD = 10
#: Attempts at or over this are labelled "15+", as kube-scheduler's getAttemptsLabel.
ATTEMPTS_CAP = 15

RESULT_SCHEDULED = "scheduled"
RESULT_UNSCHEDULABLE = "unschedulable"
RESULT_ERROR = "error"


def attempts_label(attempts: int) -> str:
    """The ``attempts`` label of the SLI histogram: the count, or "15+" from 15 on."""
    return f"{ATTEMPTS_CAP}+" if attempts >= ATTEMPTS_CAP else str(attempts)


class SchedulerMetrics:
    """The metrics of one scheduler run. The runtime calls the recording methods; exporters read :meth:`families`.

    A new instance per run (never a process-wide one), so runs and tests never see each other's values.
    """

    def __init__(self) -> None:
        self._families = {spec.name: Family(spec) for spec in SPECS}
        f = self._families
        self._attempts = f[SCHEDULE_ATTEMPTS.name]
        self._attempt_duration = f[ATTEMPT_DURATION.name]
        self._preemption_attempts = f[PREEMPTION_ATTEMPTS.name]
        self._victims = f[PREEMPTION_VICTIMS.name]
        self._sli = f[SLI_DURATION.name]
        self._plugin_duration = f[PLUGIN_DURATION.name]
        self._incoming = f[INCOMING_PODS.name]
        self._pending_source: GaugeSource | None = None

    # -- recording (called by the scheduler runtime) ---------------------------------------------------------
    def schedule_attempt(self, result: str, profile: str, seconds: float) -> None:
        """One scheduling attempt ended with ``result`` (scheduled, unschedulable, error) after ``seconds``."""
        labels = (result, profile)
        self._attempts.inc(labels)
        self._attempt_duration.observe(seconds, labels)

    def pod_scheduled_sli(self, attempts: int, seconds: float) -> None:
        """A pod was bound after ``attempts`` attempts, ``seconds`` after its first attempt started."""
        self._sli.observe(seconds, (attempts_label(attempts),))

    def preemption_attempt(self) -> None:
        """PostFilter (preemption) ran for a pod that fit no node."""
        self._preemption_attempts.inc()

    def preemption_victims(self, count: int) -> None:
        """A preemption deleted (or rejected) ``count`` victims."""
        self._victims.observe(count)

    def plugin_execution(self, plugin: str, extension_point: str, status: str, seconds: float) -> None:
        """One timed call of ``plugin`` at ``extension_point`` returned ``status`` after ``seconds``."""
        self._plugin_duration.observe(seconds, (plugin, extension_point, status))

    def incoming_pod(self, queue: str, event: str) -> None:
        """A pod entered ``queue`` (active, backoff, unschedulable) because of ``event``."""
        self._incoming.inc((queue, event))

    def watch_pending_pods(self, source: GaugeSource) -> None:
        """Read scheduler_pending_pods from ``source`` (queue -> count) whenever metrics are exported."""
        self._pending_source = source

    # -- reading (the exporters) ------------------------------------------------------------------------------
    def families(self) -> Iterator[Family]:
        """Every metric with its current values, in :data:`SPECS` order."""
        for spec in SPECS:
            family = self._families[spec.name]
            if spec is PENDING_PODS:
                family.values = {(queue,): 0 for queue in PENDING_QUEUES}
                if self._pending_source is not None:
                    family.values.update(self._pending_source())
            yield family

    def total(self, name: str) -> float:
        """A counter's or gauge's sum over every label set (0 when never set)."""
        family = next(f for f in self.families() if f.spec.name == name)
        return sum(v for v in family.values.values() if isinstance(v, int | float))

    def value(self, name: str, **labels: str) -> float:
        """A counter's or gauge's current value for ``labels`` (0 when never set); for tests and tools."""
        family = next(f for f in self.families() if f.spec.name == name)
        key: LabelValues = tuple(labels[label] for label in family.spec.labels)
        found = family.values.get(key, 0)
        if not isinstance(found, int | float):
            raise TypeError(f"{name} is a histogram")
        return found


__all__ = ["PLUGIN_SAMPLE_PERIOD", "SPECS", "SchedulerMetrics", "attempts_label"]

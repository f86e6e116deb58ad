"""The ``/metrics`` registry of ``kubesched run``, with kube-scheduler's metric names and labels.

Kept to what the loop measures today (attempts and their duration, pending pods per queue, preemptions); a
registry shared with ``simulate`` can replace it, since only :class:`SchedulerMetrics`' methods are called.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from kubesched.runtime import CycleRecord, Scheduler

#: kube-scheduler's buckets for scheduling_attempt_duration_seconds (exponential from 1 ms, factor 2, 15).
ATTEMPT_BUCKETS = tuple(0.001 * 2**i for i in range(15))


class SchedulerMetrics:
    """The metrics one scheduler process exposes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.attempts = Counter("scheduler_schedule_attempts", "Number of attempts to schedule pods, by the result.",
                                ["result", "profile"], registry=self.registry)
        self.duration = Histogram("scheduler_scheduling_attempt_duration_seconds",
                                  "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
                                  ["result", "profile"], buckets=ATTEMPT_BUCKETS, registry=self.registry)
        self.pending = Gauge("scheduler_pending_pods", "Number of pending pods, by the queue type.", ["queue"],
                             registry=self.registry)
        self.preemption_attempts = Counter("scheduler_preemption_attempts", "Total preemption attempts in the "
                                           "cluster till now", registry=self.registry)
        self.preemption_victims = Histogram("scheduler_preemption_victims", "Number of selected preemption victims",
                                            buckets=(1, 2, 4, 8, 16, 32, 64), registry=self.registry)

    def attempt(self, record: CycleRecord, seconds: float) -> None:
        """Count one scheduling attempt from its record."""
        status = record.status
        result = "scheduled" if status is None else "unschedulable" if status.is_rejected() else "error"
        self.attempts.labels(result, record.profile).inc()
        self.duration.labels(result, record.profile).observe(seconds)

    def preemption(self, victims: int) -> None:
        """Count a preemption that chose ``victims`` pods."""
        self.preemption_attempts.inc()
        self.preemption_victims.observe(victims)

    def queues(self, scheduler: Scheduler) -> None:
        """Refresh the pending-pods gauges from the scheduling queue."""
        queue = scheduler.queue
        unschedulable = queue.unschedulable_pods()
        gated = sum(1 for info in unschedulable if info.gating_plugin)
        self.pending.labels("active").set(queue.active_count())
        self.pending.labels("backoff").set(len(queue.backoff_pods()))
        self.pending.labels("unschedulable").set(len(unschedulable) - gated)
        self.pending.labels("gated").set(gated)

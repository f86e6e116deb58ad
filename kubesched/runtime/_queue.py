"""The scheduling queue: activeQ ordered by the QueueSort plugin, backoffQ by expiry, unschedulable pods.

This follows kube-scheduler v1.32's PriorityQueue with queueing hints on: a cluster event moves an unschedulable pod
only when a plugin that rejected it registered the event and its hint says Queue (to backoffQ while the pod is still
backing off, else activeQ; straight to activeQ when the plugin had said Pending); a pod that failed is requeued by
replaying, through the same hints, the events that arrived while it was being scheduled; a pod rejected by no
plugin (an Error) goes to backoffQ; pods unschedulable for 5 minutes are retried whatever happened.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kubesched.api.pod import Pod
from kubesched.backend import Clock
from kubesched.framework._events import (
    FORCE_ACTIVATE,
    UNSCHEDULABLE_TIMEOUT,
    ClusterEvent,
    pod_events,
)
from kubesched.framework._node_info import PodInfo
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._active import ActiveQueue, InFlight
from kubesched.runtime._backoff import BackoffQueue
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._unschedulable import UnschedulablePods

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
# podMaxInUnschedulablePodsDuration: unschedulable pods are retried at least this often.
POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
# The event labels of scheduler_queue_incoming_pods_total for the queue's own moves, as kube-scheduler's.
EVENT_POD_ADD = "UnschedulablePodAdd"
EVENT_POD_UPDATE = "UnschedulablePodUpdate"
EVENT_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
EVENT_BACKOFF_COMPLETE = "BackoffComplete"


def _not_counted(queue: str, event: str) -> None:
    """Where incoming pods go when the queue has no metrics."""


class Strategy(enum.IntEnum):
    """Where an event sends a rejected pod (kube-scheduler's queueingStrategy), weakest first."""

    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


#: ``strategy(info, event, old_obj, new_obj)``: what the rejecting plugins' hints make of one event for one pod.
HintRunner = Callable[[QueuedPodInfo, ClusterEvent, Any, Any], Strategy]
#: ``interested(event)``: the plugins that registered ``event`` (in any profile); a pod none of them rejected
#: stays, without asking its hints.
InterestedPlugins = Callable[[ClusterEvent], frozenset[str]]


def requeue_strategy(info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any,
                     hints: HintRunner | None) -> Strategy:
    """What ``event`` means for ``info``'s rejected pod (kube-scheduler's isPodWorthRequeuing): after backoff for a
    pod no plugin rejected and for the wildcard events (but Skip for a forced activation of another pod), else
    what ``hints`` make of the rejecting plugins' registrations (every event counts without hints)."""
    if not info.unschedulable_plugins and not info.pending_plugins:
        return Strategy.AFTER_BACKOFF  # failed with an error: retried after its backoff
    if event.is_wildcard():
        if isinstance(new, Pod) and new.uid != info.pod.uid:
            return Strategy.SKIP  # a forced activation of another pod
        return Strategy.AFTER_BACKOFF
    if hints is None:
        return Strategy.AFTER_BACKOFF
    return hints(info, event, old, new)


def backoff_duration(attempts: int, initial: float, maximum: float) -> float:
    """kube-scheduler's backoff: 0 before any attempt, then initial * 2^(attempts-1), capped at max."""
    if attempts == 0:
        return 0.0
    duration = initial
    for _ in range(1, attempts):
        if duration > maximum - duration:
            return maximum
        duration *= 2
    return min(duration, maximum)


class SchedulingQueue:
    """activeQ, backoffQ and unschedulable pods, plus the pods in flight and the events they have not seen yet."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], *, clock: Clock,
                 nominator: Nominator | None = None,
                 pre_enqueue: Callable[[Pod], Status | None] | None = None,
                 hints: HintRunner | None = None, interested: InterestedPlugins | None = None,
                 initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
                 max_backoff: float = DEFAULT_POD_MAX_BACKOFF, metrics: SchedulerMetrics | None = None) -> None:
        #: scheduler_queue_incoming_pods_total: called with (queue, event) for every pod entering a queue.
        self._incoming = metrics.incoming_pod if metrics is not None else _not_counted
        self._clock = clock
        self.nominator = nominator if nominator is not None else Nominator()
        self._pre_enqueue = pre_enqueue
        # Without hints (a bare queue) every event counts for every pod.
        self._hints = hints
        self._interested = interested if hints is not None else None
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._active = ActiveQueue(less)
        self._backoff = BackoffQueue()
        self._unschedulable = UnschedulablePods()
        self._in_flight = InFlight()
        self.scheduling_cycle = 0
        self.move_request_cycle = -1
        #: The PodInfo derived last: consecutive pods of one template share its containers, so their requests and
        #: host ports are taken from it instead of derived again (PodInfo.for_pod checks the sharing).
        self._last_derived: PodInfo | None = None

    # -- adding ------------------------------------------------------------------------------------
    def add(self, pod: Pod) -> QueuedPodInfo:
        """A new unscheduled pod (kube-scheduler's Add): into activeQ, out of any other queue, and nominated as its
        status says; a pod PreEnqueue gates goes to the unschedulable pods instead (or stays in activeQ or backoffQ
        if it is already there)."""
        info = QueuedPodInfo(self._derive(pod), self._clock.now())
        if self._move_to_active(info, EVENT_POD_ADD):
            self.nominator.add_nominated_pod(info.pod_info)
        return info

    def _derive(self, pod: Pod) -> PodInfo:
        """The PodInfo of a pod entering the queue, reusing the last one's derived amounts when they share them."""
        last = self._last_derived
        info = last.for_pod(pod) if last is not None else PodInfo.of(pod)
        self._last_derived = info
        return info

    def _run_pre_enqueue(self, info: QueuedPodInfo) -> bool:
        status = self._pre_enqueue(info.pod) if self._pre_enqueue else None
        if status is None or status.is_success():
            info.gating_plugin = ""
            info.gating_status = None
            return True
        info.gating_plugin = status.plugin
        info.gating_status = status
        if status.plugin:  # as kube-scheduler, the gating plugin is a rejector: its events re-run PreEnqueue
            info.unschedulable_plugins.add(status.plugin)
        return False

    def _move_to_active(self, info: QueuedPodInfo, event: str) -> bool:
        """Run PreEnqueue, then activeQ, leaving the other queues; a gated pod goes to (or stays in) the
        unschedulable pods uncounted, or stays in activeQ or backoffQ if it is there, as kube-scheduler v1.32's
        moveToActiveQ (a new gated pod leaves scheduler_queue_incoming_pods_total unchanged, checked against the
        real binary; so does one an event or the flush sent on and PreEnqueue gated again)."""
        uid = info.pod.uid
        if self._run_pre_enqueue(info):
            self._unschedulable.pop(uid)
            self._backoff.pop(uid)
            self._push_active(info, event)
            return True
        if uid not in self._active and uid not in self._backoff:
            self._unschedulable.put(info)
        return False

    def _push_unschedulable(self, info: QueuedPodInfo, event: str) -> None:
        if info.pod.uid not in self._unschedulable:
            self._incoming("unschedulable", event)
        self._unschedulable.put(info)

    def _push_active(self, info: QueuedPodInfo, event: str) -> None:
        self._incoming("active", event)
        self._active.push(info)

    def _push_backoff(self, info: QueuedPodInfo, event: str) -> None:
        self._incoming("backoff", event)
        self._backoff.push(info, self.backoff_expiry(info))

    def backoff_expiry(self, info: QueuedPodInfo) -> float:
        """When the pod's backoff ends."""
        return info.timestamp + backoff_duration(info.attempts, self.initial_backoff, self.max_backoff)

    # -- popping -----------------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None when activeQ is empty. Counts an attempt; the pod is in flight (it
        collects the events that arrive) until :meth:`done`."""
        info = self._active.pop_first()
        if info is None:
            return None
        self.scheduling_cycle += 1
        info.attempts += 1
        if info.initial_attempt_timestamp is None:
            info.initial_attempt_timestamp = self._clock.now()
        info.unschedulable_plugins = set()
        info.pending_plugins = set()
        self._in_flight.start(info)
        return info

    def done(self, uid: str) -> None:
        """The pod's scheduling attempt is over (bound, requeued or dropped): forget the events no pod needs."""
        self._in_flight.done(uid)

    # -- hints -------------------------------------------------------------------------------------
    def _in_flight_strategy(self, info: QueuedPodInfo) -> Strategy:
        """Replay the events the pod missed while in flight (kube-scheduler's determineSchedulingHintForInFlightPod)."""
        if not info.unschedulable_plugins and not info.pending_plugins:
            return Strategy.AFTER_BACKOFF
        missed = self._in_flight.missed(info.pod.uid)
        if missed is None:
            return Strategy.AFTER_BACKOFF
        strategy = Strategy.SKIP
        for event, old, new in missed:
            found = requeue_strategy(info, event, old, new, self._hints)
            if found is Strategy.IMMEDIATELY:
                return found
            if found is Strategy.AFTER_BACKOFF:
                strategy = found
                if not info.pending_plugins:
                    return strategy
        return strategy

    def _requeue(self, info: QueuedPodInfo, strategy: Strategy, event: str) -> None:
        """Put a pod that is in no queue where ``strategy`` says (kube-scheduler's requeuePodViaQueueingHint),
        counted as an incoming pod under ``event``."""
        if strategy is Strategy.SKIP:
            self._push_unschedulable(info, event)
        elif strategy is Strategy.AFTER_BACKOFF and self._is_backing_off(info):
            self._push_backoff(info, event)
        else:
            self._move_to_active(info, event)

    # -- failures ----------------------------------------------------------------------------------
    def add_unschedulable_if_not_present(self, info: QueuedPodInfo, pod_scheduling_cycle: int) -> None:
        """Requeue a pod whose attempt failed: the events it missed while in flight decide, through the hints of
        the plugins that rejected it, between the unschedulable pods, backoffQ and activeQ; a pod that failed
        with an error (no rejecting plugin) goes to backoffQ."""
        uid = info.pod.uid
        if uid in self:
            self.done(uid)
            return
        info.timestamp = self._clock.now()
        strategy = self._in_flight_strategy(info)
        self.done(uid)
        self._requeue(info, strategy, EVENT_ATTEMPT_FAILURE)

    # -- moving ------------------------------------------------------------------------------------
    def _is_backing_off(self, info: QueuedPodInfo) -> bool:
        """Whether the pod's backoff is still running (kube-scheduler v1.32's isPodBackingoff). A gated pod is no
        exception: a pod gated by SchedulingGates has never been attempted, so has no backoff, while one a custom
        PreEnqueue plugin gated after failed attempts serves its backoff (checked in the v1.32 binary)."""
        return self.backoff_expiry(info) > self._clock.now()

    def move_all_to_active_or_backoff(self, event: ClusterEvent, old: Any = None, new: Any = None,
                                      pre_check: Callable[[QueuedPodInfo], bool] | None = None) -> int:
        """A cluster event: move each unschedulable pod (passing ``pre_check``) whose rejecting plugins' hints say
        Queue. Returns how many pods moved. The event is kept for the pods in flight."""
        if not self._unschedulable or (self._interested is not None and not event.is_wildcard()
                                       and self._unschedulable.none_rejected_by(self._interested(event))):
            # No pod waits, or none was rejected by a plugin that registered the event: none can move.
            self.move_request_cycle = self.scheduling_cycle
            self._in_flight.record(event, old, new)
            return 0
        infos = [info for info in self._unschedulable if pre_check is None or pre_check(info)]
        return self._move_pods(infos, event, old, new)

    def _move_pods(self, infos: Iterable[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any) -> int:
        moved = 0
        hints = self._hints
        names = self._interested(event) if self._interested is not None and not event.is_wildcard() else None
        for info in infos:
            if names is not None and (info.unschedulable_plugins or info.pending_plugins) and \
                    names.isdisjoint(info.unschedulable_plugins) and names.isdisjoint(info.pending_plugins):
                continue  # no plugin that rejected the pod registered the event
            strategy = requeue_strategy(info, event, old, new, hints)
            if strategy is Strategy.SKIP:
                continue
            uid = info.pod.uid
            self._unschedulable.pop(uid)
            self._requeue(info, strategy, event.label)
            moved += uid not in self._unschedulable  # a pod PreEnqueue still gates stays
        self.move_request_cycle = self.scheduling_cycle
        self._in_flight.record(event, old, new)
        return moved

    def flush_backoff_completed(self, worth: Callable[[QueuedPodInfo], bool] | None = None) -> int:
        """Move pods whose backoff has expired into activeQ (PreEnqueue runs again); returns how many moved. Given
        ``worth``, only the pods it answers True for (a simulation leaves the others: they would fail alike)."""
        now = self._clock.now()
        moved = 0
        if worth is not None:
            for expired in self._backoff.expired(now):
                if worth(expired):
                    self._backoff.pop(expired.pod.uid)
                    self._move_to_active(expired, EVENT_BACKOFF_COMPLETE)
                    moved += 1
            return moved
        while (info := self._backoff.pop_expired(now)) is not None:
            self._move_to_active(info, EVENT_BACKOFF_COMPLETE)
            moved += 1
        return moved

    def flush_unschedulable_leftover(self, worth: Callable[[QueuedPodInfo], bool] | None = None) -> int:
        """Retry pods that sat unschedulable longer than podMaxInUnschedulablePodsDuration (the UnschedulableTimeout
        event, which every pod takes); given ``worth``, only the pods it answers True for."""
        now = self._clock.now()
        old = [info for info in self._unschedulable
               if now - info.timestamp > POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION
               and (worth is None or worth(info))]
        return self._move_pods(old, UNSCHEDULABLE_TIMEOUT, None, None) if old else 0

    def activate(self, pods: Iterable[Pod]) -> None:
        """Force pods from the unschedulable pods or backoffQ into activeQ; a pod in flight gets a ForceActivate
        event instead, which moves it when its attempt fails."""
        for pod in pods:
            uid = pod.uid
            if uid in self._in_flight:
                self._in_flight.record(FORCE_ACTIVATE, None, pod)
                continue
            info = self._unschedulable.pop(uid) or self._backoff.pop(uid)
            if info is not None:
                self._move_to_active(info, FORCE_ACTIVATE.label)

    # -- updates and deletes -----------------------------------------------------------------------
    def delete(self, pod: Pod) -> None:
        """Remove a pod from every queue and from the nominator."""
        uid = pod.uid
        self._active.remove(uid)
        self._backoff.pop(uid)
        self._unschedulable.pop(uid)
        self.nominator.delete_nominated_pod_if_exists(pod)

    def update(self, old: Pod, new: Pod) -> None:
        """A queued pod changed: refresh it in place. An unschedulable pod moves when a plugin that rejected it
        (or gates it) says the change may help; a pod in flight keeps the change as events for its requeue; a pod
        in no queue and not in flight is added, as new (PreEnqueue, then activeQ)."""
        uid = old.uid
        info = self._queued(uid)
        if info is None:  # kube-scheduler's "if pod is not in any of the queues, we put it in the active queue"
            info = QueuedPodInfo(self._derive(new), self._clock.now())
            if self._move_to_active(info, EVENT_POD_UPDATE):
                self.nominator.add_nominated_pod(info.pod_info)
            return
        pod_info = info.pod_info.for_pod(new)
        self.nominator.update_nominated_pod(old, pod_info)
        if uid in self._in_flight:
            info.pod_info = pod_info
            for event in pod_events(new, old):
                self._in_flight.record(event, old, new)
            return
        if self._active.update(uid, pod_info):
            return
        info.pod_info = pod_info
        if uid in self._backoff:
            return
        events = pod_events(new, old)
        strategies = [requeue_strategy(info, event, old, new, self._hints) for event in events]
        strategy = max(strategies, default=Strategy.SKIP)
        if strategy is Strategy.SKIP:
            # kube-scheduler v1.32 counts a pod that stays unschedulable again under each event of the update.
            for event in events:
                self._incoming("unschedulable", event.label)
            return
        deciding = strategies.index(strategy)
        for event in events[:deciding]:
            self._incoming("unschedulable", event.label)
        self._unschedulable.pop(uid)
        self._requeue(info, strategy, events[deciding].label)

    def _queued(self, uid: str) -> QueuedPodInfo | None:
        """The pod's entry in flight or in any queue, or None."""
        return (self._in_flight.get(uid) or self._unschedulable.get(uid) or self._active.get(uid)
                or self._backoff.get(uid))

    # -- inspection: read-only, every QueuedPodInfo handed out is a copy --------------------------
    def next_backoff_expiry(self) -> float | None:
        """When the earliest backoff ends, or None."""
        return self._backoff.next_expiry()

    def active_count(self) -> int:
        """Pods in activeQ."""
        return len(self._active)

    def active_pods(self) -> list[QueuedPodInfo]:
        """Pods in activeQ, in the order they pop (kube-scheduler's PodsInActiveQ)."""
        return [_copy(info) for info in self._active]

    def backoff_pods(self) -> list[QueuedPodInfo]:
        """Pods in backoffQ, earliest expiry first (kube-scheduler's PodsInBackoffQ)."""
        return [_copy(info) for info in self._backoff]

    def unschedulable_pods(self) -> list[QueuedPodInfo]:
        """Pods waiting for a cluster event, gated pods included, in the order they came (kube-scheduler's
        UnschedulablePods)."""
        return [_copy(info) for info in self._unschedulable]

    def waiting_views(self) -> tuple[Iterable[QueuedPodInfo], Iterable[QueuedPodInfo]]:
        """(backoffQ, the unschedulable pods) as the queue holds them, without a copy per pod: for a reader that only
        looks, once, right away (the simulator working out its next wake-up at every step). Never change them."""
        return iter(self._backoff), iter(self._unschedulable)

    def in_flight(self) -> list[QueuedPodInfo]:
        """The pods being scheduled (popped, not yet done), in the order they were popped."""
        return [_copy(info) for info in self._in_flight]

    def pending_pods(self) -> list[QueuedPodInfo]:
        """Every queued pod: activeQ, backoffQ, then the unschedulable pods (kube-scheduler's PendingPods)."""
        return self.active_pods() + self.backoff_pods() + self.unschedulable_pods()

    def get(self, namespace: str, name: str) -> QueuedPodInfo | None:
        """The pod ``namespace/name`` in activeQ, backoffQ or the unschedulable pods (kube-scheduler's GetPod;
        not a pod in flight), or None."""
        for info in self._queued_infos():
            pod = info.pod
            if pod.name == name and pod.namespace == namespace:
                return _copy(info)
        return None

    def location(self, uid: str) -> str | None:
        """Where the pod with this uid is: ``active``, ``backoff``, ``unschedulable`` (gated pods included) or
        ``in flight``; None when the queue does not hold it."""
        if uid in self._active:
            return "active"
        if uid in self._backoff:
            return "backoff"
        if uid in self._unschedulable:
            return "unschedulable"
        return "in flight" if uid in self._in_flight else None

    def pending_counts(self) -> dict[tuple[str, ...], int]:
        """scheduler_pending_pods by queue: active, backoff, unschedulable (attempted and failed), gated."""
        gated = sum(1 for info in self._unschedulable if info.gating_plugin)
        return {("active",): len(self._active), ("backoff",): len(self._backoff),
                ("unschedulable",): len(self._unschedulable) - gated, ("gated",): gated}

    def _queued_infos(self) -> Iterator[QueuedPodInfo]:
        yield from self._active
        yield from self._backoff
        yield from self._unschedulable

    def __contains__(self, uid: object) -> bool:
        return uid in self._active or uid in self._backoff or uid in self._unschedulable


def _copy(info: QueuedPodInfo) -> QueuedPodInfo:
    """A copy of a queued pod that shares nothing the queue could see changed (the pod itself is immutable)."""
    pod_info = info.pod_info
    return QueuedPodInfo(PodInfo(pod_info.pod, pod_info.requests.clone(), pod_info.non_zero_requests.clone(),
                                 pod_info.host_ports),
                         info.timestamp, info.attempts, info.initial_attempt_timestamp, set(info.unschedulable_plugins),
                         set(info.pending_plugins), info.gating_plugin, info.gating_status, info.seq)

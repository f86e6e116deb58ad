"""The scheduling queue: activeQ ordered by the QueueSort plugin, backoffQ by expiry, unschedulable pods.

This follows kube-scheduler v1.32's PriorityQueue with queueing hints on: a cluster event moves an unschedulable pod
only when a plugin that rejected it registered the event and its hint says Queue (to backoffQ while the pod is still
backing off, else activeQ; straight to activeQ when the plugin had said Pending); a pod that failed is requeued by
replaying, through the same hints, the events that arrived while it was being scheduled; a pod rejected by no
plugin (an Error) goes to backoffQ; pods unschedulable for 5 minutes are retried whatever happened.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any

from sortedcontainers import SortedList

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
from kubesched.runtime._nominator import Nominator

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
# podMaxInUnschedulablePodsDuration: unschedulable pods are retried at least this often.
POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
# The event labels of scheduler_queue_incoming_pods_total for the queue's own moves, as kube-scheduler's.
EVENT_POD_ADD = "UnschedulablePodAdd"
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


class _Ordered:
    """Wraps a QueuedPodInfo so SortedList orders it by the QueueSort plugin, then insertion."""

    __slots__ = ("info", "less")

    def __init__(self, info: QueuedPodInfo, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        self.info = info
        self.less = less

    def __lt__(self, other: _Ordered) -> bool:
        if self.less(self.info, other.info):
            return True
        if self.less(other.info, self.info):
            return False
        return self.info.seq < other.info.seq


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
        self._less = less
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
        self._active = SortedList()
        self._active_entries: dict[str, _Ordered] = {}
        # backoffQ: (expiry, seq) keys in a SortedList; the pods by seq, and each pod's key by uid.
        self._backoff = SortedList()
        self._backoff_by_seq: dict[int, QueuedPodInfo] = {}
        self._backoff_keys: dict[str, tuple[float, int]] = {}
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        # The plugins that rejected or gate each unschedulable pod, as indexed when it went in, and how many
        # unschedulable pods each plugin holds (pods without one: _unrejected), so an event no holder registered
        # skips the scan of every unschedulable pod.
        self._rejectors_of: dict[str, frozenset[str]] = {}
        self._rejector_counts: dict[str, int] = {}
        self._unrejected = 0
        self._in_flight: dict[str, QueuedPodInfo] = {}
        # Events received while pods were in flight: (event, old, new), numbered from _events_base; each in-flight
        # pod's number of the first event it has not seen.
        self._events: list[tuple[ClusterEvent, Any, Any]] = []
        self._events_base = 0
        self._in_flight_from: dict[str, int] = {}
        self.scheduling_cycle = 0
        self.move_request_cycle = -1

    # -- adding ------------------------------------------------------------------------------------
    def add(self, pod: Pod) -> QueuedPodInfo:
        """A new unscheduled pod: gated by PreEnqueue, or into activeQ."""
        info = QueuedPodInfo(PodInfo.of(pod), self._clock.now())
        self._move_to_active(info, EVENT_POD_ADD)
        self.nominator.add_nominated_pod(info.pod_info)
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
        """Run PreEnqueue, then activeQ; a gated pod goes to (or stays in) the unschedulable pods uncounted, as
        kube-scheduler v1.32's moveToActiveQ (a new gated pod leaves scheduler_queue_incoming_pods_total unchanged,
        checked against the real binary; so does one an event or the flush sent on and PreEnqueue gated again)."""
        if self._run_pre_enqueue(info):
            self._push_active(info, event)
            return True
        self._put_unschedulable(info)
        return False

    def _push_unschedulable(self, info: QueuedPodInfo, event: str) -> None:
        uid = info.pod.uid
        if uid not in self._unschedulable:
            self._incoming("unschedulable", event)
        self._put_unschedulable(info)

    def _put_unschedulable(self, info: QueuedPodInfo) -> None:
        """Add (or refresh) ``info`` among the unschedulable pods, indexed by the plugins that rejected or gate it."""
        uid = info.pod.uid
        self._unindex(uid)
        plugins = frozenset(info.unschedulable_plugins | info.pending_plugins)
        self._rejectors_of[uid] = plugins
        counts = self._rejector_counts
        for name in plugins:
            counts[name] = counts.get(name, 0) + 1
        self._unrejected += not plugins
        self._unschedulable[uid] = info

    def _pop_unschedulable(self, uid: str) -> QueuedPodInfo | None:
        """Take the pod out of the unschedulable pods (None when it is not there)."""
        self._unindex(uid)
        return self._unschedulable.pop(uid, None)

    def _unindex(self, uid: str) -> None:
        plugins = self._rejectors_of.pop(uid, None)
        if plugins is None:
            return
        counts = self._rejector_counts
        for name in plugins:
            left = counts[name] - 1
            if left:
                counts[name] = left
            else:
                del counts[name]
        self._unrejected -= not plugins

    def _push_active(self, info: QueuedPodInfo, event: str) -> None:
        self._incoming("active", event)
        entry = _Ordered(info, self._less)
        self._active_entries[info.pod.uid] = entry
        self._active.add(entry)

    def _push_backoff(self, info: QueuedPodInfo, event: str) -> None:
        self._incoming("backoff", event)
        key = (self.backoff_expiry(info), info.seq)
        self._backoff_keys[info.pod.uid] = key
        self._backoff_by_seq[info.seq] = info
        self._backoff.add(key)

    def _pop_backoff(self, uid: str) -> QueuedPodInfo | None:
        key = self._backoff_keys.pop(uid, None)
        if key is None:
            return None
        self._backoff.remove(key)
        info: QueuedPodInfo = self._backoff_by_seq.pop(key[1])
        return info

    def backoff_expiry(self, info: QueuedPodInfo) -> float:
        """When the pod's backoff ends."""
        return info.timestamp + backoff_duration(info.attempts, self.initial_backoff, self.max_backoff)

    # -- popping -----------------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None when activeQ is empty. Counts an attempt; the pod is in flight (it
        collects the events that arrive) until :meth:`done`."""
        if not self._active:
            return None
        entry: _Ordered = self._active.pop(0)
        info = entry.info
        uid = info.pod.uid
        del self._active_entries[uid]
        self.scheduling_cycle += 1
        info.attempts += 1
        if info.initial_attempt_timestamp is None:
            info.initial_attempt_timestamp = self._clock.now()
        info.unschedulable_plugins = set()
        info.pending_plugins = set()
        self._in_flight[uid] = info
        self._in_flight_from[uid] = self._events_base + len(self._events)
        return info

    def done(self, uid: str) -> None:
        """The pod's scheduling attempt is over (bound, requeued or dropped): forget the events no pod needs."""
        self._in_flight.pop(uid, None)
        if self._in_flight_from.pop(uid, None) is None:
            return
        if not self._in_flight_from:
            self._events_base += len(self._events)
            self._events.clear()
            return
        oldest = min(self._in_flight_from.values())
        if oldest > self._events_base:
            del self._events[: oldest - self._events_base]
            self._events_base = oldest

    def in_flight(self) -> list[QueuedPodInfo]:
        """The pods being scheduled (popped, not yet done), in the order they were popped."""
        return list(self._in_flight.values())

    def _record(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """Keep ``event`` for replay when the pods now in flight fail; with none in flight nobody needs it."""
        if self._in_flight_from:
            self._events.append((event, old, new))

    # -- hints -------------------------------------------------------------------------------------
    def _strategy(self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
        """What ``event`` means for ``info``'s pod (kube-scheduler's isPodWorthRequeuing)."""
        if not info.unschedulable_plugins and not info.pending_plugins:
            return Strategy.AFTER_BACKOFF  # failed with an error: retried after its backoff
        if event.is_wildcard():
            if isinstance(new, Pod) and new.uid != info.pod.uid:
                return Strategy.SKIP  # a forced activation of another pod
            return Strategy.AFTER_BACKOFF
        if self._hints is None:
            return Strategy.AFTER_BACKOFF
        return self._hints(info, event, old, new)

    def _in_flight_strategy(self, info: QueuedPodInfo) -> Strategy:
        """Replay the events the pod missed while in flight (kube-scheduler's determineSchedulingHintForInFlightPod)."""
        if not info.unschedulable_plugins and not info.pending_plugins:
            return Strategy.AFTER_BACKOFF
        start = self._in_flight_from.get(info.pod.uid)
        if start is None:
            return Strategy.AFTER_BACKOFF
        strategy = Strategy.SKIP
        for event, old, new in self._events[start - self._events_base:]:
            found = self._strategy(info, event, old, new)
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
        if info.gating_plugin:
            return False
        return self.backoff_expiry(info) > self._clock.now()

    def move_all_to_active_or_backoff(self, event: ClusterEvent, old: Any = None, new: Any = None,
                                      pre_check: Callable[[QueuedPodInfo], bool] | None = None) -> int:
        """A cluster event: move each unschedulable pod (passing ``pre_check``) whose rejecting plugins' hints say
        Queue. Returns how many pods moved. The event is kept for the pods in flight."""
        if not self._unschedulable or (self._interested is not None and not event.is_wildcard() and not self._unrejected
                                       and self._interested(event).isdisjoint(self._rejector_counts)):
            # No pod waits, or none was rejected by a plugin that registered the event: none can move.
            self.move_request_cycle = self.scheduling_cycle
            self._record(event, old, new)
            return 0
        infos = [info for info in self._unschedulable.values() if pre_check is None or pre_check(info)]
        return self._move_pods(infos, event, old, new)

    def _move_pods(self, infos: Iterable[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any) -> int:
        moved = 0
        names = self._interested(event) if self._interested is not None and not event.is_wildcard() else None
        for info in infos:
            if names is not None and (info.unschedulable_plugins or info.pending_plugins) and \
                    names.isdisjoint(info.unschedulable_plugins) and names.isdisjoint(info.pending_plugins):
                continue  # no plugin that rejected the pod registered the event
            strategy = self._strategy(info, event, old, new)
            if strategy is Strategy.SKIP:
                continue
            uid = info.pod.uid
            self._pop_unschedulable(uid)
            self._requeue(info, strategy, event.label)
            moved += uid not in self._unschedulable  # a pod PreEnqueue still gates stays
        self.move_request_cycle = self.scheduling_cycle
        self._record(event, old, new)
        return moved

    def flush_backoff_completed(self) -> int:
        """Move pods whose backoff has expired into activeQ (PreEnqueue runs again); returns how many moved."""
        now = self._clock.now()
        moved = 0
        while self._backoff and self._backoff[0][0] <= now:
            info = self._backoff_by_seq[self._backoff[0][1]]
            self._pop_backoff(info.pod.uid)
            self._move_to_active(info, EVENT_BACKOFF_COMPLETE)
            moved += 1
        return moved

    def flush_unschedulable_leftover(self) -> int:
        """Retry pods that sat unschedulable longer than podMaxInUnschedulablePodsDuration (the UnschedulableTimeout
        event, which every pod takes)."""
        now = self._clock.now()
        old = [info for info in self._unschedulable.values()
               if now - info.timestamp > POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION]
        return self._move_pods(old, UNSCHEDULABLE_TIMEOUT, None, None) if old else 0

    def activate(self, pods: Iterable[Pod]) -> None:
        """Force pods from the unschedulable pods or backoffQ into activeQ; a pod in flight gets a ForceActivate
        event instead, which moves it when its attempt fails."""
        for pod in pods:
            uid = pod.uid
            if uid in self._in_flight:
                self._record(FORCE_ACTIVATE, None, pod)
                continue
            info = self._pop_unschedulable(uid) or self._pop_backoff(uid)
            if info is not None:
                self._move_to_active(info, FORCE_ACTIVATE.label)

    # -- updates and deletes -----------------------------------------------------------------------
    def delete(self, pod: Pod) -> None:
        """Remove a pod from every queue and from the nominator."""
        uid = pod.uid
        entry = self._active_entries.pop(uid, None)
        if entry is not None:
            self._active.remove(entry)
        self._pop_backoff(uid)
        self._pop_unschedulable(uid)
        self.nominator.delete_nominated_pod_if_exists(pod)

    def update(self, old: Pod, new: Pod) -> None:
        """A queued pod changed: refresh it in place. An unschedulable pod moves when a plugin that rejected it
        (or gates it) says the change may help; a pod in flight keeps the change as events for its requeue."""
        uid = old.uid
        info = self._queued(uid)
        pod_info = info.pod_info.for_pod(new) if info is not None else PodInfo.of(new)
        self.nominator.update_nominated_pod(old, pod_info)
        if info is None:
            return
        if uid in self._in_flight:
            info.pod_info = pod_info
            for event in pod_events(new, old):
                self._events.append((event, old, new))
            return
        entry = self._active_entries.get(uid)
        if entry is not None:  # re-sorted: the new pod may order differently
            self._active.remove(entry)
            info.pod_info = pod_info
            self._active.add(entry)
            return
        info.pod_info = pod_info
        if uid in self._backoff_keys:
            return
        events = pod_events(new, old)
        strategies = [self._strategy(info, event, old, new) for event in events]
        strategy = max(strategies, default=Strategy.SKIP)
        if strategy is Strategy.SKIP:
            # kube-scheduler v1.32 counts a pod that stays unschedulable again under each event of the update.
            for event in events:
                self._incoming("unschedulable", event.label)
            return
        deciding = strategies.index(strategy)
        for event in events[:deciding]:
            self._incoming("unschedulable", event.label)
        self._pop_unschedulable(uid)
        self._requeue(info, strategy, events[deciding].label)

    def _queued(self, uid: str) -> QueuedPodInfo | None:
        """The pod's entry in flight or in any queue, or None."""
        info = self._in_flight.get(uid) or self._unschedulable.get(uid)
        if info is not None:
            return info
        entry = self._active_entries.get(uid)
        if entry is not None:
            return entry.info
        key = self._backoff_keys.get(uid)
        return self._backoff_by_seq[key[1]] if key is not None else None

    # -- inspection --------------------------------------------------------------------------------
    def next_backoff_expiry(self) -> float | None:
        """When the earliest backoff ends, or None."""
        return self._backoff[0][0] if self._backoff else None

    def active_count(self) -> int:
        """Pods in activeQ."""
        return len(self._active)

    def backoff_pods(self) -> list[QueuedPodInfo]:
        """Pods in backoffQ, earliest expiry first."""
        return [self._backoff_by_seq[seq] for _expiry, seq in self._backoff]

    def unschedulable_pods(self) -> list[QueuedPodInfo]:
        """Pods waiting for a cluster event (gated pods included)."""
        return list(self._unschedulable.values())

    def pending_counts(self) -> dict[tuple[str, ...], int]:
        """scheduler_pending_pods by queue: active, backoff, unschedulable (attempted and failed), gated."""
        gated = sum(1 for info in self._unschedulable.values() if info.gating_plugin)
        return {("active",): len(self._active), ("backoff",): len(self._backoff),
                ("unschedulable",): len(self._unschedulable) - gated, ("gated",): gated}

    def pending_pods(self) -> list[QueuedPodInfo]:
        """Every queued pod: active, backoff, unschedulable."""
        return [e.info for e in self._active] + self.backoff_pods() + self.unschedulable_pods()

    def __contains__(self, uid: object) -> bool:
        return uid in self._active_entries or uid in self._backoff_keys or uid in self._unschedulable

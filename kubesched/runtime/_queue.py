"""The scheduling queue: activeQ ordered by the QueueSort plugin, backoffQ by expiry, unschedulable pods.

This follows kube-scheduler's PriorityQueue with queueing hints off (the legacy mode): a pod that failed
goes to the unschedulable pods unless a cluster event arrived while it was being scheduled, and cluster
events move unschedulable pods to backoffQ (still backing off) or activeQ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sortedcontainers import SortedList

from kubesched.api.pod import Pod
from kubesched.backend import Clock
from kubesched.framework.node_info import PodInfo
from kubesched.framework.status import Status
from kubesched.framework.types import QueuedPodInfo
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._cluster_events import unscheduled_pod_update_events
from kubesched.runtime._nominator import Nominator

DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
# podMaxInUnschedulablePodsDuration: unschedulable pods are retried at least this often.
POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
# The event labels of scheduler_queue_incoming_pods_total for the queue's own moves, as kube-scheduler's.
EVENT_POD_ADD = "UnschedulablePodAdd"
EVENT_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
EVENT_BACKOFF_COMPLETE = "BackoffComplete"
EVENT_UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"
EVENT_FORCE_ACTIVATE = "ForceActivate"


def _not_counted(queue: str, event: str) -> None:
    """Where incoming pods go when the queue has no metrics."""

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
    """activeQ, backoffQ and unschedulable pods, plus the in-flight set."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], *, clock: Clock,
                 nominator: Nominator | None = None,
                 pre_enqueue: Callable[[Pod], Status | None] | None = None,
                 initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF,
                 max_backoff: float = DEFAULT_POD_MAX_BACKOFF, metrics: SchedulerMetrics | None = None) -> None:
        self._less = less
        #: scheduler_queue_incoming_pods_total: called with (queue, event) for every pod entering a queue.
        self._incoming = metrics.incoming_pod if metrics is not None else _not_counted
        self._clock = clock
        self.nominator = nominator if nominator is not None else Nominator()
        self._pre_enqueue = pre_enqueue
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._active = SortedList()
        self._active_entries: dict[str, _Ordered] = {}
        # backoffQ: (expiry, seq) keys in a SortedList; the pods by seq, and each pod's key by uid.
        self._backoff = SortedList()
        self._backoff_by_seq: dict[int, QueuedPodInfo] = {}
        self._backoff_keys: dict[str, tuple[float, int]] = {}
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._in_flight: dict[str, QueuedPodInfo] = {}
        self.scheduling_cycle = 0
        self.move_request_cycle = -1

    # -- adding ------------------------------------------------------------------------------------
    def add(self, pod: Pod) -> QueuedPodInfo:
        """A new unscheduled pod: gated by PreEnqueue, or into activeQ."""
        info = QueuedPodInfo(PodInfo.of(pod), self._clock.now())
        self._enqueue(info, EVENT_POD_ADD)
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
        return False

    def _enqueue(self, info: QueuedPodInfo, event: str) -> None:
        if self._run_pre_enqueue(info):
            self._push_active(info, event)
        else:
            # kube-scheduler v1.32 counts no incoming pod when PreEnqueue gates one on its way to activeQ (checked
            # against the real binary: a new gated pod leaves scheduler_queue_incoming_pods_total unchanged).
            self._unschedulable[info.pod.uid] = info

    def _push_unschedulable(self, info: QueuedPodInfo, event: str) -> None:
        uid = info.pod.uid
        if uid not in self._unschedulable:
            self._incoming("unschedulable", event)
        self._unschedulable[uid] = info

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
        """The next pod to schedule, or None when activeQ is empty. Counts an attempt."""
        if not self._active:
            return None
        entry: _Ordered = self._active.pop(0)
        info = entry.info
        del self._active_entries[info.pod.uid]
        self.scheduling_cycle += 1
        info.attempts += 1
        if info.initial_attempt_timestamp is None:
            info.initial_attempt_timestamp = self._clock.now()
        info.unschedulable_plugins = set()
        info.pending_plugins = set()
        self._in_flight[info.pod.uid] = info
        return info

    def done(self, uid: str) -> None:
        """The pod's scheduling attempt is over (bound, requeued or dropped)."""
        self._in_flight.pop(uid, None)

    # -- failures ----------------------------------------------------------------------------------
    def add_unschedulable_if_not_present(self, info: QueuedPodInfo, pod_scheduling_cycle: int) -> None:
        """Requeue a pod whose attempt failed: backoffQ if a move request arrived meanwhile (or it failed
        with an error), otherwise the unschedulable pods."""
        uid = info.pod.uid
        self.done(uid)
        if uid in self:
            return
        info.timestamp = self._clock.now()
        rejectors = info.unschedulable_plugins | info.pending_plugins
        if self.move_request_cycle >= pod_scheduling_cycle or not rejectors:
            self._push_backoff(info, EVENT_ATTEMPT_FAILURE)
        else:
            self._push_unschedulable(info, EVENT_ATTEMPT_FAILURE)

    # -- moving ------------------------------------------------------------------------------------
    def _is_backing_off(self, info: QueuedPodInfo) -> bool:
        return self.backoff_expiry(info) > self._clock.now()

    def move_all_to_active_or_backoff(self, pre_check: Callable[[QueuedPodInfo], bool] | None = None, *,
                                      event: str) -> int:
        """A cluster event that may help: move matching unschedulable pods to backoffQ or activeQ.

        Gated pods stay: only an update of the pod itself re-runs PreEnqueue (as in kube-scheduler).

        Returns how many pods moved. Records a move request so in-flight pods go to backoffQ on failure.
        """
        moved = 0
        for uid, info in list(self._unschedulable.items()):
            if pre_check is not None and not pre_check(info):
                continue
            if info.gating_plugin:
                continue
            del self._unschedulable[uid]
            if self._is_backing_off(info):
                self._push_backoff(info, event)
            else:
                self._enqueue(info, event)  # PreEnqueue runs again before activeQ; a gated pod stays aside
            moved += 1
        self.move_request_cycle = self.scheduling_cycle
        return moved

    def flush_backoff_completed(self) -> int:
        """Move pods whose backoff has expired into activeQ; returns how many moved."""
        now = self._clock.now()
        moved = 0
        while self._backoff and self._backoff[0][0] <= now:
            info = self._backoff_by_seq[self._backoff[0][1]]
            self._pop_backoff(info.pod.uid)
            self._enqueue(info, EVENT_BACKOFF_COMPLETE)
            moved += 1
        return moved

    def flush_unschedulable_leftover(self) -> int:
        """Retry pods that sat unschedulable longer than podMaxInUnschedulablePodsDuration."""
        now = self._clock.now()
        return self.move_all_to_active_or_backoff(
            lambda info: now - info.timestamp > POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
            event=EVENT_UNSCHEDULABLE_TIMEOUT)

    def activate(self, pods: Iterable[Pod]) -> None:
        """Force pods from the unschedulable pods or backoffQ into activeQ."""
        for pod in pods:
            uid = pod.uid
            info = self._unschedulable.pop(uid, None) or self._pop_backoff(uid)
            if info is not None:
                self._enqueue(info, EVENT_FORCE_ACTIVATE)

    # -- updates and deletes -----------------------------------------------------------------------
    def delete(self, pod: Pod) -> None:
        """Remove a pod from every queue and from the nominator."""
        uid = pod.uid
        entry = self._active_entries.pop(uid, None)
        if entry is not None:
            self._active.remove(entry)
        self._pop_backoff(uid)
        self._unschedulable.pop(uid, None)
        self.nominator.delete_nominated_pod_if_exists(pod)

    def update(self, old: Pod, new: Pod) -> None:
        """A queued pod changed: refresh it in place. An unschedulable pod gets another chance when more than
        its status changed (kube-scheduler's isPodUpdated), or when its nomination was cleared (a preemptor took
        its node), so other status writes cannot loop."""
        uid = old.uid
        pod_info = PodInfo.of(new)
        self.nominator.update_nominated_pod(old, pod_info)
        entry = self._active_entries.get(uid)
        if entry is not None:
            self._active.remove(entry)
            entry.info.pod_info = pod_info
            self._active.add(entry)
            return
        key = self._backoff_keys.get(uid)
        if key is not None:
            self._backoff_by_seq[key[1]].pod_info = pod_info
            return
        info = self._unschedulable.get(uid)
        if info is not None:
            info.pod_info = pod_info
            self._requeue_updated(info, old, new)
            return
        in_flight = self._in_flight.get(uid)
        if in_flight is not None:
            in_flight.pod_info = pod_info

    def _requeue_updated(self, info: QueuedPodInfo, old: Pod, new: Pod) -> None:
        """An update of a pod in the unschedulable pods: it moves on when more than its status changed (or its
        nomination was cleared) and PreEnqueue lets it, counted under the update's first event; a pod that stays
        counts as entering the unschedulable pods again once per event, as kube-scheduler v1.32 counts it."""
        events = unscheduled_pod_update_events(old, new)
        nomination_cleared = bool(old.status.nominated_node_name) and not new.status.nominated_node_name
        if (old.metadata != new.metadata or old.spec != new.spec or nomination_cleared) and self._run_pre_enqueue(info):
            del self._unschedulable[info.pod.uid]
            if self._is_backing_off(info):
                self._push_backoff(info, events[0])
            else:
                self._push_active(info, events[0])
            return
        for event in events:
            self._incoming("unschedulable", event)

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

"""Binding cycles that wait: pods Permit holds (parked until allowed, rejected or timed out) and pods whose PreBind
plugin answered Wait (polled every PRE_BIND_POLL_PERIOD seconds of the scheduler's clock, as kube-scheduler's
blocking PreBind polls). The scheduler resumes them when they are due (``Scheduler.process_waiting_pods``)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from kubesched.backend import Clock
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import go_duration
from kubesched.framework._node_info import PodInfo
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._framework import Framework
from kubesched.runtime._invoke import error

#: How often a PreBind plugin that answered Wait is called again, in the scheduler's seconds (kube-scheduler's
#: VolumeBinding polls its claims every second).
PRE_BIND_POLL_PERIOD = 1.0
#: A safety net: a PreBind wait that lasts longer than this (a plugin that never stops waiting) fails as an Error.
MAX_PRE_BIND_WAIT = 24 * 3600.0


@attrs.define
class Binding:
    """A binding cycle under way: the pod's framework, state, queue entry, assumed pod and node."""

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


@attrs.define
class PreBindWait:
    """A binding cycle paused by a PreBind plugin's Wait: the plugin's index, when to call it again, its latest
    Wait (what the pod waits for) and when the wait began."""

    binding: Binding
    plugin: int
    next_poll: float
    status: Status
    since: float


class WaitingBindings:
    """The binding cycles held by Permit and those waiting in PreBind, by pod uid."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.parked: dict[str, Binding] = {}
        self.pre_binding: dict[str, PreBindWait] = {}

    def __bool__(self) -> bool:
        return bool(self.parked) or bool(self.pre_binding)

    def permitted(self) -> Iterator[tuple[Binding, Status]]:
        """The parked bindings whose Permit wait ended (allowed, rejected or timed out), with its outcome; each is
        forgotten as it is given out."""
        now = self._clock.now()
        for uid, binding in list(self.parked.items()):
            waiting = binding.framework.handle.get_waiting_pod(uid)
            if waiting is None:
                continue
            waiting.expire(now)
            if waiting.outcome is None:
                continue
            del self.parked[uid]
            binding.framework.handle.remove_waiting_pod(uid)
            yield binding, waiting.outcome

    def polls_due(self) -> Iterator[PreBindWait]:
        """The PreBind waits whose next poll is due; each is forgotten as it is given out (a new Wait parks it
        again through :meth:`pre_bind`)."""
        now = self._clock.now()
        for uid, wait in list(self.pre_binding.items()):
            if wait.next_poll <= now:
                del self.pre_binding[uid]
                yield wait

    def pre_bind(self, binding: Binding, start: int, wait: PreBindWait | None = None) -> Status | None:
        """Run PreBind from the ``start``-th plugin; a Wait parks the binding cycle until that plugin's next poll
        (an Error once the wait has lasted MAX_PRE_BIND_WAIT)."""
        framework, pod = binding.framework, binding.assumed.pod
        status, index = framework.binding.pre_bind_from(binding.state, pod, binding.node_name, start)
        if status is None or not status.is_wait():
            return status
        now = self._clock.now()
        since = now if wait is None else wait.since
        if now - since >= MAX_PRE_BIND_WAIT:
            return error(f'PreBind plugin "{status.plugin}" waited longer than {go_duration(MAX_PRE_BIND_WAIT)}',
                         status.plugin)
        next_poll = now + PRE_BIND_POLL_PERIOD if wait is None else wait.next_poll + PRE_BIND_POLL_PERIOD
        if next_poll <= now:  # polled late (a real clock): the next tick from now, as a ticker drops missed ones
            next_poll = now + PRE_BIND_POLL_PERIOD
        self.pre_binding[pod.uid] = PreBindWait(binding, index, next_poll, status, since)
        return status

    def next_wakeup(self) -> float | None:
        """The earliest Permit timeout among parked pods, or the earliest poll of a PreBind plugin that waits."""
        deadlines = [d for b in self.parked.values()
                     if (wp := b.framework.handle.get_waiting_pod(b.assumed.pod.uid)) is not None
                     and (d := wp.next_deadline()) is not None]
        deadlines.extend(wait.next_poll for wait in self.pre_binding.values())
        return min(deadlines, default=None)

    def pre_bind_wait(self, uid: str) -> Status | None:
        """The Wait a PreBind plugin holds pod ``uid``'s binding with, or None."""
        wait = self.pre_binding.get(uid)
        return wait.status if wait is not None else None

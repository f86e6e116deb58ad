"""Coscheduling: gang scheduling at Permit, in the style of scheduler-plugins' Coscheduling.

Pods form a group with the labels ``scheduling.x-k8s.io/pod-group: <name>`` and
``scheduling.x-k8s.io/min-available: "<n>"`` (see :mod:`kubesched_examples.pod_group`). A group binds all
at once or not at all:

- PreFilter rejects a member whose min-available label is not a positive integer, and every member of a
  group that is backing off after a failed attempt (both UnschedulableAndUnresolvable).
- Permit allows a pod outside any group at once. A member waits, up to ``permit-waiting-time-seconds``,
  until the group's pods that are bound, assumed or waiting (itself included) number min-available; the
  member that completes the quorum allows every waiting member. Members still waiting at the timeout are
  rejected by the framework: ``rejected due to timeout after waiting 1m0s at plugin Coscheduling``.
- Reserve claims nothing. Unreserve (a member timed out, was rejected or failed to bind) rejects the
  group's other waiting members, so they release their nodes, and backs the group off for
  ``pod-group-backoff-seconds``, so a gang that cannot fit does not keep re-forming and timing out.

Enable it at ``multi-point`` so that its PreFilter, Reserve and Permit all run.
"""

from __future__ import annotations

import math

import attrs
from kubesched import CycleState, Handle, NodeInfo, Plugin, Pod, StateKey, Status, hookimpl, in_range
from kubesched.framework import (
    MAX_PERMIT_TIMEOUT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    go_duration,
)

from kubesched_examples.pod_group import (
    MIN_AVAILABLE_LABEL,
    InvalidPodGroupError,
    PodGroup,
    current_members,
    pod_group_of,
)

NAME = "Coscheduling"
ERR_REASON_MIN_AVAILABLE = f"pod group member needs label {MIN_AVAILABLE_LABEL} set to a positive integer"
#: PreFilter's rejection while the group backs off; ``cause`` is one of the CAUSE_* texts.
ERR_REASON_BACKOFF = "pod group {group} is backing off: {cause}"
#: Unreserve's rejection of the other waiting members; ``cause`` is one of the CAUSE_* texts.
ERR_REASON_GANG_REJECTED = "pod group {group} rejected: {cause}"
#: Why a group failed: the unreserved member had waited past its Permit timeout...
CAUSE_TIMEOUT = "it did not reach min-available {min_available} within {timeout}"
#: ...or it failed for another reason (rejected while waiting, deleted, failed to bind).
CAUSE_MEMBER = "member {member} was unreserved"
WAIT_REASON = "waiting for pod group {group}: {count}/{min_available} members"

_GROUP_KEY = StateKey[PodGroup]("PreFilterCoscheduling")
#: When the pod's wait at Permit ends (clock seconds); Unreserve reads it to tell a timeout from a rejection.
_DEADLINE_KEY = StateKey[float]("PermitCoscheduling")


@attrs.frozen
class Backoff:
    """A failed group's backoff: until when (clock seconds), and why it failed."""

    until: float
    cause: str


@attrs.frozen
class CoschedulingArgs:
    """How long a member waits for its group at Permit, and how long a failed group backs off."""

    permit_waiting_time_seconds: float = attrs.field(default=60.0, validator=in_range(
        0, MAX_PERMIT_TIMEOUT, low_open=True,
        message=f"Invalid value: {{value:g}}: not in valid range (0, {MAX_PERMIT_TIMEOUT:g}]"))
    #: 0 disables the backoff (then a gang that can never fit re-forms and times out again and again).
    pod_group_backoff_seconds: float = attrs.field(default=60.0, validator=in_range(
        0, math.inf, message="Invalid value: {value:g}: not in valid range [0, inf)"))


class Coscheduling(Plugin):
    """Holds the members of a pod group at Permit until min-available of them have a node, then binds them all."""

    name = NAME
    Args = CoschedulingArgs

    def __init__(self, handle: Handle, args: CoschedulingArgs | None = None) -> None:
        config = args if args is not None else CoschedulingArgs()
        super().__init__(handle, config)
        self._timeout = config.permit_waiting_time_seconds
        self._backoff = config.pod_group_backoff_seconds
        #: Group key -> the backoff during which the group's members are rejected at PreFilter.
        self._backoffs: dict[str, Backoff] = {}

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A gang member bound or a pod deleted (room freed), or a new node, may let the gang through."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD | ActionType.DELETE)),
                ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD))]

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Reject bad group labels and backing-off groups; remember the pod's group for Permit."""
        try:
            group = pod_group_of(pod)
        except InvalidPodGroupError:
            return Status.unresolvable(ERR_REASON_MIN_AVAILABLE)
        if group is None:
            return None
        backoff = self._backoffs.get(group.key)
        if backoff is not None:
            if self.handle.clock.now() < backoff.until:
                return Status.unresolvable(ERR_REASON_BACKOFF.format(group=group.key, cause=backoff.cause))
            del self._backoffs[group.key]
        state.write(_GROUP_KEY, group)
        return None

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Nothing to claim: implemented because Unreserve belongs to the Reserve extension point."""
        return None

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Wait until the group reaches min-available; the member that completes it allows the others."""
        group = state.get(_GROUP_KEY)
        if group is None:  # PreFilter did not run (or the pod has no group)
            try:
                group = pod_group_of(pod)
            except InvalidPodGroupError:
                return Status.unresolvable(ERR_REASON_MIN_AVAILABLE), 0.0
            if group is None:
                return None, 0.0
        members = current_members(self.handle, group)
        members.add(pod.uid)
        if len(members) < group.min_available:
            reason = WAIT_REASON.format(group=group.key, count=len(members), min_available=group.min_available)
            state.write(_DEADLINE_KEY, self.handle.clock.now() + self._timeout)
            return Status.wait(reason), self._timeout
        for waiting in self.handle.waiting_pods():
            if group.contains(waiting.pod):
                waiting.allow(NAME)
        return None, 0.0

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Reject the group's other waiting members and back the group off. Idempotent; needs no prior Reserve."""
        try:
            group = pod_group_of(pod)
        except InvalidPodGroupError:
            return
        if group is None:
            return
        now = self.handle.clock.now()
        deadline = state.get(_DEADLINE_KEY)
        if deadline is not None and now >= deadline:
            cause = CAUSE_TIMEOUT.format(min_available=group.min_available, timeout=go_duration(self._timeout))
        else:
            cause = CAUSE_MEMBER.format(member=pod.key)
        self._back_off(group, now, cause)
        message = ERR_REASON_GANG_REJECTED.format(group=group.key, cause=cause)
        for waiting in self.handle.waiting_pods():
            if waiting.pod.uid == pod.uid or not group.contains(waiting.pod):
                continue
            # A member whose own wait is already over reports its timeout rather than this rejection.
            waiting.expire(now)
            waiting.reject(NAME, message)

    def _back_off(self, group: PodGroup, now: float, cause: str) -> None:
        """Start the group's backoff, unless one is running: the first failure's cause is the one kept."""
        current = self._backoffs.get(group.key)
        if self._backoff > 0 and (current is None or current.until <= now):
            self._backoffs[group.key] = Backoff(now + self._backoff, cause)

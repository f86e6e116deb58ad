"""Queueing hints: which plugins registered which cluster events (kube-scheduler's EnqueueExtensions and its
queueing-hint map), and what an event means for a pod those plugins rejected (isPodWorthRequeuing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.errors import ProfileError
from kubesched.framework._events import (
    NODE_TAINT_UPDATE,
    WILDCARD_EVENT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework._hookspecs import EVENTS_HOOK
from kubesched.framework._plugin import marked_hooks
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, describe_exception
from kubesched.runtime._invoke import QUEUEING_HINT, Guard
from kubesched.runtime._queue import Strategy

#: One registration: the event, the plugin, and its hint (None: always Queue).
Registration = tuple[ClusterEvent, str, QueueingHintFn | None]
_Matching = tuple[frozenset[str], list[tuple[str, QueueingHintFn | None]]]


def registrations(plugins: Mapping[str, Any], profile_name: str) -> list[Registration]:
    """Every plugin's events_to_register, in plugin order, checked; a plugin without the hook registers every event
    (as kube-scheduler does for plugins that are not EnqueueExtensions)."""
    found: list[Registration] = []
    key = f"profiles.{profile_name}"
    for name, plugin in plugins.items():
        if EVENTS_HOOK not in marked_hooks(type(plugin)):
            found.append((WILDCARD_EVENT, name, None))
            continue
        try:
            events = plugin.events_to_register()
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            raise ProfileError(f'plugin "{name}": events_to_register raised {describe_exception(exc)}',
                               key=key) from None
        if not isinstance(events, list | tuple) or not all(isinstance(e, ClusterEventWithHint) for e in events):
            raise ProfileError(f'plugin "{name}": events_to_register must return a list of ClusterEventWithHint, '
                               f"got {events!r}", key=key)
        found.extend((e.event, name, e.hint) for e in events)
        # kube-scheduler's workaround for issue 109437 (buildQueueingHintMap): a plugin registering Node/Add but not
        # Node/UpdateNodeTaint also gets UpdateNodeTaint, always Queue.
        nodes = [e.event.action_type for e in events if e.event.resource is EventResource.NODE]
        if any(a & ActionType.ADD for a in nodes) and not any(a & ActionType.UPDATE_NODE_TAINT for a in nodes):
            found.append((NODE_TAINT_UPDATE, name, None))
    return found


class HintTable:
    """The profile's registrations, and the answers the queue asks of them on every cluster event."""

    def __init__(self, plugins: Mapping[str, Any], profile_name: str, guard: Guard) -> None:
        #: The plugins' registrations in plugin order: (event, plugin, hint or None for always Queue).
        self.registrations: list[Registration] = registrations(plugins, profile_name)
        self._guard = guard
        # The answers by the identity of the event object asked about (up to 256 objects, each kept alive).
        self._by_id: dict[int, tuple[ClusterEvent, _Matching]] = {}
        # Per incoming event (resource, action): the plugins that registered it, and their (plugin, hint) pairs.
        self._by_event: dict[tuple[EventResource, ActionType], _Matching] = {}

    def matching(self, event: ClusterEvent) -> _Matching:
        """The plugins that registered ``event`` and their (plugin, hint) pairs in registration order."""
        # The runtime passes the same few event objects over and over: looked up by identity first, so the common
        # case hashes no enum (the entry keeps its event alive, so the id cannot be reused by another object).
        known = self._by_id.get(id(event))
        if known is not None and known[0] is event:
            return known[1]
        key = (event.resource, event.action_type)
        found = self._by_event.get(key)
        if found is None:
            pairs = [(name, hint) for registered, name, hint in self.registrations if registered.matches(event)]
            found = self._by_event[key] = (frozenset(name for name, _ in pairs), pairs)
        if len(self._by_id) < 256:
            self._by_id[id(event)] = (event, found)
        return found

    def interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """The plugins that registered ``event``: only pods one of them rejected can be moved by it."""
        return self.matching(event)[0]

    def hint(self, plugin: str, hint: QueueingHintFn, info: QueuedPodInfo, old: Any, new: Any) -> QueueingHint:
        """``plugin``'s hint for the pod and change; one that raises or answers something else counts as Queue (and
        is recorded as the plugin's failure), as in kube-scheduler."""
        answer, error = self._guard.call(QUEUEING_HINT, plugin, hint, (info.pod, old, new), info.pod)
        if error is not None:
            return QueueingHint.QUEUE
        if not isinstance(answer, QueueingHint):
            self._guard.failed(QUEUEING_HINT, plugin, info.pod, value=answer, expected="a QueueingHint")
            return QueueingHint.QUEUE
        return answer

    def strategy(self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
        """What ``event`` means for ``info``'s pod, by the hints of the plugins that rejected it (kube-scheduler's
        isPodWorthRequeuing): Queue from a Pending plugin moves it at once, from another plugin after its backoff;
        Skip from every one leaves it."""
        names, matching = self.matching(event)
        unschedulable, pending = info.unschedulable_plugins, info.pending_plugins
        if names.isdisjoint(unschedulable) and names.isdisjoint(pending):
            return Strategy.SKIP  # the common case, for every unschedulable pod on every event
        strategy = Strategy.SKIP
        for name, hint in matching:
            if name not in unschedulable and name not in pending:
                continue
            if hint is not None and self.hint(name, hint, info, old, new) is QueueingHint.QUEUE_SKIP:
                continue
            if name in pending:
                return Strategy.IMMEDIATELY
            if not pending:
                return Strategy.AFTER_BACKOFF
            strategy = Strategy.AFTER_BACKOFF
        return strategy

"""Checks of the plugin class itself: its hooks against the hookspecs, and that it builds with its args."""

from __future__ import annotations

from kubesched.errors import KubeschedError
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._hookspecs import EVENTS_HOOK
from kubesched.runtime import validate_plugin_class
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, driver, explain, require
from kubesched.testing.conformance.subject import PluginUnderTest


def hooks_match_hookspecs(subject: PluginUnderTest) -> list[str]:
    """The class has a name (equal to its entry point's), attrs Args if any, and hook methods whose names and
    arguments match the hookspecs."""
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError as exc:
        raise CheckFailed(str(exc)) from None
    return []


def builds(subject: PluginUnderTest) -> list[str]:
    """The plugin builds with the args it is tested with (its defaults when none are given), both as the
    scheduler builds it at start-up (before any node is known) and over the example cluster."""
    require(subject)
    for nodes, when in (([], "at start-up, before any node is known"), (None, "over the example cluster")):
        try:
            subject.framework(nodes=nodes, running=[] if nodes is not None else None)
        except (Exception, SystemExit) as exc:
            raise CheckFailed(f"the plugin cannot be built with its args {when}: {explain(exc)}") from None
    return []


#: The hooks that can reject a pod, so that the pod waits for an event: the plugin must say which.
REJECTING_HOOKS = ("pre_enqueue", "pre_filter", "filter", "permit")


def declares_events(subject: PluginUnderTest) -> list[str]:
    """A plugin that can reject pods (PreEnqueue, PreFilter, Filter, Permit) implements events_to_register and
    registers at least one event; each item is a ClusterEventWithHint whose hint, if any, is callable."""
    rejecting = [hook for hook in REJECTING_HOOKS if hook in subject.hooks]
    if not rejecting:
        raise CheckSkipped("the plugin rejects no pod (it has no pre_enqueue, pre_filter, filter or permit hook)")
    require(subject)
    if EVENTS_HOOK not in subject.hooks:
        raise CheckFailed(f"the plugin can reject pods ({', '.join(rejecting)}) but has no {EVENTS_HOOK} hook: "
                          "the queue then moves the pods it rejects on every cluster event (kube-scheduler's "
                          "default for plugins without EnqueueExtensions); declare the events that may help")
    plugin = driver(subject).plugin  # skips, pointing at builds, when the plugin cannot be built
    try:
        events = plugin.events_to_register()
    except (Exception, SystemExit) as exc:
        raise CheckFailed(f"{EVENTS_HOOK} raised {explain(exc)}") from None
    if not isinstance(events, list | tuple):
        raise CheckFailed(f"{EVENTS_HOOK} returned {type(events).__name__}, expected a list of ClusterEventWithHint")
    wrong = [repr(e) for e in events if not isinstance(e, ClusterEventWithHint)
             or (e.hint is not None and not callable(e.hint))]
    if wrong:
        raise CheckFailed(f"{EVENTS_HOOK} returned items that are not ClusterEventWithHint with a callable or None "
                          f"hint: {', '.join(wrong)}")
    if not events:
        raise CheckFailed(f"{EVENTS_HOOK} registers no event: the pods the plugin rejects ({', '.join(rejecting)}) "
                          "would wait for the 5-minute flush; register the events that may make them schedulable")
    return []

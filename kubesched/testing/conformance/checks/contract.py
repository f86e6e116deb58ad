"""Checks of the plugin class itself: its hooks against the hookspecs, and that it builds with its args."""

from __future__ import annotations

from kubesched.errors import KubeschedError
from kubesched.runtime import validate_plugin_class
from kubesched.testing.conformance.base import CheckFailed, explain, require
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

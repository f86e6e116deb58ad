"""Specification of kubesched.framework._hookspecs as the one home of the contract's tables: the extension
points, the status codes each hook may return (as the runtime treats them) and the parameters."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import kubesched.framework
from kubesched.framework import _hookspecs as hookspecs
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus
from kubesched.runtime import Framework
from kubesched.testing import make_node, make_pod, plugin_framework

POD = make_pod("p").obj()


def test_the_extension_point_table_lives_in_hookspecs() -> None:
    """kubesched.framework re-exports hookspecs' table rather than keeping its own."""
    assert kubesched.framework.EXTENSION_POINTS is hookspecs.EXTENSION_POINTS


def test_every_hookspec_parameter_is_described() -> None:
    """PARAMETERS describes exactly the parameter names the hookspecs use."""
    used = {name for hook in hookspecs.HOOK_NAMES for name in hookspecs.spec_parameters(hook)}
    assert set(hookspecs.PARAMETERS) == used


def test_the_status_table_covers_the_hooks_that_return_a_status() -> None:
    """Every hook whose hookspec returns a Status has a row; the others (values, nothing) have none."""
    returning = {hook for hook in hookspecs.HOOK_NAMES
                 if "Status" in str(inspect.signature(hookspecs._SPECS[hook]).return_annotation)}
    assert set(hookspecs.STATUS_CODES) == returning


def _status(code: Code) -> Status | None:
    return Status(code, ("because",)) if code is not Code.SUCCESS else None


def _plugin(hook: str, code: Code) -> type[Any]:
    """A plugin whose ``hook`` returns ``code`` (with the hooks it needs to be valid and reach ``hook``)."""
    status = _status(code)
    members: dict[str, Any] = {"name": "Probe"}

    def define(name: str, function: Callable[..., Any]) -> None:
        function.__name__ = name
        function.__qualname__ = f"Probe.{name}"
        members[name] = hookimpl(function)

    def returns_status(self: Any) -> Status | None:
        return status

    def succeeds(self: Any) -> None:
        return None

    if hook in ("pre_filter_add_pod", "pre_filter_remove_pod", "pre_filter_nodes"):
        define("pre_filter", succeeds)
    if hook == "pre_score_nodes":
        define("pre_score", succeeds)
    if hook == "normalize_score":
        define("score", lambda self: 0)
    if hook == "post_filter":
        define(hook, lambda self: (None, status))
    elif hook == "permit":
        define(hook, lambda self: (status, 1.0))
    elif hook == "bind":
        def binds(self: Any, pod: Any, node_name: str) -> Status | None:
            if status is None:  # success means the pod is bound
                self.handle.client.bind(pod, node_name)
            return status

        define(hook, binds)
    else:
        define(hook, returns_status)
    return type("Probe", (Plugin,), members)


def _run(framework: Framework, hook: str) -> Status | None:
    """The runtime's verdict after running the profile's ``hook``."""
    state = CycleState()
    nodes = framework.handle.snapshot.list()
    node_info = nodes[0]
    if hook == "pre_enqueue":
        return framework.run_pre_enqueue_plugins(POD)
    if hook == "pre_filter":
        return framework.run_pre_filter_plugins(state, POD, nodes)[1]
    batch = NodeBatch.of(nodes, framework.handle.snapshot.columns)
    if hook == "pre_filter_nodes":
        return framework.run_pre_filter_plugins(state, POD, nodes, batch)[1]
    if hook == "pre_score_nodes":
        return framework.run_pre_score_plugins(state, POD, nodes, batch)
    if hook == "pre_filter_add_pod":
        return framework.run_pre_filter_extension_add_pod(state, POD, PodInfo.of(POD), node_info)
    if hook == "pre_filter_remove_pod":
        return framework.run_pre_filter_extension_remove_pod(state, POD, PodInfo.of(POD), node_info)
    if hook == "filter":
        return framework.run_filter_plugins(state, POD, node_info)
    if hook == "post_filter":
        return framework.run_post_filter_plugins(state, POD, NodeToStatus())[1]
    if hook == "pre_score":
        return framework.run_pre_score_plugins(state, POD, nodes)
    if hook == "normalize_score":
        return framework.run_score_plugins(state, POD, nodes)[1]
    if hook == "reserve":
        return framework.run_reserve_plugins_reserve(state, POD, node_info.name)
    if hook == "permit":
        return framework.run_permit_plugins(state, POD, node_info.name)
    if hook == "pre_bind":
        return framework.run_pre_bind_plugins(state, POD, node_info.name)
    assert hook == "bind"
    return framework.run_bind_plugins(state, POD, node_info.name)


CASES = [(hook, code) for hook in hookspecs.STATUS_CODES for code in Code]


@pytest.mark.parametrize(("hook", "code"), CASES, ids=[f"{h}-{c.label}" for h, c in CASES])
def test_the_runtime_turns_exactly_the_codes_outside_the_table_into_errors(hook: str, code: Code) -> None:
    """A code the table allows keeps its meaning; any other becomes an Error naming the plugin (PreEnqueue
    instead gates the pod on any non-success, as kube-scheduler does)."""
    framework = plugin_framework(_plugin(hook, code), nodes=[make_node("n1").obj()], pods=[POD])
    verdict = _run(framework, hook)
    outcome = Code.SUCCESS if verdict is None else verdict.code
    if hook == "pre_enqueue":
        assert outcome is code
    elif code in hookspecs.STATUS_CODES[hook]:
        skipped_the_only_binder = hook == "bind" and code is Code.SKIP
        assert outcome is not Code.ERROR or skipped_the_only_binder
    else:
        assert outcome is Code.ERROR
        assert verdict is not None
        assert verdict.plugin == "Probe"

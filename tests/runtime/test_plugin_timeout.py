"""Specification of plugin-timeout-ms: a plugin call running past the limit is interrupted on the main thread and
fails only its pod, as that plugin's error; the run goes on."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kubesched.api.pod import Pod
from kubesched.errors import ProfileError
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from tests.conftest import write
from tests.runtime.test_hostile_base_exceptions import run_with

TIMEOUT = "plugin-timeout-ms = 20\n"


def stuck(point: str, hook: str, how: str, result: Any = None) -> type[Plugin]:
    """A plugin whose ``hook`` never returns for pod p0 (``how``: busy, sleep, or swallow: a busy loop that catches
    the first interruption and loops on) and returns ``result`` for the others."""
    def body(self: Plugin, state: Any, pod: Pod) -> Any:
        if pod.name != "p0":
            return result
        if how == "sleep":
            time.sleep(3600)
        if how == "swallow":
            try:
                while True:
                    pass
            except BaseException:  # a plugin that eats what interrupts it
                pass
        while True:
            pass

    name = f"Stuck{how.title()}{point}"
    body.__name__, body.__qualname__ = hook, f"{name}.{hook}"
    return type(name, (Plugin,), {"name": name, hook: hookimpl(body)})


@pytest.mark.parametrize(("plugin", "key", "message"), [
    pytest.param(stuck("Filter", "filter", "busy"), "filter",
                 'running "StuckBusyFilter" filter plugin: exceeded the plugin timeout of 20 ms', id="busy-filter"),
    pytest.param(stuck("Score", "score", "sleep", 0), "score",
                 'running Score plugins: plugin "StuckSleepScore" failed with: exceeded the plugin timeout of 20 ms',
                 id="sleeping-score"),
    pytest.param(stuck("PreFilter", "pre_filter", "swallow"), "pre-filter",
                 'running PreFilter plugin "StuckSwallowPreFilter": exceeded the plugin timeout of 20 ms',
                 id="pre-filter-catching-the-timeout"),
    pytest.param(stuck("Permit", "permit", "busy", (None, 0.0)), "permit",
                 'running Permit plugin "StuckBusyPermit": exceeded the plugin timeout of 20 ms', id="busy-permit"),
])
def test_a_call_past_the_plugin_timeout_fails_only_its_pod(
        registry: PluginRegistry, tmp_path: Path, plugin: type[Plugin], key: str, message: str) -> None:
    """The stuck pod is Pending with the timeout as that plugin's error; the other pod is bound."""
    outcome = run_with(tmp_path, registry, plugin, key, settings=TIMEOUT)
    assert [(p.phase, p.message) for p in outcome.pods] == [("Pending", message), ("Bound", "")]


def test_the_timeout_is_a_plugin_error_event_naming_plugin_pod_and_node(
        registry: PluginRegistry, tmp_path: Path) -> None:
    """The PluginError event says which plugin ran too long, for which pod, on which node."""
    outcome = run_with(tmp_path, registry, stuck("Filter", "filter", "busy"), "filter", settings=TIMEOUT)
    event = next(e for e in outcome.events if e.reason == "PluginError")
    assert event.message.startswith('Filter plugin "StuckBusyFilter" on pod default/p0, node n0: exceeded the '
                                    "plugin timeout of 20 ms")


class Quick(Plugin):
    """Filter: a little work, well within any timeout."""

    name = "Quick"

    @hookimpl
    def filter(self, state: Any, pod: Pod) -> None:
        sum(range(100))


def test_calls_within_the_timeout_run_as_without_it(registry: PluginRegistry, tmp_path: Path) -> None:
    """A timeout that no call reaches changes nothing: every pod is bound."""
    outcome = run_with(tmp_path, registry, Quick, "filter", settings="plugin-timeout-ms = 5000\n")
    assert [p.phase for p in outcome.pods] == ["Bound", "Bound"]


@pytest.mark.parametrize(("value", "message"), [
    pytest.param("0", "Invalid value: 0: must be greater than 0", id="zero"),
    pytest.param('"10"', 'Invalid value: "10": must be a number of milliseconds', id="string"),
    pytest.param("inf", "Invalid value: +Inf: must be a finite number", id="infinite"),
])
def test_the_plugin_timeout_must_be_a_positive_finite_number(
        registry: PluginRegistry, tmp_path: Path, value: str, message: str) -> None:
    """plugin-timeout-ms takes a positive, finite number of milliseconds; anything else is a profile error."""
    path = write(tmp_path / "p.toml", f"plugin-timeout-ms = {value}\n[[profiles]]\n")
    with pytest.raises(ProfileError, match="plugin-timeout-ms") as raised:
        load_config(str(path), registry)
    assert message in str(raised.value)


def test_calls_off_the_main_thread_run_without_a_limit(registry: PluginRegistry, tmp_path: Path) -> None:
    """Off the main thread SIGALRM cannot reach the call: a run there is not interrupted (nor is the main thread)."""
    outcome: list[list[str]] = []

    def work() -> None:
        result = run_with(tmp_path, registry, SlowOnce, "filter", settings=TIMEOUT)
        outcome.append([p.phase for p in result.pods])

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    assert outcome == [["Bound", "Bound"]]


class SlowOnce(Plugin):
    """Filter: 60 ms for pod p0 on node n0, three times the test's timeout."""

    name = "SlowOnce"

    @hookimpl
    def filter(self, state: Any, pod: Pod, node_info: Any) -> None:
        if pod.name == "p0" and node_info.name == "n0":
            time.sleep(0.06)

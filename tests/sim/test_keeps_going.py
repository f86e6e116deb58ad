"""Specification of a run that keeps going: a failing plugin or bind fails only its pod, and the run settles."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import ClassVar

import pytest

from kubesched.api.pod import Pod
from kubesched.backend import BindingError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.settling import MAX_ERROR_RETRIES
from kubesched.sim.simulate import Simulation, SimulationError, SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write


def profile(tmp_path: Path, points: dict[str, list[str]], settings: str = "") -> Path:
    """A profile file running exactly ``points`` ({point key: [plugin names]}) at those points, defaults elsewhere."""
    text = settings + "[[profiles]]\n"
    for key, names in points.items():
        enabled = ", ".join(f'{{ name = "{n}" }}' for n in names)
        text += f'[profiles.plugins.{key}]\nenabled = [{enabled}]\ndisabled = [{{ name = "*" }}]\n'
    return write(tmp_path / "p.toml", text)


def run(tmp_path: Path, registry: PluginRegistry, points: dict[str, list[str]], nodes: int, pods: int,
        *plugins: type[Plugin], settings: str = "") -> SimulationResult:
    """Simulate ``pods`` 1-cpu pods on ``nodes`` 2-cpu nodes with ``plugins`` enabled at ``points``."""
    extended = registry.with_plugins(*plugins)
    config = load_config(str(profile(tmp_path, points, settings)), extended)
    cluster = ClusterInput(nodes=tuple(make_node(f"n{i}").capacity(cpu="2").obj() for i in range(nodes)),
                           pods=tuple(make_pod(f"p{i}").req(cpu="1").obj() for i in range(pods)))
    return simulate(cluster, config, extended)


class RefuseBind(Plugin):
    """Bind: always an Error."""

    name = "RefuseBind"

    @hookimpl
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.as_error("storage backend refused the attachment")


class RefusePreBind(Plugin):
    """PreBind: always raises."""

    name = "RefusePreBind"

    @hookimpl
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise OSError("volume not ready")


def refusing_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the in-memory cluster refuse every binding, as an API server would for a conflict."""
    def refuse(self: InMemoryCluster, pod: Pod, node_name: str) -> None:
        raise BindingError(f'Operation cannot be fulfilled on pods/binding "{pod.name}": conflict')

    monkeypatch.setattr(InMemoryCluster, "bind", refuse)


@pytest.mark.parametrize(("plugins", "points", "message"), [
    pytest.param((RefuseBind,), {"bind": ["RefuseBind"]},
                 'running Bind plugin "RefuseBind": storage backend refused the attachment', id="bind-error"),
    pytest.param((RefusePreBind,), {"pre-bind": ["RefusePreBind"]},
                 'running PreBind plugin "RefusePreBind": OSError: volume not ready', id="pre-bind-raises"),
    pytest.param((), {}, 'running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods/binding "p0": '
                         "conflict", id="default-binder-refused"),
])
def test_pods_whose_binds_fail_settle_pending_with_the_bind_error(
        registry: PluginRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        plugins: tuple[type[Plugin], ...], points: dict[str, list[str]], message: str) -> None:
    """Two pods whose binds fail do not retry each other forever: each is retried a few times, then left Pending."""
    if not plugins:
        refusing_cluster(monkeypatch)
    result = run(tmp_path, registry, points, 2, 2, *plugins)
    assert [(p.phase, p.message) for p in result.pods] == [("Pending", message),
                                                           ("Pending", message.replace('"p0"', '"p1"'))]
    failures = [e for e in result.events if e.reason == "FailedScheduling"]
    assert len(failures) == 2 * MAX_ERROR_RETRIES


class FakeBindOnce(Plugin):
    """Bind: the first call reports success without binding; later calls leave binding to DefaultBinder."""

    name = "FakeBindOnce"
    calls: ClassVar[int] = 0

    @hookimpl
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        FakeBindOnce.calls += 1
        return None if FakeBindOnce.calls == 1 else Status.skip()


def fake_bind_run(tmp_path: Path, registry: PluginRegistry) -> SimulationResult:
    FakeBindOnce.calls = 0
    return run(tmp_path, registry, {"bind": ["FakeBindOnce", "DefaultBinder"]}, 2, 4, FakeBindOnce)


def test_a_bind_that_does_not_bind_leaks_no_reservation(registry: PluginRegistry, tmp_path: Path) -> None:
    """A Bind plugin that reports success without binding frees the assumed room: 4 pods fill two 2-cpu nodes."""
    result = fake_bind_run(tmp_path, registry)
    assert [p.phase for p in result.pods] == ["Bound"] * 4


def test_a_bind_that_does_not_bind_emits_no_scheduled_event(registry: PluginRegistry, tmp_path: Path) -> None:
    """No Scheduled event for a pod that is not bound; the pod gets an error naming the Bind plugin instead."""
    result = fake_bind_run(tmp_path, registry)
    first = [(e.reason, e.message) for e in result.events if e.object == "default/p0"]
    assert first[0] == ("PluginError", 'Bind plugin "FakeBindOnce" on pod default/p0, node n0: returned success '
                                       'but pod "default/p0" is not bound to node "n0"')
    assert first[1] == ("FailedScheduling", 'running Bind plugin "FakeBindOnce": returned success but pod '
                                            '"default/p0" is not bound to node "n0"')
    assert [reason for reason, _ in first].count("Scheduled") == 1


class ExitInFilter(Plugin):
    """Filter: calls sys.exit(3) for pod p0."""

    name = "ExitInFilter"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.name == "p0":
            sys.exit(3)
        return None


class UnprintableError(Exception):
    """An exception whose str() itself raises."""

    def __str__(self) -> str:
        raise ValueError("no text")


class UnprintableInScore(Plugin):
    """Score: raises an exception that cannot be printed, for pod p0."""

    name = "UnprintableInScore"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        if pod.name == "p0":
            raise UnprintableError
        return 0


@pytest.mark.parametrize(("plugin", "point", "message"), [
    pytest.param(ExitInFilter, "filter", 'running "ExitInFilter" filter plugin: SystemExit: 3', id="sys-exit"),
    pytest.param(UnprintableInScore, "score", 'running Score plugins: plugin "UnprintableInScore" failed with: '
                                              "UnprintableError (str() raised ValueError)", id="unprintable"),
])
def test_a_plugin_that_exits_or_cannot_be_printed_fails_only_its_pod(
        registry: PluginRegistry, tmp_path: Path, plugin: type[Plugin], point: str, message: str) -> None:
    """sys.exit in a plugin, or an exception whose str() raises, fails only that pod with a message naming it."""
    result = run(tmp_path, registry, {point: [plugin.name]}, 2, 2, plugin)
    assert [(p.phase, p.message) for p in result.pods] == [("Pending", message), ("Bound", "")]


class InterruptInFilter(Plugin):
    """Filter: a Ctrl-C arrives while the plugin runs."""

    name = "InterruptInFilter"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise KeyboardInterrupt


def test_ctrl_c_in_a_plugin_still_stops_the_run(registry: PluginRegistry, tmp_path: Path) -> None:
    """KeyboardInterrupt is not a plugin error: it ends the run."""
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, registry, {"filter": ["InterruptInFilter"]}, 1, 1, InterruptInFilter)


def test_plugin_error_event_names_point_plugin_pod_node_and_frames(registry: PluginRegistry, tmp_path: Path) -> None:
    """A plugin error is an event naming the extension point, plugin, pod, node and the innermost frames."""
    result = run(tmp_path, registry, {"filter": ["ExitInFilter"]}, 1, 1, ExitInFilter)
    event = next(e for e in result.events if e.reason == "PluginError")
    assert (event.type, event.object) == ("Warning", "default/p0")
    assert event.message.startswith('Filter plugin "ExitInFilter" on pod default/p0, node n0: SystemExit: 3 (at ')
    assert "tests/sim/test_keeps_going.py:" in event.message
    assert "in filter)" in event.message


def test_plugin_errors_are_summarised_once_per_plugin(registry: PluginRegistry, tmp_path: Path) -> None:
    """The result lists each failing plugin once, with how often it failed and its first failure."""
    result = run(tmp_path, registry, {"filter": ["ExitInFilter"]}, 1, 1, ExitInFilter)
    assert len(result.plugin_errors) == MAX_ERROR_RETRIES
    assert result.plugin_error_summary() == [
        f'Filter plugin "ExitInFilter" failed {MAX_ERROR_RETRIES} time(s) on 1 pod(s); first: '
        + result.plugin_errors[0].describe()]


class SlowScore(Plugin):
    """Score: takes 30 ms per call."""

    name = "SlowScore"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        time.sleep(0.03)
        return 0


def test_a_plugin_over_the_call_budget_is_named_in_a_warning(registry: PluginRegistry, tmp_path: Path) -> None:
    """With plugin-call-budget-ms set, a slow Score plugin is named in a warning with its slowest call."""
    result = run(tmp_path, registry, {"score": ["SlowScore"]}, 2, 1, SlowScore,
                 settings="plugin-call-budget-ms = 10\n")
    slow = [w for w in result.warnings if "SlowScore" in w]
    assert len(slow) == 1
    assert slow[0].startswith('Score plugin "SlowScore" exceeded the plugin call budget of 10 ms in 2 call(s); '
                              "slowest: ")
    assert slow[0].endswith(" on pod default/p0, node n0") or slow[0].endswith(" on pod default/p0, node n1")


def test_without_a_call_budget_slow_plugins_are_not_reported(registry: PluginRegistry, tmp_path: Path) -> None:
    """No budget, no timing: a slow plugin draws no warning."""
    result = run(tmp_path, registry, {"score": ["SlowScore"]}, 2, 1, SlowScore)
    assert not [w for w in result.warnings if "SlowScore" in w]


def test_a_run_that_cannot_settle_names_the_cycling_pods_and_keeps_the_result(
        registry: PluginRegistry, tmp_path: Path) -> None:
    """Hitting the attempt bound raises an error naming the pods still cycling and their last messages; the
    partial result travels with it."""
    extended = registry.with_plugins(RefuseBind)
    config = load_config(str(profile(tmp_path, {"bind": ["RefuseBind"]})), extended)
    cluster = ClusterInput(nodes=(make_node("n0").capacity(cpu="2").obj(),),
                           pods=tuple(make_pod(f"p{i}").req(cpu="1").obj() for i in range(2)))
    with pytest.raises(SimulationError) as raised:
        Simulation(cluster, config, extended).run(max_attempts=4)
    assert str(raised.value) == (
        "the simulation did not settle after 4 scheduling attempts; pods still being retried: "
        'default/p0 (3 attempts, last: "running Bind plugin \\"RefuseBind\\": storage backend refused the '
        'attachment"), default/p1 (2 attempts, last: "running Bind plugin \\"RefuseBind\\": storage backend '
        'refused the attachment")')
    partial = raised.value.result
    assert partial is not None
    assert [p.name for p in partial.pods] == ["p0", "p1"]


@pytest.mark.parametrize(("value", "message"), [
    ("0", "Invalid value: 0: must be greater than 0"),
    ('"10"', 'Invalid value: "10": must be a number of milliseconds'),
])
def test_plugin_call_budget_must_be_a_positive_number(registry: PluginRegistry, tmp_path: Path, value: str,
                                                      message: str) -> None:
    """plugin-call-budget-ms takes a positive number of milliseconds; anything else is a profile error."""
    from kubesched.errors import ProfileError

    path = write(tmp_path / "p.toml", f"plugin-call-budget-ms = {value}\n[[profiles]]\n")
    with pytest.raises(ProfileError, match="plugin-call-budget-ms") as raised:
        load_config(str(path), registry)
    assert message in str(raised.value)


class HoldForever(Plugin):
    """Permit: every pod waits 10 s, and nothing ever allows it."""

    name = "HoldForever"

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait("hold"), 10.0


def test_pods_that_keep_timing_out_on_permit_do_not_wake_each_other_forever(
        registry: PluginRegistry, tmp_path: Path) -> None:
    """Each dropped reservation wakes the pods refused while it was held, but once between cluster changes."""
    result = run(tmp_path, registry, {"permit": ["HoldForever"]}, 1, 2, HoldForever)
    assert [p.phase for p in result.pods] == ["Pending", "Pending"]
    assert all("rejected due to timeout after waiting 10s at plugin HoldForever" in p.message for p in result.pods)

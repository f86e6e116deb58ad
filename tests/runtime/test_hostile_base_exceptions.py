"""Specification of plugins that raise a BaseException: anything but KeyboardInterrupt (GeneratorExit, a custom
subclass, SystemExit) fails only the pod being scheduled, as that plugin's error, at every extension point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write


def run_with(tmp_path: Path, registry: PluginRegistry, plugin: type[Plugin], key: str, *, settings: str = "",
             pods: int = 2) -> SimulationResult:
    """Simulate ``pods`` 1-cpu pods on two 2-cpu nodes, the default profile with ``plugin`` added at ``key``."""
    extended = registry.with_plugins(plugin)
    text = f'{settings}[[profiles]]\n[profiles.plugins.{key}]\nenabled = [{{ name = "{plugin.name}" }}]\n'
    config = load_config(str(write(tmp_path / "p.toml", text)), extended)
    cluster = ClusterInput(nodes=tuple(make_node(f"n{i}").capacity(cpu="2").obj() for i in range(2)),
                           pods=tuple(make_pod(f"p{i}").req(cpu="1").obj() for i in range(pods)))
    return simulate(cluster, config, extended)


class Abandoned(BaseException):
    """A custom BaseException that is not an Exception."""


def raising(point: str, hook: str, exc: type[BaseException], result: Any = None) -> type[Plugin]:
    """A plugin whose ``hook`` raises ``exc("gone")`` for pod p0 and returns ``result`` for the others."""
    def body(self: Plugin, state: Any, pod: Pod) -> Any:  # a subset of every point's parameters, as pluggy allows
        if pod.name == "p0":
            raise exc("gone")
        return result

    name = f"Raise{exc.__name__}In{point}"
    body.__name__, body.__qualname__ = hook, f"{name}.{hook}"  # a method, as pluggy tells them
    return type(name, (Plugin,), {"name": name, hook: hookimpl(body)})


POINTS = [
    ("PreFilter", "pre-filter", "pre_filter", None, 'running PreFilter plugin "{name}": {exc}: gone'),
    ("Filter", "filter", "filter", None, 'running "{name}" filter plugin: {exc}: gone'),
    ("PreScore", "pre-score", "pre_score", None, 'running PreScore plugin "{name}": {exc}: gone'),
    ("Score", "score", "score", 0, 'running Score plugins: plugin "{name}" failed with: {exc}: gone'),
    ("Reserve", "reserve", "reserve", None, 'running Reserve plugin "{name}": {exc}: gone'),
    ("Permit", "permit", "permit", (None, 0.0), 'running Permit plugin "{name}": {exc}: gone'),
    ("PreBind", "pre-bind", "pre_bind", None, 'running PreBind plugin "{name}": {exc}: gone'),
]


@pytest.mark.parametrize("exc", [
    pytest.param(GeneratorExit, id="generator-exit"),
    pytest.param(Abandoned, id="custom-base-exception"),
    pytest.param(SystemExit, id="system-exit"),
])
@pytest.mark.parametrize(("point", "key", "hook", "result", "message"),
                         [pytest.param(*p, id=p[0]) for p in POINTS])
def test_a_base_exception_fails_only_its_pod_as_that_plugins_error(
        registry: PluginRegistry, tmp_path: Path, exc: type[BaseException], point: str, key: str, hook: str,
        result: Any, message: str) -> None:
    """The pod whose hook raised stays Pending with the plugin's error; the next pod is bound."""
    plugin = raising(point, hook, exc, result)
    outcome = run_with(tmp_path, registry, plugin, key)
    assert [(p.phase, p.message) for p in outcome.pods] == [
        ("Pending", message.format(name=plugin.name, exc=exc.__name__)), ("Bound", "")]


def test_keyboard_interrupt_still_ends_the_run(registry: PluginRegistry, tmp_path: Path) -> None:
    """KeyboardInterrupt is the one BaseException not contained: a real Ctrl-C stops the run."""
    plugin = raising("Score", "score", KeyboardInterrupt, 0)
    with pytest.raises(KeyboardInterrupt):
        run_with(tmp_path, registry, plugin, "score")

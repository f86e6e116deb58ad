"""Specification of plugins that change the pod they are handed (``object.__setattr__`` on its frozen objects):
the change is undone and the attempt fails, so no decision rests on a changed pod; with check-plugin-inputs
(``simulate --strict``) the plugin is named, as that plugin's error for that pod."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.api.meta import EMPTY_MAP
from kubesched.api.pod import Pod
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write


class ZeroRequests(Plugin):
    """PreFilter: rewrites the pod's container requests to nothing, through object.__setattr__."""

    name = "ZeroRequests"

    @hookimpl
    def pre_filter(self, state: Any, pod: Pod) -> None:
        for container in pod.spec.containers:
            object.__setattr__(container, "requests", EMPTY_MAP)


def sharing_pods(count: int) -> tuple[Pod, ...]:
    """``count`` pods of 500m CPU sharing one spec, as decoded copies of one template do."""
    template = make_pod("web-0").req(cpu="500m").obj()
    return tuple(attrs.evolve(template, metadata=attrs.evolve(template.metadata, name=f"web-{i}", uid=f"uid-{i}"))
                 for i in range(count))


def run(tmp_path: Path, registry: PluginRegistry, pods: tuple[Pod, ...], *, strict: bool) -> SimulationResult:
    """The pods on one 2-CPU node, the default profile with ZeroRequests added at PreFilter."""
    extended = registry.with_plugins(ZeroRequests)
    text = '[[profiles]]\n[profiles.plugins.pre-filter]\nenabled = [{ name = "ZeroRequests" }]\n'
    config = load_config(str(write(tmp_path / "p.toml", text)), extended)
    if strict:
        config = attrs.evolve(config, settings=attrs.evolve(config.settings, check_plugin_inputs=True))
    cluster = ClusterInput(nodes=(make_node("n0").capacity(cpu="2").obj(),), pods=pods)
    return simulate(cluster, config, extended)


@pytest.mark.parametrize(("strict", "message"), [
    pytest.param(False, 'a plugin changed pod "default/web-0" during its scheduling cycle (Container.requests); the '
                        "change was undone (--strict names the plugin)", id="checked-after-the-cycle"),
    pytest.param(True, 'running PreFilter plugin "ZeroRequests": changed the pod it was given (Container.requests); '
                       "the change was undone", id="strict-names-the-plugin"),
])
def test_a_pod_changed_by_a_plugin_is_not_placed(registry: PluginRegistry, tmp_path: Path, strict: bool,
                                                 message: str) -> None:
    """Eleven pods sharing a spec that a PreFilter zeroes are not piled onto the 2-CPU node: each attempt fails
    with the change named, and the pods stay Pending."""
    result = run(tmp_path, registry, sharing_pods(11), strict=strict)
    assert {p.phase for p in result.pods} == {"Pending"}
    assert result.pods[0].message == message


@pytest.mark.parametrize("strict", [pytest.param(False, id="checked-after-the-cycle"),
                                    pytest.param(True, id="strict")])
def test_the_changed_field_is_put_back(registry: PluginRegistry, tmp_path: Path, strict: bool) -> None:
    """After the run the shared spec holds its requests again, as decoded."""
    pods = sharing_pods(3)
    run(tmp_path, registry, pods, strict=strict)
    assert str(pods[0].spec.containers[0].requests["cpu"]) == "500m"


def test_strict_reports_the_change_as_a_plugin_error(registry: PluginRegistry, tmp_path: Path) -> None:
    """Under check-plugin-inputs the change is a plugin error naming the plugin (what --strict exits 1 on)."""
    result = run(tmp_path, registry, sharing_pods(1), strict=True)
    assert {(f.point, f.plugin) for f in result.plugin_errors} == {("PreFilter", "ZeroRequests")}

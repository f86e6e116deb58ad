"""Specification of plugin validation and discovery."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api.pod import Pod
from kubesched.errors import PluginError
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.plugin import hookimpl
from kubesched.runtime._registry import PluginRegistry, PluginSpec, validate_plugin_class
from tests.framework.fakes import FilterScore


class Good(FilterScore):
    name = "Good"


def test_valid_plugin_lists_its_extension_points() -> None:
    """A valid plugin is described by its extension points, in framework order."""
    spec = validate_plugin_class(Good, "Good", "acme-plugins", "1.2")
    assert [p.name for p in spec.points] == ["Filter", "Score"]
    assert spec.source == "acme-plugins 1.2"


def _plugin(name: str, **members: Any) -> type[Any]:
    return type(name, (), {"name": name, **members})


def _filter(self: Any, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
    return None


def _typo(self: Any, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
    return None


def _wrong_args(self: Any, state: CycleState, pod: Pod, node: NodeInfo) -> None:
    return None


def _normalize(self: Any, state: CycleState, pod: Pod, scores: list[Any]) -> None:
    return None


for function in (_filter, _typo, _wrong_args, _normalize):
    function.__qualname__ = f"Plugin.{function.__name__}"  # methods, so pluggy drops ``self``


@pytest.mark.parametrize(("cls", "message"), [
    (_plugin("X", filter=hookimpl(_filter)), "plugin 'Y' (from acme): the entry point is named 'Y' but the class "
                                             "says name = 'X'"),
    (type("NoName", (), {"filter": hookimpl(_filter)}), "plugin 'Y' (from acme): class NoName has no 'name' "
                                                        "attribute"),
    (_plugin("Y"), "plugin 'Y' (from acme): implements no extension point (no method is marked with "
                   "kubesched.hookimpl)"),
    (_plugin("Y", normalize_score=hookimpl(_normalize)), "plugin 'Y' (from acme): normalize_score requires score: "
                                                         "it extends the Score extension point"),
    (_plugin("Y", filter=hookimpl(_filter), Args=dict), "plugin 'Y' (from acme): Args must be an attrs class"),
], ids=["name-mismatch", "no-name", "no-hooks", "companion-alone", "args-not-attrs"])
def test_invalid_plugins_are_rejected_with_the_reason(cls: type[Any], message: str) -> None:
    """Each contract violation is an error naming the plugin, its distribution and the problem."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(cls, "Y", "acme")
    assert str(info.value) == message


def test_unknown_hook_name_is_rejected() -> None:
    """A marked method that is no hook (a typo) is rejected through pluggy's check."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(_plugin("Y", filtre=hookimpl(_typo)), "Y", "acme")
    assert str(info.value) == "plugin 'Y' (from acme): unknown hook 'filtre' (did you mean 'filter'?)"


def test_argument_not_in_hookspec_is_rejected() -> None:
    """A hook argument the hookspec does not have is rejected, naming the argument."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(_plugin("Y", filter=hookimpl(_wrong_args)), "Y", "acme")
    assert str(info.value) == ("plugin 'Y' (from acme): hook 'filter': Argument(s) {'node'} are declared in the "
                               "hookimpl but can not be found in the hookspec (the hookspec takes: state, pod, "
                               "node_info)")


def test_duplicate_names_are_an_error_naming_both_sources() -> None:
    """Two different plugins with one name cannot both be registered."""
    registry = PluginRegistry([PluginSpec("Good", Good, "one", "1.0")])
    other = type("Good", (Good,), {})
    with pytest.raises(PluginError, match=r"plugin 'Good' \(from two\): duplicate plugin name: provided by both "
                                          r"one 1.0 and two 2.0"):
        registry.add(PluginSpec("Good", other, "two", "2.0"))


def test_builtins_are_discovered_through_entry_points() -> None:
    """Built-in plugins come from the kubesched.plugins entry-point group and report "builtin"."""
    registry = PluginRegistry.discover()
    for name in ("PrioritySort", "NodeResourcesFit", "TaintToleration", "NodeAffinity", "DefaultBinder"):
        assert registry[name].source == "builtin"


def test_suggest_offers_the_closest_name() -> None:
    """Unknown names get a did-you-mean hint."""
    assert PluginRegistry.discover().suggest("NodeResourceFit") == " (did you mean 'NodeResourcesFit'?)"


def test_args_class_is_exposed() -> None:
    """A plugin's attrs Args class is part of its description."""
    @attrs.frozen
    class Args:
        limit: int = 3

    cls = _plugin("Y", filter=hookimpl(_filter), Args=Args)
    assert validate_plugin_class(cls, "Y").args_class is Args

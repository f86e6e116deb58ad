"""Specification of plugin validation and discovery."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api.pod import Pod
from kubesched.errors import PluginError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import hookimpl
from kubesched.runtime import PluginRegistry, PluginSpec, validate_plugin_class
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
    """A hook argument the hookspec does not have is rejected, naming the argument and the closest name."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(_plugin("Y", filter=hookimpl(_wrong_args)), "Y", "acme")
    assert str(info.value) == ("plugin 'Y' (from acme): hook 'filter': parameter 'node' is not in the hookspec "
                               "(did you mean 'node_info'?) (the hookspec takes: state, pod, node_info)")


def _keyword_only(self: Any, state: CycleState, pod: Pod, *, node_info: NodeInfo) -> None:
    return None


def _defaulted(self: Any, state: CycleState, pod: Pod, node_info: NodeInfo | None = None) -> None:
    return None


def _var_positional(self: Any, *args: Any) -> None:
    return None


def _var_keyword(self: Any, state: CycleState, **kwargs: Any) -> None:
    return None


def _positional_only(self: Any, state: CycleState, /, pod: Pod) -> None:
    return None


for odd in (_keyword_only, _defaulted, _var_positional, _var_keyword, _positional_only):
    odd.__qualname__ = f"Plugin.{odd.__name__}"

_TAKES = "(the hookspec takes: state, pod, node_info)"


@pytest.mark.parametrize(("function", "problem"), [
    (_keyword_only, "parameter 'node_info' is keyword-only: hook parameters are plain positional ones"),
    (_defaulted, "parameter 'node_info' has a default: hook parameters take none (pluggy would never pass a "
                 "parameter with a default, so the hook would always see the default)"),
    (_var_positional, f"*args is not allowed: name the parameters you use {_TAKES}"),
    (_var_keyword, f"**kwargs is not allowed: name the parameters you use {_TAKES}"),
    (_positional_only, "parameter 'state' is positional-only: hook parameters are passed by name"),
], ids=["keyword-only", "default", "var-positional", "var-keyword", "positional-only"])
def test_hook_parameters_must_be_plain_hookspec_names(function: Any, problem: str) -> None:
    """Keyword-only, defaulted, positional-only, *args and **kwargs parameters are rejected at registration,
    naming the plugin and the hook."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(_plugin("Y", filter=hookimpl(function)), "Y", "acme")
    assert str(info.value) == f"plugin 'Y' (from acme): hook 'filter': {problem}"


def test_every_parameter_problem_is_reported_at_once() -> None:
    """Problems in several hooks are reported together, in hook-name order."""
    cls = _plugin("Y", filter=hookimpl(_keyword_only), score=hookimpl(_defaulted))
    with pytest.raises(PluginError) as info:
        validate_plugin_class(cls, "Y")
    assert str(info.value).count("hook 'filter': ") == 1
    assert str(info.value).index("hook 'filter': ") < str(info.value).index("hook 'score': ")


def test_a_subset_of_the_hookspec_parameters_in_any_order_is_accepted() -> None:
    """A hook may name only the parameters it uses, in any order."""
    def score(self: Any, node_info: NodeInfo, pod: Pod) -> int:
        return 0

    score.__qualname__ = "Plugin.score"
    spec = validate_plugin_class(_plugin("Y", score=hookimpl(score)), "Y")
    assert [p.name for p in spec.points] == ["Score"]


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


def _marked(**options: Any) -> type[Any]:
    """A Filter plugin whose filter carries the given hookimpl options."""

    def filter(self: Any, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        return None

    filter.__qualname__ = "Marked.filter"
    return type("Marked", (), {"name": "Marked", "filter": hookimpl(**options)(filter)})


@pytest.mark.parametrize(("options", "why"), [
    pytest.param({"wrapper": True}, "wrapper=True is not supported (wrappers are not run", id="wrapper"),
    pytest.param({"hookwrapper": True}, "hookwrapper=True is not supported (wrappers are not run",
                 id="hookwrapper"),
    pytest.param({"tryfirst": True}, "tryfirst=True is not supported (the profile's plugin order decides",
                 id="tryfirst"),
    pytest.param({"trylast": True}, "trylast=True is not supported (the profile's plugin order decides",
                 id="trylast"),
    pytest.param({"specname": "filter"}, "specname='filter' is not supported (hooks are found by method name",
                 id="specname"),
])
def test_pluggy_options_the_runtime_does_not_honour_are_refused(options: dict[str, Any], why: str) -> None:
    """Registration refuses a hookimpl option the framework would silently ignore, naming plugin, hook and option."""
    with pytest.raises(PluginError) as refused:
        validate_plugin_class(_marked(**options), "Marked")
    assert str(refused.value).startswith("plugin 'Marked': hook 'filter': hookimpl option ")
    assert why in str(refused.value)


def test_the_bare_marker_and_false_options_are_accepted() -> None:
    """``@hookimpl`` alone, or with the options explicitly off, registers."""
    assert validate_plugin_class(_marked(), "Marked").name == "Marked"
    assert validate_plugin_class(_marked(tryfirst=False, wrapper=False), "Marked").name == "Marked"

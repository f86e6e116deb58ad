"""docs/plugins-reference.md documents every built-in plugin as the code defines it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

import attrs
import pytest

from kubesched.framework._plugin import extension_points
from kubesched.profiles.defaults import DEFAULT_MULTI_POINT
from kubesched.runtime import PluginEntry, PluginRegistry, PluginSpec
from tests.conftest import REPO

REFERENCE = (REPO / "docs" / "plugins-reference.md").read_text(encoding="utf-8")
BUILTINS = sorted(name for name, spec in PluginRegistry.discover().items() if spec.source == "builtin")


def section(plugin: str) -> str:
    """The text under ``## <plugin>`` up to the next heading of that level."""
    match = re.search(rf"^## {plugin}\n(.*?)(?=^## |\Z)", REFERENCE, flags=re.S | re.M)
    assert match, f"docs/plugins-reference.md has no section for {plugin}"
    return match.group(1)


def spec_of(plugin: str) -> PluginSpec:
    return PluginRegistry.discover()[plugin]


def modules_of(plugin: str) -> list[ModuleType]:
    """The plugin's module, or every module of its package."""
    module = importlib.import_module(spec_of(plugin).cls.__module__)
    package_name = module.__name__.rpartition(".")[0]
    package = importlib.import_module(package_name)
    if package_name == "kubesched.plugins":
        return [module]
    return [importlib.import_module(f"{package_name}.{m.name}") for m in pkgutil.iter_modules(package.__path__)]


def test_every_builtin_plugin_is_documented_in_default_order() -> None:
    """Every built-in has a section; the sections follow kube-scheduler's default order."""
    headings = re.findall(r"^## (\w+)$", REFERENCE, flags=re.M)
    assert sorted(headings) == BUILTINS
    default_order = [entry.name for entry in DEFAULT_MULTI_POINT]
    assert [h for h in headings if h in default_order] == default_order


@pytest.mark.parametrize("plugin", BUILTINS)
def test_extension_points_match_the_code(plugin: str) -> None:
    """The section's ``Extension points:`` line lists what the plugin class implements."""
    points = ", ".join(p.name for p in extension_points(spec_of(plugin).cls) if p.name != "NormalizeScore")
    assert f"Extension points: {points}." in section(plugin)


@pytest.mark.parametrize("plugin", BUILTINS)
def test_every_args_key_is_documented(plugin: str) -> None:
    """Each top-level args key appears (kebab-case, in backticks); plugins without args say so."""
    args_class = spec_of(plugin).args_class
    text = section(plugin)
    if args_class is None:
        assert "No args." in text
        return
    for field in attrs.fields(args_class):
        assert f"`{field.name.replace('_', '-')}`" in text, field.name


@pytest.mark.parametrize("plugin", BUILTINS)
def test_every_reason_constant_is_documented(plugin: str) -> None:
    """Each ``ERR_REASON*`` string the plugin defines appears in its section."""
    reasons = [value for module in modules_of(plugin) for name, value in vars(module).items()
               if name.startswith("ERR_REASON") and isinstance(value, str)]
    for reason in reasons:
        assert f"`{reason}`" in section(plugin), reason


@pytest.mark.parametrize("entry", DEFAULT_MULTI_POINT, ids=lambda e: e.name)
def test_summary_table_gives_default_weights(entry: PluginEntry) -> None:
    """The summary table's weight column is the default profile's."""
    name, weight = entry.name, entry.weight
    row = re.search(rf"^\| {name} \|\s*([0-9]*)\s*\|", REFERENCE, flags=re.M)
    assert row, name
    assert row.group(1) == (str(weight) if weight else "")

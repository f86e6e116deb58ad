"""Plugin discovery through the ``kubesched.plugins`` entry-point group, with contract validation.

Built-in plugins register through the same group as third-party ones; a plugin from the ``kubesched``
distribution is reported as ``builtin``. Discovery lists the entry points without importing them: a plugin's
module runs only when something looks the plugin up (a profile naming it, ``kubesched plugins``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
import importlib_metadata
import pluggy

from kubesched.errors import PluginError
from kubesched.framework import _hookspecs as hookspecs
from kubesched.framework._args import mutable_fields
from kubesched.framework._hookspecs import (
    BATCH_FORMS,
    EXTENSION_POINTS,
    HOOK_NAMES,
    PROJECT_NAME,
    ExtensionPoint,
    parameter_problems,
)
from kubesched.framework._plugin import extension_points, marked_hooks
from kubesched.validation import did_you_mean

ENTRY_POINT_GROUP = "kubesched.plugins"
BUILTIN_DISTRIBUTION = "kubesched"


@attrs.frozen
class PluginSpec:
    """A discovered plugin class and where it came from."""

    name: str
    cls: type[Any]
    distribution: str | None = None
    version: str | None = None
    points: tuple[ExtensionPoint, ...] = ()

    @property
    def source(self) -> str:
        """``builtin`` for kubesched's own plugins, else ``<distribution> <version>``."""
        if self.distribution is None or self.distribution == BUILTIN_DISTRIBUTION:
            return "builtin"
        return f"{self.distribution} {self.version}" if self.version else self.distribution

    @property
    def args_class(self) -> type[Any] | None:
        """The plugin's attrs ``Args`` class, if it takes args."""
        return getattr(self.cls, "Args", None)

    def implements(self, point: ExtensionPoint) -> bool:
        """Whether the plugin implements ``point``."""
        return point in self.points


def new_plugin_manager() -> pluggy.PluginManager:
    """A pluggy manager that knows kubesched's hookspecs."""
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    return manager


#: pluggy's hookimpl options the runtime does not honour: it calls each profile's hooks itself, in profile order, one
#: plain call per plugin (no wrappers, no reordering, no other method name).
UNHONOURED_OPTIONS = {
    "wrapper": "wrappers are not run: the framework calls each plugin's hook directly, in profile order",
    "hookwrapper": "wrappers are not run: the framework calls each plugin's hook directly, in profile order",
    "tryfirst": "the profile's plugin order decides when a hook runs; reorder the plugins in the profile",
    "trylast": "the profile's plugin order decides when a hook runs; reorder the plugins in the profile",
    "specname": "hooks are found by method name: name the method after the hook",
}


def option_problems(cls: type[Any], hook: str) -> list[str]:
    """Why ``hook``'s ``@hookimpl(...)`` options on ``cls`` cannot be honoured: one line per option set."""
    options = getattr(getattr(cls, hook, None), f"{PROJECT_NAME}_impl", None)
    if not isinstance(options, Mapping):
        return []
    return [f"hookimpl option {option}={options[option]!r} is not supported ({why})"
            for option, why in UNHONOURED_OPTIONS.items() if options.get(option)]


def validate_plugin_class(cls: Any, name: str, distribution: str | None = None,
                          version: str | None = None) -> PluginSpec:
    """Check a plugin class against the contract and describe it; raise :class:`PluginError` if broken."""
    def fail(message: str) -> PluginError:
        return PluginError(message, plugin=name, distribution=distribution)

    if not isinstance(cls, type):
        raise fail(f"the entry point must name a class, got {type(cls).__name__}")
    declared = getattr(cls, "name", None)
    if not isinstance(declared, str) or not declared:
        raise fail(f"class {cls.__qualname__} has no 'name' attribute")
    if declared != name:
        raise fail(f"the entry point is named {name!r} but the class says name = {declared!r}")
    args_class = getattr(cls, "Args", None)
    if args_class is not None and not attrs.has(args_class):
        raise fail("Args must be an attrs class")
    if args_class is not None and (mutable := mutable_fields(args_class)):
        raise fail("; ".join(mutable))
    hooks = marked_hooks(cls)
    if not hooks:
        raise fail("implements no extension point (no method is marked with kubesched.hookimpl)")
    for point in EXTENSION_POINTS:
        for companion in point.companions:
            if companion in hooks and point.hook not in hooks:
                raise fail(f"{companion} requires {point.hook}: it extends the {point.name} extension point")
    for batch, per_node in BATCH_FORMS.items():
        if batch in hooks and per_node not in hooks:
            raise fail(f"{batch} requires {per_node}: a batch form stands beside its per-node hook")
    for hook in sorted(hooks - HOOK_NAMES):
        raise fail(f"unknown hook {hook!r}{did_you_mean(hook, HOOK_NAMES)}")
    options = [f"hook {hook!r}: {problem}" for hook in sorted(hooks) for problem in option_problems(cls, hook)]
    if options:
        raise fail("; ".join(options))
    problems = [f"hook {hook!r}: {problem}" for hook in sorted(hooks)
                for problem in parameter_problems(hook, getattr(cls, hook))]
    if problems:
        raise fail("; ".join(problems))
    manager = new_plugin_manager()
    try:
        manager.register(cls, name=name)
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        # pluggy explains over several lines; keep its last line (the reason) and name the hook.
        reason = str(exc).strip().splitlines()[-1]
        hook = next((h for h in sorted(hooks) if f"hook '{h}'" in str(exc)), "")
        spec_args = ", ".join(getattr(manager.hook, hook).spec.argnames) if hook else ""
        where = f"hook {hook!r}: " if hook else ""
        expected = f" (the hookspec takes: {spec_args})" if spec_args else ""
        raise fail(f"{where}{reason}{expected}") from None
    return PluginSpec(name, cls, distribution, version, tuple(extension_points(cls)))


@attrs.frozen
class _Listed:
    """An entry point discovered but not yet imported: its plugin name, target and distribution."""

    name: str
    value: str
    entry_point: Any
    distribution: str | None
    version: str | None

    @property
    def source(self) -> str:
        """As :attr:`PluginSpec.source` says it."""
        return PluginSpec(self.name, object, self.distribution, self.version).source

    def load(self) -> PluginSpec:
        """Import the plugin's module and validate its class; PluginError naming the plugin if either fails."""
        try:
            loaded = self.entry_point.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a module that raises or exits on import is a broken plugin
            raise PluginError(f"cannot import {self.value}: {type(exc).__name__}: {exc}", plugin=self.name,
                              distribution=self.distribution) from None
        return validate_plugin_class(loaded, self.name, self.distribution, self.version)


class PluginRegistry(Mapping[str, PluginSpec]):
    """Plugins by name; a discovered plugin is imported and validated the first time it is looked up."""

    def __init__(self, specs: Iterable[PluginSpec] = ()) -> None:
        self._specs: dict[str, PluginSpec] = {}
        self._listed: dict[str, _Listed] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: PluginSpec) -> None:
        """Register a plugin; a second plugin with the same name is an error naming both sources."""
        existing = self.get(spec.name)  # a listed one is imported to compare
        if existing is not None and existing.cls is not spec.cls:
            _duplicate(spec.name, existing, spec)
        self._specs[spec.name] = spec

    def _list(self, entry: _Listed) -> None:
        """Register a discovered entry point without importing it; a second one of that name is an error."""
        existing: _Listed | PluginSpec | None = self._listed.get(entry.name) or self._specs.get(entry.name)
        if existing is None:
            self._listed[entry.name] = entry
        elif not isinstance(existing, _Listed) or existing.value != entry.value:
            _duplicate(entry.name, existing, entry)
        # else: the same distribution visible twice on sys.path; the first one found stays

    @classmethod
    def of(cls, *plugin_classes: type[Any]) -> PluginRegistry:
        """A registry of plugin classes given directly (tests, embedding)."""
        return cls(validate_plugin_class(c, getattr(c, "name", c.__name__)) for c in plugin_classes)

    @classmethod
    def discover(cls, group: str = ENTRY_POINT_GROUP) -> PluginRegistry:
        """Every plugin registered in the entry-point group, listed without importing it: each is imported and
        validated when first looked up."""
        registry = cls()
        for entry_point in importlib_metadata.entry_points(group=group):
            dist = entry_point.dist
            registry._list(_Listed(entry_point.name, entry_point.value, entry_point,
                                   dist.name if dist is not None else None, dist.version if dist is not None else None))
        return registry

    def with_plugins(self, *plugin_classes: type[Any]) -> PluginRegistry:
        """A copy with extra plugin classes added."""
        merged = PluginRegistry(self._specs.values())
        merged._listed = dict(self._listed)
        for spec in PluginRegistry.of(*plugin_classes).values():
            merged.add(spec)
        return merged

    def suggest(self, name: str) -> str:
        """A did-you-mean hint for an unknown plugin name."""
        return did_you_mean(name, list(self))

    def loaded(self) -> tuple[str, ...]:
        """The names of the plugins imported so far, sorted (what a run may have executed code of)."""
        return tuple(sorted(self._specs))

    def __getitem__(self, name: str) -> PluginSpec:
        spec = self._specs.get(name)
        if spec is None:
            listed = self._listed[name]  # KeyError for a name nobody registered
            spec = self._specs[name] = listed.load()
            del self._listed[name]
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs or name in self._listed

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._specs, *self._listed}))

    def __len__(self) -> int:
        return len(self._specs) + len(self._listed)


def _duplicate(name: str, first: PluginSpec | _Listed, second: PluginSpec | _Listed) -> None:
    """Raise the duplicate-name error, naming the sources in a stable order (built-ins first) whatever the
    discovery order was."""
    one, other = sorted((first, second), key=lambda s: (s.source != "builtin", s.source))
    raise PluginError(f"duplicate plugin name: provided by both {one.source} and {other.source}",
                      plugin=name, distribution=other.distribution or BUILTIN_DISTRIBUTION)


def load_plugin_class(name: str, group: str = ENTRY_POINT_GROUP) -> tuple[type[Any], str | None, str | None]:
    """The class registered as ``name`` in the entry-point group, with its distribution and version, loaded
    without contract validation (so a tool can report what is wrong with it); PluginError if there is none."""
    found = [ep for ep in importlib_metadata.entry_points(group=group) if ep.name == name]
    if not found:
        names = sorted({ep.name for ep in importlib_metadata.entry_points(group=group)})
        raise PluginError(f"no installed plugin has this name{did_you_mean(name, names)}; installed: "
                          f"{', '.join(names)}", plugin=name)
    entry_point = found[0]
    dist = entry_point.dist
    dist_name = dist.name if dist is not None else None
    try:
        loaded = entry_point.load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a module that raises or exits on import is a broken plugin too
        raise PluginError(f"cannot import {entry_point.value}: {type(exc).__name__}: {exc}", plugin=name,
                          distribution=dist_name) from None
    if not isinstance(loaded, type):
        raise PluginError(f"the entry point must name a class, got {type(loaded).__name__}", plugin=name,
                          distribution=dist_name)
    return loaded, dist_name, dist.version if dist is not None else None

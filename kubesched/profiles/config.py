"""Profile files: parse the TOML, merge each profile onto the default plugin set, validate, resolve.

Merging follows KubeSchedulerConfiguration exactly: per extension point the user's set is merged onto the
defaults (``"*"`` disables every default there, a re-enabled default keeps its position with the new
weight, new plugins are appended), then multi-point plugins expand into every point they implement.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.errors import ProfileError
from kubesched.framework.args import ArgsError, did_you_mean, structure, unstructure
from kubesched.framework.plugin import EXTENSION_POINTS, POINTS_BY_KEY, ExtensionPoint
from kubesched.profiles.defaults import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME
from kubesched.runtime import PluginEntry, PluginRegistry, Profile, SchedulerSettings

MULTI_POINT = "multi-point"
POINT_KEYS = (MULTI_POINT, *(p.key for p in EXTENSION_POINTS))
SETTINGS_KEYS = ("percentage-of-nodes-to-score", "pod-initial-backoff-seconds", "pod-max-backoff-seconds")
PROFILE_KEYS = ("scheduler-name", "percentage-of-nodes-to-score", "plugins", "plugin-config")


@attrs.frozen
class PluginSet:
    """``enabled`` and ``disabled`` at one extension point (disabled may hold ``"*"``)."""

    enabled: tuple[PluginEntry, ...] = ()
    disabled: tuple[str, ...] = ()


@attrs.frozen
class SchedulerConfiguration:
    """A validated profile file: scheduler settings and resolved profiles."""

    settings: SchedulerSettings
    profiles: tuple[Profile, ...]
    source: str = ""


# -- parsing ----------------------------------------------------------------------------------------
def _fail(message: str, key: str) -> ProfileError:
    return ProfileError(message, key=key)


def _check_keys(table: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
    for key in table:
        if key not in allowed:
            hint = did_you_mean(key, allowed) or f" (expected one of: {', '.join(allowed)})"
            raise _fail(f"unknown key{hint}", f"{path}.{key}" if path else key)


def _table(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(f"expected a table, got {type(value).__name__}", key)
    return value


def _int(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"expected an integer, got {value!r}", key)
    return value


def _parse_entries(value: object, key: str, *, allow_weight: bool) -> tuple[PluginEntry, ...]:
    if not isinstance(value, list):
        raise _fail("expected an array of tables like [{ name = \"X\" }]", key)
    entries = []
    for i, item in enumerate(value):
        item_key = f"{key}[{i}]"
        table = _table(item, item_key)
        _check_keys(table, ("name", "weight") if allow_weight else ("name",), item_key)
        name = table.get("name")
        if not isinstance(name, str) or not name:
            raise _fail("expected a plugin name (a non-empty string)", f"{item_key}.name")
        weight = None
        if "weight" in table:
            weight = _int(table["weight"], f"{item_key}.weight")
        entries.append(PluginEntry(name, weight))
    return tuple(entries)


def _parse_plugins(value: object, key: str) -> dict[str, PluginSet]:
    table = _table(value, key)
    _check_keys(table, POINT_KEYS, key)
    sets = {}
    for point, raw in table.items():
        point_key = f"{key}.{point}"
        point_table = _table(raw, point_key)
        _check_keys(point_table, ("enabled", "disabled"), point_key)
        enabled = _parse_entries(point_table.get("enabled", []), f"{point_key}.enabled", allow_weight=True)
        disabled = _parse_entries(point_table.get("disabled", []), f"{point_key}.disabled", allow_weight=False)
        sets[point] = PluginSet(enabled, tuple(e.name for e in disabled))
    return sets


@attrs.frozen
class _RawProfile:
    key: str
    scheduler_name: str
    percentage: int | None
    plugins: Mapping[str, PluginSet]
    plugin_config: Mapping[str, Any]


def _parse_profile(raw: object, key: str, default_name: str | None) -> _RawProfile:
    table = _table(raw, key)
    _check_keys(table, PROFILE_KEYS, key)
    name = table.get("scheduler-name", default_name)
    if not isinstance(name, str) or not name:
        raise _fail("Required value: every profile needs a scheduler-name", f"{key}.scheduler-name")
    percentage = None
    if "percentage-of-nodes-to-score" in table:
        percentage = _percentage(table["percentage-of-nodes-to-score"], f"{key}.percentage-of-nodes-to-score")
    plugins = _parse_plugins(table.get("plugins", {}), f"{key}.plugins")
    config = _table(table.get("plugin-config", {}), f"{key}.plugin-config")
    return _RawProfile(key, name, percentage, plugins, config)


def _percentage(value: object, key: str) -> int:
    number = _int(value, key)
    if not 0 <= number <= 100:
        raise _fail(f"Invalid value: {number}: not in valid range [0-100]", key)
    return number


def _parse_settings(document: Mapping[str, Any]) -> SchedulerSettings:
    percentage = _percentage(document.get("percentage-of-nodes-to-score", 0), "percentage-of-nodes-to-score")
    initial = _int(document.get("pod-initial-backoff-seconds", 1), "pod-initial-backoff-seconds")
    if initial <= 0:
        raise _fail(f"Invalid value: {initial}: must be greater than 0", "pod-initial-backoff-seconds")
    maximum = _int(document.get("pod-max-backoff-seconds", 10), "pod-max-backoff-seconds")
    if maximum < initial:
        raise _fail(f"Invalid value: {maximum}: must be greater than or equal to pod-initial-backoff-seconds",
                    "pod-max-backoff-seconds")
    return SchedulerSettings(percentage, float(initial), float(maximum))


# -- merging ----------------------------------------------------------------------------------------
def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """kube-scheduler's mergePluginSet: defaults minus disabled, re-enabled defaults replaced in place."""
    disabled = set(custom.disabled) | set(default.disabled)
    # The last occurrence of a name replaces the default; earlier duplicates are appended (and rejected later).
    custom_by_name = {e.name: (i, e) for i, e in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginEntry] = []
    if "*" not in custom.disabled:
        for entry in default.enabled:
            if entry.name in disabled:
                continue
            if entry.name in custom_by_name:
                index, custom_entry = custom_by_name[entry.name]
                enabled.append(custom_entry)
                replaced.add(index)
            else:
                enabled.append(entry)
    enabled.extend(e for i, e in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(tuple(enabled), tuple(custom.disabled) + tuple(default.disabled))


def _default_sets() -> dict[str, PluginSet]:
    return {MULTI_POINT: PluginSet(DEFAULT_MULTI_POINT)}


class _Resolver:
    """Validates one parsed profile against the registry and produces the effective Profile."""

    def __init__(self, raw: _RawProfile, registry: PluginRegistry) -> None:
        self.raw = raw
        self.registry = registry

    def _known(self, name: str, key: str) -> None:
        if name not in self.registry:
            raise _fail(f"unknown plugin {name!r}{self.registry.suggest(name)}", key)

    def _check_user_sets(self) -> None:
        for point_key, plugin_set in self.raw.plugins.items():
            base = f"{self.raw.key}.plugins.{point_key}"
            point = POINTS_BY_KEY.get(point_key)
            for i, entry in enumerate(plugin_set.enabled):
                key = f"{base}.enabled[{i}]"
                self._known(entry.name, f"{key}.name")
                spec = self.registry[entry.name]
                if point is not None and not spec.implements(point):
                    raise _fail(f"plugin {entry.name!r} does not implement the {point.name} extension point "
                                f"(it implements: {_point_names(spec.points)})", f"{key}.name")
                if point is None and not spec.points:
                    raise _fail(f"plugin {entry.name!r} implements no extension point", f"{key}.name")
                if entry.weight is not None:
                    self._check_weight(entry, spec.implements(POINTS_BY_KEY["score"]), point_key, f"{key}.weight")
            for i, name in enumerate(plugin_set.disabled):
                if name != "*":
                    self._known(name, f"{base}.disabled[{i}].name")

    @staticmethod
    def _check_weight(entry: PluginEntry, scores: bool, point_key: str, key: str) -> None:
        if point_key not in ("score", MULTI_POINT) or not scores:
            raise _fail(f"a weight only applies to Score plugins; {entry.name!r} is not a Score plugin"
                        if not scores else "a weight only applies at the score or multi-point extension point",
                        key)
        assert entry.weight is not None
        if not 0 < entry.weight <= 100:
            raise _fail(f"Invalid value: {entry.weight}: a weight must be in (0, 100]", key)

    def resolve(self) -> Profile:
        self._check_user_sets()
        merged = {key: merge_plugin_set(_default_sets().get(key, PluginSet()), self.raw.plugins.get(key, PluginSet()))
                  for key in POINT_KEYS}
        multi = merged[MULTI_POINT]
        points: dict[str, tuple[PluginEntry, ...]] = {}
        for point in EXTENSION_POINTS:
            points[point.key] = self._expand(point, merged[point.key], multi)
        weights: dict[str, int] = {}
        for entry in (*merged["score"].enabled, *multi.enabled):
            if entry.name in weights or not self.registry[entry.name].implements(POINTS_BY_KEY["score"]):
                continue
            weights[entry.name] = entry.weight or 1
        points["score"] = tuple(PluginEntry(e.name, weights[e.name]) for e in points["score"])
        self._check_counts(points)
        profile = Profile(self.raw.scheduler_name, points, percentage_of_nodes_to_score=self.raw.percentage)
        return attrs.evolve(profile, plugin_args=self._args(profile))

    def _expand(self, point: ExtensionPoint, specific: PluginSet, multi: PluginSet) -> tuple[PluginEntry, ...]:
        base = f"{self.raw.key}.plugins"
        specific_names = [e.name for e in specific.enabled]
        duplicates = {n for n in specific_names if specific_names.count(n) > 1}
        if duplicates:
            raise _fail(f"plugin {sorted(duplicates)[0]!r} is enabled twice", f"{base}.{point.key}.enabled")
        if "*" in specific.disabled:
            return tuple(PluginEntry(n) for n in specific_names)
        overrides: list[str] = []
        from_multi: list[str] = []
        for entry in multi.enabled:
            if not self.registry[entry.name].implements(point) or entry.name in specific.disabled:
                continue
            if entry.name in specific_names:
                overrides.append(entry.name)
                continue
            if entry.name in from_multi:
                raise _fail(f"plugin {entry.name!r} already registered as {point.name}", f"{base}.multi-point.enabled")
            from_multi.append(entry.name)
        ordered = [n for n in specific_names if n in overrides] + from_multi + \
                  [n for n in specific_names if n not in overrides]
        return tuple(PluginEntry(n) for n in ordered)

    def _check_counts(self, points: Mapping[str, tuple[PluginEntry, ...]]) -> None:
        name = self.raw.scheduler_name
        queue_sort = points["queue-sort"]
        if len(queue_sort) != 1:
            raise _fail(f"only one queue sort plugin required for profile with scheduler name {name!r}, "
                        f"but got {len(queue_sort)}", f"{self.raw.key}.plugins.queue-sort")
        if not points["bind"]:
            raise _fail(f"at least one bind plugin is needed for profile with scheduler name {name!r}",
                        f"{self.raw.key}.plugins.bind")

    def _args(self, profile: Profile) -> dict[str, Any]:
        key = f"{self.raw.key}.plugin-config"
        for name in self.raw.plugin_config:
            self._known(name, f"{key}.{name}")
            if self.registry[name].args_class is None:
                raise _fail(f"plugin {name!r} takes no args", f"{key}.{name}")
        args: dict[str, Any] = {}
        for name in sorted({*profile.plugin_names(), *self.raw.plugin_config}):
            args_class = self.registry[name].args_class
            if args_class is None:
                continue
            raw = self.raw.plugin_config.get(name, {})
            try:
                args[name] = structure(args_class, _table(raw, f"{key}.{name}"))
            except ArgsError as exc:
                raise _fail(exc.message, f"{key}.{name}.{exc.key}" if exc.key else f"{key}.{name}") from None
        return args


def _point_names(points: Sequence[ExtensionPoint]) -> str:
    return ", ".join(p.name for p in points) or "none"


# -- entry points -----------------------------------------------------------------------------------
def parse_config(document: Mapping[str, Any], registry: PluginRegistry, source: str = "") -> SchedulerConfiguration:
    """Validate and resolve a parsed profile document; errors carry ``source`` and the key path."""
    try:
        _check_keys(document, (*SETTINGS_KEYS, "profiles"), "")
        settings = _parse_settings(document)
        raw_profiles = document.get("profiles", [{}])
        if not isinstance(raw_profiles, list) or not raw_profiles:
            raise _fail("expected one or more [[profiles]] tables", "profiles")
        default_name = DEFAULT_SCHEDULER_NAME if len(raw_profiles) == 1 else None
        parsed = [_parse_profile(p, f"profiles[{i}]", default_name) for i, p in enumerate(raw_profiles)]
        seen: dict[str, str] = {}
        for raw in parsed:
            if raw.scheduler_name in seen:
                raise _fail(f"Duplicate value: {raw.scheduler_name!r} (also used by {seen[raw.scheduler_name]})",
                            f"{raw.key}.scheduler-name")
            seen[raw.scheduler_name] = raw.key
        profiles = tuple(_Resolver(raw, registry).resolve() for raw in parsed)
        _check_same_queue_sort(profiles, parsed)
    except ProfileError as exc:
        raise exc.located(file=source) from None
    return SchedulerConfiguration(settings, profiles, source)


def _check_same_queue_sort(profiles: Sequence[Profile], parsed: Sequence[_RawProfile]) -> None:
    first = profiles[0]
    sort_name = first.enabled("queue-sort")[0].name
    for profile, raw in zip(profiles[1:], parsed[1:], strict=True):
        other = profile.enabled("queue-sort")[0].name
        if other != sort_name:
            raise _fail(f"must be the same for all profiles ({other!r} differs from {sort_name!r})",
                        f"{raw.key}.plugins.queue-sort")
        if unstructure(profile.plugin_args.get(other)) != unstructure(first.plugin_args.get(sort_name)):
            raise _fail("queueSort must be the same for all profiles: its args differ",
                        f"{raw.key}.plugin-config.{other}")


def read_toml(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """A TOML file's document; unreadable or invalid files are a ProfileError naming the file (or ``name``)."""
    name = name or str(path)
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"cannot read: {exc.strerror or exc}", file=name) from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"invalid TOML: {exc}", file=name) from None
    except UnicodeDecodeError as exc:
        raise ProfileError(f"not UTF-8 text: byte {exc.start} cannot be decoded", file=name) from None


def load_config_file(path: str | Path, registry: PluginRegistry, source: str | None = None) -> SchedulerConfiguration:
    """Read, parse and resolve a profile file."""
    name = source or str(path)
    return parse_config(read_toml(path, name), registry, name)

"""Parsed profiles resolved into effective ones, as kube-scheduler resolves them: each user plugin set merged onto
the defaults (``"*"`` disables every default there, a re-enabled default keeps its position with the new weight,
new plugins are appended), multi-point plugins expanded into every point they implement, then plugin args
structured, every plugin checked against the registry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesched.framework._args import ArgsError, structure, unstructure
from kubesched.framework._hookspecs import EXTENSION_POINTS, POINTS_BY_KEY, ExtensionPoint
from kubesched.profiles.config import (
    MAX_WEIGHT,
    MULTI_POINT,
    POINT_KEYS,
    Dialect,
    PluginSet,
    Problems,
    RawProfile,
    SchedulerConfiguration,
    as_table,
    fail,
)
from kubesched.profiles.defaults import DEFAULT_MULTI_POINT
from kubesched.runtime import PluginEntry, PluginRegistry, Profile, SchedulerSettings
from kubesched.validation import PROFILE, join_path


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

    def __init__(self, raw: RawProfile, registry: PluginRegistry) -> None:
        self.raw = raw
        self.registry = registry

    def _known(self, name: str, key: str) -> None:
        if name not in self.registry:
            raise fail(f"unknown plugin {name!r}{self.registry.suggest(name)}", key)

    def _check_user_sets(self, problems: Problems) -> None:
        for point_key, plugin_set in self.raw.plugins.items():
            base = self.raw.point_key(point_key)
            for i, entry in enumerate(plugin_set.enabled):
                problems.check(self._check_enabled, entry, point_key, f"{base}.enabled[{i}]")
            for i, name in enumerate(plugin_set.disabled):
                if name != "*":
                    problems.check(self._known, name, f"{base}.disabled[{i}].name")

    def _check_enabled(self, entry: PluginEntry, point_key: str, key: str) -> None:
        point = POINTS_BY_KEY.get(point_key)
        self._known(entry.name, f"{key}.name")
        spec = self.registry[entry.name]
        if point is not None and not spec.implements(point):
            raise fail(f"plugin {entry.name!r} does not implement the {point.name} extension point "
                       f"(it implements: {_point_names(spec.points)})", f"{key}.name")
        if point is None and not spec.points:
            raise fail(f"plugin {entry.name!r} implements no extension point", f"{key}.name")
        if entry.weight is not None:
            self._check_weight(entry, spec.implements(POINTS_BY_KEY["score"]), point_key, f"{key}.weight",
                               self.raw.dialect)

    @staticmethod
    def _check_weight(entry: PluginEntry, scores: bool, point_key: str, key: str, dialect: Dialect) -> None:
        if point_key not in ("score", MULTI_POINT) or not scores:
            if dialect.ignores_misplaced_weights:
                return
            raise fail(f"a weight only applies to Score plugins; {entry.name!r} is not a Score plugin"
                       if not scores else "a weight only applies at the score or multi-point extension point",
                       key)
        assert entry.weight is not None
        if entry.weight <= 0:
            raise fail(f"Invalid value: {PROFILE.show(entry.weight)}: a weight must be greater than 0", key)
        if entry.weight > MAX_WEIGHT:
            raise fail(f"Invalid value: {PROFILE.show(entry.weight)}: a weight must be at most {MAX_WEIGHT} "
                       "(kube-scheduler's weights are int32)", key)

    def resolve(self) -> Profile:
        problems = Problems()
        self._check_user_sets(problems)
        problems.raise_any()  # merging needs every named plugin to exist
        merged = {key: merge_plugin_set(_default_sets().get(key, PluginSet()), self.raw.plugins.get(key, PluginSet()))
                  for key in POINT_KEYS}
        multi = merged[MULTI_POINT]
        points: dict[str, tuple[PluginEntry, ...]] = {}
        for point in EXTENSION_POINTS:
            points[point.key] = problems.check(self._expand, point, merged[point.key], multi) or ()
        weights: dict[str, int] = {}
        for entry in (*merged["score"].enabled, *multi.enabled):
            if entry.name in weights or not self.registry[entry.name].implements(POINTS_BY_KEY["score"]):
                continue
            weights[entry.name] = entry.weight or 1
        points["score"] = tuple(PluginEntry(e.name, weights[e.name]) for e in points["score"])
        self._check_counts(points, problems)
        profile = Profile(self.raw.scheduler_name, points, **self.raw.settings)
        args = self._args(profile, problems)
        problems.raise_any()
        return attrs.evolve(profile, plugin_args=args)

    def _expand(self, point: ExtensionPoint, specific: PluginSet, multi: PluginSet) -> tuple[PluginEntry, ...]:
        specific_names = [e.name for e in specific.enabled]
        duplicates = {n for n in specific_names if specific_names.count(n) > 1}
        if duplicates:
            raise fail(f"plugin {sorted(duplicates)[0]!r} is enabled twice",
                       f"{self.raw.point_key(point.key)}.enabled")
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
                raise fail(f"plugin {entry.name!r} already registered as {point.name}",
                           f"{self.raw.point_key(MULTI_POINT)}.enabled")
            from_multi.append(entry.name)
        ordered = [n for n in specific_names if n in overrides] + from_multi + \
                  [n for n in specific_names if n not in overrides]
        return tuple(PluginEntry(n) for n in ordered)

    def _check_counts(self, points: Mapping[str, tuple[PluginEntry, ...]], problems: Problems) -> None:
        name = PROFILE.show(self.raw.scheduler_name)
        queue_sort = points["queue-sort"]
        if len(queue_sort) != 1:
            problems.add(fail(f"only one queue sort plugin required for profile with scheduler name {name}, "
                              f"but got {len(queue_sort)}", self.raw.point_key("queue-sort")))
        if not points["bind"]:
            problems.add(fail(f"at least one bind plugin is needed for profile with scheduler name {name}",
                              self.raw.point_key("bind")))

    def _args(self, profile: Profile, problems: Problems) -> dict[str, Any]:
        keys = self.raw.args_keys
        configured = [name for name in self.raw.plugin_config if problems.check(self._takes_args, name, keys[name])]
        args: dict[str, Any] = {}
        for name in sorted({*profile.plugin_names(), *configured}):
            args_class = self.registry[name].args_class
            if args_class is None:
                continue
            structured = problems.check(self._structure, name, args_class, keys.get(name, self.raw.args_key))
            if structured is not None:
                args[name] = structured
        return args

    def _takes_args(self, name: str, key: str) -> bool:
        self._known(name, key)
        if self.registry[name].args_class is None:
            raise fail(f"plugin {name!r} takes no args", key)
        return True

    def _structure(self, name: str, args_class: type[Any], key: str) -> Any:
        raw = self.raw.plugin_config.get(name)
        try:
            return structure(args_class, as_table({} if raw is None else raw, key), self.raw.dialect.naming)
        except ArgsError as exc:
            raise fail(exc.message, join_path(key, exc.key)) from None


def _point_names(points: Sequence[ExtensionPoint]) -> str:
    return ", ".join(p.name for p in points) or "none"


def resolve_config(settings: SchedulerSettings, parsed: Sequence[RawProfile], registry: PluginRegistry,
                   source: str = "", warnings: Sequence[str] = ()) -> SchedulerConfiguration:
    """Merge parsed profiles onto the defaults and validate them against ``registry`` (either dialect)."""
    problems = Problems()
    seen: dict[str, str] = {}
    for raw in parsed:
        if raw.scheduler_name in seen:
            problems.add(fail(f"Duplicate value: {PROFILE.show(raw.scheduler_name)} (also used by "
                              f"{seen[raw.scheduler_name]})", f"{raw.key}.{raw.dialect.scheduler_name}"))
        seen.setdefault(raw.scheduler_name, raw.key)
    resolved = [problems.check(_Resolver(raw, registry).resolve) for raw in parsed]
    problems.raise_any()
    profiles = tuple(p for p in resolved if p is not None)
    _check_same_queue_sort(profiles, parsed)
    return SchedulerConfiguration(settings, profiles, source, tuple(warnings))


def _check_same_queue_sort(profiles: Sequence[Profile], parsed: Sequence[RawProfile]) -> None:
    first = profiles[0]
    sort_name = first.enabled("queue-sort")[0].name
    for profile, raw in zip(profiles[1:], parsed[1:], strict=True):
        other = profile.enabled("queue-sort")[0].name
        if other != sort_name:
            raise fail(f"must be the same for all profiles ({other!r} differs from {sort_name!r})",
                       raw.point_key("queue-sort"))
        if unstructure(profile.plugin_args.get(other)) != unstructure(first.plugin_args.get(sort_name)):
            raise fail("queueSort must be the same for all profiles: its args differ",
                       raw.args_keys.get(other, raw.args_key))

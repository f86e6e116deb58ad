"""Profile files: parse the TOML, merge each profile onto the default plugin set, validate, resolve.

Merging follows KubeSchedulerConfiguration exactly: per extension point the user's set is merged onto the
defaults (``"*"`` disables every default there, a re-enabled default keeps its position with the new
weight, new plugins are appended), then multi-point plugins expand into every point they implement.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from kubesched.errors import ProfileError
from kubesched.framework.args import ArgsError, Naming, camel, kebab, structure, unstructure
from kubesched.framework.plugin import EXTENSION_POINTS, POINTS_BY_KEY, ExtensionPoint
from kubesched.profiles.defaults import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME
from kubesched.runtime import PluginEntry, PluginRegistry, Profile, SchedulerSettings
from kubesched.validation import (
    INT32_MAX,
    INT64_MAX,
    PROFILE,
    did_you_mean,
    is_finite,
    is_integer,
    is_number,
    join_path,
    key_path,
    parse_float,
    refused_integer,
    too_deep,
)
from kubesched.validation import Problems as _Problems

MULTI_POINT = "multi-point"
POINT_KEYS = (MULTI_POINT, *(p.key for p in EXTENSION_POINTS))
SETTINGS_KEYS = ("percentage-of-nodes-to-score", "pod-initial-backoff-seconds", "pod-max-backoff-seconds",
                 "plugin-call-budget-ms")
PROFILE_KEYS = ("scheduler-name", "percentage-of-nodes-to-score", "plugins", "plugin-config")
#: The largest Score plugin weight: kube-scheduler's weights are int32 (it accepts any positive one).
MAX_WEIGHT = INT32_MAX
#: Documents nested deeper than this are rejected before anything walks them.
MAX_DEPTH = 64
#: How a profile nested too deep is reported (``limit`` is :data:`MAX_DEPTH`), in either form.
TOO_DEEP = "nested more than {limit} levels deep"


@attrs.frozen
class Dialect:
    """How a profile document spells its keys: kubesched's kebab-case TOML or a KubeSchedulerConfiguration."""

    scheduler_name: str
    percentage: str
    initial_backoff: str
    max_backoff: str
    #: Extension point keys (``multi-point``, ``queue-sort``, ...) as written.
    points: Mapping[str, str]
    #: How plugin args keys are spelled.
    naming: Naming
    #: kube-scheduler cannot tell a weight of 0 from an unset one; kubesched's TOML rejects 0.
    zero_weight_is_unset: bool
    #: kube-scheduler ignores a weight on a non-Score plugin or point; kubesched's TOML rejects it.
    ignores_misplaced_weights: bool


TOML = Dialect("scheduler-name", "percentage-of-nodes-to-score", "pod-initial-backoff-seconds",
               "pod-max-backoff-seconds", {k: k for k in POINT_KEYS}, kebab, zero_weight_is_unset=False,
               ignores_misplaced_weights=False)
KUBE = Dialect("schedulerName", "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds",
               {k: camel(k) for k in POINT_KEYS}, camel, zero_weight_is_unset=True, ignores_misplaced_weights=True)


@attrs.frozen
class PluginSet:
    """``enabled`` and ``disabled`` at one extension point (disabled may hold ``"*"``)."""

    enabled: tuple[PluginEntry, ...] = ()
    disabled: tuple[str, ...] = ()


@attrs.frozen
class SchedulerConfiguration:
    """A validated profile file: scheduler settings, resolved profiles, and what was read but ignored."""

    settings: SchedulerSettings
    profiles: tuple[Profile, ...]
    source: str = ""
    #: One line each, located like errors: settings kubesched accepts but cannot honour.
    warnings: tuple[str, ...] = ()


T = TypeVar("T")


class ProfileErrorList(ProfileError):  # noqa: N818 - a list of ProfileError
    """Several problems in one profile file, reported together: one line each (the first is this error's own)."""

    def __init__(self, errors: Sequence[ProfileError]) -> None:
        self.errors = tuple(errors)
        first = self.errors[0]
        super().__init__(first.message, file=first.file, key=first.key)

    def located(self, *, file: str | None = None, key_prefix: str | None = None) -> ProfileErrorList:
        """Every error located the same way."""
        return ProfileErrorList([e.located(file=file, key_prefix=key_prefix) for e in self.errors])

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class Problems(_Problems[ProfileError]):
    """Collects the problems of independent parts of a file, so that one run reports every one of them."""

    def __init__(self) -> None:
        super().__init__(ProfileError, ProfileErrorList)

    def add(self, error: ProfileError) -> None:
        """Record an error (each of several); one per key path, as one mistake can fail several checks there."""
        for each in error.errors if isinstance(error, ProfileErrorList) else (error,):
            if not any(e.key == each.key for e in self.errors):
                self.errors.append(each)


# -- parsing ----------------------------------------------------------------------------------------
def _fail(message: str, key: str) -> ProfileError:
    return ProfileError(message, key=key)


def _check_keys(table: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
    problems = Problems()
    for key in table:
        if key not in allowed:
            hint = did_you_mean(str(key), allowed) or f" (expected one of: {', '.join(allowed)})"
            problems.add(_fail(f"unknown key{hint}", key_path(path, key, quote_odd=False)))
    problems.raise_any()


def _table(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(PROFILE.wrong_type(value, "a table"), key)
    return value


def _int(value: object, key: str) -> int:
    if not is_integer(value):
        raise _fail(PROFILE.wrong_type(value, "an integer"), key)
    return value


def _parse_entries(value: object, key: str, *, allow_weight: bool,
                   dialect: Dialect = TOML) -> tuple[PluginEntry, ...]:
    if not isinstance(value, list):
        raise _fail("expected an array of tables like [{ name = \"X\" }]", key)
    problems = Problems()
    entries = [problems.check(_parse_entry, item, f"{key}[{i}]", allow_weight, dialect) for i, item in enumerate(value)]
    problems.raise_any()
    return tuple(e for e in entries if e is not None)


def _parse_entry(item: object, key: str, allow_weight: bool, dialect: Dialect) -> PluginEntry:
    table = _table(item, key)
    _check_keys(table, ("name", "weight") if allow_weight else ("name",), key)
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise _fail("expected a plugin name (a non-empty string)", f"{key}.name")
    weight = None
    if "weight" in table:
        weight = _int(table["weight"], f"{key}.weight")
        if weight == 0 and dialect.zero_weight_is_unset:
            weight = None
    return PluginEntry(name, weight)


def _parse_plugins(value: object, key: str) -> dict[str, PluginSet]:
    table = _table(value, key)
    _check_keys(table, POINT_KEYS, key)
    problems = Problems()
    sets = {point: problems.check(_parse_point, raw, f"{key}.{point}") for point, raw in table.items()}
    problems.raise_any()
    return {point: plugin_set for point, plugin_set in sets.items() if plugin_set is not None}


def _parse_point(raw: object, key: str) -> PluginSet:
    table = _table(raw, key)
    problems = Problems()
    problems.check(_check_keys, table, ("enabled", "disabled"), key)
    enabled = problems.check(_parse_entries, table.get("enabled", []), f"{key}.enabled", allow_weight=True)
    disabled = problems.check(_parse_entries, table.get("disabled", []), f"{key}.disabled", allow_weight=False)
    problems.raise_any()
    return PluginSet(enabled or (), tuple(e.name for e in disabled or ()))


@attrs.frozen
class RawProfile:
    """One profile as written, before merging: its key path, name, plugin sets and args by plugin name."""

    key: str
    scheduler_name: str
    percentage: int | None
    plugins: Mapping[str, PluginSet]
    plugin_config: Mapping[str, Any]
    #: The key path of each plugin's args, and of the args of a plugin that has none written.
    args_keys: Mapping[str, str]
    args_key: str
    dialect: Dialect = TOML

    def point_key(self, point: str) -> str:
        """The key path of an extension point's plugin set."""
        return f"{self.key}.plugins.{self.dialect.points[point]}"


def _parse_profile(raw: object, key: str, default_name: str | None) -> RawProfile:
    table = _table(raw, key)
    problems = Problems()
    problems.check(_check_keys, table, PROFILE_KEYS, key)
    name = problems.check(scheduler_name, table.get("scheduler-name"), default_name, f"{key}.scheduler-name")
    percentage = None
    if "percentage-of-nodes-to-score" in table:
        percentage = problems.check(_percentage, table["percentage-of-nodes-to-score"],
                                    f"{key}.percentage-of-nodes-to-score")
    plugins = problems.check(_parse_plugins, table.get("plugins", {}), f"{key}.plugins")
    config = problems.check(_table, table.get("plugin-config", {}), f"{key}.plugin-config")
    problems.raise_any()
    assert isinstance(name, str)
    assert plugins is not None
    assert config is not None
    args_keys = {str(plugin): f"{key}.plugin-config.{plugin}" for plugin in config}
    return RawProfile(key, name, percentage, plugins, config, args_keys, f"{key}.plugin-config")


def scheduler_name(value: object, default: str | None, key: str, *, empty_is_unset: bool = False) -> str:
    """A profile's scheduler name: ``default`` when unset (None, or "" with ``empty_is_unset``, as kube-scheduler
    defaults it); ``default`` is None when every profile must name itself. A value that is not a string is of the
    wrong type, not missing."""
    if value is not None and not isinstance(value, str):
        raise _fail(PROFILE.wrong_type(value, "a string"), key)
    name = default if value is None or (empty_is_unset and not value) else value
    if not name:
        raise _fail(f"Required value: every profile needs a {key.rsplit('.', 1)[-1]}", key)
    return name


def _percentage(value: object, key: str) -> int:
    number = _int(value, key)
    if not 0 <= number <= 100:
        raise _fail(f"Invalid value: {PROFILE.show(number)}: not in valid range [0-100]", key)
    return number


#: Backoffs are stored as floats: larger values cannot be represented (kube-scheduler's are int64).
_MAX_SECONDS = INT64_MAX


def parse_settings(document: Mapping[str, Any], dialect: Dialect = TOML) -> SchedulerSettings:
    """The scheduler-wide settings of a document, defaulted and validated as kube-scheduler does."""
    problems = Problems()
    percentage = problems.check(_percentage, _value(document, dialect.percentage, 0), dialect.percentage)
    initial = problems.check(_initial_backoff, document, dialect)
    maximum = problems.check(_max_backoff, document, dialect, initial)
    budget = problems.check(_call_budget, document)
    problems.raise_any()
    assert percentage is not None
    assert initial is not None
    assert maximum is not None
    return SchedulerSettings(percentage, float(initial), float(maximum), budget)


def _initial_backoff(document: Mapping[str, Any], dialect: Dialect) -> int:
    initial = _int(_value(document, dialect.initial_backoff, 1), dialect.initial_backoff)
    if not 0 < initial <= _MAX_SECONDS:
        raise _fail(f"Invalid value: {PROFILE.show(initial)}: must be greater than 0"
                    if initial <= 0 else f"Invalid value: {PROFILE.show(initial)}: must be at most {_MAX_SECONDS}",
                    dialect.initial_backoff)
    return initial


def _max_backoff(document: Mapping[str, Any], dialect: Dialect, initial: int | None) -> int:
    """The maximum backoff; compared with the initial one only when that one is valid."""
    maximum = _int(_value(document, dialect.max_backoff, 10), dialect.max_backoff)
    if not (initial or 0) <= maximum <= _MAX_SECONDS:
        shown = PROFILE.show(maximum)
        raise _fail(f"Invalid value: {shown}: must be greater than or equal to {dialect.initial_backoff}"
                    if maximum < (initial or 0) else f"Invalid value: {shown}: must be at most {_MAX_SECONDS}",
                    dialect.max_backoff)
    return maximum


def _call_budget(document: Mapping[str, Any]) -> float | None:
    """plugin-call-budget-ms (kubesched's own setting) in seconds, or None when unset."""
    value = document.get("plugin-call-budget-ms")
    if value is None:
        return None
    if not is_number(value):
        raise _fail(PROFILE.wrong_type(value, "a number of milliseconds"), "plugin-call-budget-ms")
    if not value > 0:  # NaN included
        raise _fail(f"Invalid value: {PROFILE.show(value)}: must be greater than 0", "plugin-call-budget-ms")
    if not is_finite(value):
        raise _fail(f"Invalid value: {PROFILE.show(value)}: must be a finite number", "plugin-call-budget-ms")
    return float(value) / 1000


def _value(document: Mapping[str, Any], key: str, default: object) -> object:
    """``document[key]``, or ``default`` when absent or null (YAML's ``key:`` with no value)."""
    value = document.get(key)
    return default if value is None else value


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

    def __init__(self, raw: RawProfile, registry: PluginRegistry) -> None:
        self.raw = raw
        self.registry = registry

    def _known(self, name: str, key: str) -> None:
        if name not in self.registry:
            raise _fail(f"unknown plugin {name!r}{self.registry.suggest(name)}", key)

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
            raise _fail(f"plugin {entry.name!r} does not implement the {point.name} extension point "
                        f"(it implements: {_point_names(spec.points)})", f"{key}.name")
        if point is None and not spec.points:
            raise _fail(f"plugin {entry.name!r} implements no extension point", f"{key}.name")
        if entry.weight is not None:
            self._check_weight(entry, spec.implements(POINTS_BY_KEY["score"]), point_key, f"{key}.weight",
                               self.raw.dialect)

    @staticmethod
    def _check_weight(entry: PluginEntry, scores: bool, point_key: str, key: str, dialect: Dialect) -> None:
        if point_key not in ("score", MULTI_POINT) or not scores:
            if dialect.ignores_misplaced_weights:
                return
            raise _fail(f"a weight only applies to Score plugins; {entry.name!r} is not a Score plugin"
                        if not scores else "a weight only applies at the score or multi-point extension point",
                        key)
        assert entry.weight is not None
        if entry.weight <= 0:
            raise _fail(f"Invalid value: {PROFILE.show(entry.weight)}: a weight must be greater than 0", key)
        if entry.weight > MAX_WEIGHT:
            raise _fail(f"Invalid value: {PROFILE.show(entry.weight)}: a weight must be at most {MAX_WEIGHT} "
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
        profile = Profile(self.raw.scheduler_name, points, percentage_of_nodes_to_score=self.raw.percentage)
        args = self._args(profile, problems)
        problems.raise_any()
        return attrs.evolve(profile, plugin_args=args)

    def _expand(self, point: ExtensionPoint, specific: PluginSet, multi: PluginSet) -> tuple[PluginEntry, ...]:
        specific_names = [e.name for e in specific.enabled]
        duplicates = {n for n in specific_names if specific_names.count(n) > 1}
        if duplicates:
            raise _fail(f"plugin {sorted(duplicates)[0]!r} is enabled twice",
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
                raise _fail(f"plugin {entry.name!r} already registered as {point.name}",
                            f"{self.raw.point_key(MULTI_POINT)}.enabled")
            from_multi.append(entry.name)
        ordered = [n for n in specific_names if n in overrides] + from_multi + \
                  [n for n in specific_names if n not in overrides]
        return tuple(PluginEntry(n) for n in ordered)

    def _check_counts(self, points: Mapping[str, tuple[PluginEntry, ...]], problems: Problems) -> None:
        name = PROFILE.show(self.raw.scheduler_name)
        queue_sort = points["queue-sort"]
        if len(queue_sort) != 1:
            problems.add(_fail(f"only one queue sort plugin required for profile with scheduler name {name}, "
                        f"but got {len(queue_sort)}", self.raw.point_key("queue-sort")))
        if not points["bind"]:
            problems.add(_fail(f"at least one bind plugin is needed for profile with scheduler name {name}",
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
            raise _fail(f"plugin {name!r} takes no args", key)
        return True

    def _structure(self, name: str, args_class: type[Any], key: str) -> Any:
        raw = self.raw.plugin_config.get(name)
        try:
            return structure(args_class, _table({} if raw is None else raw, key), self.raw.dialect.naming)
        except ArgsError as exc:
            raise _fail(exc.message, join_path(key, exc.key)) from None


def _point_names(points: Sequence[ExtensionPoint]) -> str:
    return ", ".join(p.name for p in points) or "none"


# -- writing --------------------------------------------------------------------------------------------
def written_profile(profile: Profile, dialect: Dialect) -> dict[str, Any]:
    """A profile as ``dialect`` writes it, but for its plugin args (each form writes them its own way): every
    extension point disables ``"*"`` and enables its complete list in order (Score plugins with their
    weights), so the document loads back to exactly the same profile."""
    table: dict[str, Any] = {dialect.scheduler_name: profile.scheduler_name}
    if profile.percentage_of_nodes_to_score is not None:
        table[dialect.percentage] = profile.percentage_of_nodes_to_score
    plugins: dict[str, Any] = {}
    for point in EXTENSION_POINTS:
        entries = [{"name": e.name, "weight": e.weight} if point.key == "score" else {"name": e.name}
                   for e in profile.enabled(point.key)]
        plugins[dialect.points[point.key]] = {"disabled": [{"name": "*"}], "enabled": entries}
    table["plugins"] = plugins
    return table


# -- entry points -----------------------------------------------------------------------------------
def parse_config(document: Mapping[str, Any], registry: PluginRegistry, source: str = "") -> SchedulerConfiguration:
    """Validate and resolve a parsed profile document; errors carry ``source`` and the key path."""
    try:
        check_depth(document)
        problems = Problems()
        problems.check(_check_keys, document, (*SETTINGS_KEYS, "profiles"), "")
        settings = problems.check(parse_settings, document)
        raw_profiles = document.get("profiles", [{}])
        if not isinstance(raw_profiles, list) or not raw_profiles:
            problems.add(_fail("expected one or more [[profiles]] tables", "profiles"))
            raw_profiles = []
        default_name = DEFAULT_SCHEDULER_NAME if len(raw_profiles) == 1 else None
        parsed = [problems.check(_parse_profile, p, f"profiles[{i}]", default_name)
                  for i, p in enumerate(raw_profiles)]
        problems.raise_any()
        assert settings is not None
        return resolve_config(settings, [p for p in parsed if p is not None], registry, source)
    except ProfileError as exc:
        raise exc.located(file=source) from None


def resolve_config(settings: SchedulerSettings, parsed: Sequence[RawProfile], registry: PluginRegistry,
                   source: str = "", warnings: Sequence[str] = ()) -> SchedulerConfiguration:
    """Merge parsed profiles onto the defaults and validate them against ``registry`` (either dialect)."""
    problems = Problems()
    seen: dict[str, str] = {}
    for raw in parsed:
        if raw.scheduler_name in seen:
            problems.add(_fail(f"Duplicate value: {PROFILE.show(raw.scheduler_name)} (also used by "
                               f"{seen[raw.scheduler_name]})", f"{raw.key}.{raw.dialect.scheduler_name}"))
        seen.setdefault(raw.scheduler_name, raw.key)
    resolved = [problems.check(_Resolver(raw, registry).resolve) for raw in parsed]
    problems.raise_any()
    profiles = tuple(p for p in resolved if p is not None)
    _check_same_queue_sort(profiles, parsed)
    return SchedulerConfiguration(settings, profiles, source, tuple(warnings))


def check_depth(document: object, limit: int = MAX_DEPTH) -> None:
    """Reject a document nested more than ``limit`` tables or arrays deep, at the key path where it does."""
    where = too_deep(document, limit)
    if where is not None:
        raise _fail(TOO_DEEP.format(limit=limit), where)


def _check_same_queue_sort(profiles: Sequence[Profile], parsed: Sequence[RawProfile]) -> None:
    first = profiles[0]
    sort_name = first.enabled("queue-sort")[0].name
    for profile, raw in zip(profiles[1:], parsed[1:], strict=True):
        other = profile.enabled("queue-sort")[0].name
        if other != sort_name:
            raise _fail(f"must be the same for all profiles ({other!r} differs from {sort_name!r})",
                        raw.point_key("queue-sort"))
        if unstructure(profile.plugin_args.get(other)) != unstructure(first.plugin_args.get(sort_name)):
            raise _fail("queueSort must be the same for all profiles: its args differ",
                        raw.args_keys.get(other, raw.args_key))


def read_toml(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """A TOML file's document; unreadable or invalid files are a ProfileError naming the file (or ``name``)."""
    name = name or str(path)
    return toml_document(read_text(path, name), name)


def toml_document(text: str, name: str) -> dict[str, Any]:
    """The document of TOML ``text`` read from ``name``; invalid TOML is a ProfileError naming it.

    A float literal too large for a float64 reads as a :class:`~kubesched.validation.FloatText`, so that a
    message quotes it as written (``1e309``) rather than as an infinity.
    """
    try:
        return tomllib.loads(text, parse_float=parse_float)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"invalid TOML: {exc}", file=name) from None
    except RecursionError:
        where = _too_deep_at(text, MAX_DEPTH)
        at = f" (at line {where[0]}, column {where[1]})" if where else ""
        raise ProfileError(f"invalid TOML: {TOO_DEEP.format(limit=MAX_DEPTH)}{at}", file=name) from None
    except ValueError as exc:
        # Python refuses to convert integers of more than 4300 digits (sys.int_info.str_digits_check_threshold).
        raise ProfileError(f"invalid TOML: {refused_integer(exc) or exc}", file=name) from None


#: TOML's string openings, longest first (a multi-line string opens with three quotes).
_TOML_QUOTES = ('"""', "'''", '"', "'")


def _too_deep_at(text: str, limit: int) -> tuple[int, int] | None:
    """The line and column (from 1) of the array or inline-table bracket that nests TOML ``text`` more than
    ``limit`` deep, skipping strings and comments: for when the parser itself gave up without a position."""
    depth, line, line_start, i = 0, 1, 0, 0
    while i < len(text):
        char = text[i]
        if char in "[{":
            depth += 1
            if depth > limit:
                return line, i - line_start + 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif char in "\"'":
            quote = next(q for q in _TOML_QUOTES if text.startswith(q, i))
            end = i + len(quote)
            while end < len(text) and not text.startswith(quote, end):
                end += 2 if text[end] == "\\" and quote[0] == '"' else 1
            if "\n" in text[i:end]:
                line += text.count("\n", i, end)
                line_start = text.rfind("\n", i, end) + 1
            i = end + len(quote)
            continue
        elif char == "\n":
            line, line_start = line + 1, i + 1
        i += 1
    return None


def read_text(path: str | Path, name: str) -> str:
    """A profile file's text; unreadable or non-UTF-8 files are a ProfileError naming the file."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read: {exc.strerror or exc}", file=name) from None
    except UnicodeDecodeError as exc:
        raise ProfileError(f"not UTF-8 text: byte {exc.start} cannot be decoded", file=name) from None



def load_config_file(path: str | Path, registry: PluginRegistry, source: str | None = None) -> SchedulerConfiguration:
    """Read, parse and resolve a profile file."""
    name = source or str(path)
    return parse_config(read_toml(path, name), registry, name)

"""Profile documents read onto the model: the scheduler-wide settings and each profile as written, checked key
by key as kube-scheduler checks them; parse_config then hands them to resolve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.errors import ProfileError
from kubesched.profiles.config import (
    MAX_DEPTH,
    POINT_KEYS,
    PROFILE_KEYS,
    SETTINGS_KEYS,
    TOML,
    TOO_DEEP,
    Dialect,
    PluginSet,
    Problems,
    RawProfile,
    SchedulerConfiguration,
    as_table,
    fail,
)
from kubesched.profiles.defaults import DEFAULT_SCHEDULER_NAME
from kubesched.profiles.resolve import resolve_config
from kubesched.runtime import PluginEntry, PluginRegistry, SchedulerSettings
from kubesched.validation import (
    INT64_MAX,
    PROFILE,
    did_you_mean,
    is_finite,
    is_integer,
    is_number,
    key_path,
    too_deep,
)


def check_keys(table: Mapping[str, Any], allowed: Sequence[str], path: str) -> None:
    """Report every key of ``table`` not in ``allowed``, each with a did-you-mean or the keys expected."""
    problems = Problems()
    for key in table:
        if key not in allowed:
            hint = did_you_mean(str(key), allowed) or f" (expected one of: {', '.join(allowed)})"
            problems.add(fail(f"unknown key{hint}", key_path(path, key, quote_odd=False)))
    problems.raise_any()


def as_int(value: object, key: str) -> int:
    """``value`` when it is an integer (never a boolean); a ProfileError at ``key`` otherwise."""
    if not is_integer(value):
        raise fail(PROFILE.wrong_type(value, "an integer"), key)
    return value


def parse_entries(value: object, key: str, *, allow_weight: bool,
                  dialect: Dialect = TOML) -> tuple[PluginEntry, ...]:
    """An ``enabled`` or ``disabled`` list of plugin entries, weights allowed only where ``allow_weight``."""
    if not isinstance(value, list):
        raise fail("expected an array of tables like [{ name = \"X\" }]", key)
    problems = Problems()
    entries = [problems.check(_parse_entry, item, f"{key}[{i}]", allow_weight, dialect) for i, item in enumerate(value)]
    problems.raise_any()
    return tuple(e for e in entries if e is not None)


def _parse_entry(item: object, key: str, allow_weight: bool, dialect: Dialect) -> PluginEntry:
    table = as_table(item, key)
    check_keys(table, ("name", "weight") if allow_weight else ("name",), key)
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise fail("expected a plugin name (a non-empty string)", f"{key}.name")
    weight = None
    if "weight" in table:
        weight = as_int(table["weight"], f"{key}.weight")
        if weight == 0 and dialect.zero_weight_is_unset:
            weight = None
    return PluginEntry(name, weight)


def _parse_plugins(value: object, key: str) -> dict[str, PluginSet]:
    table = as_table(value, key)
    check_keys(table, POINT_KEYS, key)
    problems = Problems()
    sets = {point: problems.check(_parse_point, raw, f"{key}.{point}") for point, raw in table.items()}
    problems.raise_any()
    return {point: plugin_set for point, plugin_set in sets.items() if plugin_set is not None}


def _parse_point(raw: object, key: str) -> PluginSet:
    table = as_table(raw, key)
    problems = Problems()
    problems.check(check_keys, table, ("enabled", "disabled"), key)
    enabled = problems.check(parse_entries, table.get("enabled", []), f"{key}.enabled", allow_weight=True)
    disabled = problems.check(parse_entries, table.get("disabled", []), f"{key}.disabled", allow_weight=False)
    problems.raise_any()
    return PluginSet(enabled or (), tuple(e.name for e in disabled or ()))


def _parse_profile(raw: object, key: str, default_name: str | None) -> RawProfile:
    table = as_table(raw, key)
    problems = Problems()
    problems.check(check_keys, table, PROFILE_KEYS, key)
    name = problems.check(scheduler_name, table.get("scheduler-name"), default_name, f"{key}.scheduler-name")
    percentage = None
    if "percentage-of-nodes-to-score" in table:
        percentage = problems.check(parse_percentage, table["percentage-of-nodes-to-score"],
                                    f"{key}.percentage-of-nodes-to-score")
    plugins = problems.check(_parse_plugins, table.get("plugins", {}), f"{key}.plugins")
    config = problems.check(as_table, table.get("plugin-config", {}), f"{key}.plugin-config")
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
        raise fail(PROFILE.wrong_type(value, "a string"), key)
    name = default if value is None or (empty_is_unset and not value) else value
    if not name:
        raise fail(f"Required value: every profile needs a {key.rsplit('.', 1)[-1]}", key)
    return name


def parse_percentage(value: object, key: str) -> int:
    """percentageOfNodesToScore: an integer from 0 to 100."""
    number = as_int(value, key)
    if not 0 <= number <= 100:
        raise fail(f"Invalid value: {PROFILE.show(number)}: not in valid range [0-100]", key)
    return number


#: Backoffs are stored as floats: larger values cannot be represented (kube-scheduler's are int64).
_MAX_SECONDS = INT64_MAX


def parse_settings(document: Mapping[str, Any], dialect: Dialect = TOML) -> SchedulerSettings:
    """The scheduler-wide settings of a document, defaulted and validated as kube-scheduler does."""
    problems = Problems()
    percentage = problems.check(parse_percentage, _value(document, dialect.percentage, 0), dialect.percentage)
    initial = problems.check(_initial_backoff, document, dialect)
    maximum = problems.check(_max_backoff, document, dialect, initial)
    budget = problems.check(_call_budget, document)
    problems.raise_any()
    assert percentage is not None
    assert initial is not None
    assert maximum is not None
    return SchedulerSettings(percentage, float(initial), float(maximum), budget)


def _initial_backoff(document: Mapping[str, Any], dialect: Dialect) -> int:
    initial = as_int(_value(document, dialect.initial_backoff, 1), dialect.initial_backoff)
    if not 0 < initial <= _MAX_SECONDS:
        raise fail(f"Invalid value: {PROFILE.show(initial)}: must be greater than 0"
                   if initial <= 0 else f"Invalid value: {PROFILE.show(initial)}: must be at most {_MAX_SECONDS}",
                   dialect.initial_backoff)
    return initial


def _max_backoff(document: Mapping[str, Any], dialect: Dialect, initial: int | None) -> int:
    """The maximum backoff; compared with the initial one only when that one is valid."""
    maximum = as_int(_value(document, dialect.max_backoff, 10), dialect.max_backoff)
    if not (initial or 0) <= maximum <= _MAX_SECONDS:
        shown = PROFILE.show(maximum)
        raise fail(f"Invalid value: {shown}: must be greater than or equal to {dialect.initial_backoff}"
                   if maximum < (initial or 0) else f"Invalid value: {shown}: must be at most {_MAX_SECONDS}",
                   dialect.max_backoff)
    return maximum


def _call_budget(document: Mapping[str, Any]) -> float | None:
    """plugin-call-budget-ms (kubesched's own setting) in seconds, or None when unset."""
    value = document.get("plugin-call-budget-ms")
    if value is None:
        return None
    if not is_number(value):
        raise fail(PROFILE.wrong_type(value, "a number of milliseconds"), "plugin-call-budget-ms")
    if not value > 0:  # NaN included
        raise fail(f"Invalid value: {PROFILE.show(value)}: must be greater than 0", "plugin-call-budget-ms")
    if not is_finite(value):
        raise fail(f"Invalid value: {PROFILE.show(value)}: must be a finite number", "plugin-call-budget-ms")
    return float(value) / 1000


def _value(document: Mapping[str, Any], key: str, default: object) -> object:
    """``document[key]``, or ``default`` when absent or null (YAML's ``key:`` with no value)."""
    value = document.get(key)
    return default if value is None else value


def parse_config(document: Mapping[str, Any], registry: PluginRegistry, source: str = "") -> SchedulerConfiguration:
    """Validate and resolve a parsed profile document; errors carry ``source`` and the key path."""
    try:
        check_depth(document)
        problems = Problems()
        problems.check(check_keys, document, (*SETTINGS_KEYS, "profiles"), "")
        settings = problems.check(parse_settings, document)
        raw_profiles = document.get("profiles", [{}])
        if not isinstance(raw_profiles, list) or not raw_profiles:
            problems.add(fail("expected one or more [[profiles]] tables", "profiles"))
            raw_profiles = []
        default_name = DEFAULT_SCHEDULER_NAME if len(raw_profiles) == 1 else None
        parsed = [problems.check(_parse_profile, p, f"profiles[{i}]", default_name)
                  for i, p in enumerate(raw_profiles)]
        problems.raise_any()
        assert settings is not None
        return resolve_config(settings, [p for p in parsed if p is not None], registry, source)
    except ProfileError as exc:
        raise exc.located(file=source) from None


def check_depth(document: object, limit: int = MAX_DEPTH) -> None:
    """Reject a document nested more than ``limit`` tables or arrays deep, at the key path where it does."""
    where = too_deep(document, limit)
    if where is not None:
        raise fail(TOO_DEEP.format(limit=limit), where)

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
from kubesched.profiles.settings import PROFILE_SETTINGS, SETTINGS, Setting, keys
from kubesched.runtime import PluginEntry, PluginRegistry, SchedulerSettings
from kubesched.validation import PROFILE, did_you_mean, is_integer, join_path, key_path, too_deep

#: A TOML profile's top-level keys, in the order an unknown key's message lists them.
TOP_LEVEL_KEYS = (*keys(SETTINGS, TOML), "profiles")
#: The keys of each ``[[profiles]]`` table.
PROFILE_KEYS = ("scheduler-name", *keys(PROFILE_SETTINGS, TOML), "plugins", "plugin-config")


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
    settings = problems.check(parse_profile_settings, table, key)
    plugins = problems.check(_parse_plugins, table.get("plugins", {}), f"{key}.plugins")
    config = problems.check(as_table, table.get("plugin-config", {}), f"{key}.plugin-config")
    problems.raise_any()
    assert isinstance(name, str)
    assert settings is not None
    assert plugins is not None
    assert config is not None
    args_keys = {str(plugin): f"{key}.plugin-config.{plugin}" for plugin in config}
    return RawProfile(key, name, settings, plugins, config, args_keys, f"{key}.plugin-config")


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


def check_settings(table: Mapping[str, Any], settings: Sequence[Setting], dialect: Dialect, path: str = "", *,
                   defaulted: bool) -> dict[Setting, Any]:
    """The valid written values of ``settings`` in ``table`` (at key path ``path``), checked in order as
    kube-scheduler checks them; one left out or null takes its default when ``defaulted`` (which is checked too,
    against the others), else stays unset. Every problem is reported."""
    problems = Problems()
    valid: dict[Setting, Any] = {}
    for setting in settings:
        key = setting.key(dialect)
        if key is None:
            continue
        value = table.get(key)
        if value is None and defaulted:
            value = setting.default
        if value is None:
            continue
        checked = problems.check(setting.check, value, join_path(path, key), dialect, valid)
        if checked is not None:
            valid[setting] = checked
    problems.raise_any()
    return valid


def stored(valid: Mapping[Setting, Any]) -> dict[str, Any]:
    """Checked settings as the values of their target fields (those ignored left out)."""
    return {s.target: s.kind.store(value) for s, value in valid.items() if s.target is not None}


def parse_settings(document: Mapping[str, Any], dialect: Dialect = TOML) -> SchedulerSettings:
    """The scheduler-wide settings of a document (every setting of :data:`SETTINGS` its dialect has), defaulted
    and validated as kube-scheduler does."""
    return SchedulerSettings(**stored(check_settings(document, SETTINGS, dialect, defaulted=True)))


def parse_profile_settings(table: Mapping[str, Any], path: str, dialect: Dialect = TOML) -> dict[str, Any]:
    """The settings a profile at ``path`` sets for itself (:data:`PROFILE_SETTINGS`), by Profile field."""
    return stored(check_settings(table, PROFILE_SETTINGS, dialect, path, defaulted=False))


def parse_config(document: Mapping[str, Any], registry: PluginRegistry, source: str = "") -> SchedulerConfiguration:
    """Validate and resolve a parsed profile document; errors carry ``source`` and the key path."""
    try:
        check_depth(document)
        problems = Problems()
        problems.check(check_keys, document, TOP_LEVEL_KEYS, "")
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

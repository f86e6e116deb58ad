"""A Sweep's profiles: each entry's grid of plugin args expanded into variants, each variant a complete
configuration (its base profile with those args) carried to the cells as the TOML of its effective
configuration, which loads back to exactly that configuration.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable
from typing import Any

import attrs

from kubesched.errors import InputError, ProfileError
from kubesched.framework._args import ArgsError, camel, structure, unstructure
from kubesched.io.errors import InputErrorList
from kubesched.profiles import SchedulerConfiguration, config_document, load_config, parse_config, toml_writer
from kubesched.profiles.files import toml_document
from kubesched.runtime import PluginRegistry
from kubesched.sweep.columns import ARGS_PREFIX
from kubesched.sweep.spec import ProfileEntry
from kubesched.validation import PROFILE, join_path


@attrs.frozen
class ProfileVariant:
    """One combination of an entry's plugin args: its label, every arg it sets (plugin, dotted key, value, and
    the field naming it in the Sweep file), and the row columns of the varied ones."""

    label: str
    entry: ProfileEntry
    settings: tuple[tuple[str, str, Any, str], ...]
    columns: tuple[tuple[str, str], ...]


@attrs.frozen
class ResolvedProfile:
    """A variant as the cells get it: its label, the TOML of its effective configuration and that text's
    sha256, the row columns of its varied args, and the configuration's warnings."""

    label: str
    toml: str
    digest: str
    columns: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...] = ()


def shown(value: object) -> str:
    """An arg value as labels and row columns show it: a string as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), sort_keys=True)


def variants(entry: ProfileEntry) -> list[ProfileVariant]:
    """Every combination of the entry's plugin args, the first key varying slowest (the file's order)."""
    axes = [[(plugin, key, value, join_path(f"{entry.field}.pluginArgs.{plugin}.{key}", f"[{i}]" if varied else ""))
             for i, value in enumerate(values)] for plugin, key, values, varied in entry.plugin_args]
    varied_keys = {(plugin, key) for plugin, key, _, varied in entry.plugin_args if varied}
    found = []
    for combination in itertools.product(*axes):
        columns = tuple((f"{ARGS_PREFIX}{plugin}.{key}", shown(value)) for plugin, key, value, _ in combination
                        if (plugin, key) in varied_keys)
        label = entry.name
        if columns:
            label += "[" + ",".join(f"{name.removeprefix(ARGS_PREFIX)}={value}" for name, value in columns) + "]"
        found.append(ProfileVariant(label, entry, tuple(combination), columns))
    return found


def resolve(variant: ProfileVariant, base: SchedulerConfiguration, registry: PluginRegistry,
            file: str) -> ResolvedProfile:
    """The variant's configuration: ``base`` with its args set in every profile, validated; its problems (every
    arg's) an InputErrorList naming the Sweep ``file`` and the field of each arg (or of the entry)."""
    problems: list[InputError] = []
    by_plugin: dict[str, list[tuple[str, Any, str]]] = {}
    for plugin, key, value, field in variant.settings:
        by_plugin.setdefault(plugin, []).append((key, value, field))
    profiles = []
    for profile in base.profiles:
        args = dict(profile.plugin_args)
        for plugin, settings in by_plugin.items():
            try:
                args[plugin] = _set_args(plugin, args.get(plugin), settings, registry, profile.scheduler_name)
            except InputError as exc:
                problems.append(InputError(exc.message, file=file, field=exc.field))
        profiles.append(attrs.evolve(profile, plugin_args=args))
    if problems:
        raise InputErrorList(problems)
    config = attrs.evolve(base, profiles=tuple(profiles))
    text = toml_writer.dumps(config_document(config), table_arrays=frozenset({"profiles"}))
    try:
        parse_config(toml_document(text, variant.label), registry, variant.label)
    except ProfileError as exc:
        raise InputErrorList([InputError(f"profile {variant.label}: {line}", file=file, field=variant.entry.field)
                              for line in str(exc).splitlines()]) from None
    return ResolvedProfile(variant.label, text, hashlib.sha256(text.encode()).hexdigest(), variant.columns,
                           config.warnings)


def _set_args(plugin: str, current: Any, settings: list[tuple[str, Any, str]], registry: PluginRegistry,
              scheduler_name: str) -> Any:
    """The plugin's args with each (dotted camelCase key, value, field) setting made, checked by the args class
    once they all are; a problem is an InputError whose field is the setting's (the first one's, when the args
    class names another key)."""
    first = settings[0][2]
    if plugin not in registry:
        raise InputError(f"unknown plugin {plugin!r}{registry.suggest(plugin)}", field=first)
    args_class = registry[plugin].args_class
    if args_class is None:
        raise InputError(f"plugin {plugin!r} takes no args", field=first)
    if current is None:
        raise InputError(f"plugin {plugin!r} is not enabled in profile {scheduler_name!r}: its args would change "
                         "nothing", field=first)
    document = unstructure(current, camel)
    for key, value, field in settings:
        table = document
        *parents, last = key.split(".")
        for i, part in enumerate(parents):
            inner = table.get(part)
            if inner is None:
                inner = table[part] = {}
            if not isinstance(inner, dict):
                raise InputError(f"{'.'.join(parents[:i + 1])}: is {PROFILE.describe(inner)}, not a table of args",
                                 field=field)
            table = inner
        table[last] = value
    try:
        return structure(args_class, document, camel)
    except ArgsError as exc:
        raise _located(exc, settings) from None


def _located(exc: ArgsError, settings: list[tuple[str, Any, str]]) -> InputError:
    """The args class's error at the field of the setting its key path falls under (else the first setting's)."""
    for key, _, field in settings:
        if exc.key == key or exc.key.startswith((f"{key}.", f"{key}[")):
            rest = exc.key[len(key):].lstrip(".")
            return InputError(f"{rest}: {exc.message}" if rest else exc.message, field=field)
    return InputError(f"{exc.key}: {exc.message}" if exc.key else exc.message, field=settings[0][2])


def resolve_all(entries: Iterable[ProfileEntry], registry: PluginRegistry,
                file: str) -> tuple[list[ResolvedProfile], list[InputError]]:
    """Every entry's variants resolved, in order; the problems of all of them (each base profile loaded once)."""
    resolved: list[ResolvedProfile] = []
    problems: list[InputError] = []
    for entry in entries:
        try:
            base = load_config(entry.location, registry)
        except ProfileError as exc:
            problems.extend(InputError(line, file=file, field=f"{entry.field}.profile")
                            for line in str(exc).splitlines())
            continue
        for variant in variants(entry):
            try:
                resolved.append(resolve(variant, base, registry, file))
            except InputErrorList as exc:
                problems.extend(e for e in exc.errors if str(e) not in {str(p) for p in problems})
    seen: set[str] = set()
    for profile in resolved:
        if profile.label in seen:
            problems.append(InputError(f"Duplicate value: two profiles are labelled {profile.label!r}; give the "
                                       "entries distinct names", file=file, field="spec.profiles"))
        seen.add(profile.label)
    return resolved, problems

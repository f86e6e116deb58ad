"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) files: read onto the profile model, and written.

A kube-scheduler configuration is translated onto the same model as a TOML profile and validated by the same
code, so both forms give the same messages; keys in messages are the YAML's (``profiles[0].pluginConfig[1].args
.scoringStrategy.type``). Fields kubesched has no use for are handled as docs/profiles.md describes: the ones
that cannot change a decision are accepted, extenders are an error, the volume and DRA plugins a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.errors import ProfileError
from kubesched.framework._args import camel, unstructure
from kubesched.profiles.config import (
    KUBE,
    MAX_DEPTH,
    POINT_KEYS,
    TOO_DEEP,
    PluginSet,
    Problems,
    RawProfile,
    SchedulerConfiguration,
    as_table,
    fail,
    written_profile,
)
from kubesched.profiles.defaults import DEFAULT_SCHEDULER_NAME
from kubesched.profiles.files import read_text
from kubesched.profiles.parse import (
    check_depth,
    check_keys,
    parse_entries,
    parse_profile_settings,
    parse_settings,
    scheduler_name,
)
from kubesched.profiles.resolve import resolve_config
from kubesched.profiles.settings import PROFILE_SETTINGS, SETTINGS, keys, unwritable, written
from kubesched.runtime import PluginRegistry
from kubesched.validation import PROFILE

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

#: Top-level fields kubesched models: the settings it uses, and the profiles.
MODELLED_KEYS = (*keys((s for s in SETTINGS if s.target is not None), KUBE), "profiles")
#: Top-level fields that cannot change where a pod goes: accepted and not used. Those the settings table checks
#: (parallelism) are listed after leaderElection, where unknown-key messages have always listed parallelism.
HARMLESS_KEYS = ("clientConnection", "leaderElection", *keys((s for s in SETTINGS if s.target is None), KUBE),
                 "enableProfiling", "enableContentionProfiling", "delayCacheUntilActive")
TOP_LEVEL_KEYS = ("apiVersion", "kind", *MODELLED_KEYS, *HARMLESS_KEYS, "extenders")
PROFILE_KEYS = ("schedulerName", *keys(PROFILE_SETTINGS, KUBE), "plugins", "pluginConfig")
#: kube-scheduler's in-tree plugins that kubesched does not model (dynamic resource allocation).
UNMODELLED_PLUGINS = ("DynamicResources",)


def read_yaml(path: str, name: str) -> Any:
    """A YAML file's single document, read as manifests are (at most :data:`MAX_DEPTH` deep); every failure is a
    ProfileError."""
    return yaml_document(read_text(path, name), name)


def yaml_document(text: str, name: str) -> Any:
    """The single document of YAML ``text`` read from ``name`` (at most :data:`MAX_DEPTH` deep); every failure is
    a ProfileError naming it."""
    from kubesched.io import yaml_reader  # only kube-scheduler configurations need YAML: keep it off the import path

    try:
        documents = [d for d in yaml_reader.documents(text, yaml_reader.YamlRules(MAX_DEPTH, TOO_DEEP))
                     if d is not None]
    except yaml_reader.YamlError as exc:
        raise ProfileError(str(exc), file=name) from None
    if len(documents) != 1:
        raise ProfileError(f"expected one KubeSchedulerConfiguration document, got {len(documents)}", file=name)
    return documents[0]


def parse_kube_config(document: object, registry: PluginRegistry, source: str = "") -> SchedulerConfiguration:
    """Validate and resolve a KubeSchedulerConfiguration document; errors carry ``source`` and the YAML path."""
    try:
        check_depth(document)
        top = as_table(document, "")
        _check_header(top)
        problems = Problems()
        problems.check(check_keys, top, TOP_LEVEL_KEYS, "")
        if top.get("extenders"):
            problems.add(fail("Unsupported value: kubesched cannot call scheduler extenders (HTTP webhooks); "
                              "remove them to simulate without them", "extenders"))
        settings = problems.check(parse_settings, top, KUBE)
        raw_profiles = top.get("profiles") or [{}]
        if not isinstance(raw_profiles, list):
            problems.add(fail(PROFILE.wrong_type(raw_profiles, "an array"), "profiles"))
            raw_profiles = []
        default_name = DEFAULT_SCHEDULER_NAME if len(raw_profiles) == 1 else None
        warnings: list[str] = []
        parsed = [problems.check(_parse_profile, p, f"profiles[{i}]", default_name, warnings)
                  for i, p in enumerate(raw_profiles)]
        problems.raise_any()
        assert settings is not None
        config = resolve_config(settings, [p for p in parsed if p is not None], registry, source)
    except ProfileError as exc:
        raise exc.located(file=source) from None
    prefix = f"{source}: " if source else ""
    return SchedulerConfiguration(config.settings, config.profiles, source, tuple(prefix + w for w in warnings))


def _check_header(top: Mapping[str, Any]) -> None:
    for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        if key not in top:
            raise fail(f"Required value: must be \"{expected}\"", key)
        if top[key] != expected:
            raise fail(f"Unsupported value: {PROFILE.show(top[key])}: supported values: \"{expected}\"", key)


def _parse_profile(raw: object, key: str, default_name: str | None, warnings: list[str]) -> RawProfile:
    table = as_table({} if raw is None else raw, key)
    problems = Problems()
    problems.check(check_keys, table, PROFILE_KEYS, key)
    name = problems.check(scheduler_name, table.get("schedulerName"), default_name, f"{key}.schedulerName",
                          empty_is_unset=True)
    settings = problems.check(parse_profile_settings, table, key, KUBE)
    ignored: set[str] = set()
    plugins = problems.check(_parse_plugins, table.get("plugins") or {}, f"{key}.plugins", ignored)
    parsed_config = problems.check(_parse_plugin_config, table.get("pluginConfig") or [], f"{key}.pluginConfig",
                                   ignored)
    problems.raise_any()
    assert isinstance(name, str)
    assert settings is not None
    assert plugins is not None
    assert parsed_config is not None
    config, args_keys = parsed_config
    if ignored:
        warnings.append(f"{key}: ignoring {', '.join(sorted(ignored))}: kubesched does not model dynamic resource "
                        "allocation, so pods using ResourceClaims may be placed where kube-scheduler would not place "
                        "them")
    return RawProfile(key, name, settings, plugins, config, args_keys, f"{key}.pluginConfig", KUBE)


def _parse_plugins(value: object, key: str, ignored: set[str]) -> dict[str, PluginSet]:
    table = as_table(value, key)
    by_spelling = {camel(point): point for point in POINT_KEYS}
    problems = Problems()
    problems.check(check_keys, table, tuple(by_spelling), key)
    sets = {}
    for spelled, raw in table.items():
        plugin_set = problems.check(_parse_point, raw, f"{key}.{spelled}", ignored)
        if plugin_set is not None and spelled in by_spelling:
            sets[by_spelling[spelled]] = plugin_set
    problems.raise_any()
    return sets


def _parse_point(raw: object, key: str, ignored: set[str]) -> PluginSet:
    table = as_table({} if raw is None else raw, key)
    problems = Problems()
    problems.check(check_keys, table, ("enabled", "disabled"), key)
    enabled = problems.check(parse_entries, table.get("enabled") or [], f"{key}.enabled", allow_weight=True,
                             dialect=KUBE) or ()
    disabled = problems.check(parse_entries, table.get("disabled") or [], f"{key}.disabled", allow_weight=False,
                              dialect=KUBE) or ()
    problems.raise_any()
    ignored.update(e.name for e in enabled if e.name in UNMODELLED_PLUGINS)
    return PluginSet(tuple(e for e in enabled if e.name not in UNMODELLED_PLUGINS),
                     tuple(e.name for e in disabled if e.name not in UNMODELLED_PLUGINS))


def _parse_plugin_config(value: object, key: str, ignored: set[str]) -> tuple[dict[str, Any], dict[str, str]]:
    if not isinstance(value, list):
        raise fail(PROFILE.wrong_type(value, "an array of {name, args} objects"), key)
    problems = Problems()
    config: dict[str, Any] = {}
    keys: dict[str, str] = {}
    for i, item in enumerate(value):
        problems.check(_parse_plugin_args, item, f"{key}[{i}]", config, keys, ignored)
    problems.raise_any()
    return config, {name: k for name, k in keys.items() if name in config}


def _parse_plugin_args(item: object, key: str, config: dict[str, Any], keys: dict[str, str],
                       ignored: set[str]) -> None:
    """Add one ``{name, args}`` entry to ``config`` (args by plugin) and ``keys`` (their key paths)."""
    table = as_table(item, key)
    check_keys(table, ("name", "args"), key)
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise fail("Required value: a plugin name (a non-empty string)", f"{key}.name")
    if name in keys:
        raise fail(f"Duplicate value: {PROFILE.show(name)} (also configured by {keys[name].removesuffix('.args')})",
                   f"{key}.name")
    keys[name] = f"{key}.args"
    if name in UNMODELLED_PLUGINS:
        ignored.add(name)
        return
    args = as_table({} if table.get("args") is None else table["args"], f"{key}.args")
    config[name] = _strip_type_meta(name, args, f"{key}.args")


def _strip_type_meta(name: str, args: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The args without ``apiVersion`` and ``kind``, which must name the plugin's args type if given."""
    kind = args.get("kind")
    if kind is not None and kind != f"{name}Args":
        raise fail(f"Invalid value: {PROFILE.show(kind)}: must be \"{name}Args\" for plugin {PROFILE.show(name)}",
                   f"{key}.kind")
    return {k: v for k, v in args.items() if k not in ("apiVersion", "kind")}


# -- writing ------------------------------------------------------------------------------------------
def kube_document(config: SchedulerConfiguration) -> dict[str, Any]:
    """The effective configuration as a KubeSchedulerConfiguration document (``profile show --format``).

    As with the TOML form, every extension point disables ``"*"`` and lists its complete plugin list, so
    the document loads back to exactly the same effective configuration.
    """
    profiles = []
    for profile in config.profiles:
        table = written_profile(profile, KUBE)
        table["pluginConfig"] = [
            {"name": name, "args": {"apiVersion": API_VERSION, "kind": f"{name}Args", **unstructure(args, camel)}}
            for name, args in sorted(profile.plugin_args.items())]
        profiles.append(table)
    return {"apiVersion": API_VERSION, "kind": KIND, **written(SETTINGS, config.settings, KUBE), "profiles": profiles}


def render_kube_config(config: SchedulerConfiguration) -> str:
    """The effective configuration as KubeSchedulerConfiguration YAML."""
    import yaml

    header = ("# Effective configuration" + (f" of {config.source}" if config.source else "") + ":\n"
              "# every extension point lists its complete plugin list, in the order plugins run.\n")
    for setting in unwritable(config.settings, KUBE):
        header += f"# Not shown: {setting.name}, kubesched's own setting, has no KubeSchedulerConfiguration field.\n"
    return header + yaml.safe_dump(kube_document(config), sort_keys=False, default_flow_style=False,
                                   allow_unicode=True, width=120)


__all__ = ["kube_document", "parse_kube_config", "read_yaml", "render_kube_config", "yaml_document"]

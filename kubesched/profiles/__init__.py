"""Scheduling profiles: shipped TOML profiles selectable by name, user profile files (TOML or a
KubeSchedulerConfiguration YAML), and their display in either form."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

from kubesched.errors import ProfileError
from kubesched.framework._args import unstructure
from kubesched.profiles import toml_writer
from kubesched.profiles.config import TOML, SchedulerConfiguration, written_profile
from kubesched.profiles.files import load_config_file, read_text, toml_document
from kubesched.profiles.kube import parse_kube_config, render_kube_config, yaml_document
from kubesched.profiles.parse import parse_config
from kubesched.profiles.settings import SETTINGS, written
from kubesched.runtime import PluginRegistry
from kubesched.validation import did_you_mean

__all__ = ["FORMATS", "SchedulerConfiguration", "load_config", "parse_config", "parse_kube_config", "render",
           "render_config", "render_kube_config", "shipped_profiles"]

DEFAULT_PROFILE = "default"
#: The forms ``kubesched profile show`` prints: kubesched's TOML, or a KubeSchedulerConfiguration.
FORMATS = ("toml", "kube-scheduler-config")
_YAML_SUFFIXES = (".yaml", ".yml", ".json")
_KUBE_HEADER = re.compile(r"^(apiVersion|kind)\s*:", re.MULTILINE)


def shipped_profiles() -> list[str]:
    """Names of the profiles shipped in ``kubesched/profiles/``."""
    folder = resources.files(__name__)
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.endswith((".toml", *_YAML_SUFFIXES)) or Path(spec).exists()


def _is_kube_file(path: str, text: str) -> bool:
    """A .yaml/.yml/.json file, or a file of another name whose text has a top-level apiVersion or kind."""
    suffix = Path(path).suffix.lower()
    if suffix in _YAML_SUFFIXES:
        return True
    return suffix != ".toml" and bool(_KUBE_HEADER.search(text))


def load_config(spec: str, registry: PluginRegistry) -> SchedulerConfiguration:
    """Load a profile by shipped name (``default``) or by path to a TOML profile or a KubeSchedulerConfiguration."""
    if _looks_like_path(spec):
        text = read_text(spec, spec)  # once: a pipe (``--profile <(...)``) cannot be read again
        if _is_kube_file(spec, text):
            return parse_kube_config(yaml_document(text, spec), registry, spec)
        return parse_config(toml_document(text, spec), registry, spec)
    names = shipped_profiles()
    if spec not in names:
        hint = did_you_mean(spec, names)
        raise ProfileError(f"no shipped profile named {spec!r}{hint}; shipped profiles: {', '.join(names)} "
                           "(or give the path of a .toml profile or a KubeSchedulerConfiguration .yaml)")
    resource = resources.files(__name__) / f"{spec}.toml"
    with resources.as_file(resource) as path:
        return load_config_file(path, registry, source=f"{spec} (shipped profile)")


def config_document(config: SchedulerConfiguration) -> dict[str, Any]:
    """The effective configuration as a TOML-ready document.

    Every extension point lists its complete plugin list after ``disabled = [{ name = "*" }]``, so the
    document, loaded as a profile, yields exactly the same effective configuration.
    """
    document = written(SETTINGS, config.settings, TOML)
    profiles = []
    for profile in config.profiles:
        table = written_profile(profile, TOML)
        table["plugin-config"] = {name: unstructure(args) for name, args in sorted(profile.plugin_args.items())}
        profiles.append(table)
    document["profiles"] = profiles
    return document


def render_config(config: SchedulerConfiguration) -> str:
    """The effective configuration as TOML (``kubesched profile show``)."""
    header = ("# Effective configuration" + (f" of {config.source}" if config.source else "") + ":\n"
              "# every extension point lists its complete plugin list, in the order plugins run.\n")
    return header + toml_writer.dumps(config_document(config), table_arrays=frozenset({"profiles"}))


def render(config: SchedulerConfiguration, form: str = "toml") -> str:
    """The effective configuration in one of :data:`FORMATS`."""
    if form == "kube-scheduler-config":
        return render_kube_config(config)
    if form != "toml":
        raise ValueError(f"unknown format {form!r}; expected one of: {', '.join(FORMATS)}")
    return render_config(config)

"""The suite on an installed plugin: find it by entry-point name and read its args from a TOML file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubesched.errors import ProfileError
from kubesched.framework._args import ArgsError, structure
from kubesched.profiles.files import read_toml
from kubesched.runtime import load_plugin_class
from kubesched.testing.conformance.subject import DEFAULT_LARGE_CLUSTER, DEFAULT_TIME_BUDGET, PluginUnderTest


def read_args_file(path: str | Path, plugin_class: type[Any]) -> Any:
    """The plugin's Args from a TOML file whose top-level keys are the plugin's args (as in a profile's
    ``plugin-config`` table); every problem is a ProfileError naming the file and key."""
    name = str(path)
    args_class = getattr(plugin_class, "Args", None)
    if args_class is None:
        raise ProfileError(f"plugin {plugin_class.name} takes no args", file=name)
    document = read_toml(path)
    try:
        return structure(args_class, document)
    except ArgsError as exc:
        raise ProfileError(exc.message, file=name, key=exc.key or None) from None
    except Exception as exc:  # a broken Args class: say so instead of a traceback
        raise ProfileError(f"the plugin's Args class failed on these args: {type(exc).__name__}: {exc}",
                           file=name) from None


def installed_subject(name: str, args_file: str | Path | None = None, *, cluster: Sequence[str | Path] = (),
                      time_budget: float = DEFAULT_TIME_BUDGET,
                      large_cluster: int = DEFAULT_LARGE_CLUSTER) -> PluginUnderTest:
    """The installed plugin ``name`` (entry point in ``kubesched.plugins``) ready for the suite. ``cluster``
    (manifest paths) replaces the example cluster: its nodes, its bound pods as running pods, and its other
    pods as the pods to schedule."""
    plugin_class, _distribution, _version = load_plugin_class(name)
    args = read_args_file(args_file, plugin_class) if args_file is not None else None
    if cluster:
        return PluginUnderTest.from_cluster(plugin_class, cluster, args=args, time_budget=time_budget,
                                            large_cluster=large_cluster, entry_point=name)
    return PluginUnderTest(plugin_class, args, time_budget=time_budget, large_cluster=large_cluster,
                           entry_point=name)

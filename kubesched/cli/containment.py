"""What the commands that run plugins do to contain them: ``--plugin-timeout-ms`` and ``--strict`` into the
scheduler settings, plugins' standard output sent to standard error while they run (so ``-o json`` stays valid),
and, once the result is written, an exit that does not wait for threads a plugin left running (named in a
warning)."""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import attrs
import click

from kubesched.cli.exits import exits_refused
from kubesched.profiles import SchedulerConfiguration
from kubesched.runtime import PluginRegistry, stop_plugin_timer

F = TypeVar("F", bound=Callable[..., Any])

#: Threads started from a plugin's code while plugins ran, with the plugin's name.
_STARTED: weakref.WeakKeyDictionary[threading.Thread, str] = weakref.WeakKeyDictionary()


def plugin_timeout_option(command: F) -> F:
    """The ``--plugin-timeout-ms`` option (the profile's ``plugin-timeout-ms``, overridden)."""
    return click.option(
        "--plugin-timeout-ms", "plugin_timeout_ms", type=float, default=None, metavar="MS",
        help="Interrupt a plugin call running longer than MS milliseconds: that plugin's error for that pod "
             "(overrides the profile's plugin-timeout-ms; see docs/writing-plugins.md).")(command)


def contained(config: SchedulerConfiguration, timeout_ms: float | None, strict: bool) -> SchedulerConfiguration:
    """``config`` with the flags' plugin timeout (milliseconds) and, under ``--strict``, a check of the pod after
    every plugin call."""
    if timeout_ms is not None and not (math.isfinite(timeout_ms) and timeout_ms > 0):
        raise click.BadParameter(f"{timeout_ms:g} is not a positive number of milliseconds",
                                 param_hint="--plugin-timeout-ms")
    settings = config.settings
    if timeout_ms is not None:
        settings = attrs.evolve(settings, plugin_timeout_seconds=timeout_ms / 1000)
    if strict:
        settings = attrs.evolve(settings, check_plugin_inputs=True)
    return config if settings is config.settings else attrs.evolve(config, settings=settings)


def third_party_modules(registry: PluginRegistry) -> dict[str, str]:
    """The modules of the loaded plugins from outside kubesched, each with a plugin's name."""
    return {spec.cls.__module__: name for name in registry.loaded()
            if not (spec := registry[name]).cls.__module__.startswith("kubesched.")}


def plugins_cannot_exit(registry: PluginRegistry) -> contextlib.AbstractContextManager[None]:
    """While the block runs, the loaded plugins from outside kubesched cannot end or signal the process."""
    return exits_refused(third_party_modules(registry))


@contextlib.contextmanager
def plugins_running(registry: PluginRegistry) -> Iterator[None]:
    """While plugins run: what they print goes to standard error, the threads they start are noted, and they
    cannot end or signal the process (kubesched.cli.exits)."""
    modules = third_party_modules(registry)
    original = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        frame = sys._getframe(1)
        while frame is not None:
            plugin = modules.get(frame.f_globals.get("__name__", ""))
            if plugin is not None:
                _STARTED[thread] = plugin
                break
            frame = frame.f_back  # type: ignore[assignment]
        original(thread)

    threading.Thread.start = start  # type: ignore[method-assign, assignment]
    try:
        with contextlib.redirect_stdout(sys.stderr), exits_refused(modules):
            yield
    finally:
        threading.Thread.start = original  # type: ignore[method-assign]
        stop_plugin_timer()


def leave_plugin_threads(code: object) -> None:
    """When threads a plugin started are still running, warn naming the plugins and end the process now with
    exit status ``code`` (a SystemExit's), rather than wait for them forever."""
    left = sorted({(plugin, thread.name) for thread, plugin in list(_STARTED.items())
                   if thread.is_alive() and not thread.daemon})
    if not left:
        return
    for plugin in sorted({plugin for plugin, _ in left}):
        names = ", ".join(name for p, name in left if p == plugin)
        click.echo(f'warning: plugin "{plugin}" left thread(s) running ({names}): exiting without waiting for '
                   "them", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)

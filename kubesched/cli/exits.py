"""Plugins may not end the process: while they run, ``os._exit``, ``os.abort`` and the calls that send a signal
to this process (``os.kill``, ``os.killpg``, ``signal.raise_signal``, ``signal.pthread_kill``) raise
:class:`ProcessExitRefusedError` when a plugin's code is on the calling stack, so the call becomes that plugin's error
for that pod. kubesched's own calls (the shutdown grace of ``run``, the exit past left-over threads) pass."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any

#: (module, attribute) of every call guarded.
_GUARDED: tuple[tuple[Any, str], ...] = (
    (os, "_exit"), (os, "abort"), (os, "kill"), (os, "killpg"), (signal, "raise_signal"), (signal, "pthread_kill"))


class ProcessExitRefusedError(Exception):
    """A plugin asked to end or signal its own process while kubesched ran it."""


def _package(module: str) -> str:
    return module.partition(".")[0]


def _plugin_on_stack(frame: FrameType | None, packages: frozenset[str]) -> bool:
    while frame is not None:
        if _package(frame.f_globals.get("__name__", "")) in packages:
            return True
        frame = frame.f_back
    return False


def _targets_self(name: str, args: tuple[Any, ...]) -> bool:
    """Whether the call would end or signal this process (signal 0 only checks, and other processes are theirs)."""
    if name in ("_exit", "abort", "raise_signal"):
        return True
    if len(args) < 2 or args[1] == 0:
        return False
    if name == "kill":
        return args[0] in (os.getpid(), 0, -os.getpgrp())
    if name == "killpg":
        return args[0] in (0, os.getpgrp())
    return args[0] in {t.ident for t in threading.enumerate()}  # pthread_kill: a thread of this process


def _guard(module: Any, name: str, original: Callable[..., Any], packages: frozenset[str]) -> Callable[..., Any]:
    pid = os.getpid()  # a child a plugin forked ends as it likes

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() == pid and _targets_self(name, args) and _plugin_on_stack(sys._getframe(1), packages):
            shown = ", ".join(repr(a) for a in args)
            raise ProcessExitRefusedError(f"called {module.__name__}.{name}({shown}): a plugin may not end or "
                                          "signal the process that runs it")
        return original(*args, **kwargs)

    guarded.__wrapped__ = original  # type: ignore[attr-defined]
    return guarded


@contextlib.contextmanager
def exits_refused(plugin_modules: Iterable[str]) -> Iterator[None]:
    """While the block runs, plugins from ``plugin_modules``' top-level packages cannot end or signal the process."""
    packages = frozenset(_package(m) for m in plugin_modules) - {"kubesched", ""}
    if not packages:
        yield
        return
    saved = [(module, name, getattr(module, name)) for module, name in _GUARDED if hasattr(module, name)]
    for module, name, original in saved:
        setattr(module, name, _guard(module, name, original, packages))
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)

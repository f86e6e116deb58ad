"""Observing the plugin inside the real Framework: every hook call of the plugin under test is wrapped, counted,
timed and shown to the running check, and an exception names the hook, the pod, the node and where it arose."""

from __future__ import annotations

import collections
import os
import time
import traceback
from collections.abc import Callable
from typing import Any

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._node_info import NodeInfo
from kubesched.runtime import Hook, Uncontained

#: Hooks whose third argument is a list the plugin must leave as it was (PreScore) or rewrite in place
#: (NormalizeScore): the names in it are noted before the call.
_LIST_HOOKS = frozenset({"pre_filter", "pre_score", "normalize_score"})
#: Frames of these packages (the suite, the runtime, the API objects' internals) are not where a plugin's bug
#: is: tracebacks leave them out.
_OWN_DIRS = tuple(os.path.join("kubesched", d) + os.sep
                  for d in ("runtime", "api", os.path.join("testing", "conformance")))
#: How many of the innermost frames an exception's report shows.
INNERMOST_FRAMES = 3


@attrs.define
class Call:
    """One call of one of the plugin's hooks: its arguments (the hookspec's, in order), what it returned,
    the seconds it took and, for list arguments, the names the list held before the call."""

    hook: str
    args: tuple[Any, ...]
    result: Any = None
    seconds: float = 0.0
    names_before: list[str] | None = None

    @property
    def pod(self) -> Pod | None:
        """The pod the hook was called for (None for QueueSort)."""
        return next((a for a in self.args if isinstance(a, Pod)), None)

    @property
    def node(self) -> str | None:
        """The node the hook was called on: a NodeInfo's name or the node-name argument of Reserve and later."""
        for arg in reversed(self.args):
            if isinstance(arg, NodeInfo):
                return arg.name
        if self.hook in ("reserve", "unreserve", "permit", "pre_bind", "bind", "post_bind"):
            return str(self.args[2])
        return None

    def where(self) -> str:
        """``pod P on node N`` (or just the pod), for messages."""
        pod, node = self.pod, self.node
        text = f"pod {pod.name}" if pod is not None else "no pod"
        return text + (f" on node {node}" if node is not None else "")


class HookRaised(Exception):  # noqa: N818 - an outcome of the plugin, reported as a check failure
    """The plugin's hook raised: the hook, its pod and node, the exception and its innermost frames."""

    def __init__(self, call: Call, error: BaseException) -> None:
        super().__init__(call.hook)
        self.call = call
        self.error = error

    def __str__(self) -> str:
        text = str(self.error)
        error = f"{type(self.error).__name__}: {text}" if text else type(self.error).__name__
        frames = innermost_frames(self.error)
        where = f"; innermost frames: {frames}" if frames else ""
        return f"{self.call.hook} raised {error} ({self.call.where()}){where}"


def innermost_frames(error: BaseException, count: int = INNERMOST_FRAMES) -> str:
    """The last ``count`` frames of the exception's traceback outside kubesched's runtime and this suite, as
    ``file.py:LINE in function (source)`` separated by `` <- `` (innermost first)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not any(d in f.filename for d in _OWN_DIRS)]
    shown = []
    for frame in reversed(frames[-count:]):
        source = f" ({frame.line.strip()})" if frame.line else ""
        shown.append(f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}{source}")
    return " <- ".join(shown)


class Escape(Uncontained):
    """Carries an exception out of a Framework call: the framework contains its plugins' exceptions (an Error
    status, or nothing for Unreserve), but the suite must see them, and an observer's verdict, as they are."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


Observer = Callable[[Call], None]


@attrs.define
class Recorder:
    """Wraps the hooks of the plugin named ``plugin`` as the Framework resolves them (its ``hook_wrapper``):
    counts each call in ``calls``, times it, and shows it to every observer after it returns. An exception of
    the plugin, or a verdict of an observer, leaves the Framework call as an :class:`Escape`."""

    plugin: str
    calls: collections.Counter[str] = attrs.field(factory=collections.Counter)
    observers: list[Observer] = attrs.field(factory=list)

    def wrap(self, plugin: str, hook: str, function: Hook) -> Hook:
        """The Framework's hook wrapper: the plugin's hooks recorded, any other plugin's as they are."""
        if plugin != self.plugin:
            return function
        calls, observers = self.calls, self.observers
        lists = hook in _LIST_HOOKS

        def recorded(*args: Any) -> Any:
            call = Call(hook, args, names_before=[n.name for n in args[2]] if lists else None)
            calls[hook] += 1
            start = time.perf_counter()
            try:
                call.result = function(*args)
            except (Exception, SystemExit) as exc:
                raise Escape(HookRaised(call, exc)) from None
            call.seconds = time.perf_counter() - start
            for observer in observers:
                try:
                    observer(call)
                except Exception as exc:
                    raise Escape(exc) from None
            return call.result

        return recorded

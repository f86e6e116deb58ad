"""Plugin failures and slow calls: how the Framework records a plugin that raised, returned the wrong type or
took longer than its budget, and the words and traceback frames its reports use."""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import StateNotFoundError
from kubesched.framework._hookspecs import EXTENSION_POINTS
from kubesched.framework._node_info import NodeInfo
from kubesched.runtime._inputs import PluginChangedInput
from kubesched.runtime._timeout import PluginTimeout

Hook = Callable[..., Any]

#: What a plugin may raise that fails only its pod: any BaseException (SystemExit from sys.exit, GeneratorExit, a
#: custom subclass, the plugin timeout) except KeyboardInterrupt, which every catch re-raises first: a real Ctrl-C
#: still stops the run.
PLUGIN_FAILURES: tuple[type[BaseException], ...] = (BaseException,)


class Uncontained(BaseException):
    """What a tool wrapping plugin hooks raises to carry something out of a framework call as it is (the
    conformance suite's verdicts): the runtime re-raises it, as it does KeyboardInterrupt."""


#: What every catch of plugin failures re-raises first.
UNCONTAINED: tuple[type[BaseException], ...] = (KeyboardInterrupt, Uncontained)
#: How much of a plugin exception's text its error keeps.
EXCEPTION_TEXT_MAX = 2000
# How many of the innermost traceback frames a plugin error report shows.
_REPORTED_FRAMES = 3
# Frames in the runtime's own modules are left out of reports: they are the caller, not the plugin.
_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def describe_exception(exc: BaseException) -> str:
    """``Type: text`` for an exception, even one whose ``str()`` raises (then the failure is named instead); a
    StateNotFoundError's text alone (kube-scheduler's message for a missing CycleState value)."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except PLUGIN_FAILURES as inner:
        return f"{name} (str() raised {type(inner).__name__})"
    if text and isinstance(exc, StateNotFoundError | PluginTimeout | PluginChangedInput):  # the runtime's words
        return text
    if len(text) > EXCEPTION_TEXT_MAX:  # a 20 MB message would be kept in every event and result of the pod
        text = f"{text[:EXCEPTION_TEXT_MAX]}... ({len(text)} characters)"
    return f"{name}: {text}" if text else name


def _short_path(filename: str) -> str:
    """A source path relative to the import root holding it (stable across machines), else the file name."""
    roots = sorted((os.path.abspath(p) for p in sys.path if p), key=len, reverse=True)
    for root in roots:
        prefix = root.rstrip(os.sep) + os.sep
        if filename.startswith(prefix):
            return filename[len(prefix):].replace(os.sep, "/")
    return os.path.basename(filename)


def innermost_frames(exc: BaseException | None) -> tuple[str, ...]:
    """The innermost traceback frames of ``exc`` outside the framework runtime, as ``file:line in function``."""
    if exc is None or exc.__traceback__ is None:
        return ()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_RUNTIME_DIR)]
    return tuple(f"{_short_path(f.filename)}:{f.lineno} in {f.name}" for f in frames[-_REPORTED_FRAMES:])


@attrs.frozen
class PluginFailure:
    """One plugin error: where (extension point, plugin, pod, node), what, and the innermost frames."""

    point: str
    plugin: str
    pod: str
    node: str
    message: str
    frames: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line: ``Filter plugin "X" on pod ns/p, node n1: Error: text (at file.py:12 in filter)``."""
        where = f'{self.point} plugin "{self.plugin}" on pod {self.pod}' + (f", node {self.node}" if self.node else "")
        text = f"{where}: {self.message}"
        return text + (f" (at {', '.join(self.frames)})" if self.frames else "")


@attrs.define
class SlowCalls:
    """The calls of one plugin at one extension point that took longer than the plugin call budget."""

    point: str
    plugin: str
    count: int
    slowest: float
    pod: str
    node: str


#: How reports name each hook: its extension point, or the companion's own name.
HOOK_LABELS: dict[str, str] = {
    **{point.hook: point.name for point in EXTENSION_POINTS},
    "pre_filter_add_pod": "PreFilter AddPod", "pre_filter_remove_pod": "PreFilter RemovePod",
    "normalize_score": "NormalizeScore", "unreserve": "Unreserve",
    "pre_filter_nodes": "PreFilter", "filter_nodes": "Filter", "pre_score_nodes": "PreScore", "score_nodes": "Score",
    "normalize_scores": "NormalizeScore",
}


def timed(slow_calls: dict[tuple[str, str], SlowCalls], plugin: str, hook: str, function: Hook,
          budget: float) -> Hook:
    """``function`` timed on every call; a call longer than ``budget`` seconds is noted in ``slow_calls``."""
    clock = time.perf_counter
    label = HOOK_LABELS[hook]

    def timed_call(*args: Any) -> Any:
        start = clock()
        try:
            return function(*args)
        finally:
            elapsed = clock() - start
            if elapsed > budget:
                _note_slow(slow_calls, label, plugin, args, elapsed)

    return timed_call


def _note_slow(slow_calls: dict[tuple[str, str], SlowCalls], point: str, plugin: str, args: tuple[Any, ...],
               elapsed: float) -> None:
    """Count one call over the budget, keeping the pod and node of the slowest."""
    pod = next((a for a in args if isinstance(a, Pod)), None)
    if pod is None and args and hasattr(args[0], "pod"):  # QueueSort compares QueuedPodInfos
        pod = args[0].pod
    node = next((a.name if isinstance(a, NodeInfo) else a for a in args if isinstance(a, NodeInfo | str)), "")
    record = slow_calls.get((point, plugin))
    where = pod.key if pod is not None else ""
    if record is None:
        slow_calls[(point, plugin)] = SlowCalls(point, plugin, 1, elapsed, where, node)
        return
    record.count += 1
    if elapsed > record.slowest:
        record.slowest, record.pod, record.node = elapsed, where, node

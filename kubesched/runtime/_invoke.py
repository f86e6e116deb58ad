"""The one guarded call for plugin hooks: how a plugin that raises, returns the wrong type or returns an Error
becomes that plugin's Error status for that pod, recorded once, worded per extension point as kube-scheduler
words it. Every runner calls plugins through :class:`Guard`; the per-node loops (Filter, Score) keep one ``try``
around the loop for speed and report through :meth:`Guard.failed`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import attrs

from kubesched.api.pod import Pod
from kubesched.backend import ClusterClient
from kubesched.framework._status import Code, Status
from kubesched.framework._types import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubesched.runtime._failures import (
    PLUGIN_FAILURES,
    UNCONTAINED,
    PluginFailure,
    describe_exception,
    innermost_frames,
)


@attrs.frozen
class Point:
    """How failures at one extension point are reported: ``label`` names the point in plugin failure reports;
    ``wording`` (with ``{plugin}`` and ``{detail}``) is the Error status's message, as kube-scheduler's; a wrong
    return type or another broken rule uses ``returned`` instead when the point words it differently."""

    label: str
    wording: str = ""
    returned: str | None = None

    def message(self, plugin: str, detail: str, *, returned: bool = False) -> str:
        """The Error message for ``plugin``'s failure ``detail``."""
        template = self.returned if returned and self.returned is not None else self.wording
        return template.format(plugin=plugin, detail=detail)


PRE_ENQUEUE: Final = Point("PreEnqueue", 'running PreEnqueue plugin "{plugin}": {detail}')
PRE_FILTER: Final = Point("PreFilter", 'running PreFilter plugin "{plugin}": {detail}')
ADD_POD: Final = Point("PreFilter AddPod", 'running AddPod on PreFilter plugin "{plugin}": {detail}')
REMOVE_POD: Final = Point("PreFilter RemovePod", 'running RemovePod on PreFilter plugin "{plugin}": {detail}')
FILTER: Final = Point("Filter", 'running "{plugin}" filter plugin: {detail}')
POST_FILTER: Final = Point("PostFilter", 'running PostFilter plugin "{plugin}": {detail}')
#: An Error status a PostFilter plugin returned: its own message, as kube-scheduler's RunPostFilterPlugins keeps it.
POST_FILTER_ERROR: Final = Point("PostFilter", "{detail}")
PRE_SCORE: Final = Point("PreScore", 'running PreScore plugin "{plugin}": {detail}')
SCORE: Final = Point("Score", 'running Score plugins: plugin "{plugin}" failed with: {detail}',
                     'running Score plugins: plugin "{plugin}" {detail}')
NORMALIZE: Final = Point("NormalizeScore",
                         'running Normalize on Score plugins: plugin "{plugin}" failed with: {detail}',
                         'running Normalize on Score plugins: plugin "{plugin}" {detail}')
#: A score out of [MIN_NODE_SCORE, MAX_NODE_SCORE] after normalising, found when the weights are applied.
WEIGHTS: Final = Point("Score", 'applying score defaultWeights on Score plugins: plugin "{plugin}" {detail}')
RESERVE: Final = Point("Reserve", 'running Reserve plugin "{plugin}": {detail}')
UNRESERVE: Final = Point("Unreserve")
PERMIT: Final = Point("Permit", 'running Permit plugin "{plugin}": {detail}')
PRE_BIND: Final = Point("PreBind", 'running PreBind plugin "{plugin}": {detail}')
BIND: Final = Point("Bind", 'running Bind plugin "{plugin}": {detail}')
POST_BIND: Final = Point("PostBind")
QUEUEING_HINT: Final = Point("QueueingHint")


def returned(value: object, expected: str = "a Status or None") -> str:
    """The detail for a hook that returned ``value`` where ``expected`` was due."""
    return f"returned {type(value).__name__}, expected {expected}"


def invalid_score(value: object) -> str:
    """The detail for a score outside [MIN_NODE_SCORE, MAX_NODE_SCORE] after normalising (kube-scheduler's text)."""
    return (f"returns an invalid score {value!r}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] "
            "after normalizing")


def first_invalid_score(scores: Sequence[Any]) -> int | None:
    """The index of the first score that is not an int in [MIN_NODE_SCORE, MAX_NODE_SCORE], or None."""
    for index, value in enumerate(scores):
        if type(value) is not int or not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
            return index
    return None


class Guard:
    """Calls one profile's plugin hooks and turns their failures into Error statuses: each failure is recorded in
    ``failures`` and as a PluginError event on its pod, and the scheduler goes on with the next pod."""

    def __init__(self, client: ClusterClient, failures: list[PluginFailure]) -> None:
        self._client = client
        self.failures = failures

    def failed(self, point: Point, plugin: str, pod: Pod, node: str = "", *, exc: BaseException | None = None,
               status: Status | None = None, value: object = None, expected: str = "a Status or None",
               detail: str | None = None) -> Status:
        """``plugin``'s Error at ``point`` for ``pod`` (on ``node``): it raised ``exc``, returned the Error-worthy
        ``status``, returned ``value`` of the wrong type (``expected`` says what was due), or broke a rule that
        ``detail`` states."""
        wrong_type = detail is not None  # a broken rule is worded as a wrong result
        cause: BaseException | None = exc
        if detail is None:
            if exc is not None:
                detail = describe_exception(exc)
            elif status is not None:
                detail, cause = status.message(), status.error
            else:
                detail, wrong_type = returned(value, expected), True
        failure = PluginFailure(point.label, plugin, pod.key, node, detail, innermost_frames(cause))
        self.failures.append(failure)
        self._client.record_event(pod, "Warning", "PluginError", failure.describe())
        return Status(Code.ERROR, (point.message(plugin, detail, returned=wrong_type),), plugin, cause)

    def call(self, point: Point, plugin: str, hook: Callable[..., Any], args: tuple[Any, ...], pod: Pod,
             node: str = "") -> tuple[Any, Status | None]:
        """``hook(*args)`` as (result, None), or (None, Error status) when it raised."""
        try:
            return hook(*args), None
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            return None, self.failed(point, plugin, pod, node, exc=exc)

    def status_of(self, point: Point, plugin: str, hook: Callable[..., Any], args: tuple[Any, ...], pod: Pod,
                  node: str = "") -> tuple[Status | None, Status | None]:
        """(the Status or None ``hook(*args)`` returned, None), or (None, Error status) when it raised or returned
        something else."""
        try:  # not through call(): one Python call less for every hook the binding cycle and PreScore run
            result = hook(*args)
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            return None, self.failed(point, plugin, pod, node, exc=exc)
        if result is not None and not isinstance(result, Status):
            return None, self.failed(point, plugin, pod, node, value=result)
        return result, None

    def run(self, point: Point, plugin: str, hook: Callable[..., Any], args: tuple[Any, ...], pod: Pod,
            node: str = "") -> None:
        """Call a hook whose result does not matter (Unreserve, PostBind, a hint's side): a failure is recorded."""
        try:
            hook(*args)
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            self.failed(point, plugin, pod, node, exc=exc)


def error(message: str, plugin: str = "", cause: BaseException | None = None) -> Status:
    """An Error status the runtime itself raises (no plugin broke a rule)."""
    return Status(Code.ERROR, (message,), plugin, cause)

"""What every check shares: the Check record, its outcomes, the gates that skip it, and status validation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError, ProfileError
from kubesched.framework._hookspecs import REJECTION_CODES, STATUS_CODES
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.runtime import validate_plugin_class
from kubesched.testing.conformance.driver import Driver
from kubesched.testing.conformance.subject import PluginUnderTest


class CheckFailed(AssertionError):  # noqa: N818 - an outcome, like pytest's Failed
    """The plugin broke the rule a check verifies; the message says where and how."""


class CheckSkipped(Exception):  # noqa: N818 - an outcome, like pytest's Skipped
    """The check does not apply to this plugin (for example, it has no such extension point)."""


CheckFunction = Callable[[PluginUnderTest], list[str]]


@attrs.frozen
class Check:
    """One conformance check: a stable kebab-case ``id``, a one-line ``title``, the function, and the hooks it
    is about (it fails when the plugin has one of them but the examples never reached it)."""

    id: str
    title: str
    run: CheckFunction
    exercises: tuple[str, ...] = ()


# The codes each hook may return come from the contract's table, so the checks and the runtime agree.
REJECTIONS = REJECTION_CODES
PRE_FILTER_CODES = STATUS_CODES["pre_filter"]
FILTER_CODES = STATUS_CODES["filter"]
PERMIT_CODES = STATUS_CODES["permit"]


def require(subject: PluginUnderTest, *hooks: str) -> None:
    """Skip unless the plugin implements ``hooks`` and passes the hookspec check (else nothing can be called)."""
    missing = [h for h in hooks if h not in subject.hooks]
    if missing:
        raise CheckSkipped(f"the plugin has no {', '.join(missing)} hook" + ("s" if len(missing) > 1 else ""))
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError:
        raise CheckSkipped("the plugin's hooks do not match the hookspecs (see hooks-match-hookspecs)") from None


def driver(subject: PluginUnderTest, nodes: Sequence[Node] | None = None,
           running: Sequence[Pod] | None = None) -> Driver:
    """A Driver for the subject; if the plugin cannot be built the check is skipped (``builds`` fails)."""
    try:
        return Driver.of(subject, nodes, running)
    except (Exception, SystemExit) as exc:
        raise CheckSkipped(f"the plugin cannot be built with its args (see builds): {explain(exc)}") from None


def explain(exc: BaseException) -> str:
    """``Type: message`` (just ``Type`` without a message); the framework's ProfileError as its message."""
    if isinstance(exc, ProfileError):  # the framework's own wrapping: its message already names the cause
        return exc.message
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def describe(pod: Pod, node: NodeInfo | str | None = None) -> str:
    """``pod P on node N``, for messages."""
    where = f" on node {node if isinstance(node, str) else node.name}" if node is not None else ""
    return f"pod {pod.name}{where}"


def check_status(hook: str, status: Any, codes: frozenset[Code], where: str) -> None:
    """``status`` is None or a Status with one of ``codes``, and a rejection says why."""
    if status is None:
        return
    if not isinstance(status, Status):
        raise CheckFailed(f"{hook} returned {type(status).__name__}, not a Status or None ({where})")
    if status.code is Code.ERROR:
        raise CheckFailed(f"{hook} returned Error on example input ({where}): {status.message()}")
    if status.code not in codes:
        raise CheckFailed(f"{hook} returned {status.code.label}, which {hook} may not return ({where})")
    reasons = status.reasons
    if not isinstance(reasons, tuple) or not all(isinstance(r, str) for r in reasons):
        raise CheckFailed(f"{hook} gave reasons {reasons!r}: they must be a tuple of strings ({where})")
    if status.code in REJECTIONS and not (reasons and all(r.strip() for r in reasons)):
        raise CheckFailed(f"{hook} rejected with {status.code.label} but no reason ({where}): users would see "
                          "an empty message")


def framework_error(status: Status | None, what: str) -> None:
    """Fail when the Framework answered a step with Error (it refused what the plugin returned)."""
    if status is not None and status.code is Code.ERROR:
        raise CheckFailed(f"{what}: {status.message()}")

"""Checks of what the plugin returns: valid statuses with reasons, scores in range, a bounded Permit."""

from __future__ import annotations

import math
from typing import Any

from kubesched.framework._handle import MAX_PERMIT_TIMEOUT
from kubesched.framework._hookspecs import STATUS_CODES
from kubesched.framework._status import Code
from kubesched.framework._types import PreFilterResult
from kubesched.testing.conformance.base import (
    FILTER_CODES,
    PERMIT_CODES,
    PRE_FILTER_CODES,
    CheckFailed,
    CheckSkipped,
    check_status,
    describe,
    driver,
    require,
)
from kubesched.testing.conformance.recorder import Call
from kubesched.testing.conformance.subject import PluginUnderTest

_PRE_SCORE_CODES = STATUS_CODES["pre_score"]
_NORMALIZE_CODES = STATUS_CODES["normalize_score"]


def filter_status_valid(subject: PluginUnderTest) -> list[str]:
    """PreFilter and Filter return None or a Status with a code they may return, every rejection carries
    non-empty reasons, and reasons are a tuple of strings."""
    if not subject.has("filter") and not subject.has("pre_filter"):
        raise CheckSkipped("the plugin has no PreFilter or Filter hook")
    require(subject)
    run = driver(subject)
    _nodes, _running, pods = subject.examples()

    def check(call: Call) -> None:
        if call.hook == "pre_filter" and not isinstance(call.result, PreFilterResult):
            check_status("pre_filter", call.result, PRE_FILTER_CODES, call.where())
        elif call.hook == "filter":
            check_status("filter", call.result, FILTER_CODES, call.where())

    with run.observing(check):
        for pod in pods:
            pre_filtered, _status = run.pre_filter(pod)
            if pre_filtered is not None and not pre_filtered.skip:
                run.filter_verdicts(pre_filtered.state, pod, pre_filtered.nodes)
    return []


def _check_score(value: Any, step: str, where: str) -> None:
    if type(value) is not int:  # as the framework: bools, int subclasses and floats are refused
        raise CheckFailed(f"score for {where} is {value!r}, not an integer")
    if not 0 <= value <= 100:
        raise CheckFailed(f"score {value} {step} for {where} is outside [0, 100]")


def score_in_range(subject: PluginUnderTest) -> list[str]:
    """PreScore and NormalizeScore succeed (or PreScore skips), NormalizeScore keeps every node in order, and
    every final score is an integer in [0, 100]."""
    require(subject, "score")
    run = driver(subject)
    normalizes = subject.has("normalize_score")
    _nodes, _running, pods = subject.examples()

    def check(call: Call) -> None:
        if call.hook == "pre_score":
            check_status("pre_score", call.result, _PRE_SCORE_CODES, call.where())
        elif call.hook == "score" and not normalizes:
            _check_score(call.result, "from score (no normalize_score)", call.where())
        elif call.hook == "normalize_score":
            check_status("normalize_score", call.result, _NORMALIZE_CODES, call.where())
            names = [s.name for s in call.args[2]]
            if names != call.names_before:
                raise CheckFailed(f"normalize_score changed the list of nodes: {call.names_before} became {names} "
                                  f"({call.where()}); it must rewrite each score in place")
            for entry in call.args[2]:
                _check_score(entry.score, "after normalize_score", describe(call.args[1], entry.name))

    with run.observing(check):
        for pod in pods:
            run.cycle(pod)
    return []


def permit_valid(subject: PluginUnderTest) -> list[str]:
    """After the cycle and Reserve, on the chosen node with the assumed pod, Permit returns (Status or None,
    timeout): a Permit code, reasons on rejection, and for Wait a timeout in (0, 15 min]."""
    require(subject, "permit")
    _nodes, _running, pods = subject.examples()

    def check(call: Call) -> None:
        if call.hook == "permit":
            _check_permit(call.result, call.where())

    for pod in pods:
        run = driver(subject)
        target = run.binding_target(pod)
        if target is None:
            continue  # no node: the pod never reaches Permit
        state, node, assumed = target
        if not run.reserved(state, assumed, node):
            continue  # a failed Reserve never reaches Permit
        with run.observing(check):
            run.permit(state, assumed, node)
    return []


def _check_permit(result: Any, where: str) -> None:
    if not isinstance(result, tuple) or len(result) != 2:
        raise CheckFailed(f"permit returned {result!r}, not a (status, timeout) pair ({where})")
    status, timeout = result
    check_status("permit", status, PERMIT_CODES, where)
    code = Code.SUCCESS if status is None else status.code
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout):
        raise CheckFailed(f"permit returned the timeout {timeout!r}, not a finite number of seconds ({where})")
    if code is Code.WAIT and not 0 < timeout <= MAX_PERMIT_TIMEOUT:
        raise CheckFailed(f"permit asked to wait {timeout:g}s; a wait must be in (0, {MAX_PERMIT_TIMEOUT:g}] "
                          f"seconds ({where})")

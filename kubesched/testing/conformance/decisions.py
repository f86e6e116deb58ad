"""Whether the examples made the plugin decide: why a hook was never reached (the step that stopped the cycle
before it), and whether Filter and Score showed both sides of a decision or hid one behind a gate of their own.

Only the checks' example run is traced (``sys.settrace``, limited to the code of the plugin's Filter and Score
methods); the scheduler never is."""

from __future__ import annotations

import collections
import inspect
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

from kubesched.framework._status import Code, Status
from kubesched.testing.conformance.driver import Driver, show, verdict
from kubesched.testing.conformance.recorder import Call, Recorder
from kubesched.testing.conformance.subject import PluginUnderTest

#: The hooks whose answers are decisions the examples must show both ways.
DECIDING = ("filter", "score")
#: Hooks reached only once a node is chosen (after Filter, with Reserve before Permit).
_BINDING = ("reserve", "unreserve", "permit")
_SCORING = ("pre_score", "score", "normalize_score")


def _driver(subject: PluginUnderTest) -> Driver:
    """A Driver whose calls are not counted in the subject's (the check's) call counts."""
    recorder = Recorder(subject.plugin_class.name)
    return Driver(subject, subject.framework(recorder=recorder), recorder)


def _stopped(run: Driver, pod: Any, hook: str) -> str | None:
    """The step of the scheduling cycle that stopped ``pod`` before ``hook``; None when the pod reaches it."""
    pre_filtered, status = run.pre_filter(pod)
    if hook == "pre_filter":
        return None
    if pre_filtered is None:
        return f"PreFilter answered {show(verdict(status))}"
    if not pre_filtered.nodes:
        return "PreFilter left no node"
    if pre_filtered.skip and hook in ("filter", "pre_filter_add_pod", "pre_filter_remove_pod"):
        return "PreFilter answered Skip"
    if hook not in _SCORING and hook not in _BINDING:
        return None
    answers = {} if pre_filtered.skip else run.filter_verdicts(pre_filtered.state, pod, pre_filtered.nodes)
    if all(a[0] is not Code.SUCCESS for a in answers.values()) and len(answers) == len(pre_filtered.nodes):
        return f"Filter answered {' or '.join(sorted({show(a) for a in answers.values()}))} on every node"
    feasible = [n for n in pre_filtered.nodes if answers.get(n.name, (Code.SUCCESS, ()))[0] is Code.SUCCESS]
    if hook in _SCORING:
        status = run.pre_score(pre_filtered.state, pod, feasible)
        if hook == "pre_score":
            return None
        if status is not None:
            return f"PreScore answered {show(verdict(status))}"
        return "PreScore answered Skip" if run.subject.plugin_class.name in pre_filtered.state.skip_score_plugins \
            else None
    target = run.binding_target(pod)
    if target is None or hook != "permit":
        return None
    state, node, assumed = target
    status = run.reserve(state, assumed, node)
    return None if status is None or status.is_success() else f"Reserve answered {show(verdict(status))}"


def why_never_reached(subject: PluginUnderTest, hook: str) -> str | None:
    """What stopped each example pod before ``hook`` in a scheduling cycle, as ``Filter answered Error (why) on
    every node for pod p; PreFilter answered Skip for pods q, r``; None when a pod reaches it there."""
    causes: dict[str, list[str]] = collections.defaultdict(list)
    _nodes, _running, pods = subject.examples()
    try:
        for pod in pods:
            run = _driver(subject)
            cause = _stopped(run, pod, hook)
            if cause is None:
                return None
            causes[cause].append(pod.name)
    except Exception:
        return None
    return "; ".join(f"{cause} for pod{'s' if len(names) > 1 else ''} {', '.join(names)}"
                     for cause, names in causes.items()) or None


def _hook_code(plugin_class: type[Any], hook: str) -> CodeType | None:
    """The code object of the plugin's own ``hook`` method (None when it is not a plain function)."""
    function = getattr(plugin_class, hook, None)
    return getattr(inspect.unwrap(function), "__code__", None) if callable(function) else None


@contextmanager
def _lines_run(codes: Sequence[CodeType]) -> Iterator[dict[CodeType, set[int]]]:
    """Trace the lines run in ``codes`` (and nothing else) inside the block; the tracer before it is restored."""
    seen: dict[CodeType, set[int]] = {code: set() for code in codes}

    def line(frame: FrameType, event: str, _arg: Any) -> Any:
        if event == "line":
            seen[frame.f_code].add(frame.f_lineno)
        return line

    def call(frame: FrameType, _event: str, _arg: Any) -> Any:
        return line if frame.f_code in seen else None

    before = sys.gettrace()
    sys.settrace(call)
    try:
        yield seen
    finally:
        sys.settrace(before)


def _never_ran(code: CodeType, ran: set[int]) -> str | None:
    lines = sorted({n for _start, _end, n in code.co_lines() if n is not None and n != code.co_firstlineno} - ran)
    if not lines:
        return None
    where = f"{os.path.basename(code.co_filename)}:{lines[0]}"
    return f"{len(lines)} of its lines never ran, from {where}" if len(lines) > 1 else f"its line {where} never ran"


def unseen_decisions(subject: PluginUnderTest, hooks: Sequence[str]) -> list[str]:
    """For each of ``hooks`` (Filter, Score) that gave one answer only over every example pod and node, while
    some of its lines never ran: what it answered and which lines, e.g. ``filter accepted every example pod on
    every node (it never rejected one), and 3 of its lines never ran, from gate.py:12``. A PreFilter rejection
    or narrowing counts as a rejection; a pod PreFilter skips counts for nothing."""
    codes = {hook: code for hook in hooks if hook in DECIDING and (code := _hook_code(subject.plugin_class, hook))}
    if not codes:
        return []
    kept: set[bool] = set()
    scores: set[str] = set()

    def note(call: Call) -> None:
        if call.hook == "filter":
            kept.add(not (call.result is None or (isinstance(call.result, Status) and call.result.is_success())))
        elif call.hook == "score":
            scores.add(repr(call.result))

    _nodes, _running, pods = subject.examples()
    try:
        run = _driver(subject)
        everywhere = len(run.framework.handle.snapshot.list())
        with _lines_run(list(codes.values())) as ran, run.observing(note):
            for pod in pods:
                _state, outcome = run.cycle(pod)
                if outcome.pre_filter[0] is not Code.SUCCESS and outcome.pre_filter[0] is not Code.SKIP:
                    kept.add(True)
                elif outcome.pre_filter[0] is Code.SUCCESS and len(outcome.filter) < everywhere:
                    kept.add(True)  # PreFilter narrowed the nodes
    except Exception:
        return []  # the checks report what the plugin raised
    found = []
    if "filter" in codes and len(kept) == 1 and (lines := _never_ran(codes["filter"], ran[codes["filter"]])):
        answer = ("rejected every example pod on every node (it never accepted one)" if True in kept
                  else "accepted every example pod on every node (it never rejected one)")
        found.append(f"filter {answer}, and {lines}")
    if "score" in codes and len(scores) == 1 and (lines := _never_ran(codes["score"], ran[codes["score"]])):
        found.append(f"score gave every example pod the same score {next(iter(scores))} on every node, and "
                     f"{lines}")
    return found

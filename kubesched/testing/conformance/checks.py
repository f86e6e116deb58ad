"""The conformance checks: each takes a :class:`PluginUnderTest`, raises :class:`CheckFailed` with what is wrong
or :class:`CheckSkipped` when it does not apply, and returns warnings (only the time budget warns)."""

from __future__ import annotations

import math
import time
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin

import attrs

from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError
from kubesched.framework.args import ArgsError, kebab, structure, unstructure
from kubesched.framework.cycle_state import Cloneable, CycleState
from kubesched.framework.handle import MAX_PERMIT_TIMEOUT
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.registry import validate_plugin_class
from kubesched.framework.runtime import Framework
from kubesched.framework.status import Code, Status
from kubesched.testing.builders import make_pod
from kubesched.testing.conformance.inspect import deeply_immutable, freeze, shared_mutables
from kubesched.testing.conformance.subject import (
    NormalizeChangedNodesError,
    PluginUnderTest,
    Verdict,
    bare_node,
    large_cluster,
)
from kubesched.testing.harness import plugin_framework


class CheckFailed(AssertionError):  # noqa: N818 - an outcome, like pytest's Failed
    """The plugin broke the rule a check verifies; the message says where and how."""


class CheckSkipped(Exception):  # noqa: N818 - an outcome, like pytest's Skipped
    """The check does not apply to this plugin (for example, it has no such extension point)."""


CheckFunction = Callable[[PluginUnderTest], list[str]]


@attrs.frozen
class Check:
    """One conformance check: a stable kebab-case ``id``, a one-line ``title`` and the function."""

    id: str
    title: str
    run: CheckFunction


REJECTIONS = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})
FILTER_CODES = frozenset({Code.SUCCESS, *REJECTIONS})
PERMIT_CODES = frozenset({Code.SUCCESS, Code.WAIT, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE})


def _require(subject: PluginUnderTest, *hooks: str) -> None:
    """Skip unless the plugin implements ``hooks`` and passes the hookspec check (else nothing can be called)."""
    missing = [h for h in hooks if h not in subject.hooks]
    if missing:
        raise CheckSkipped(f"the plugin has no {', '.join(missing)} hook" + ("s" if len(missing) > 1 else ""))
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError:
        raise CheckSkipped("the plugin's hooks do not match the hookspecs (see hooks-match-hookspecs)") from None


def _framework(subject: PluginUnderTest, **kwargs: Any) -> Framework:
    """A Framework for the subject; a constructor or args failure skips (args-accept-defaults reports it)."""
    try:
        return subject.framework(**kwargs)
    except (KubeschedError, ArgsError, TypeError) as exc:
        raise CheckSkipped(f"the plugin cannot be built with its args: {exc}") from None


def _describe(pod: Pod, node: NodeInfo | str | None = None) -> str:
    where = f" on node {node if isinstance(node, str) else node.name}" if node is not None else ""
    return f"pod {pod.name}{where}"


# -- hooks-match-hookspecs -----------------------------------------------------------------------------


def hooks_match_hookspecs(subject: PluginUnderTest) -> list[str]:
    """The class has a name, attrs Args if any, and hook methods whose names and arguments match the hookspecs."""
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError as exc:
        raise CheckFailed(str(exc)) from None
    return []


# -- args ----------------------------------------------------------------------------------------------


def _args_class(subject: PluginUnderTest) -> type[Any]:
    args_class = getattr(subject.plugin_class, "Args", None)
    if args_class is None:
        raise CheckSkipped("the plugin takes no args")
    if not attrs.has(args_class):
        raise CheckSkipped("Args is not an attrs class (see hooks-match-hookspecs)")
    return typing.cast("type[Any]", args_class)


def args_accept_defaults(subject: PluginUnderTest) -> list[str]:
    """``Args()`` builds with every default, survives a round trip through profile keys, and the plugin
    accepts it."""
    args_class = _args_class(subject)
    try:
        defaults = args_class()
    except Exception as exc:
        raise CheckFailed(f"Args() with no arguments raised {type(exc).__name__}: {exc}; every arg needs a "
                          "default so that a profile may leave it out") from None
    try:
        again = structure(args_class, unstructure(defaults))
    except ArgsError as exc:
        raise CheckFailed(f"the defaults, written as profile keys, are rejected: {exc}") from None
    if again != defaults:
        raise CheckFailed(f"the defaults do not survive a round trip through profile keys: {defaults!r} "
                          f"became {again!r}")
    nodes, running, _pods = subject.examples()
    try:
        plugin_framework(subject.plugin_class, defaults, nodes=nodes, pods=running)
    except Exception as exc:
        raise CheckFailed(f"the plugin rejects its default args: {exc}") from None
    return []


#: Values of every TOML kind, one of which is ill-typed for any typed arg.
_SAMPLES: tuple[tuple[str, Any], ...] = (("a string", "ill-typed"), ("an integer", 12345), ("a boolean", True),
                                         ("an array", [1, "two"]), ("a table", {"ill": "typed"}))


def _accepted_kinds(tp: Any) -> set[str] | None:
    """The TOML kinds an annotation accepts (None: anything)."""
    if tp is Any:
        return None
    origin = get_origin(tp)
    if origin is Literal:
        return {_kind(v) for v in get_args(tp)}
    if origin in (typing.Union, types.UnionType):
        kinds: set[str] = set()
        for option in get_args(tp):
            if option is type(None):
                continue
            accepted = _accepted_kinds(option)
            if accepted is None:
                return None
            kinds |= accepted
        return kinds
    if origin in (list, tuple) or tp in (list, tuple):
        return {"an array"}
    if origin is dict or tp is dict or attrs.has(tp):
        return {"a table"}
    return {bool: {"a boolean"}, int: {"an integer"}, float: {"an integer"}, str: {"a string"}}.get(tp, set())


def _kind(value: Any) -> str:
    for kind, sample in _SAMPLES:
        if type(sample) is type(value) or (isinstance(value, dict) and isinstance(sample, dict)):
            return kind
    return type(value).__name__


def args_reject_ill_typed(subject: PluginUnderTest) -> list[str]:
    """Every arg given a value of the wrong type is refused with an error naming its key."""
    args_class = _args_class(subject)
    fields = attrs.fields(args_class)
    if not fields:
        raise CheckSkipped("Args has no fields")
    try:
        hints = typing.get_type_hints(args_class)
    except Exception as exc:
        raise CheckFailed(f"Args' annotations cannot be resolved: {type(exc).__name__}: {exc}") from None
    for field in fields:
        key = kebab(field.name)
        if field.name not in hints:
            raise CheckFailed(f"{key}: has no type annotation, so no value can be refused as ill-typed")
        accepted = _accepted_kinds(hints[field.name])
        if accepted is None:
            raise CheckFailed(f"{key}: is typed Any, so ill-typed values are accepted (give it a real type)")
        for kind, sample in _SAMPLES:
            if kind in accepted:
                continue
            try:
                structure(args_class, {key: sample})
            except ArgsError as exc:
                if key not in str(exc):
                    raise CheckFailed(f"{key} = {sample!r}: the error does not name the key: {exc}") from None
                continue
            except Exception as exc:
                raise CheckFailed(f"{key} = {sample!r}: raised {type(exc).__name__} instead of a clear args "
                                  f"error: {exc}") from None
            raise CheckFailed(f"{key} = {sample!r} ({kind}) was accepted")
    return []


# -- inputs are read-only ------------------------------------------------------------------------------


def no_input_mutation(subject: PluginUnderTest) -> list[str]:
    """PreFilter, Filter, PreScore and Score leave the pod, each NodeInfo and the snapshot as they found them."""
    if not any(h in subject.hooks for h in ("pre_filter", "filter", "pre_score", "score")):
        raise CheckSkipped("the plugin has no PreFilter, Filter, PreScore or Score hook")
    _require(subject)
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    snapshot = framework.snapshot
    for pod in pods:
        before_pod, before_snapshot = freeze(pod), freeze(snapshot.node_info_list)

        def check(hook: str, node: NodeInfo | None, pod: Pod = pod, before_pod: Any = before_pod,
                  before_snapshot: Any = before_snapshot) -> None:
            if freeze(pod) != before_pod:
                raise CheckFailed(f"{hook} changed the pod it was given ({_describe(pod, node)})")
            if freeze(snapshot.node_info_list) != before_snapshot:
                where = f"the NodeInfo of {node.name}" if node is not None else "a NodeInfo or the snapshot"
                raise CheckFailed(f"{hook} changed {where} ({_describe(pod)})")

        subject.cycle(framework, pod, check)
    return []


# -- determinism ---------------------------------------------------------------------------------------


def deterministic(subject: PluginUnderTest) -> list[str]:
    """Equal inputs give equal answers: twice on one plugin instance, and on a second fresh instance."""
    if not subject.has("filter") and not subject.has("score") and not subject.has("pre_filter"):
        raise CheckSkipped("the plugin has no PreFilter, Filter or Score hook")
    _require(subject)
    first, second = _framework(subject), _framework(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        _state, outcome = subject.cycle(first, pod)
        _state, repeated = subject.cycle(first, pod)
        _state, fresh = subject.cycle(second, pod)
        for label, other in (("a second run on the same instance", repeated), ("a fresh instance", fresh)):
            if other != outcome:
                raise CheckFailed(f"{_describe(pod)}: {label} answered differently: {_difference(outcome, other)}")
    return []


def _difference(a: Any, b: Any) -> str:
    for field in ("pre_filter", "filter", "scores"):
        left, right = getattr(a, field), getattr(b, field)
        if left != right:
            return f"{field} {left} then {right}"
    return f"{a} then {b}"


# -- Filter statuses -----------------------------------------------------------------------------------


def _check_rejection(hook: str, status: Any, where: str) -> None:
    if status is None:
        return
    if not isinstance(status, Status):
        raise CheckFailed(f"{hook} returned {type(status).__name__}, not a Status or None ({where})")
    if status.code is Code.ERROR:
        raise CheckFailed(f"{hook} returned Error on example input ({where}): {status.message()}")
    if status.code in REJECTIONS and not (status.reasons and all(isinstance(r, str) and r.strip()
                                                                 for r in status.reasons)):
        raise CheckFailed(f"{hook} rejected with {status.code.label} but no reason ({where}): users would see "
                              "an empty message")


def _pre_filtered(subject: PluginUnderTest, framework: Framework, pod: Pod,
                  check: bool = False) -> tuple[CycleState, bool] | None:
    """(the CycleState after the plugin's PreFilter, whether PreFilter said Skip); None when PreFilter rejected
    the pod, after checking that rejection when ``check``."""
    state = CycleState()
    pre_filter = subject.hook(framework, "pre_filter")
    if pre_filter is None:
        return state, False
    outcome = pre_filter(state, pod, framework.snapshot.list())
    code = outcome.code if isinstance(outcome, Status) else Code.SUCCESS
    if code not in (Code.SUCCESS, Code.SKIP):
        if check:
            _check_rejection("pre_filter", outcome, _describe(pod))
        return None
    return state, code is Code.SKIP


def filter_status_valid(subject: PluginUnderTest) -> list[str]:
    """Filter returns None or a Status with a Filter code, and every rejection carries non-empty reasons."""
    _require(subject, "filter")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        pre_filtered = _pre_filtered(subject, framework, pod, check=True)
        if pre_filtered is None or pre_filtered[1]:
            continue  # rejected or skipped at PreFilter: Filter does not run for this pod
        state = pre_filtered[0]
        filter_hook = subject.hook(framework, "filter")
        assert filter_hook is not None
        for node_info in framework.snapshot.list():
            status = filter_hook(state, pod, node_info)
            _check_rejection("filter", status, _describe(pod, node_info))
            if status is not None and status.code not in FILTER_CODES:
                raise CheckFailed(f"filter returned {status.code.label}, which Filter may not return "
                                  f"({_describe(pod, node_info)})")
    return []


# -- Score range ---------------------------------------------------------------------------------------


def score_in_range(subject: PluginUnderTest) -> list[str]:
    """After NormalizeScore (or straight from Score without it) every score is an integer in [0, 100]."""
    _require(subject, "score")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        nodes = framework.snapshot.list()
        pre_filtered = _pre_filtered(subject, framework, pod)
        if pre_filtered is None:
            continue  # rejected at PreFilter: the pod never reaches Score
        state = pre_filtered[0]
        try:
            scores = subject.scores(framework, state, pod, nodes, strict=True)
        except NormalizeChangedNodesError as exc:
            raise CheckFailed(f"{exc} ({_describe(pod)}); it must rewrite each score in place") from None
        for name, score in scores.items():
            if isinstance(score, bool) or not isinstance(score, int):
                raise CheckFailed(f"score for {_describe(pod, name)} is {score!r}, not an integer")
            if not 0 <= score <= 100:
                step = "after normalize_score" if subject.has("normalize_score") else "from score (no normalize_score)"
                raise CheckFailed(f"score {score} {step} for {_describe(pod, name)} is outside [0, 100]")
    return []


# -- CycleState clone ----------------------------------------------------------------------------------


def pre_filter_state_clone(subject: PluginUnderTest) -> list[str]:
    """What PreFilter writes to CycleState either is immutable or clones without sharing anything mutable, so a
    preemption branch that changes the clone leaves the original's Filter answers alone."""
    _require(subject, "pre_filter")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        state = CycleState()
        outcome = subject.hook(framework, "pre_filter")(state, pod, framework.snapshot.list())  # type: ignore[misc]
        if isinstance(outcome, Status) and outcome.code is not Code.SUCCESS:
            continue
        for key, value in state.items():
            if isinstance(value, Cloneable):
                shared = shared_mutables(value, value.clone(), key.name)
                if shared:
                    raise CheckFailed(f"{key.name}: clone() shares {shared[0]} with the original ({_describe(pod)})")
            elif not deeply_immutable(value):
                raise CheckFailed(f"{key.name}: {type(value).__name__} is mutable but has no clone(), so clones of "
                                  f"the CycleState share it ({_describe(pod)})")
        if subject.has("pre_filter_add_pod"):
            _clone_changes_leave_original(subject, framework, state, pod)
    return []


def _clone_changes_leave_original(subject: PluginUnderTest, framework: Framework, state: CycleState,
                                  pod: Pod) -> None:
    before = subject.filter_verdicts(framework, state, pod)
    frozen = [freeze(v) for _k, v in state.items()]
    branch = state.clone()
    add_pod = subject.hook(framework, "pre_filter_add_pod")
    assert add_pod is not None
    for node_info in framework.snapshot.list():
        for other in subject.examples()[2]:
            if other.uid == pod.uid:
                continue
            added = PodInfo.of(other.with_node_name(node_info.name))
            copy = node_info.clone()
            copy.add_pod(added)
            add_pod(branch, pod, added, copy)
    if [freeze(v) for _k, v in state.items()] != frozen or subject.filter_verdicts(framework, state, pod) != before:
        raise CheckFailed(f"adding pods through pre_filter_add_pod on a clone changed the original CycleState "
                          f"({_describe(pod)})")


# -- AddPod / RemovePod --------------------------------------------------------------------------------


def add_remove_pod_restores(subject: PluginUnderTest) -> list[str]:
    """pre_filter_add_pod then pre_filter_remove_pod of the same pod (and remove then add of a running pod)
    give back the Filter answers PreFilter gave."""
    _require(subject, "pre_filter", "pre_filter_add_pod", "pre_filter_remove_pod")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    add_pod = subject.hook(framework, "pre_filter_add_pod")
    remove_pod = subject.hook(framework, "pre_filter_remove_pod")
    pre_filter = subject.hook(framework, "pre_filter")
    assert add_pod is not None
    assert remove_pod is not None
    assert pre_filter is not None
    for pod in pods:
        state = CycleState()
        outcome = pre_filter(state, pod, framework.snapshot.list())
        if isinstance(outcome, Status) and outcome.code is not Code.SUCCESS:
            continue
        expected = subject.filter_verdicts(framework, state, pod)
        for node_info in framework.snapshot.list():
            for other in pods:
                if other.uid == pod.uid:
                    continue
                branch, copy = state.clone(), node_info.clone()
                added = PodInfo.of(other.with_node_name(node_info.name))
                copy.add_pod(added)
                _status_ok("pre_filter_add_pod", add_pod(branch, pod, added, copy), pod, node_info)
                copy.remove_pod(added.pod)
                _status_ok("pre_filter_remove_pod", remove_pod(branch, pod, added, copy), pod, node_info)
                _same_answers(subject, framework, branch, pod, expected,
                              f"adding and removing {other.name} on {node_info.name}")
            for running in list(node_info.pods):
                branch, copy = state.clone(), node_info.clone()
                copy.remove_pod(running.pod)
                _status_ok("pre_filter_remove_pod", remove_pod(branch, pod, running, copy), pod, node_info)
                copy.add_pod(running)
                _status_ok("pre_filter_add_pod", add_pod(branch, pod, running, copy), pod, node_info)
                _same_answers(subject, framework, branch, pod, expected,
                              f"removing and adding back {running.pod.name} on {node_info.name}")
    return []


def _status_ok(hook: str, status: Any, pod: Pod, node_info: NodeInfo) -> None:
    if status is not None and (not isinstance(status, Status) or not status.is_success()):
        raise CheckFailed(f"{hook} failed for {_describe(pod, node_info)}: {status}")


def _same_answers(subject: PluginUnderTest, framework: Framework, state: CycleState, pod: Pod,
                  expected: dict[str, Verdict], what: str) -> None:
    answers = subject.filter_verdicts(framework, state, pod)
    if answers != expected:
        node = next(name for name in expected if answers.get(name) != expected[name])
        raise CheckFailed(f"{what} did not restore Filter's answer for {_describe(pod, node)}: "
                          f"{_show(expected[node])} became {_show(answers.get(node))}")


def _show(answer: Verdict | None) -> str:
    if answer is None:
        return "nothing"
    code, reasons = answer
    return code.label + (f" ({', '.join(reasons)})" if reasons else "")


# -- Reserve / Unreserve -------------------------------------------------------------------------------


def unreserve_idempotent(subject: PluginUnderTest) -> list[str]:
    """Unreserve without a Reserve does not raise, and a second Unreserve changes nothing the first did not."""
    _require(subject, "unreserve")
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        framework = _framework(subject)
        plugin = framework.plugins[subject.name]
        node = framework.snapshot.list()[0].name if framework.snapshot.list() else "node"
        unreserve = subject.hook(framework, "unreserve")
        assert unreserve is not None
        try:
            unreserve(CycleState(), pod, node)
        except Exception as exc:
            raise CheckFailed(f"unreserve without a prior reserve raised {type(exc).__name__}: {exc} "
                              f"({_describe(pod, node)})") from None
        state = CycleState()
        reserve = subject.hook(framework, "reserve")
        if reserve is not None:
            reserve(state, pod, node)
        unreserve(state, pod, node)
        once = freeze(vars(plugin)) if hasattr(plugin, "__dict__") else None
        try:
            unreserve(state, pod, node)
        except Exception as exc:
            raise CheckFailed(f"a second unreserve raised {type(exc).__name__}: {exc} ({_describe(pod, node)})") \
                from None
        if once is not None and freeze(vars(plugin)) != once:
            raise CheckFailed(f"a second unreserve changed the plugin's state ({_describe(pod, node)})")
    return []


# -- Permit --------------------------------------------------------------------------------------------


def permit_valid(subject: PluginUnderTest) -> list[str]:
    """Permit returns (Status or None, timeout): a Permit code, reasons on rejection, and for Wait a timeout
    in (0, 15 min]."""
    _require(subject, "permit")
    framework = _framework(subject)
    permit = subject.hook(framework, "permit")
    assert permit is not None
    _nodes, _running, pods = subject.examples()
    node = framework.snapshot.list()[0].name if framework.snapshot.list() else "node"
    for pod in pods:
        result = permit(CycleState(), pod, node)
        where = _describe(pod, node)
        if not isinstance(result, tuple) or len(result) != 2:
            raise CheckFailed(f"permit returned {result!r}, not a (status, timeout) pair ({where})")
        status, timeout = result
        if status is not None and not isinstance(status, Status):
            raise CheckFailed(f"permit returned {type(status).__name__} as its status ({where})")
        code = Code.SUCCESS if status is None else status.code
        if code not in PERMIT_CODES:
            raise CheckFailed(f"permit returned {code.label}, which Permit may not return ({where})")
        _check_rejection("permit", status, where)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout):
            raise CheckFailed(f"permit returned the timeout {timeout!r}, not a finite number of seconds ({where})")
        if code is Code.WAIT and not 0 < timeout <= MAX_PERMIT_TIMEOUT:
            raise CheckFailed(f"permit asked to wait {timeout:g}s; a wait must be in (0, {MAX_PERMIT_TIMEOUT:g}] "
                              f"seconds ({where})")
    return []


# -- edge inputs ---------------------------------------------------------------------------------------


_POINT_HOOKS = ("pre_enqueue", "pre_filter", "filter", "pre_score", "score", "normalize_score", "reserve",
                "unreserve", "permit")


def _exercise(subject: PluginUnderTest, framework: Framework, pod: Pod, label: str) -> None:
    """Every per-pod hook of the plugin on ``pod`` over the framework's nodes; any exception fails."""
    try:
        pre_enqueue = subject.hook(framework, "pre_enqueue")
        if pre_enqueue is not None:
            pre_enqueue(pod)
        state, outcome = subject.cycle(framework, pod)
        node = next(iter(outcome.scores), None) or next(iter(outcome.filter), None) or "absent-node"
        for name in ("reserve", "unreserve", "permit"):
            hook = subject.hook(framework, name)
            if hook is not None:
                hook(state, pod, node)
    except CheckFailed:
        raise
    except Exception as exc:
        raise CheckFailed(f"{label}: {type(exc).__name__}: {exc}") from None


def edge_inputs(subject: PluginUnderTest) -> list[str]:
    """No hook raises on a pod without requests, on nodes without labels, on an empty cluster or on thousands
    of nodes."""
    if not any(h in subject.hooks for h in _POINT_HOOKS):
        raise CheckSkipped("the plugin has no per-pod hook to exercise")
    _require(subject)
    bare = make_pod("no-requests").obj()
    _nodes, _running, pods = subject.examples()
    _exercise(subject, _framework(subject), bare, "a pod without requests")
    unlabelled = [bare_node("unlabelled-1"), bare_node("unlabelled-2")]
    for pod in (*pods, bare):
        _exercise(subject, _framework(subject, nodes=unlabelled, running=[]), pod,
                  f"nodes without labels ({_describe(pod)})")
        _exercise(subject, _framework(subject, nodes=[], running=[]), pod, f"an empty cluster ({_describe(pod)})")
    big = _framework(subject, nodes=large_cluster(subject.large_cluster), running=[])
    for pod in [*pods[:1], bare]:
        _exercise(subject, big, pod, f"{subject.large_cluster} nodes ({_describe(pod)})")
    return []


# -- time budget ---------------------------------------------------------------------------------------


def time_budget(subject: PluginUnderTest) -> list[str]:
    """Filter and Score calls take at most the per-call budget on average over a large cluster (a warning,
    not a failure: machines differ)."""
    if not subject.has("filter") and not subject.has("score"):
        raise CheckSkipped("the plugin has no Filter or Score hook")
    _require(subject)
    framework = _framework(subject, nodes=large_cluster(subject.large_cluster), running=[])
    _nodes, _running, pods = subject.examples()
    pod = pods[0] if pods else make_pod("timed").obj()
    spent: dict[str, float] = {"filter": 0.0, "score": 0.0}
    calls: dict[str, int] = {"filter": 0, "score": 0}
    last = time.perf_counter()

    def tick(hook: str, _node: NodeInfo | None) -> None:
        nonlocal last
        now = time.perf_counter()
        if hook in spent:
            spent[hook] += now - last
            calls[hook] += 1
        last = now

    subject.cycle(framework, pod, tick)
    warnings = []
    for hook in ("filter", "score"):
        if calls[hook]:
            per_call = spent[hook] / calls[hook]
            if per_call > subject.time_budget:
                warnings.append(f"{hook} took {per_call * 1e6:.0f} µs per call on {calls[hook]} nodes; the budget "
                                f"is {subject.time_budget * 1e6:.0f} µs")
    return warnings


CHECKS: tuple[Check, ...] = (
    Check("hooks-match-hookspecs", "hooks match the hookspecs", hooks_match_hookspecs),
    Check("args-accept-defaults", "args accept their defaults", args_accept_defaults),
    Check("args-reject-ill-typed", "args reject ill-typed values with a clear error", args_reject_ill_typed),
    Check("no-input-mutation", "PreFilter/Filter/PreScore/Score do not mutate their inputs", no_input_mutation),
    Check("deterministic", "equal inputs give equal results", deterministic),
    Check("filter-status-valid", "Filter returns valid statuses with reasons", filter_status_valid),
    Check("score-in-range", "scores end in [0, 100]", score_in_range),
    Check("pre-filter-state-clone", "PreFilter state survives CycleState clone without aliasing",
          pre_filter_state_clone),
    Check("add-remove-pod-restores", "AddPod then RemovePod restores Filter answers", add_remove_pod_restores),
    Check("unreserve-idempotent", "Unreserve is idempotent and safe without Reserve", unreserve_idempotent),
    Check("permit-valid", "Permit returns a valid code and a bounded timeout", permit_valid),
    Check("edge-inputs", "copes with edge inputs", edge_inputs),
    Check("time-budget", "Filter and Score stay within the time budget", time_budget),
)
CHECKS_BY_ID = {c.id: c for c in CHECKS}

"""The conformance checks: each takes a :class:`PluginUnderTest`, raises :class:`CheckFailed` with what is wrong
or :class:`CheckSkipped` when it does not apply, and returns warnings (the time budget's)."""

from __future__ import annotations

import math
import time
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args, get_origin

import attrs

from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError, ProfileError
from kubesched.framework.args import ArgsError, kebab, structure, unstructure
from kubesched.framework.cycle_state import Cloneable, CycleState
from kubesched.framework.handle import MAX_PERMIT_TIMEOUT
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.status import Code, Status
from kubesched.runtime import Framework, validate_plugin_class
from kubesched.testing.builders import make_pod
from kubesched.testing.conformance.inspect import (
    OPAQUE_NAMES,
    deeply_immutable,
    freeze,
    reachable_ids,
    shared_mutables,
)
from kubesched.testing.conformance.subject import (
    NodesListChangedError,
    NormalizeChangedNodesError,
    PluginUnderTest,
    PreFiltered,
    Verdict,
    bare_node,
    large_cluster,
    spread_over,
)


class CheckFailed(AssertionError):  # noqa: N818 - an outcome, like pytest's Failed
    """The plugin broke the rule a check verifies; the message says where and how."""


class CheckSkipped(Exception):  # noqa: N818 - an outcome, like pytest's Skipped
    """The check does not apply to this plugin (for example, it has no such extension point)."""


CheckFunction = Callable[[PluginUnderTest], list[str]]


@attrs.frozen
class Check:
    """One conformance check: a stable kebab-case ``id``, a one-line ``title``, the function, and the hooks it
    is about (a pass warns when the plugin has one of them but the examples never reached it)."""

    id: str
    title: str
    run: CheckFunction
    exercises: tuple[str, ...] = ()


REJECTIONS = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})
PRE_FILTER_CODES = frozenset({Code.SUCCESS, Code.SKIP, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE})
FILTER_CODES = frozenset({Code.SUCCESS, *REJECTIONS})
SCORE_STEP_CODES = {"pre_score": frozenset({Code.SUCCESS, Code.SKIP}), "normalize_score": frozenset({Code.SUCCESS})}
PERMIT_CODES = frozenset({Code.SUCCESS, Code.WAIT, *REJECTIONS})


# -- gates and helpers ---------------------------------------------------------------------------------


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
    """A Framework for the subject; if the plugin cannot be built the check is skipped (``builds`` fails)."""
    try:
        return subject.framework(**kwargs)
    except (Exception, SystemExit) as exc:
        raise CheckSkipped(f"the plugin cannot be built with its args (see builds): {explain(exc)}") from None


def explain(exc: BaseException) -> str:
    """``Type: message`` (just ``Type`` without a message); the framework's ProfileError as its message."""
    if isinstance(exc, ProfileError):  # the framework's own wrapping: its message already names the cause
        return exc.message
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _describe(pod: Pod, node: NodeInfo | str | None = None) -> str:
    where = f" on node {node if isinstance(node, str) else node.name}" if node is not None else ""
    return f"pod {pod.name}{where}"


def _check_status(hook: str, status: Any, codes: frozenset[Code], where: str) -> None:
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


def _pre_filtered(subject: PluginUnderTest, framework: Framework, pod: Pod) -> PreFiltered | None:
    """PreFilter as the framework runs it, its result checked; None when it rejected the pod."""
    pre_filtered, outcome = subject.pre_filter(framework, pod)
    if pre_filtered is None:
        _check_status("pre_filter", outcome, PRE_FILTER_CODES, _describe(pod))
    return pre_filtered


# -- hooks-match-hookspecs -----------------------------------------------------------------------------


def hooks_match_hookspecs(subject: PluginUnderTest) -> list[str]:
    """The class has a name (equal to its entry point's), attrs Args if any, and hook methods whose names and
    arguments match the hookspecs."""
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
        raise CheckFailed(f"Args() with no arguments raised {explain(exc)}; every arg needs a default so that "
                          "a profile may leave it out") from None
    try:
        again = structure(args_class, unstructure(defaults))
    except Exception as exc:
        raise CheckFailed(f"the defaults, written as profile keys, are rejected: {explain(exc)}") from None
    if again != defaults:
        raise CheckFailed(f"the defaults do not survive a round trip through profile keys: {defaults!r} "
                          f"became {again!r}")
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError:
        raise CheckSkipped("the defaults build and round-trip, but the plugin's hooks do not match the hookspecs, "
                           "so it cannot be built (see hooks-match-hookspecs)") from None
    try:
        PluginUnderTest(subject.plugin_class, defaults).framework()
    except Exception as exc:
        raise CheckFailed(f"the plugin rejects its default args: {explain(exc)}") from None
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


def _has_any(tp: Any) -> bool:
    """Whether ``Any`` appears anywhere in an annotation (``list[Any]``, ``dict[str, Any]``...)."""
    return tp is Any or any(_has_any(arg) for arg in get_args(tp) if arg is not Ellipsis)


def _kind(value: Any) -> str:
    for kind, sample in _SAMPLES:
        if type(sample) is type(value) or (isinstance(value, dict) and isinstance(sample, dict)):
            return kind
    return type(value).__name__


def args_reject_ill_typed(subject: PluginUnderTest) -> list[str]:
    """Every arg given a value of the wrong type is refused with an error naming its key, and every arg's type
    is one profiles can express."""
    args_class = _args_class(subject)
    fields = attrs.fields(args_class)
    if not fields:
        raise CheckSkipped("Args has no fields")
    try:
        hints = typing.get_type_hints(args_class)
    except Exception as exc:
        raise CheckFailed(f"Args' annotations cannot be resolved at run time: {explain(exc)}") from None
    for field in fields:
        key = kebab(field.name)
        if field.name not in hints:
            raise CheckFailed(f"{key}: has no type annotation, so no value can be refused as ill-typed")
        hint = hints[field.name]
        accepted = _accepted_kinds(hint)
        if accepted is None or _has_any(hint):
            raise CheckFailed(f"{key}: is typed with Any, so ill-typed values are accepted (give it a real type)")
        for kind, sample in _SAMPLES:
            try:
                structure(args_class, {key: sample})
            except ArgsError as exc:
                if "unsupported argument type" in str(exc):
                    raise CheckFailed(f"{key}: profiles cannot set it: {exc}") from None
                if kind not in accepted and key not in str(exc):
                    raise CheckFailed(f"{key} = {sample!r}: the error does not name the key: {exc}") from None
                continue
            except Exception as exc:
                raise CheckFailed(f"{key} = {sample!r}: raised {explain(exc)} instead of a clear args "
                                  "error") from None
            if kind not in accepted:
                raise CheckFailed(f"{key} = {sample!r} ({kind}) was accepted")
    return []


# -- builds --------------------------------------------------------------------------------------------


def builds(subject: PluginUnderTest) -> list[str]:
    """The plugin builds with the args it is tested with (its defaults when none are given), both as the
    scheduler builds it at start-up (before any node is known) and over the example cluster."""
    _require(subject)
    for nodes, when in (([], "at start-up, before any node is known"), (None, "over the example cluster")):
        try:
            subject.framework(nodes=nodes, running=[] if nodes is not None else None)
        except (Exception, SystemExit) as exc:
            raise CheckFailed(f"the plugin cannot be built with its args {when}: {explain(exc)}") from None
    return []


# -- inputs are read-only ------------------------------------------------------------------------------

#: The services freeze() leaves opaque, except the snapshot, which no-input-mutation looks inside.
_SNAPSHOT_VISIBLE = OPAQUE_NAMES - {"Snapshot"}


def no_input_mutation(subject: PluginUnderTest) -> list[str]:
    """PreFilter, Filter, PreScore and Score leave the pod, each NodeInfo and the snapshot as they found them."""
    if not any(h in subject.hooks for h in ("pre_filter", "filter", "pre_score", "score")):
        raise CheckSkipped("the plugin has no PreFilter, Filter, PreScore or Score hook")
    _require(subject)
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    snapshot = framework.snapshot
    for pod in pods:
        before_pod, before_snapshot = freeze(pod), freeze(snapshot, opaque=_SNAPSHOT_VISIBLE)

        def check(hook: str, node: NodeInfo | None, pod: Pod = pod, before_pod: Any = before_pod,
                  before_snapshot: Any = before_snapshot) -> None:
            if freeze(pod) != before_pod:
                raise CheckFailed(f"{hook} changed the pod it was given ({_describe(pod, node)})")
            if freeze(snapshot, opaque=_SNAPSHOT_VISIBLE) != before_snapshot:
                where = f"the NodeInfo of {node.name} or the snapshot" if node is not None else "the snapshot"
                raise CheckFailed(f"{hook} changed {where} ({_describe(pod)})")

        try:
            subject.cycle(framework, pod, check, check_lists=True)
        except NodesListChangedError as exc:
            raise CheckFailed(f"{exc} ({_describe(pod)})") from None
    return []


# -- determinism ---------------------------------------------------------------------------------------


def deterministic(subject: PluginUnderTest) -> list[str]:
    """Equal inputs give equal answers: twice on one plugin instance, and on a second fresh instance (the
    handle's rng restarts from the same seed each time)."""
    if not any(h in subject.hooks for h in ("pre_filter", "filter", "score")):
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
    return f"{a} then {b}"  # pragma: no cover - only called when the outcomes differ


# -- statuses ------------------------------------------------------------------------------------------


def filter_status_valid(subject: PluginUnderTest) -> list[str]:
    """PreFilter and Filter return None or a Status with a code they may return, every rejection carries
    non-empty reasons, and reasons are a tuple of strings."""
    if not subject.has("filter") and not subject.has("pre_filter"):
        raise CheckSkipped("the plugin has no PreFilter or Filter hook")
    _require(subject)
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    filter_hook = subject.hook(framework, "filter")
    for pod in pods:
        pre_filtered = _pre_filtered(subject, framework, pod)
        if pre_filtered is None or pre_filtered.skip or filter_hook is None:
            continue
        for node_info in pre_filtered.nodes:
            status = filter_hook(pre_filtered.state, pod, node_info)
            _check_status("filter", status, FILTER_CODES, _describe(pod, node_info))
    return []


def score_in_range(subject: PluginUnderTest) -> list[str]:
    """PreScore and NormalizeScore succeed (or PreScore skips), NormalizeScore keeps every node in order, and
    every final score is an integer in [0, 100]."""
    _require(subject, "score")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        if _pre_filtered(subject, framework, pod) is None:
            continue  # rejected at PreFilter: the pod never reaches Score

        def check_step(hook: str, status: Any, pod: Pod = pod) -> None:
            _check_status(hook, status, SCORE_STEP_CODES[hook], _describe(pod))

        try:
            _state, outcome = subject.cycle(framework, pod, strict=True, check_step=check_step)
        except NormalizeChangedNodesError as exc:
            raise CheckFailed(f"{exc} ({_describe(pod)}); it must rewrite each score in place") from None
        for name, score in outcome.scores.items():
            if type(score) is not int:  # as the framework: bools, int subclasses and floats are refused
                raise CheckFailed(f"score for {_describe(pod, name)} is {score!r}, not an integer")
            if not 0 <= score <= 100:
                step = "after normalize_score" if subject.has("normalize_score") else "from score (no normalize_score)"
                raise CheckFailed(f"score {score} {step} for {_describe(pod, name)} is outside [0, 100]")
    return []


# -- CycleState clone ----------------------------------------------------------------------------------


def pre_filter_state_clone(subject: PluginUnderTest) -> list[str]:
    """What PreFilter writes to CycleState clones without sharing anything mutable (API objects, PodInfos and
    NodeInfos are read-only and may be shared); with AddPod/RemovePod, state without clone() must be immutable,
    and adding pods on a clone leaves the original's Filter answers alone."""
    _require(subject, "pre_filter")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    extensions = subject.has("pre_filter_add_pod") or subject.has("pre_filter_remove_pod")
    for pod in pods:
        pre_filtered = _pre_filtered(subject, framework, pod)
        if pre_filtered is None or pre_filtered.skip:
            continue
        inputs = reachable_ids(pod, framework.snapshot)
        for key, value in pre_filtered.state.items():
            if isinstance(value, Cloneable):
                shared = shared_mutables(value, value.clone(), key.name, exempt=inputs)
                if shared:
                    raise CheckFailed(f"{key.name}: clone() shares {shared[0]} with the original ({_describe(pod)})")
            elif extensions and not deeply_immutable(value, exempt=inputs):
                raise CheckFailed(f"{key.name}: {type(value).__name__} is mutable but has no clone(), so the "
                                  f"AddPod/RemovePod of a preemption branch would change it for every branch "
                                  f"({_describe(pod)})")
        if subject.has("pre_filter_add_pod"):
            _clone_changes_leave_original(subject, framework, pre_filtered, pod)
    return []


def _clone_changes_leave_original(subject: PluginUnderTest, framework: Framework, pre_filtered: PreFiltered,
                                  pod: Pod) -> None:
    state = pre_filtered.state
    before = subject.filter_verdicts(framework, state, pod, pre_filtered.nodes)
    frozen = [freeze(v) for _k, v in state.items()]
    branch = state.clone()
    add_pod = subject.hook(framework, "pre_filter_add_pod")
    assert add_pod is not None
    for node_info in pre_filtered.nodes:  # preemption and nominated pods only reach nodes PreFilter left
        for other in subject.examples()[2]:
            if other.uid == pod.uid:
                continue
            added = PodInfo.of(other.with_node_name(node_info.name))
            copy = node_info.clone()
            copy.add_pod(added)
            add_pod(branch, pod, added, copy)
    if [freeze(v) for _k, v in state.items()] != frozen:
        raise CheckFailed(f"pre_filter_add_pod on a clone of the CycleState changed the original's values "
                          f"({_describe(pod)})")
    if subject.filter_verdicts(framework, state, pod, pre_filtered.nodes) != before:
        raise CheckFailed(f"after pre_filter_add_pod on a clone, Filter answers differently for the original "
                          f"CycleState ({_describe(pod)})")


# -- AddPod / RemovePod --------------------------------------------------------------------------------


def add_remove_pod_restores(subject: PluginUnderTest) -> list[str]:
    """pre_filter_add_pod then pre_filter_remove_pod of the same pod (and remove then add of a running pod)
    give back the Filter answers PreFilter gave."""
    _require(subject, "pre_filter", "pre_filter_add_pod", "pre_filter_remove_pod")
    framework = _framework(subject)
    _nodes, _running, pods = subject.examples()
    add_pod = subject.hook(framework, "pre_filter_add_pod")
    remove_pod = subject.hook(framework, "pre_filter_remove_pod")
    assert add_pod is not None
    assert remove_pod is not None
    for pod in pods:
        pre_filtered = _pre_filtered(subject, framework, pod)
        if pre_filtered is None or pre_filtered.skip:
            continue
        state, checked = pre_filtered.state, pre_filtered.nodes
        expected = subject.filter_verdicts(framework, state, pod, checked)
        for node_info in checked:  # preemption and nominated pods only reach nodes PreFilter left
            for other in pods:
                if other.uid == pod.uid:
                    continue
                branch, copy = state.clone(), node_info.clone()
                added = PodInfo.of(other.with_node_name(node_info.name))
                copy.add_pod(added)
                _status_ok("pre_filter_add_pod", add_pod(branch, pod, added, copy), pod, node_info)
                copy.remove_pod(added.pod)
                _status_ok("pre_filter_remove_pod", remove_pod(branch, pod, added, copy), pod, node_info)
                _same_answers(subject, framework, branch, pod, checked, expected,
                              f"adding and removing {other.name} on {node_info.name}")
            for running in list(node_info.pods):
                branch, copy = state.clone(), node_info.clone()
                copy.remove_pod(running.pod)
                _status_ok("pre_filter_remove_pod", remove_pod(branch, pod, running, copy), pod, node_info)
                copy.add_pod(running)
                _status_ok("pre_filter_add_pod", add_pod(branch, pod, running, copy), pod, node_info)
                _same_answers(subject, framework, branch, pod, checked, expected,
                              f"removing and adding back {running.pod.name} on {node_info.name}")
    return []


def _status_ok(hook: str, status: Any, pod: Pod, node_info: NodeInfo) -> None:
    if status is not None and (not isinstance(status, Status) or not status.is_success()):
        raise CheckFailed(f"{hook} failed for {_describe(pod, node_info)}: {status}")


def _same_answers(subject: PluginUnderTest, framework: Framework, state: CycleState, pod: Pod,
                  nodes: Sequence[NodeInfo], expected: dict[str, Verdict], what: str) -> None:
    answers = subject.filter_verdicts(framework, state, pod, nodes)
    if answers != expected:
        node = next(name for name in expected if answers.get(name) != expected[name])
        raise CheckFailed(f"{what} did not restore Filter's answer for {_describe(pod, node)}: "
                          f"{_show(expected[node])} became {_show(answers.get(node))}")


def _show(answer: Verdict | None) -> str:
    if answer is None:  # pragma: no cover - both runs cover the same nodes
        return "nothing"
    code, reasons = answer
    return code.label + (f" ({', '.join(reasons)})" if reasons else "")


# -- Reserve / Unreserve -------------------------------------------------------------------------------


def unreserve_idempotent(subject: PluginUnderTest) -> list[str]:
    """Unreserve without a Reserve does not raise, and a second Unreserve neither raises nor changes the
    plugin's attributes (what the first one left). Both run where the scheduler would: after the cycle, on the
    chosen node, with the assumed pod."""
    _require(subject, "unreserve")
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        framework = _framework(subject)
        plugin = framework.plugins[subject.plugin_class.name]
        unreserve = subject.hook(framework, "unreserve")
        reserve = subject.hook(framework, "reserve")
        assert unreserve is not None
        target = subject.binding_target(framework, pod)
        if target is None:
            continue  # no node: the pod never reaches Reserve
        state, node, assumed = target
        try:
            unreserve(state, assumed, node)
        except Exception as exc:
            raise CheckFailed(f"unreserve without a prior reserve raised {explain(exc)} "
                              f"({_describe(pod, node)})") from None
        framework = _framework(subject)  # a fresh plugin: the first Unreserve may have changed what it decides
        plugin = framework.plugins[subject.plugin_class.name]
        unreserve = subject.hook(framework, "unreserve")
        reserve = subject.hook(framework, "reserve")
        assert unreserve is not None
        target = subject.binding_target(framework, pod)
        assert target is not None, "the same pod on a fresh plugin found no node this time"
        state, node, assumed = target
        if reserve is not None:
            reserve(state, assumed, node)
        unreserve(state, assumed, node)
        once = freeze(plugin)
        try:
            unreserve(state, assumed, node)
        except Exception as exc:
            raise CheckFailed(f"a second unreserve raised {explain(exc)} ({_describe(pod, node)})") from None
        if freeze(plugin) != once:
            raise CheckFailed(f"a second unreserve changed the plugin's attributes ({_describe(pod, node)})")
    return []


# -- Permit --------------------------------------------------------------------------------------------


def _reserved(subject: PluginUnderTest, framework: Framework, state: CycleState, assumed: Pod, node: str) -> bool:
    """Run Reserve (if the plugin has it); whether it succeeded, so the pod goes on to Permit."""
    reserve = subject.hook(framework, "reserve")
    status = reserve(state, assumed, node) if reserve is not None else None
    return status is None or (isinstance(status, Status) and status.is_success())


def permit_valid(subject: PluginUnderTest) -> list[str]:
    """After the cycle and Reserve, on the chosen node with the assumed pod, Permit returns (Status or None,
    timeout): a Permit code, reasons on rejection, and for Wait a timeout in (0, 15 min]."""
    _require(subject, "permit")
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        framework = _framework(subject)
        target = subject.binding_target(framework, pod)
        if target is None:
            continue  # no node: the pod never reaches Permit
        state, node, assumed = target
        if not _reserved(subject, framework, state, assumed, node):
            continue  # a failed Reserve never reaches Permit
        permit = subject.hook(framework, "permit")
        assert permit is not None
        _check_permit(permit(state, assumed, node), _describe(pod, node))
    return []


def _check_permit(result: Any, where: str) -> None:
    if not isinstance(result, tuple) or len(result) != 2:
        raise CheckFailed(f"permit returned {result!r}, not a (status, timeout) pair ({where})")
    status, timeout = result
    _check_status("permit", status, PERMIT_CODES, where)
    code = Code.SUCCESS if status is None else status.code
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout):
        raise CheckFailed(f"permit returned the timeout {timeout!r}, not a finite number of seconds ({where})")
    if code is Code.WAIT and not 0 < timeout <= MAX_PERMIT_TIMEOUT:
        raise CheckFailed(f"permit asked to wait {timeout:g}s; a wait must be in (0, {MAX_PERMIT_TIMEOUT:g}] "
                          f"seconds ({where})")


# -- edge inputs ---------------------------------------------------------------------------------------


_POINT_HOOKS = ("pre_enqueue", "pre_filter", "filter", "pre_score", "score", "normalize_score", "reserve",
                "unreserve", "permit")


def _exercise(subject: PluginUnderTest, framework: Framework, pod: Pod, label: str) -> None:
    """Every per-pod hook of the plugin on ``pod``, in the framework's order (Reserve, Permit and Unreserve
    only when a node was chosen); any exception fails. An empty cluster only reaches PreEnqueue, as in the
    scheduler (no nodes: no cycle)."""
    try:
        pre_enqueue = subject.hook(framework, "pre_enqueue")
        if pre_enqueue is not None:
            pre_enqueue(pod)
        if not framework.snapshot.list():
            return
        target = subject.binding_target(framework, pod)
        if target is None:
            return
        state, node, assumed = target
        if _reserved(subject, framework, state, assumed, node):
            permit = subject.hook(framework, "permit")
            if permit is not None:
                permit(state, assumed, node)
        unreserve = subject.hook(framework, "unreserve")
        if unreserve is not None:  # as after a failed Reserve, Permit or binding
            unreserve(state, assumed, node)
    except CheckFailed:
        raise
    except Exception as exc:
        raise CheckFailed(f"{label}: {explain(exc)}") from None


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
    example_nodes, example_running, _pods = subject.examples()
    nodes = large_cluster(subject.large_cluster, example_nodes)
    big = _framework(subject, nodes=nodes, running=spread_over(nodes, example_running, example_nodes))
    for pod in [*pods, bare]:
        _exercise(subject, big, pod, f"{subject.large_cluster} nodes ({_describe(pod)})")
    return []


# -- time budget ---------------------------------------------------------------------------------------


def time_budget(subject: PluginUnderTest) -> list[str]:
    """Filter and Score calls take at most the per-call budget on average over a large cluster, for every
    example pod (a warning, not a failure: machines differ)."""
    if not subject.has("filter") and not subject.has("score"):
        raise CheckSkipped("the plugin has no Filter or Score hook")
    _require(subject)
    example_nodes, running, pods = subject.examples()
    nodes = large_cluster(subject.large_cluster, example_nodes)
    framework = _framework(subject, nodes=nodes, running=spread_over(nodes, running, example_nodes))
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

    for pod in pods or [make_pod("timed").obj()]:
        last = time.perf_counter()
        subject.cycle(framework, pod, tick)
    warnings = []
    for hook in ("filter", "score"):
        if calls[hook]:
            per_call = spent[hook] / calls[hook]
            if per_call > subject.time_budget:
                warnings.append(f"{hook} took {per_call * 1e6:.0f} µs per call over {calls[hook]} calls; the "
                                f"budget is {subject.time_budget * 1e6:.0f} µs")
    return warnings


CHECKS: tuple[Check, ...] = (
    Check("hooks-match-hookspecs", "hooks match the hookspecs", hooks_match_hookspecs),
    Check("args-accept-defaults", "args accept their defaults", args_accept_defaults),
    Check("args-reject-ill-typed", "args reject ill-typed values with a clear error", args_reject_ill_typed),
    Check("builds", "the plugin builds with its args", builds),
    Check("no-input-mutation", "PreFilter/Filter/PreScore/Score do not mutate their inputs", no_input_mutation,
          ("filter", "score")),
    Check("deterministic", "equal inputs give equal results", deterministic, ("filter", "score")),
    Check("filter-status-valid", "PreFilter and Filter return valid statuses with reasons", filter_status_valid,
          ("filter",)),
    Check("score-in-range", "scores end in [0, 100]", score_in_range, ("score",)),
    Check("pre-filter-state-clone", "PreFilter state survives CycleState clone without aliasing",
          pre_filter_state_clone, ("pre_filter", "pre_filter_add_pod")),
    Check("add-remove-pod-restores", "AddPod then RemovePod restores Filter answers", add_remove_pod_restores,
          ("pre_filter_add_pod", "filter")),
    Check("unreserve-idempotent", "Unreserve is idempotent and safe without Reserve", unreserve_idempotent),
    Check("permit-valid", "Permit returns a valid code and a bounded timeout", permit_valid, ("permit",)),
    Check("edge-inputs", "copes with edge inputs", edge_inputs),
    Check("time-budget", "Filter and Score stay within the time budget", time_budget, ("filter", "score")),
)
CHECKS_BY_ID = {c.id: c for c in CHECKS}

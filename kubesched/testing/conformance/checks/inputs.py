"""Checks of how the plugin treats what it is given: read-only inputs, equal answers to equal inputs, and
edge inputs (no requests, no labels, no nodes, thousands of nodes)."""

from __future__ import annotations

from typing import Any

from kubesched.api.pod import Pod
from kubesched.testing.builders import make_pod
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, describe, driver, require
from kubesched.testing.conformance.checks.timing import Enough, Stopwatch
from kubesched.testing.conformance.driver import CycleOutcome, Driver, show
from kubesched.testing.conformance.examples import bare_node, large_cluster, spread_over
from kubesched.testing.conformance.inspect import OPAQUE_NAMES, freeze
from kubesched.testing.conformance.recorder import Call, HookRaised
from kubesched.testing.conformance.subject import PluginUnderTest

#: The services freeze() leaves opaque, except the snapshot, which no-input-mutation looks inside; its columns
#: stay opaque: reading a label's codes or pod counts builds an index there (a cache the contract allows).
_SNAPSHOT_VISIBLE = (OPAQUE_NAMES - {"Snapshot", "NodeSnapshot"}) | {"NodeColumns", "ColumnStore"}
_READERS = ("pre_filter", "filter", "pre_score", "score")


def no_input_mutation(subject: PluginUnderTest) -> list[str]:
    """PreFilter, Filter, PreScore and Score leave the pod, each NodeInfo and the snapshot as they found them,
    and PreScore leaves the list of nodes it is given as it was."""
    if not any(h in subject.hooks for h in _READERS):
        raise CheckSkipped("the plugin has no PreFilter, Filter, PreScore or Score hook")
    require(subject)
    run = driver(subject)
    snapshot = run.framework.handle.snapshot
    _nodes, _running, pods = subject.examples()
    before: dict[str, Any] = {}

    def check(call: Call) -> None:
        if call.hook not in _READERS:
            return
        if call.hook == "pre_score" and [n.name for n in call.args[2]] != call.names_before:
            raise CheckFailed(f"pre_score changed the list of nodes it was given: {call.names_before} became "
                              f"{[n.name for n in call.args[2]]} ({call.where()})")
        if freeze(call.args[1]) != before["pod"]:
            raise CheckFailed(f"{call.hook} changed the pod it was given ({call.where()})")
        if freeze(snapshot, opaque=_SNAPSHOT_VISIBLE) != before["snapshot"]:
            what = f"the NodeInfo of {call.node} or the snapshot" if call.node is not None else "the snapshot"
            raise CheckFailed(f"{call.hook} changed {what} ({describe(call.args[1])})")

    with run.observing(check):
        for pod in pods:
            # The snapshot's affinity lists are built when first read: build them now, so a plugin's first read
            # is not taken for a change (a plugin changing them is still caught).
            _ = snapshot.have_pods_with_affinity, snapshot.have_pods_with_required_anti_affinity
            before.update(pod=freeze(pod), snapshot=freeze(snapshot, opaque=_SNAPSHOT_VISIBLE))
            run.cycle(pod)
    return []


def deterministic(subject: PluginUnderTest) -> list[str]:
    """Equal inputs give equal answers: twice on one plugin instance, and on a second fresh instance (the
    handle's rng restarts from the same seed each time)."""
    if not any(h in subject.hooks for h in ("pre_filter", "filter", "score")):
        raise CheckSkipped("the plugin has no PreFilter, Filter or Score hook")
    require(subject)
    first, second = driver(subject), driver(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        _state, outcome = first.cycle(pod)
        _state, repeated = first.cycle(pod)
        _state, fresh = second.cycle(pod)
        for label, other in (("a second run on the same instance", repeated), ("a fresh instance", fresh)):
            if other != outcome:
                raise CheckFailed(f"{describe(pod)}: {label} answered differently: {difference(outcome, other)}")
    return []


def difference(a: CycleOutcome, b: CycleOutcome) -> str:
    """The first answer that differs between two cycles, in the scheduler's terms: ``PreFilter answered A then
    B``, ``Filter on node N answered A then B`` or ``Score on node N was A then B``."""
    if a.pre_filter != b.pre_filter:
        return f"PreFilter answered {show(a.pre_filter)} then {show(b.pre_filter)}"
    for node in [*a.filter, *(n for n in b.filter if n not in a.filter)]:
        if a.filter.get(node) != b.filter.get(node):
            return f"Filter on node {node} answered {show(a.filter.get(node))} then {show(b.filter.get(node))}"
    for node in [*a.scores, *(n for n in b.scores if n not in a.scores)]:
        if a.scores.get(node) != b.scores.get(node):
            return f"Score on node {node} was {a.scores.get(node, 'none')} then {b.scores.get(node, 'none')}"
    return f"the feasible nodes were {', '.join(a.feasible) or 'none'} then {', '.join(b.feasible) or 'none'}"


_POINT_HOOKS = ("pre_enqueue", "pre_filter", "filter", "pre_score", "score", "normalize_score", "reserve",
                "unreserve", "permit")


def _exercise(run: Driver, pod: Pod, label: str) -> None:
    """Every per-pod hook of the plugin on ``pod``, in the framework's order (Reserve, Permit and Unreserve
    only when a node was chosen); any exception fails. An empty cluster only reaches PreEnqueue, as in the
    scheduler (no nodes: no cycle)."""
    try:
        run.pre_enqueue(pod)
        if not run.framework.handle.snapshot.list():
            return
        target = run.binding_target(pod)
        if target is None:
            return
        state, node, assumed = target
        if run.reserved(state, assumed, node):
            run.permit(state, assumed, node)
        run.unreserve(state, assumed, node)  # as after a failed Reserve, Permit or binding
    except HookRaised as exc:
        raise CheckFailed(f"{label}: {exc}") from None


def edge_inputs(subject: PluginUnderTest) -> list[str]:
    """No hook raises on a pod without requests, on nodes without labels, on an empty cluster or on thousands
    of nodes (a plugin far over the time budget is stopped there: see time-budget)."""
    if not any(h in subject.hooks for h in _POINT_HOOKS):
        raise CheckSkipped("the plugin has no per-pod hook to exercise")
    require(subject)
    bare = make_pod("no-requests").obj()
    _nodes, _running, pods = subject.examples()
    _exercise(driver(subject), bare, "a pod without requests")
    unlabelled = [bare_node("unlabelled-1"), bare_node("unlabelled-2")]
    for pod in (*pods, bare):
        _exercise(driver(subject, unlabelled, []), pod, f"nodes without labels ({describe(pod)})")
        _exercise(driver(subject, [], []), pod, f"an empty cluster ({describe(pod)})")
    example_nodes, example_running, _pods = subject.examples()
    nodes = large_cluster(subject.large_cluster, example_nodes)
    big = driver(subject, nodes, spread_over(nodes, example_running, example_nodes))
    watch = Stopwatch(subject.time_budget)
    try:
        with big.observing(watch):
            for pod in [*pods, bare]:
                _exercise(big, pod, f"{subject.large_cluster} nodes ({describe(pod)})")
    except Enough:
        slow = next(hook for hook in ("filter", "score") if watch.far_over(hook))
        return [f"stopped on {subject.large_cluster} nodes: {watch.describe(slow)} (see time-budget)"]
    return []

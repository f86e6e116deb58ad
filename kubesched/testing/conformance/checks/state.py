"""Checks of PreFilter's CycleState: clones share nothing mutable, and AddPod/RemovePod undo each other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import Cloneable, CycleState, StateKey
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Status
from kubesched.testing.conformance.base import CheckFailed, describe, driver, require
from kubesched.testing.conformance.driver import Driver, PreFiltered, Verdict, show
from kubesched.testing.conformance.inspect import deeply_immutable, freeze, reachable_ids, shared_mutables
from kubesched.testing.conformance.recorder import Call
from kubesched.testing.conformance.subject import PluginUnderTest


def pre_filter_state_clone(subject: PluginUnderTest) -> list[str]:
    """What PreFilter writes to CycleState clones without sharing anything mutable (API objects, PodInfos and
    NodeInfos are read-only and may be shared); with AddPod/RemovePod, state without clone() must be immutable,
    and adding pods on a clone leaves the original's Filter answers alone."""
    require(subject, "pre_filter")
    run = driver(subject)
    _nodes, _running, pods = subject.examples()
    extensions = subject.has("pre_filter_add_pod") or subject.has("pre_filter_remove_pod")
    written: list[StateKey[Any]] = []

    def note_keys(call: Call) -> None:  # the state is fresh, so what it holds after PreFilter is the plugin's
        if call.hook == "pre_filter":
            written[:] = [key for key, _value in call.args[0].items()]

    for pod in pods:
        with run.observing(note_keys):
            pre_filtered, _status = run.pre_filter(pod)
        if pre_filtered is None or pre_filtered.skip:
            continue
        inputs = reachable_ids(pod, run.framework.handle.snapshot)
        for key in written:
            value = pre_filtered.state.get(key)
            if isinstance(value, Cloneable):
                shared = shared_mutables(value, value.clone(), key.name, exempt=inputs)
                if shared:
                    raise CheckFailed(f"{key.name}: clone() shares {shared[0]} with the original ({describe(pod)})")
            elif extensions and not deeply_immutable(value, exempt=inputs):
                raise CheckFailed(f"{key.name}: {type(value).__name__} is mutable but has no clone(), so the "
                                  f"AddPod/RemovePod of a preemption branch would change it for every branch "
                                  f"({describe(pod)})")
        if subject.has("pre_filter_add_pod"):
            _clone_changes_leave_original(run, pre_filtered, pod, pods, written)
    return []


def _clone_changes_leave_original(run: Driver, pre_filtered: PreFiltered, pod: Pod, pods: Sequence[Pod],
                                  written: Sequence[StateKey[Any]]) -> None:
    state = pre_filtered.state
    before = run.filter_verdicts(state, pod, pre_filtered.nodes)
    frozen = [freeze(state.get(key)) for key in written]
    branch = state.clone()
    for node_info in pre_filtered.nodes:  # preemption and nominated pods only reach nodes PreFilter left
        for other in pods:
            if other.uid == pod.uid:
                continue
            added = PodInfo.of(other.with_node_name(node_info.name))
            copy = node_info.clone()
            copy.add_pod(added)
            run.add_pod(branch, pod, added, copy)
    if [freeze(state.get(key)) for key in written] != frozen:
        raise CheckFailed(f"pre_filter_add_pod on a clone of the CycleState changed the original's values "
                          f"({describe(pod)})")
    if run.filter_verdicts(state, pod, pre_filtered.nodes) != before:
        raise CheckFailed(f"after pre_filter_add_pod on a clone, Filter answers differently for the original "
                          f"CycleState ({describe(pod)})")


def add_remove_pod_restores(subject: PluginUnderTest) -> list[str]:
    """pre_filter_add_pod then pre_filter_remove_pod of the same pod (and remove then add of a running pod)
    give back the Filter answers PreFilter gave."""
    require(subject, "pre_filter", "pre_filter_add_pod", "pre_filter_remove_pod")
    run = driver(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        pre_filtered, _status = run.pre_filter(pod)
        if pre_filtered is None or pre_filtered.skip:
            continue
        state, checked = pre_filtered.state, pre_filtered.nodes
        expected = run.filter_verdicts(state, pod, checked)
        for node_info in checked:  # preemption and nominated pods only reach nodes PreFilter left
            for other in pods:
                if other.uid == pod.uid:
                    continue
                branch, copy = state.clone(), node_info.clone()
                added = PodInfo.of(other.with_node_name(node_info.name))
                copy.add_pod(added)
                _status_ok("pre_filter_add_pod", run.add_pod(branch, pod, added, copy), pod, node_info)
                copy.remove_pod(added.pod)
                _status_ok("pre_filter_remove_pod", run.remove_pod(branch, pod, added, copy), pod, node_info)
                _same_answers(run, branch, pod, checked, expected,
                              f"adding and removing {other.name} on {node_info.name}")
            for running in list(node_info.pods):
                branch, copy = state.clone(), node_info.clone()
                copy.remove_pod(running.pod)
                _status_ok("pre_filter_remove_pod", run.remove_pod(branch, pod, running, copy), pod, node_info)
                copy.add_pod(running)
                _status_ok("pre_filter_add_pod", run.add_pod(branch, pod, running, copy), pod, node_info)
                _same_answers(run, branch, pod, checked, expected,
                              f"removing and adding back {running.pod.name} on {node_info.name}")
    return []


def _status_ok(hook: str, status: Status | None, pod: Pod, node_info: NodeInfo) -> None:
    if status is not None and not status.is_success():
        raise CheckFailed(f"{hook} failed for {describe(pod, node_info)}: {status.message()}")


def _same_answers(run: Driver, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                  expected: dict[str, Verdict], what: str) -> None:
    answers = run.filter_verdicts(state, pod, nodes)
    if answers != expected:
        node = next(name for name in expected if answers.get(name) != expected[name])
        raise CheckFailed(f"{what} did not restore Filter's answer for {describe(pod, node)}: "
                          f"{show(expected[node])} became {show(answers.get(node))}")


"""The filter-state-unchanged check: Filter and filter_nodes only read the CycleState PreFilter left.

The scheduler runs Filter on many nodes with one state, from a rotating start (and kube-scheduler in parallel),
so a Filter that changes the state (a ``pop()`` on a list its PreFilter stored) makes the answer for a node
depend on the nodes checked before it. The state is fingerprinted after PreFilter and compared after every
Filter and filter_nodes call; then, on a new PreFilter state, Filter runs over the nodes in reverse order and
must give every node the same answer (which catches a change the fingerprint cannot see, such as one inside a
memo cache shared by design).
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.api.pod import Pod
from kubesched.framework._node_info import NodeInfo
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, describe, driver, require
from kubesched.testing.conformance.changes import StateWatch
from kubesched.testing.conformance.driver import Driver, Verdict, show
from kubesched.testing.conformance.recorder import Call, Observer
from kubesched.testing.conformance.subject import PluginUnderTest

_FILTERS = ("filter", "filter_nodes")


def filter_state_unchanged(subject: PluginUnderTest) -> list[str]:
    """After PreFilter, every Filter and filter_nodes call leaves the CycleState's values and skip sets as they
    were, and Filter answers every node alike with the nodes in snapshot order and in reverse order."""
    if not any(subject.has(hook) for hook in _FILTERS):
        raise CheckSkipped("the plugin has no filter hook")
    require(subject)
    run = driver(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        pre_filtered, _status = run.pre_filter(pod)
        if pre_filtered is None or pre_filtered.skip or not pre_filtered.nodes:
            continue
        state, nodes = pre_filtered.state, pre_filtered.nodes
        with run.observing(_unchanged(subject.name, StateWatch(state), len(nodes))):
            answers = run.filter_verdicts(state, pod, nodes)
            if subject.has("filter_nodes"):
                run.filter_nodes(state, pod, nodes)
        _same_in_reverse(run, subject.name, pod, nodes, answers)
    return []


def _unchanged(plugin: str, watch: StateWatch, nodes: int) -> Observer:
    """An observer failing the check at the first Filter or filter_nodes call that changed the watched state."""
    def observe(call: Call) -> None:
        if call.hook not in _FILTERS:
            return
        change = watch.change(call.args[0])
        if change is not None:
            where, after = (call.where(), "the nodes checked after this one") if call.hook == "filter" \
                else (f"{call.where()}, batch of {nodes} nodes", "the Filter calls after it")
            raise CheckFailed(f"{call.hook} of plugin {plugin} changed the CycleState PreFilter left ({where}): "
                              f"{change}; {call.hook} may only read the state, or {after} see the change")

    return observe


def _same_in_reverse(run: Driver, plugin: str, pod: Pod, nodes: Sequence[NodeInfo],
                     answers: dict[str, Verdict]) -> None:
    """Filter over ``nodes`` in reverse order, on a state of a new PreFilter, gives each node ``answers``."""
    if len(nodes) < 2:
        return
    again, _status = run.pre_filter(pod)
    if again is None or again.skip or [n.name for n in again.nodes] != [n.name for n in nodes]:
        return  # PreFilter answered differently: deterministic reports it
    reversed_answers = run.filter_verdicts(again.state, pod, again.nodes[::-1])
    for node in answers:
        if reversed_answers.get(node) != answers[node]:
            raise CheckFailed(f"filter of plugin {plugin} answered {show(answers[node])} with the nodes in snapshot "
                              f"order but {show(reversed_answers.get(node))} with them in reverse order "
                              f"({describe(pod, node)}): its answer must depend only on the state PreFilter left, "
                              "the pod and the node")

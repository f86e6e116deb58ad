"""Property: the PreFilter AddPod/RemovePod extensions on a cloned CycleState give the Filter answers that a
fresh PreFilter over the changed cluster gives, and leave the original state's answers untouched.

This is what the nominated-pods pass and preemption's dry run rely on: they never recompute PreFilter, they
add and remove pods through the extensions on a branch of the state.

"The changed cluster" is the cloned NodeInfo after the same add or remove, not one rebuilt from the remaining
pods: as in kube-scheduler v1.32, a node's used host ports are a set, so removing one of two pods holding a port
frees it while a NodeInfo rebuilt from the pods left would still hold it. v1.32 is the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodAffinityTerm
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
PLUGINS: tuple[type[Any], ...] = (InterPodAffinity, PodTopologySpread, NodePorts)

Verdict = tuple[Code, tuple[str, ...]]


@st.composite
def nodes(draw: st.DrawFn) -> list[Node]:
    """2 to 5 nodes; each has a hostname label and, usually, a zone (some lack it, to exercise missing keys)."""
    count = draw(st.integers(2, 5))
    result = []
    for i in range(count):
        builder = make_node(f"n{i}").capacity(cpu="64", memory="64Gi", pods="110").label(**{HOSTNAME: f"n{i}"})
        zone = draw(st.sampled_from(["a", "b", "c", None]))
        if zone is not None:
            builder = builder.label(**{ZONE: zone})
        result.append(builder.obj())
    return result


def _term(topology_key: str, app: str, all_namespaces: bool) -> PodAffinityTerm:
    return PodAffinityTerm(topology_key=topology_key, label_selector=LabelSelector(match_labels={"app": app}),
                           namespace_selector=LabelSelector() if all_namespaces else None)


@st.composite
def pods(draw: st.DrawFn, name: str, node_names: list[str] | None) -> Pod:
    """A pod with random labels, namespace, required (anti-)affinity, spread constraints and host ports."""
    builder = make_pod(name, draw(st.sampled_from(["default", "default", "other"])))
    builder = builder.label(app=draw(st.sampled_from(["x", "y"])))
    if node_names is not None:
        builder = builder.node(draw(st.sampled_from(node_names)))
    topology = st.sampled_from([HOSTNAME, ZONE])
    for anti in (False, True):
        if draw(st.integers(0, 3)) == 0:
            term = _term(draw(topology), draw(st.sampled_from(["x", "y"])), draw(st.booleans()))
            builder = builder.affinity_term(term, anti=anti)
    if draw(st.integers(0, 2)) == 0:
        builder = builder.spread(draw(st.integers(1, 2)), draw(topology), app=draw(st.sampled_from(["x", "y"])))
    if draw(st.integers(0, 3)) == 0:
        builder = builder.host_port(draw(st.sampled_from([80, 81])), host_ip=draw(st.sampled_from(["", "10.0.0.1"])))
    return builder.obj()


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Node], list[Pod], Pod, str, Pod]:
    """A cluster, the incoming pod, and one change: ("add", a new pod on a node) or ("remove", an existing pod)."""
    cluster_nodes = draw(nodes())
    names = [n.name for n in cluster_nodes]
    existing = [draw(pods(f"e{i}", names)) for i in range(draw(st.integers(0, 8)))]
    incoming = draw(pods("incoming", None))
    remove = draw(st.booleans())
    if existing and remove:
        return cluster_nodes, existing, incoming, "remove", draw(st.sampled_from(existing))
    return cluster_nodes, existing, incoming, "add", draw(pods("added", names))


def _infos(cluster_nodes: list[Node], existing: list[Pod]) -> list[NodeInfo]:
    return [NodeInfo.of(n, [PodInfo.of(p) for p in existing if p.spec.node_name == n.name]) for n in cluster_nodes]


def _plugin(cls: type[Any], infos: list[NodeInfo]) -> Any:
    return plugin_instance(cls, nodes=infos)


def _verdict(status: Status | None) -> Verdict:
    return (Code.SUCCESS, ()) if status is None else (status.code, status.reasons)


def _pre_filter(plugin: Any, pod: Pod, infos: list[NodeInfo]) -> tuple[CycleState, bool]:
    """PreFilter on a fresh state; returns the state and whether the plugin's Filter runs (not skipped)."""
    state = CycleState()
    outcome = plugin.pre_filter(state, pod, infos)
    if isinstance(outcome, Status) and outcome.code is Code.SKIP:
        return state, False
    assert outcome is None or not isinstance(outcome, Status) or outcome.code is Code.SUCCESS, outcome
    return state, True


def _answers(plugin: Any, state: CycleState, runs: bool, pod: Pod, infos: list[NodeInfo]) -> list[Verdict]:
    if not runs:
        return [(Code.SUCCESS, ())] * len(infos)
    return [_verdict(plugin.filter(state, pod, info)) for info in infos]


def _changed(infos: list[NodeInfo], change: str, pod: Pod) -> tuple[list[NodeInfo], int, PodInfo]:
    """Clone the target node and add or remove ``pod`` there, as the framework's dry run does (the result is
    what v1.32's NodeInfo holds after that sequence, which for host ports may differ from a rebuild)."""
    index = next(i for i, info in enumerate(infos) if info.name == pod.spec.node_name)
    target = infos[index].clone()
    pod_info = PodInfo.of(pod)
    if change == "add":
        target.add_pod(pod_info)
    else:
        assert target.remove_pod(pod)
    return [*infos[:index], target, *infos[index + 1:]], index, pod_info


def _extension(plugin: Any, change: str) -> Callable[..., Status | None] | None:
    return getattr(plugin, "pre_filter_add_pod" if change == "add" else "pre_filter_remove_pod", None)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), plugin_index=st.integers(0, len(PLUGINS) - 1))
def test_extensions_on_a_clone_match_a_fresh_pre_filter(
        scenario: tuple[list[Node], list[Pod], Pod, str, Pod], plugin_index: int) -> None:
    """Filter after AddPod/RemovePod on a cloned state equals Filter after PreFilter on the changed cluster."""
    cluster_nodes, existing, incoming, change, changed_pod = scenario
    cls = PLUGINS[plugin_index]
    before = _infos(cluster_nodes, existing)
    plugin = _plugin(cls, before)
    state, runs = _pre_filter(plugin, incoming, before)
    assume(runs)  # a skipped plugin's extensions and Filter do not run in this cycle at all
    answers_before = _answers(plugin, state, True, incoming, before)

    after, index, pod_info = _changed(before, change, changed_pod)
    branch = state.clone()
    extension = _extension(plugin, change)
    if extension is not None:
        status = extension(branch, incoming, pod_info, after[index])
        assert status is None or status.code is Code.SUCCESS, status

    fresh_plugin = _plugin(cls, after)
    fresh_state, fresh_runs = _pre_filter(fresh_plugin, incoming, after)
    expected = _answers(fresh_plugin, fresh_state, fresh_runs, incoming, after)
    assert _answers(plugin, branch, True, incoming, after) == expected
    # The branch is independent: the original state still answers as before the change.
    assert _answers(plugin, state, True, incoming, before) == answers_before


"""Hooks that need their PreFilter's or PreScore's state, when that point is disabled in the profile: kube-scheduler
v1.32's convention. A per-node hook returns an Error status with kube's message; a hook that cannot return a
Status (a batch form, Score) raises StateNotFoundError with the same message, which the runtime reports alone, so
both paths fail the pod with the same text. NodeAffinity (and the resource scorers) recompute instead, as kube's do.

The messages were read from a real kube-scheduler v1.32's FailedScheduling events with such profiles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from kubesched.api.pod import Pod
from kubesched.framework import NodeBatch, StateNotFoundError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import PodInfo
from kubesched.framework._status import Code
from kubesched.framework._types import NodeScore
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.noderesources import NodeResourcesFit
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.profiles.kube import parse_kube_config, yaml_document
from kubesched.runtime import PluginRegistry
from kubesched.testing import plugin_instance, run_profile
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import verdict

NODES = [make_node(f"n{i}").zone("a").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(3)]
POD = make_pod("p").label(app="web").host_port(8080).spread(1, "topology.kubernetes.io/zone", app="web") \
    .pod_affinity("kubernetes.io/hostname", anti=True, app="web").obj()

FIT = 'error reading "PreFilterNodeResourcesFit" from cycleState: not found'
PORTS = 'reading "PreFilterNodePorts" from cycleState: not found'
IPA_FILTER = 'error reading "PreFilterInterPodAffinity" from cycleState: not found'
PTS_FILTER = 'reading "PreFilterPodTopologySpread" from cycleState: not found'
IPA_SCORE = 'failed to read "PreScoreInterPodAffinity" from cycleState: not found'
PTS_SCORE = 'error reading "PreScorePodTopologySpread" from cycleState: not found'
TAINTS_SCORE = 'failed to read "PreScoreTaintToleration" from cycleState: not found'

FILTER_PLUGINS = [
    pytest.param(NodeResourcesFit, FIT, id="NodeResourcesFit"),
    pytest.param(NodePorts, PORTS, id="NodePorts"),
    pytest.param(InterPodAffinity, IPA_FILTER, id="InterPodAffinity"),
    pytest.param(PodTopologySpread, PTS_FILTER, id="PodTopologySpread"),
]


def built(plugin_class: type[Any]) -> Any:
    """The plugin with default args over NODES."""
    return plugin_instance(plugin_class, nodes=NODES)


def batch(plugin: Any) -> NodeBatch:
    """Every node of the plugin's snapshot, as a batch."""
    snapshot = plugin.handle.snapshot
    return NodeBatch.of(snapshot.list(), snapshot.columns)


@pytest.mark.parametrize(("plugin_class", "message"), FILTER_PLUGINS)
def test_filter_without_pre_filter_state_is_an_error(plugin_class: type[Any], message: str) -> None:
    """Filter returns an Error status with kube's message; it neither raises nor recomputes the state."""
    plugin = built(plugin_class)
    assert verdict(plugin.filter(CycleState(), POD, plugin.handle.snapshot.list()[0])) == (Code.ERROR, (message,))


@pytest.mark.parametrize(("plugin_class", "message"), FILTER_PLUGINS)
def test_batch_filter_without_pre_filter_state_raises_the_same_message(plugin_class: type[Any],
                                                                       message: str) -> None:
    """filter_nodes raises StateNotFoundError whose text is Filter's message."""
    plugin = built(plugin_class)
    with pytest.raises(StateNotFoundError) as raised:
        plugin.filter_nodes(CycleState(), POD, batch(plugin))
    assert str(raised.value) == message


@pytest.mark.parametrize(("plugin_class", "message"), [
    pytest.param(InterPodAffinity, IPA_FILTER, id="InterPodAffinity"),
    pytest.param(PodTopologySpread, PTS_FILTER, id="PodTopologySpread"),
])
@pytest.mark.parametrize("hook", ["pre_filter_add_pod", "pre_filter_remove_pod"])
def test_pre_filter_extensions_without_state_are_an_error(plugin_class: type[Any], message: str, hook: str) -> None:
    """AddPod and RemovePod return the Error status too."""
    plugin = built(plugin_class)
    extension: Callable[..., Any] = getattr(plugin, hook)
    other = PodInfo.of(make_pod("other").label(app="web").obj())
    assert verdict(extension(CycleState(), POD, other, plugin.handle.snapshot.list()[0])) == (Code.ERROR, (message,))


SCORE_PLUGINS = [
    pytest.param(InterPodAffinity, IPA_SCORE, id="InterPodAffinity"),
    pytest.param(PodTopologySpread, PTS_SCORE, id="PodTopologySpread"),
    pytest.param(TaintToleration, TAINTS_SCORE, id="TaintToleration"),
]


@pytest.mark.parametrize(("plugin_class", "message"), SCORE_PLUGINS)
def test_score_without_pre_score_state_raises_kubes_message(plugin_class: type[Any], message: str) -> None:
    """Score and its batch form raise StateNotFoundError with kube's message (Score cannot return a Status)."""
    plugin = built(plugin_class)
    with pytest.raises(StateNotFoundError) as per_node:
        plugin.score(CycleState(), POD, plugin.handle.snapshot.list()[0])
    with pytest.raises(StateNotFoundError) as batched:
        plugin.score_nodes(CycleState(), POD, batch(plugin))
    assert str(per_node.value) == str(batched.value) == message


@pytest.mark.parametrize(("plugin_class", "message"), [
    pytest.param(InterPodAffinity, IPA_SCORE, id="InterPodAffinity"),
    pytest.param(PodTopologySpread, PTS_SCORE, id="PodTopologySpread"),
])
def test_normalize_score_without_pre_score_state_is_an_error(plugin_class: type[Any], message: str) -> None:
    """NormalizeScore returns the Error status; its batch form raises the same message."""
    plugin = built(plugin_class)
    scores = [NodeScore(info.name, 0) for info in plugin.handle.snapshot.list()]
    assert verdict(plugin.normalize_score(CycleState(), POD, scores)) == (Code.ERROR, (message,))
    with pytest.raises(StateNotFoundError, match=message):
        plugin.normalize_scores(CycleState(), POD, batch(plugin), [0] * len(scores))


def profile_without(point: str, plugin: str, *, fast_path: bool) -> Any:
    """The default profile with ``plugin`` disabled at ``point`` (its other points kept)."""
    registry = PluginRegistry.discover()
    text = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
            f"- plugins: {{{point}: {{disabled: [{{name: {plugin}}}]}}}}\n")
    config = parse_kube_config(yaml_document(text, "sched.yaml"), registry, "sched.yaml")
    return attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=fast_path))


PROFILE_CASES = [
    pytest.param("preFilter", "NodeResourcesFit", f'running "NodeResourcesFit" filter plugin: {FIT}', id="fit"),
    pytest.param("preFilter", "NodePorts", f'running "NodePorts" filter plugin: {PORTS}', id="ports"),
    pytest.param("preFilter", "InterPodAffinity", f'running "InterPodAffinity" filter plugin: {IPA_FILTER}',
                 id="inter-pod-affinity"),
    pytest.param("preFilter", "PodTopologySpread", f'running "PodTopologySpread" filter plugin: {PTS_FILTER}',
                 id="topology-spread"),
    pytest.param("preScore", "InterPodAffinity",
                 f'running Score plugins: plugin "InterPodAffinity" failed with: {IPA_SCORE}',
                 id="inter-pod-affinity-score"),
    pytest.param("preScore", "PodTopologySpread",
                 f'running Score plugins: plugin "PodTopologySpread" failed with: {PTS_SCORE}',
                 id="topology-spread-score"),
    pytest.param("preScore", "TaintToleration",
                 f'running Score plugins: plugin "TaintToleration" failed with: {TAINTS_SCORE}',
                 id="taint-toleration-score"),
]


@pytest.mark.parametrize("fast_path", [True, False], ids=["batch", "per-node"])
@pytest.mark.parametrize(("point", "plugin", "message"), PROFILE_CASES)
def test_profile_without_the_state_fails_every_pod(point: str, plugin: str, message: str, fast_path: bool) -> None:
    """A plain pod fails with kube's message when the plugin's PreFilter (or PreScore) is disabled but its Filter
    (or Score) is not, on the batch path and on the per-node path alike."""
    decisions = run_profile(profile_without(point, plugin, fast_path=fast_path), NODES, [make_pod("p")])
    assert (decisions["default/p"].node, decisions["default/p"].message) == (None, message)


@pytest.mark.parametrize("point", ["preFilter", "preScore"])
def test_node_affinity_recomputes_without_its_state(point: str) -> None:
    """NodeAffinity's Filter and Score fall back to the pod's own affinity, as kube's do: the pod binds."""
    pod: Pod = make_pod("p").node_affinity_in("topology.kubernetes.io/zone", "a").obj()
    decisions = run_profile(profile_without(point, "NodeAffinity", fast_path=True), NODES, [pod])
    assert decisions["default/p"].bound

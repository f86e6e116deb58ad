"""PodTopologySpread's columnar PreFilter/PreScore and its batch forms (filter_nodes, score_nodes,
normalize_scores) answer exactly as the dict-based PreFilter/PreScore and the per-node hooks, node by node:
on random small clusters, on the plugin's table cases, after AddPod/RemovePod, and after the cache moves pods."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, TopologySpreadConstraint
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore
from kubesched.io.load import ClusterInput
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.plugins.pod_topology_spread.common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY, InclusionCheck
from kubesched.plugins.pod_topology_spread.filtering import PRE_FILTER_KEY, build_pre_filter_state
from kubesched.plugins.pod_topology_spread.scoring import PRE_SCORE_KEY, build_pre_score_state
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import Cache, NodeSnapshot, PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.test_pod_topology_spread import (
    BAR,
    FOO,
    FOUR_NODES,
    HOSTNAME,
    Verdict,
    Workloads,
    cluster,
    foo_pods,
    make_plugin,
    node,
    service,
    spread,
    with_spread,
)
from tests.plugins.test_pod_topology_spread_filter import CONSTRAINT_ORDER, MULTIPLE_CONSTRAINTS, SINGLE_CONSTRAINT
from tests.plugins.test_pod_topology_spread_score import SCORE_CASES

ZONE = "zone"
RACK = "rack"
DELETED_AT = datetime(2024, 1, 1, tzinfo=UTC)
SELECTORS: list[LabelSelector | None] = [FOO, BAR, LabelSelector(match_labels={"app": "a"}), LabelSelector(), None]


# -- random clusters ------------------------------------------------------------------------------------

@st.composite
def cluster_nodes(draw: st.DrawFn) -> list[Node]:
    """One to seven nodes, each maybe labelled with a zone (possibly ""), rack, hostname and disk, maybe tainted."""
    result = []
    for i in range(draw(st.integers(1, 7))):
        labels: dict[str, str] = {}
        if draw(st.integers(0, 4)):
            labels[ZONE] = draw(st.sampled_from(["z1", "z2", "z3", ""]))
        if draw(st.booleans()):
            labels[RACK] = draw(st.sampled_from(["r1", "r2"]))
        if draw(st.integers(0, 4)):
            labels[HOSTNAME] = f"n{i}"
        if draw(st.booleans()):
            labels["disk"] = "ssd"
        builder = make_node(f"n{i}").labels(labels)
        taint = draw(st.sampled_from([None, "NoSchedule", "PreferNoSchedule"]))
        if taint is not None:
            builder = builder.taint("dedicated", "infra", taint)
        result.append(builder.obj())
    return result


@st.composite
def existing_pods(draw: st.DrawFn, nodes: Sequence[Node]) -> list[Pod]:
    """Zero to three pods per node with random labels and namespace, some terminating."""
    pods = []
    for host in nodes:
        for j in range(draw(st.integers(0, 3))):
            labels = draw(st.dictionaries(st.sampled_from(["foo", "bar", "app"]), st.sampled_from(["", "a", "b"]),
                                          max_size=3))
            builder = (make_pod(f"{host.name}-p{j}", draw(st.sampled_from(["default", "default", "other"])))
                       .node(host.name).label(**labels))
            if draw(st.integers(0, 5)) == 0:
                builder = builder.terminating(DELETED_AT)
            pods.append(builder.obj())
    return pods


@st.composite
def constraints(draw: st.DrawFn) -> TopologySpreadConstraint:
    """A constraint with random key, action, selector, minDomains, policies and matchLabelKeys."""
    return spread(draw(st.integers(1, 3)), draw(st.sampled_from([ZONE, RACK, HOSTNAME])),
                  draw(st.sampled_from([DO_NOT_SCHEDULE, SCHEDULE_ANYWAY])), draw(st.sampled_from(SELECTORS)),
                  min_domains=draw(st.sampled_from([None, 1, 2, 4])),
                  node_affinity_policy=draw(st.sampled_from([None, "Honor", "Ignore"])),
                  node_taints_policy=draw(st.sampled_from([None, "Honor", "Ignore"])),
                  match_label_keys=draw(st.sampled_from([(), ("app",)])))


@st.composite
def incoming_pods(draw: st.DrawFn) -> Pod:
    """The pod to place: random labels, zero to three constraints, maybe a nodeSelector, required node affinity (on
    labels, on names), a toleration."""
    labels = draw(st.dictionaries(st.sampled_from(["foo", "bar", "app"]), st.sampled_from(["", "a"]), max_size=3))
    builder = make_pod("incoming").label(**labels)
    if draw(st.integers(0, 3)) == 0:
        builder = builder.node_selector(disk="ssd")
    if draw(st.integers(0, 3)) == 0:
        builder = builder.node_affinity_in(RACK, "r1")
    if draw(st.integers(0, 5)) == 0:  # matchFields on metadata.name
        builder = builder.node_affinity_names(*draw(st.sets(st.sampled_from(["n0", "n1", "n2"]), min_size=1)))
    if draw(st.booleans()):
        builder = builder.toleration("dedicated", "infra", "NoSchedule")
    return with_spread(builder.obj(), *draw(st.lists(constraints(), max_size=3)))


ARGS: list[dict[str, Any]] = [
    {},
    {"defaulting-type": "List", "default-constraints": [
        {"max-skew": 1, "topology-key": ZONE, "when-unsatisfiable": DO_NOT_SCHEDULE, "min-domains": 2},
        {"max-skew": 2, "topology-key": HOSTNAME, "when-unsatisfiable": SCHEDULE_ANYWAY,
         "node-taints-policy": "Honor"}]},
]


@attrs.frozen
class Example:
    """A cluster, the pod to place, plugin args, whether a Service selects app=a pods, and the random choices."""

    nodes: list[Node]
    pods: list[Pod]
    pod: Pod
    args: dict[str, Any]
    with_service: bool
    data: st.DataObject


@st.composite
def examples(draw: st.DrawFn) -> Example:
    """A random cluster and pod (its own constraints, or the defaults through a Service)."""
    nodes = draw(cluster_nodes())
    return Example(nodes, draw(existing_pods(nodes)), draw(incoming_pods()), draw(st.sampled_from(ARGS)),
                   draw(st.booleans()), draw(st.data()))


def plugin_for(example: Example, infos: Sequence[NodeInfo]) -> PodTopologySpread:
    """The plugin over a snapshot of ``infos`` (its NodeInfos are the snapshot's)."""
    workloads = Workloads(services=[service("svc", app="a")] if example.with_service else [])
    return make_plugin(infos, workloads, example.args)


def columns_of(plugin: PodTopologySpread) -> Any:
    """The columns of the plugin's snapshot."""
    return plugin.handle.snapshot.columns


def per_node_codes(plugin: PodTopologySpread, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]) -> list[int]:
    """Filter's status code on each node (0 for a pass)."""
    codes = []
    for info in infos:
        status = plugin.filter(state, pod, info)
        codes.append(0 if status is None else int(status.code))
    return codes


def batch_codes(plugin: PodTopologySpread, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]) -> list[int]:
    """filter_nodes' status codes for ``infos`` (0 for a pass)."""
    out = plugin.filter_nodes(state, pod, NodeBatch.of(infos, columns_of(plugin)))
    return [0] * len(infos) if out is None else [int(c) for c in out]


def domain_view(state: Any) -> list[tuple[dict[str, int], int, int]]:
    """Per constraint of a PreFilter state: counts per domain, minimum and number of domains."""
    return [(dict(d.counts), d.min_match, d.size) for d in state.domains]


def some_nodes(data: st.DataObject, infos: Sequence[NodeInfo]) -> list[NodeInfo]:
    """A random non-empty subset of ``infos`` in random order."""
    return data.draw(st.lists(st.sampled_from(list(infos)), min_size=1, unique_by=lambda ni: ni.name))


def scores_per_node(plugin: PodTopologySpread, state: CycleState, pod: Pod,
                    feasible: Sequence[NodeInfo]) -> tuple[list[int], list[int]]:
    """Raw and normalised scores from the per-node hooks."""
    raw = [plugin.score(state, pod, info) for info in feasible]
    scores = [NodeScore(info.name, s) for info, s in zip(feasible, raw, strict=True)]
    assert plugin.normalize_score(state, pod, scores) is None
    return raw, [s.score for s in scores]


def scores_batch(plugin: PodTopologySpread, state: CycleState, pod: Pod,
                 feasible: Sequence[NodeInfo]) -> tuple[list[int], list[int]]:
    """Raw and normalised scores from the batch forms."""
    batch = NodeBatch.of(feasible, columns_of(plugin))
    raw = plugin.score_nodes(state, pod, batch)
    normalised = plugin.normalize_scores(state, pod, batch, raw.copy())
    return [int(s) for s in raw], [int(s) for s in normalised]


# -- property tests ----------------------------------------------------------------------------------

PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_columnar_pre_filter_state_equals_the_per_node_count(example: Example) -> None:
    """PreFilter over the columns finds the same domains, counts, minimum and self-match as the node walk."""
    infos = cluster(example.nodes, example.pods)
    plugin = plugin_for(example, infos)
    state = CycleState()
    status = plugin.pre_filter(state, example.pod, list(infos))
    constraints = plugin.constraints(example.pod, DO_NOT_SCHEDULE)
    if not constraints:
        assert isinstance(status, Status)
        assert status.code is Code.SKIP
        return
    new = state.read(PRE_FILTER_KEY)
    old = build_pre_filter_state(example.pod, constraints, infos)
    assert domain_view(new) == domain_view(old)
    assert new.self_match == old.self_match


@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_filter_nodes_equals_filter_on_every_node(example: Example) -> None:
    """filter_nodes gives each node, over all nodes and over a random subset, the code Filter gives it."""
    infos = cluster(example.nodes, example.pods)
    plugin = plugin_for(example, infos)
    state = CycleState()
    if plugin.pre_filter(state, example.pod, list(infos)) is not None:
        return
    assert batch_codes(plugin, state, example.pod, infos) == per_node_codes(plugin, state, example.pod, infos)
    subset = some_nodes(example.data, infos)
    assert batch_codes(plugin, state, example.pod, subset) == per_node_codes(plugin, state, example.pod, subset)


@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_filter_nodes_follows_add_pod_and_remove_pod(example: Example) -> None:
    """After AddPod/RemovePod on a cloned state (preemption, nominated pods), filter_nodes still equals Filter,
    and the original state is unchanged."""
    infos = cluster(example.nodes, example.pods)
    plugin = plugin_for(example, infos)
    state = CycleState()
    pod = example.pod
    if plugin.pre_filter(state, pod, list(infos)) is not None:
        return
    before = domain_view(state.read(PRE_FILTER_KEY))
    data = example.data
    changed = state.clone()
    for step in range(data.draw(st.integers(1, 4))):
        info = data.draw(st.sampled_from(list(infos)))
        remove: bool = data.draw(st.booleans())
        if info.pods and remove:
            removed = data.draw(st.sampled_from(list(info.pods)))
            plugin.pre_filter_remove_pod(changed, pod, removed, info)
        else:
            labels = data.draw(st.dictionaries(st.sampled_from(["foo", "bar", "app"]), st.sampled_from(["", "a"])))
            added = make_pod(f"added-{step}").node(info.name).label(**labels).obj()
            plugin.pre_filter_add_pod(changed, pod, PodInfo.of(added), info)
        assert batch_codes(plugin, changed, pod, infos) == per_node_codes(plugin, changed, pod, infos)
    assert domain_view(state.read(PRE_FILTER_KEY)) == before
    assert batch_codes(plugin, state, pod, infos) == per_node_codes(plugin, state, pod, infos)


@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_columnar_pre_score_state_equals_the_per_node_count(example: Example) -> None:
    """PreScore over the columns ignores the same nodes and finds the same domain counts and weights."""
    infos = cluster(example.nodes, example.pods)
    plugin = plugin_for(example, infos)
    feasible = some_nodes(example.data, infos)
    state = CycleState()
    if plugin.pre_score(state, example.pod, feasible) is not None:
        return
    new = state.read(PRE_SCORE_KEY)
    pod = example.pod
    constraints = plugin.constraints(pod, SCHEDULE_ANYWAY)
    require_all = bool(pod.spec.topology_spread_constraints) or example.args != {}
    old = build_pre_score_state(constraints, pod.namespace, InclusionCheck(pod, constraints), feasible, infos,
                                require_all)
    assert (new.ignored_nodes, new.counts, new.weights) == (old.ignored_nodes, old.counts, old.weights)


@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_score_nodes_and_normalize_scores_equal_the_per_node_hooks(example: Example) -> None:
    """score_nodes and normalize_scores give each feasible node the per-node raw and normalised score."""
    infos = cluster(example.nodes, example.pods)
    plugin = plugin_for(example, infos)
    feasible = some_nodes(example.data, infos)
    state = CycleState()
    if plugin.pre_score(state, example.pod, feasible) is not None:
        return
    assert scores_batch(plugin, state, example.pod, feasible) == scores_per_node(plugin, state, example.pod,
                                                                                 feasible)


# -- the table cases through the batch forms --------------------------------------------------------

@pytest.mark.parametrize(("pod", "pods", "expected"), [*SINGLE_CONSTRAINT, *MULTIPLE_CONSTRAINTS])
def test_filter_table_cases_through_filter_nodes(pod: Pod, pods: list[Pod], expected: dict[str, Verdict]) -> None:
    """The Filter table cases give the same codes through filter_nodes."""
    infos = cluster(FOUR_NODES, pods)
    plugin = make_plugin(infos)
    state = CycleState()
    assert plugin.pre_filter(state, pod, list(infos)) is None
    assert batch_codes(plugin, state, pod, infos) == [int(expected[ni.name][0]) for ni in infos]


@pytest.mark.parametrize(("constraints", "expected"), CONSTRAINT_ORDER)
def test_filter_nodes_reports_the_first_failing_constraint(constraints: tuple[TopologySpreadConstraint, ...],
                                                           expected: Verdict) -> None:
    """node-b lacks ``rack`` and its zone is 2 pods ahead: through filter_nodes too, the first failure wins."""
    nodes = [node(n.name, {**n.labels, "rack": "r1"}) if n.name != "node-b" else n for n in FOUR_NODES]
    infos = cluster(nodes, foo_pods("node-a", 2))
    plugin = make_plugin(infos)
    pod = with_spread(make_pod("p").label(foo="").obj(), *constraints)
    state = CycleState()
    assert plugin.pre_filter(state, pod, list(infos)) is None
    assert batch_codes(plugin, state, pod, infos)[1] == int(expected[0])


@pytest.mark.parametrize(("pod", "pods", "feasible", "failed", "expected"), SCORE_CASES)
def test_score_table_cases_through_score_nodes(pod: Pod, pods: list[Pod], feasible: list[Node], failed: list[Node],
                                               expected: list[int]) -> None:
    """The Score table cases give the same normalised scores through score_nodes and normalize_scores."""
    infos = cluster([*feasible, *failed], pods)
    plugin = make_plugin(infos)
    state = CycleState()
    assert plugin.pre_score(state, pod, infos[:len(feasible)]) is None
    assert scores_batch(plugin, state, pod, infos[:len(feasible)])[1] == expected


# -- incremental columns --------------------------------------------------------------------------------

@pytest.mark.slow
@PROPERTY
@given(example=examples())
def test_batch_forms_stay_exact_as_the_cache_adds_and_removes_pods(example: Example) -> None:
    """A cache-maintained snapshot whose pods come and go: after each update the columnar PreFilter/PreScore and
    the batch forms still equal the node walk and the per-node hooks."""
    cache = Cache()
    for each in example.nodes:
        cache.add_node(each)
    plugin = plugin_for(example, [])
    snapshot = plugin.handle.snapshot
    assert isinstance(snapshot, NodeSnapshot)
    pod, data = example.pod, example.data
    live: list[Pod] = []
    pending = list(example.pods)
    for _ in range(data.draw(st.integers(1, 4))):
        arriving = data.draw(st.integers(0, len(pending)))
        for added in pending[:arriving]:
            cache.add_pod(added)
            live.append(added)
        pending = pending[arriving:]
        for removed in [p for p in live if data.draw(st.integers(0, 3)) == 0]:
            cache.remove_pod(removed)
            live.remove(removed)
        cache.update_snapshot(snapshot)
        infos = snapshot.list()
        state = CycleState()
        if plugin.pre_filter(state, pod, infos) is None:
            constraints = plugin.constraints(pod, DO_NOT_SCHEDULE)
            old = build_pre_filter_state(pod, constraints, infos)
            assert domain_view(state.read(PRE_FILTER_KEY)) == domain_view(old)
            assert batch_codes(plugin, state, pod, infos) == per_node_codes(plugin, state, pod, infos)
        state = CycleState()
        if plugin.pre_score(state, pod, list(infos)) is None:
            assert scores_batch(plugin, state, pod, infos) == scores_per_node(plugin, state, pod, infos)


def test_filter_nodes_raises_for_a_node_without_its_node_object() -> None:
    """A NodeInfo without a node is Filter's error ("node not found"), so the batch form raises."""
    infos = cluster([make_node("n1").labels({ZONE: "z1"}).obj()])
    plugin = make_plugin(infos)
    pod = with_spread(make_pod("p").label(foo="").obj(), spread(1, ZONE))
    state = CycleState()
    assert plugin.pre_filter(state, pod, list(infos)) is None
    ghost = NodeInfo()
    batch = NodeBatch.of([ghost], NodeSnapshot.of([ghost]).columns)
    with pytest.raises(LookupError, match="node not found"):
        plugin.filter_nodes(state, pod, batch)


def test_batch_arrays_are_integer_arrays_in_batch_order() -> None:
    """filter_nodes and score_nodes return int arrays with one entry per batch node, in the batch's order."""
    nodes = [make_node(f"n{i}").labels({ZONE: f"z{i % 2}", HOSTNAME: f"n{i}"}).obj() for i in range(4)]
    infos = cluster(nodes, [make_pod(f"p{i}").node("n0").label(foo="").obj() for i in range(2)])
    plugin = make_plugin(infos)
    pod = with_spread(make_pod("p").label(foo="").obj(), spread(1, HOSTNAME), spread(1, ZONE, SCHEDULE_ANYWAY))
    state = CycleState()
    assert plugin.pre_filter(state, pod, list(infos)) is None
    reversed_infos = infos[::-1]
    out = plugin.filter_nodes(state, pod, NodeBatch.of(reversed_infos, columns_of(plugin)))
    assert out is not None
    assert out.dtype.kind == "i"
    assert out.tolist() == [0, 0, 0, int(Code.UNSCHEDULABLE)]
    assert plugin.pre_score(state, pod, reversed_infos) is None
    raw = plugin.score_nodes(state, pod, NodeBatch.of(reversed_infos, columns_of(plugin)))
    assert isinstance(raw, np.ndarray)
    assert raw.tolist() == [plugin.score(state, pod, ni) for ni in reversed_infos]


# -- whole scheduling runs -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def default_config(registry: PluginRegistry) -> tuple[SchedulerConfiguration, SchedulerConfiguration]:
    """The default profile with the fast path on, then off."""
    config = load_config("default", registry)
    return (attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=True)),
            attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=False)))


@st.composite
def spreading_clusters(draw: st.DrawFn) -> tuple[ClusterInput, int]:
    """Labelled, tainted nodes with room for a few pods, running pods, and pending pods that spread (or take the
    defaults through a Service) at random priorities, so that preemption runs AddPod/RemovePod; and a seed."""
    nodes = [attrs.evolve(node, status=make_node(node.name).capacity(cpu="2000m", memory="8Gi", pods=4).obj().status)
             for node in draw(cluster_nodes())]
    running = [attrs.evolve(pod, spec=attrs.evolve(make_pod(pod.name).req(cpu="500m").obj().spec,
                                                   node_name=pod.spec.node_name))
               for pod in draw(existing_pods(nodes)) if pod.metadata.deletion_timestamp is None]
    pending = []
    for i in range(draw(st.integers(1, 8))):
        pod = draw(incoming_pods())
        builder = (make_pod(f"pending-{i}").label(**pod.labels).req(cpu=draw(st.sampled_from(["250m", "1000m"])))
                   .priority(draw(st.sampled_from([0, 10, 100]))))
        pending.append(attrs.evolve(builder.obj(), spec=attrs.evolve(
            builder.obj().spec, topology_spread_constraints=pod.spec.topology_spread_constraints,
            node_selector=pod.spec.node_selector, affinity=pod.spec.affinity, tolerations=pod.spec.tolerations)))
    services = (service("svc", app="a"),) if draw(st.booleans()) else ()
    return (ClusterInput(nodes=tuple(nodes), pods=(*running, *pending), services=services),
            draw(st.integers(0, 2**16)))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=spreading_clusters())
def test_fast_path_places_spreading_pods_as_the_per_node_path(
        default_config: tuple[SchedulerConfiguration, SchedulerConfiguration],
        registry: PluginRegistry, example: tuple[ClusterInput, int]) -> None:
    """Scheduling spreading pods with the fast path (columns kept in step as pods are assumed, bound and
    preempted) gives every pod the same node, nomination and message as the per-node path."""
    cluster_input, seed = example
    fast, reference = default_config
    fast_result = Simulation(cluster_input, fast, registry, seed=seed).run()
    reference_result = Simulation(cluster_input, reference, registry, seed=seed).run()
    assert fast_result.pods == reference_result.pods
    assert fast_result.preemptions == reference_result.preemptions
    assert fast_result.events == reference_result.events

"""The batch forms of NodeName, NodeUnschedulable and NodePorts: filter_nodes gives the per-node filter's code
node by node, on random clusters, on the plugins' table cases, and as a scheduler cache's nodes and pods change."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework import Snapshot
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.plugins.node_name import NodeName
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.runtime import Cache
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins import test_node_name, test_node_ports, test_node_unschedulable

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"
PLUGINS: tuple[type[Any], ...] = (NodeName, NodeUnschedulable, NodePorts)
# (protocol, host IP, port) triples: few enough that pods clash often.
PORTS = st.tuples(st.sampled_from(("TCP", "UDP", "")), st.sampled_from(("", "0.0.0.0", "10.0.0.1", "10.0.0.2")),
                  st.sampled_from((80, 443, 0)))
TOLERATIONS = st.sampled_from([
    (UNSCHEDULABLE_KEY, "", "NoSchedule", "Exists"), (UNSCHEDULABLE_KEY, "", "", "Equal"),
    (UNSCHEDULABLE_KEY, "true", "NoSchedule", "Equal"), (UNSCHEDULABLE_KEY, "", "NoExecute", "Exists"),
    ("", "", "", "Exists"), ("other", "", "", "Exists"),
])


@st.composite
def pods(draw: st.DrawFn, name: str) -> Pod:
    """A pod with random host ports, tolerations and maybe a nodeName."""
    builder = make_pod(name)
    for protocol, host_ip, port in draw(st.lists(PORTS, max_size=2)):
        builder = builder.host_port(port, protocol, host_ip)
    for key, value, effect, operator in draw(st.lists(TOLERATIONS, max_size=2)):
        builder = builder.toleration(key, value, effect, operator)
    node_name = draw(st.sampled_from(("", "", "n0", "n1", "n9")))
    return builder.node(node_name).obj() if node_name else builder.obj()


@st.composite
def nodes(draw: st.DrawFn, index: int) -> NodeInfo:
    """A node, cordoned or not, running zero to two pods with random host ports."""
    node = make_node(f"n{index}").unschedulable(draw(st.booleans())).obj()
    running = [draw(pods(f"r{index}-{j}")).with_node_name(node.name) for j in range(draw(st.integers(0, 2)))]
    return NodeInfo.of(node, [PodInfo.of(p) for p in running])


CLUSTERS = st.lists(st.integers(0, 7), min_size=1, max_size=8, unique=True).flatmap(
    lambda indexes: st.tuples(*(nodes(i) for i in indexes)))


def assert_filter_agrees(plugin: Any, pod: Pod, snapshot: Snapshot, order: list[int] | None = None) -> None:
    """filter_nodes equals filter node by node, after PreFilter when the plugin has one (and did not Skip)."""
    infos = snapshot.list()
    if order is not None:
        infos = [infos[i % len(infos)] for i in order]
    state = CycleState()
    pre_filter = getattr(plugin, "pre_filter", None)
    if pre_filter is not None:
        outcome = pre_filter(state, pod, snapshot.list())
        if isinstance(outcome, Status) and outcome.code is Code.SKIP:
            return
    out = plugin.filter_nodes(state, pod, NodeBatch.of(infos, snapshot.columns))
    statuses = [plugin.filter(state, pod, info) for info in infos]
    assert ([0] * len(infos) if out is None else out.tolist()) == [0 if s is None else int(s.code) for s in statuses]


@pytest.mark.slow
@pytest.mark.parametrize("plugin_class", PLUGINS, ids=lambda c: c.name)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(node_list=CLUSTERS, pod=pods("p"), order=st.lists(st.integers(0, 7), max_size=6))
def test_batch_filter_equals_per_node_filter_on_random_clusters(plugin_class: type[Any], node_list: tuple[NodeInfo],
                                                                pod: Pod, order: list[int]) -> None:
    """Over every node and over a batch in another order, filter_nodes' codes are filter's."""
    plugin = plugin_instance(plugin_class, nodes=node_list)
    assert_filter_agrees(plugin, pod, plugin.handle.snapshot)
    assert_filter_agrees(plugin, pod, plugin.handle.snapshot, order)


# Steps on a scheduler cache: add a pod to node i, remove the i-th pod added, or cordon/uncordon node i.
STEPS = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 7), pods("step")),
    st.tuples(st.just("remove"), st.integers(0, 20), st.none()),
    st.tuples(st.just("cordon"), st.integers(0, 7), st.none()),
), min_size=1, max_size=10)


@pytest.mark.parametrize("plugin_class", PLUGINS, ids=lambda c: c.name)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(indexes=st.lists(st.integers(0, 7), min_size=1, max_size=6, unique=True), steps=STEPS, pod=pods("p"))
def test_batch_filter_follows_the_cache_as_pods_come_and_go(plugin_class: type[Any], indexes: list[int],
                                                            steps: list[tuple[str, int, Pod | None]],
                                                            pod: Pod) -> None:
    """After every pod added or removed and node cordoned or uncordoned in a scheduler cache (the columns updated
    incrementally), filter_nodes still equals filter."""
    plugin = plugin_instance(plugin_class)
    cache = Cache()
    current = [make_node(f"n{i}").obj() for i in indexes]
    for node in current:
        cache.add_node(node)
    snapshot = plugin.handle.snapshot
    cache.update_snapshot(snapshot)
    added: list[Pod] = []
    for number, (action, index, template) in enumerate(steps):
        i = index % len(current)
        if action == "add":
            assert template is not None
            placed = attrs.evolve(template.with_node_name(current[i].name),
                                  metadata=attrs.evolve(template.metadata, name=f"s{number}", uid=f"uid-s{number}"))
            cache.add_pod(placed)
            added.append(placed)
        elif action == "remove" and added:
            cache.remove_pod(added.pop(index % len(added)))
        elif action == "cordon":
            node = current[i]
            current[i] = attrs.evolve(node, spec=attrs.evolve(node.spec, unschedulable=not node.spec.unschedulable))
            cache.update_node(current[i])
        cache.update_snapshot(snapshot)
        assert_filter_agrees(plugin, pod, snapshot)


# -- the table cases through the batch forms --------------------------------------------------------------

def single_node_code(plugin_class: type[Any], pod: Pod, node: Node | NodeInfo) -> int:
    """filter_nodes' code for the node alone in a snapshot, after PreFilter (0 when PreFilter skips)."""
    plugin = plugin_instance(plugin_class, nodes=[node])
    infos = plugin.handle.snapshot.list()
    state = CycleState()
    pre_filter = getattr(plugin, "pre_filter", None)
    if pre_filter is not None:
        outcome = pre_filter(state, pod, infos)
        if isinstance(outcome, Status) and outcome.code is Code.SKIP:
            return 0
    out = plugin.filter_nodes(state, pod, NodeBatch.of(infos, plugin.handle.snapshot.columns))
    return 0 if out is None else int(out[0])


@pytest.mark.parametrize(("pod", "expected"), test_node_name.CASES)
def test_node_name_batch_filter_gives_the_table_verdicts(pod: Pod, expected: tuple[Code, tuple[str, ...]]) -> None:
    """NodeName's filter_nodes on node n1 gives each table case's code."""
    assert single_node_code(NodeName, pod, make_node("n1").obj()) == int(expected[0])


@pytest.mark.parametrize(("pod", "expected"), test_node_unschedulable.TOLERATION_CASES)
def test_node_unschedulable_batch_filter_gives_the_table_verdicts(pod: Pod,
                                                                  expected: tuple[Code, tuple[str, ...]]) -> None:
    """NodeUnschedulable's filter_nodes on a cordoned node gives each toleration table case's code."""
    assert single_node_code(NodeUnschedulable, pod, make_node("n1").unschedulable().obj()) == int(expected[0])


@pytest.mark.parametrize(("pod", "node", "expected"),
                         [*test_node_ports.FILTER_CASES, *test_node_ports.INIT_CONTAINER_CASES])
def test_node_ports_batch_filter_gives_the_table_verdicts(pod: Pod, node: NodeInfo,
                                                          expected: tuple[Code, tuple[str, ...]]) -> None:
    """NodePorts' filter_nodes gives each table case's code."""
    assert single_node_code(NodePorts, pod, node) == int(expected[0])

"""PodTopologySpread PreFilter extensions: AddPod/RemovePod leave the state exactly as a fresh PreFilter with the
pod present (or gone) would build it, and a cloned state changes independently of the original."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import attrs
import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.plugins.pod_topology_spread.filtering import PRE_FILTER_KEY
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import verdict
from tests.plugins.test_pod_topology_spread import (
    FOUR_NODES,
    HOSTNAME,
    OK,
    SKEW,
    Verdict,
    cluster,
    foo_pods,
    incoming,
    make_plugin,
    node,
    on,
    pre_filter,
    spread,
    with_spread,
)

DELETED_AT = datetime(2024, 1, 1, tzinfo=UTC)

ZONE_AND_HOST = incoming(spread(1, "zone"), spread(1, "node"))
# zone1: node-a 1, node-b 0; zone2: node-x 1, node-y 1 (the "node-c" of some cases has no zone label).
BASE_PODS = foo_pods("node-a", 1) + foo_pods("node-x", 1) + foo_pods("node-y", 1)
ZONE1_POD = foo_pods("node-a", 1)
WITHOUT_ZONE = node("node-c", node="node-c")
SSD = [node(n.name, {**n.labels, "disk": "ssd"}) for n in FOUR_NODES[:3]] + [FOUR_NODES[3]]
TAINTED = [*FOUR_NODES[:3], make_node("node-y").labels({"zone": "zone2", "node": "node-y"})
           .taint("dedicated", "infra").obj()]


def selector_pod(policy: str) -> Pod:
    """A foo pod restricted to ``disk=ssd`` nodes, spreading by zone with this nodeAffinityPolicy."""
    return with_spread(make_pod("p").label(foo="").node_selector(disk="ssd").obj(),
                       spread(1, "zone", node_affinity_policy=policy))


@attrs.frozen
class Case:
    """A cluster, the incoming pod, and a pod that lands on (or leaves) ``target``."""

    pod: Pod
    nodes: Sequence[Node]
    existing: Sequence[Pod]
    changed: Pod
    #: Whether the change is counted (the verdicts must then differ from before the change).
    counted: bool


def other(name: str, node_name: str, namespace: str = "default", **labels: str) -> Pod:
    """A pod bound to ``node_name``."""
    return on(node_name, name, namespace, **labels)


ADD_CASES = [
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, BASE_PODS, other("new", "node-b", foo=""), True),
                 id="matching-pod"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, BASE_PODS, other("new", "node-b", "ns1", foo=""), False),
                 id="other-namespace"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, BASE_PODS, other("new", "node-b", bar=""), False),
                 id="not-selected"),
    pytest.param(Case(incoming(spread(1, "zone", selector=None)), FOUR_NODES, BASE_PODS,
                      other("new", "node-b", foo=""), False), id="constraint-without-selector"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, BASE_PODS,
                      make_pod("new").node("node-b").label(foo="").terminating(DELETED_AT).obj(), False),
                 id="terminating"),
    pytest.param(Case(ZONE_AND_HOST, [*FOUR_NODES, WITHOUT_ZONE], BASE_PODS, other("new", "node-c", foo=""), False),
                 id="node-missing-a-key"),
    pytest.param(Case(selector_pod("Honor"), SSD, ZONE1_POD, other("new", "node-y", foo=""), False),
                 id="node-excluded-by-node-affinity-policy"),
    pytest.param(Case(selector_pod("Ignore"), SSD, ZONE1_POD, other("new", "node-y", foo=""), True),
                 id="node-counted-when-node-affinity-ignored"),
    pytest.param(Case(incoming(spread(1, "zone", node_taints_policy="Honor")), TAINTED, BASE_PODS,
                      other("new", "node-y", foo=""), False), id="node-excluded-by-node-taints-policy"),
    pytest.param(Case(incoming(spread(1, "zone", match_label_keys=("rev",)), labels={"foo": "", "rev": "2"}),
                      FOUR_NODES, BASE_PODS, other("new", "node-b", foo="", rev="1"), False),
                 id="other-revision-under-match-label-keys"),
    pytest.param(Case(incoming(spread(2, "zone", min_domains=3)), FOUR_NODES, BASE_PODS,
                      other("new", "node-b", foo=""), True), id="with-min-domains"),
]


def domain_counts(state: CycleState) -> list[dict[str, int]]:
    """The per-constraint matching-pod counts by topology value held in the PreFilter state."""
    return [dict(d.counts) for d in state.read(PRE_FILTER_KEY).domains]


def filter_all(plugin: PodTopologySpread, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]) -> list[Verdict]:
    """The Filter verdict of every node against ``state``."""
    return [verdict(plugin.filter(state, pod, ni)) for ni in infos]


def add_to(plugin: PodTopologySpread, state: CycleState, pod: Pod, infos: list[NodeInfo], added: Pod) -> None:
    """What the nominated-pods pass does: clone the target NodeInfo, add the pod, then call AddPod."""
    index = next(i for i, ni in enumerate(infos) if ni.name == added.spec.node_name)
    target = infos[index].clone()
    pod_info = PodInfo.of(added)
    target.add_pod(pod_info)
    assert plugin.pre_filter_add_pod(state, pod, pod_info, target) is None
    infos[index] = target


def remove_from(plugin: PodTopologySpread, state: CycleState, pod: Pod, infos: list[NodeInfo], removed: Pod) -> None:
    """What a preemption dry run does: clone the NodeInfo, remove the victim, then call RemovePod."""
    index = next(i for i, ni in enumerate(infos) if ni.name == removed.spec.node_name)
    target = infos[index].clone()
    assert target.remove_pod(removed)
    assert plugin.pre_filter_remove_pod(state, pod, PodInfo.of(removed), target) is None
    infos[index] = target


@pytest.mark.parametrize("case", ADD_CASES)
def test_add_pod_equals_pre_filter_with_the_pod_present(case: Case) -> None:
    """AddPod then Filter gives the verdicts (and counts) of a fresh PreFilter over a cluster holding the pod."""
    infos = cluster(case.nodes, case.existing)
    plugin = make_plugin(infos)
    state, _ = pre_filter(plugin, case.pod, infos)
    before = filter_all(plugin, state, case.pod, infos)
    add_to(plugin, state, case.pod, infos, case.changed)

    fresh_infos = cluster(case.nodes, [*case.existing, case.changed])
    fresh, _ = pre_filter(plugin, case.pod, fresh_infos)
    after = filter_all(plugin, state, case.pod, infos)
    assert after == filter_all(plugin, fresh, case.pod, fresh_infos)
    assert domain_counts(state) == domain_counts(fresh)
    assert (after != before) == case.counted


REMOVE_CASES = [
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, BASE_PODS, BASE_PODS[0], True), id="matching-pod"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, [*BASE_PODS, other("old", "node-x", "ns1", foo="")],
                      other("old", "node-x", "ns1", foo=""), False), id="other-namespace"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, [*BASE_PODS, other("old", "node-a", bar="")],
                      other("old", "node-a", bar=""), False), id="not-selected"),
    pytest.param(Case(ZONE_AND_HOST, FOUR_NODES, [*BASE_PODS, *foo_pods("node-b", 2)], foo_pods("node-b", 2)[1], True),
                 id="from-a-fuller-domain"),
]


@pytest.mark.parametrize("case", REMOVE_CASES)
def test_remove_pod_equals_pre_filter_without_the_pod(case: Case) -> None:
    """RemovePod then Filter gives the verdicts (and counts) of a fresh PreFilter over a cluster without the pod."""
    infos = cluster(case.nodes, case.existing)
    plugin = make_plugin(infos)
    state, _ = pre_filter(plugin, case.pod, infos)
    before = filter_all(plugin, state, case.pod, infos)
    remove_from(plugin, state, case.pod, infos, case.changed)

    remaining = [p for p in case.existing if p.uid != case.changed.uid]
    fresh_infos = cluster(case.nodes, remaining)
    fresh, _ = pre_filter(plugin, case.pod, fresh_infos)
    after = filter_all(plugin, state, case.pod, infos)
    assert after == filter_all(plugin, fresh, case.pod, fresh_infos)
    assert domain_counts(state) == domain_counts(fresh)
    assert (after != before) == case.counted


HOSTS = [node(f"node-{c}", {HOSTNAME: f"node-{c}"}) for c in "abc"]


def test_successive_adds_keep_the_global_minimum_exact() -> None:
    """Hosts at 1/2/2, then pods land on a, a, b (3/3/2): the minimum is node-c's 2, so node-a is rejected and
    node-c accepted, exactly as a fresh PreFilter decides after each step."""
    pod = incoming(spread(1, HOSTNAME))
    existing = foo_pods("node-a", 1) + foo_pods("node-b", 2) + foo_pods("node-c", 2)
    infos = cluster(HOSTS, existing)
    plugin = make_plugin(infos)
    state, _ = pre_filter(plugin, pod, infos)
    placed: list[Pod] = []
    for i, target in enumerate(["node-a", "node-a", "node-b"]):
        added = other(f"new{i}", target, foo="")
        add_to(plugin, state, pod, infos, added)
        placed.append(added)
        fresh_infos = cluster(HOSTS, [*existing, *placed])
        fresh, _ = pre_filter(plugin, pod, fresh_infos)
        assert filter_all(plugin, state, pod, infos) == filter_all(plugin, fresh, pod, fresh_infos)
    assert filter_all(plugin, state, pod, infos) == [SKEW, SKEW, OK]


def test_remove_then_add_restores_the_original_answers() -> None:
    """Removing a pod and adding it back leaves counts and verdicts as they were."""
    infos = cluster(FOUR_NODES, BASE_PODS)
    plugin = make_plugin(infos)
    state, _ = pre_filter(plugin, ZONE_AND_HOST, infos)
    counts, verdicts = domain_counts(state), filter_all(plugin, state, ZONE_AND_HOST, infos)
    remove_from(plugin, state, ZONE_AND_HOST, infos, BASE_PODS[0])
    add_to(plugin, state, ZONE_AND_HOST, infos, BASE_PODS[0])
    assert (domain_counts(state), filter_all(plugin, state, ZONE_AND_HOST, infos)) == (counts, verdicts)


def test_cloned_state_changes_leave_the_original_unchanged() -> None:
    """AddPod on a CycleState clone (as the nominated-pods pass does) never alters the original's answers."""
    infos = cluster(FOUR_NODES, BASE_PODS)
    plugin = make_plugin(infos)
    state, _ = pre_filter(plugin, ZONE_AND_HOST, infos)
    counts, verdicts = domain_counts(state), filter_all(plugin, state, ZONE_AND_HOST, infos)

    branch = state.clone()
    branch_infos = list(infos)
    for i in range(3):
        add_to(plugin, branch, ZONE_AND_HOST, branch_infos, other(f"new{i}", "node-b", foo=""))
    remove_from(plugin, branch, ZONE_AND_HOST, branch_infos, BASE_PODS[1])

    assert filter_all(plugin, branch, ZONE_AND_HOST, infos) != verdicts
    assert domain_counts(state) == counts
    assert filter_all(plugin, state, ZONE_AND_HOST, infos) == verdicts

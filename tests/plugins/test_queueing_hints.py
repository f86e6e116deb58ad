"""Specification of the built-in plugins' queueing hints (kube-scheduler v1.32's isSchedulableAfter* functions):
per plugin, which events it registers and, table-driven, what its hint answers."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._events import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.plugins.default_preemption import DefaultPreemption
from kubesched.plugins.inter_pod_affinity.plugin import InterPodAffinity
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.plugins.node_name import NodeName
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.pod_topology_spread.plugin import PodTopologySpread
from kubesched.plugins.scheduling_gates import SchedulingGates
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod, plugin_instance
from tests.framework.fakes import framework_of

Q, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
A = ActionType


def plugin(cls: type[Any]) -> Any:
    """An instance of a built-in plugin inside a framework (so its handle works)."""
    framework = framework_of({"filter": [cls.name]}, cls, cluster=InMemoryCluster(VirtualClock()))
    return framework.plugins[cls.name]


def registered(cls: type[Any]) -> set[tuple[str, int]]:
    """The (resource, action flags) a plugin registers."""
    return {(e.event.resource.value, int(e.event.action_type)) for e in plugin(cls).events_to_register()}


@pytest.mark.parametrize(("cls", "expected"), [
    (NodeResourcesFit, {("Pod", A.DELETE), ("Node", A.ADD | A.UPDATE_NODE_ALLOCATABLE)}),
    (NodeAffinity, {("Node", A.ADD | A.UPDATE_NODE_LABEL)}),
    (TaintToleration, {("Node", A.ADD | A.UPDATE_NODE_TAINT), ("Pod", A.UPDATE_POD_TOLERATIONS)}),
    (NodeName, {("Node", A.ADD)}),
    (NodePorts, {("Pod", A.DELETE), ("Node", A.ADD)}),
    (NodeUnschedulable, {("Node", A.ADD | A.UPDATE_NODE_TAINT), ("Pod", A.UPDATE_POD_TOLERATIONS)}),
    (PodTopologySpread, {("Pod", A.ADD | A.UPDATE_POD_LABEL | A.UPDATE_POD_TOLERATIONS | A.DELETE),
                         ("Node", A.ADD | A.DELETE | A.UPDATE_NODE_LABEL | A.UPDATE_NODE_TAINT)}),
    (InterPodAffinity, {("Pod", A.ADD | A.UPDATE_POD_LABEL | A.DELETE), ("Node", A.ADD | A.UPDATE_NODE_LABEL)}),
    (SchedulingGates, {("Pod", A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)}),
    (DefaultPreemption, set()),
])
def test_built_ins_register_kube_scheduler_events(cls: type[Any], expected: set[tuple[str, int]]) -> None:
    """Each built-in registers v1.32's events (queueing hints on)."""
    assert registered(cls) == {(r, int(a)) for r, a in expected}


def hint(cls: type[Any], resource: EventResource, action: ActionType, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """The plugin's hint for an event it registered."""
    incoming = ClusterEvent(resource, action)
    (fn,) = [e.hint for e in plugin(cls).events_to_register() if e.event.matches(incoming)]
    return QueueingHint.QUEUE if fn is None else fn(pod, old, new)


POD = make_pod("p").req(cpu="2").obj()
ASSIGNED = make_pod("a").req(cpu="1").node("n1").obj()


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("bound pod deleted", ASSIGNED, None, Q),
    ("unscheduled pod deleted", make_pod("u").req(cpu="1").obj(), None, SKIP),
])
def test_node_resources_fit_pod_deleted(case: str, old: Pod, new: Pod | None, expected: QueueingHint) -> None:
    """NodeResourcesFit queues on the deletion of a bound pod only."""
    assert hint(NodeResourcesFit, EventResource.ASSIGNED_POD, A.DELETE, POD, old, new) is expected


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("node added with room", None, make_node("n").capacity(cpu="4").obj(), Q),
    ("node added too small", None, make_node("n").capacity(cpu="1").obj(), SKIP),
    ("allocatable grew to fit", make_node("n").capacity(cpu="1").obj(), make_node("n").capacity(cpu="4").obj(), Q),
    ("fits, but nothing it requests grew", make_node("n").capacity(cpu="4", memory="1Gi").obj(),
     make_node("n").capacity(cpu="4", memory="2Gi").obj(), SKIP),
    ("pod count grew", make_node("n").capacity(cpu="4", pods="1").obj(),
     make_node("n").capacity(cpu="4", pods="2").obj(), Q),
])
def test_node_resources_fit_node_changed(case: str, old: Node | None, new: Node, expected: QueueingHint) -> None:
    """NodeResourcesFit queues for a node the pod fits while empty, if added or if a requested resource grew."""
    assert hint(NodeResourcesFit, EventResource.NODE, A.ADD if old is None else A.UPDATE_NODE_ALLOCATABLE,
                POD, old, new) is expected


def test_node_resources_fit_hint_judges_each_node_event_afresh() -> None:
    """One plugin asked about successive node events answers for each node, not the first one it saw."""
    fn = plugin(NodeResourcesFit).hint_node_changed
    small, big = make_node("n").capacity(cpu="1").obj(), make_node("n").capacity(cpu="4").obj()
    assert [fn(POD, None, small), fn(POD, None, big), fn(POD, None, small)] == [SKIP, Q, SKIP]


ZONED = make_pod("p").node_selector(zone="a").obj()


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("added, matches", None, make_node("n").label(zone="a").obj(), Q),
    ("added, no match", None, make_node("n").label(zone="b").obj(), SKIP),
    ("label now matches", make_node("n").label(zone="b").obj(), make_node("n").label(zone="a").obj(), Q),
    ("matched before too", make_node("n").label(zone="a").obj(), make_node("n").label(zone="a", x="y").obj(), SKIP),
])
def test_node_affinity_node_changed(case: str, old: Node | None, new: Node, expected: QueueingHint) -> None:
    """NodeAffinity queues for a node that now matches and did not before."""
    assert hint(NodeAffinity, EventResource.NODE, A.ADD if old is None else A.UPDATE_NODE_LABEL,
                ZONED, old, new) is expected


@pytest.mark.parametrize(("case", "zone", "expected"), [("enforced zone", "a", Q), ("another zone", "b", SKIP)])
def test_node_affinity_hint_honours_added_affinity(case: str, zone: str, expected: QueueingHint) -> None:
    """NodeAffinity skips a node its profile's addedAffinity excludes, even when the pod itself would match it."""
    args = {"added-affinity": {"required-during-scheduling-ignored-during-execution": {
        "node-selector-terms": [{"match-expressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}
    fn = plugin_instance(NodeAffinity, args).hint_node_changed
    assert fn(make_pod("p").obj(), None, make_node("n").label(zone=zone).obj()) is expected


TAINTED = make_node("n").taint("gpu").obj()


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("added untainted", None, make_node("n").obj(), Q),
    ("added tainted", None, TAINTED, SKIP),
    ("taint removed", TAINTED, make_node("n").obj(), Q),
    ("still tainted", TAINTED, make_node("n").taint("gpu").taint("other").obj(), SKIP),
    ("PreferNoSchedule only", None, make_node("n").taint("soft", effect="PreferNoSchedule").obj(), Q),
])
def test_taint_toleration_node_changed(case: str, old: Node | None, new: Node, expected: QueueingHint) -> None:
    """TaintToleration queues when the node goes from untolerated to tolerated (a new node counts as untolerated)."""
    assert hint(TaintToleration, EventResource.NODE, A.ADD if old is None else A.UPDATE_NODE_TAINT,
                make_pod("p").obj(), old, new) is expected


@pytest.mark.parametrize(("cls", "changed", "expected"), [
    (TaintToleration, "p", Q), (TaintToleration, "other", SKIP),
    (NodeUnschedulable, "p", Q), (NodeUnschedulable, "other", SKIP),
])
def test_own_toleration_change(cls: type[Any], changed: str, expected: QueueingHint) -> None:
    """A new toleration on the rejected pod itself queues it (NodeUnschedulable: only if it tolerates cordons)."""
    pod = make_pod("p").obj()
    before = make_pod(changed).obj()
    after = make_pod(changed).toleration("node.kubernetes.io/unschedulable", operator="Exists").obj()
    assert hint(cls, EventResource.UNSCHEDULED_POD, A.UPDATE_POD_TOLERATIONS, pod, before, after) is expected


@pytest.mark.parametrize(("case", "new", "expected"), [
    ("the named node", make_node("n1").obj(), Q), ("another node", make_node("n2").obj(), SKIP)])
def test_node_name_node_added(case: str, new: Node, expected: QueueingHint) -> None:
    """NodeName queues only when the node the pod names is added."""
    named = make_pod("p").node("n1").obj()
    assert hint(NodeName, EventResource.NODE, A.ADD, named, None, new) is expected


PORTED = make_pod("p").host_port(8080).obj()


@pytest.mark.parametrize(("case", "old", "expected"), [
    ("bound pod held the port", make_pod("a").host_port(8080).node("n1").obj(), Q),
    ("bound pod held another port", make_pod("a").host_port(9090).node("n1").obj(), SKIP),
    ("bound pod held no port", make_pod("a").node("n1").obj(), SKIP),
    ("unscheduled pod", make_pod("a").host_port(8080).obj(), SKIP),
])
def test_node_ports_pod_deleted(case: str, old: Pod, expected: QueueingHint) -> None:
    """NodePorts queues when a bound pod holding a clashing host port is deleted."""
    assert hint(NodePorts, EventResource.ASSIGNED_POD, A.DELETE, PORTED, old, None) is expected


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("schedulable node added", None, make_node("n").obj(), Q),
    ("cordoned node added", None, make_node("n").unschedulable().obj(), SKIP),
    ("uncordoned", make_node("n").unschedulable().obj(), make_node("n").obj(), Q),
    ("tainted, never cordoned", make_node("n").obj(), make_node("n").taint("x").obj(), SKIP),
])
def test_node_unschedulable_node_changed(case: str, old: Node | None, new: Node, expected: QueueingHint) -> None:
    """NodeUnschedulable queues for a schedulable node added or a node uncordoned."""
    assert hint(NodeUnschedulable, EventResource.NODE, A.ADD if old is None else A.UPDATE_NODE_TAINT,
                make_pod("p").obj(), old, new) is expected


SPREAD = make_pod("p").label(app="web").spread(1, "zone", app="web").obj()


@pytest.mark.parametrize(("case", "action", "old", "new", "expected"), [
    ("matching pod added", A.ADD, None, make_pod("a").label(app="web").node("n1").obj(), Q),
    ("other pod added", A.ADD, None, make_pod("a").label(app="db").node("n1").obj(), SKIP),
    ("other namespace", A.ADD, None, make_pod("a", "x").label(app="web").node("n1").obj(), SKIP),
    ("unscheduled pod", A.ADD, None, make_pod("a").label(app="web").obj(), SKIP),
    ("matching pod deleted", A.DELETE, make_pod("a").label(app="web").node("n1").obj(), None, Q),
    ("relabelled into the selector", A.UPDATE_POD_LABEL, make_pod("a").label(app="db").node("n1").obj(),
     make_pod("a").label(app="web").node("n1").obj(), Q),
    ("relabelled, selector unaffected", A.UPDATE_POD_LABEL, make_pod("a").label(app="db").node("n1").obj(),
     make_pod("a").label(app="db", v="2").node("n1").obj(), SKIP),
])
def test_pod_topology_spread_pod_changed(case: str, action: ActionType, old: Pod | None, new: Pod | None,
                                         expected: QueueingHint) -> None:
    """PodTopologySpread queues for assigned pods of the namespace entering or leaving a constraint's selector."""
    assert hint(PodTopologySpread, EventResource.ASSIGNED_POD, action, SPREAD, old, new) is expected


@pytest.mark.parametrize(("case", "old", "new", "expected"), [
    ("added with the key", None, make_node("n").label(zone="a").obj(), Q),
    ("added without it", None, make_node("n").obj(), SKIP),
    ("deleted with the key", make_node("n").label(zone="a").obj(), None, Q),
    ("deleted without it", make_node("n").obj(), None, SKIP),
])
def test_pod_topology_spread_node_added_or_deleted(case: str, old: Node | None, new: Node | None,
                                                   expected: QueueingHint) -> None:
    """PodTopologySpread queues for a node added or deleted that carries every topology key."""
    action = A.ADD if old is None else A.DELETE
    assert hint(PodTopologySpread, EventResource.NODE, action, SPREAD, old, new) is expected


# The first two as kube-scheduler v1.32 does them (its queue logged "Event is not making pod schedulable" for the
# first, "the node is updated and now pod topology spread constraints has changed" for the second).
@pytest.mark.parametrize(("case", "action", "old", "new", "expected"), [
    ("unrelated label removed", A.UPDATE_NODE_LABEL, make_node("n").label(zone="a", extra="1").obj(),
     make_node("n").label(zone="a").obj(), SKIP),
    ("topology key removed", A.UPDATE_NODE_LABEL, make_node("n").label(zone="a").obj(), make_node("n").obj(), Q),
    ("topology key added", A.UPDATE_NODE_LABEL, make_node("n").obj(), make_node("n").label(zone="a").obj(), Q),
    ("topology value changed", A.UPDATE_NODE_LABEL, make_node("n").label(zone="a").obj(),
     make_node("n").label(zone="b").obj(), Q),
    ("unrelated label added, key missing", A.UPDATE_NODE_LABEL, make_node("n").obj(),
     make_node("n").label(extra="1").obj(), SKIP),
    ("tainted, key kept", A.UPDATE_NODE_TAINT, make_node("n").label(zone="a").obj(),
     make_node("n").label(zone="a").taint("x").obj(), Q),
    ("tainted, key missing", A.UPDATE_NODE_TAINT, make_node("n").obj(), make_node("n").taint("x").obj(), SKIP),
])
def test_pod_topology_spread_node_updated(case: str, action: ActionType, old: Node, new: Node,
                                          expected: QueueingHint) -> None:
    """A node update queues when the node gains or loses a topology key, or keeps them all and changes a
    topology value or its taints."""
    assert hint(PodTopologySpread, EventResource.NODE, action, SPREAD, old, new) is expected


AFFINE = make_pod("p").pod_affinity("zone", app="db").obj()
ANTI = make_pod("p").pod_affinity("zone", anti=True, app="db").obj()
PLAIN = make_pod("p").label(app="web").obj()


@pytest.mark.parametrize(("case", "pod", "action", "old", "new", "expected"), [
    ("affinity target added", AFFINE, A.ADD, None, make_pod("a").label(app="db").node("n1").obj(), Q),
    ("unrelated pod added", AFFINE, A.ADD, None, make_pod("a").label(app="x").node("n1").obj(), SKIP),
    ("anti-affinity target deleted", ANTI, A.DELETE, make_pod("a").label(app="db").node("n1").obj(), None, Q),
    ("victim with its own anti-affinity deleted", PLAIN, A.DELETE,
     make_pod("v").pod_affinity("zone", anti=True, app="web").node("n1").obj(), None, SKIP),
    ("relabelled out of anti-affinity", ANTI, A.UPDATE_POD_LABEL, make_pod("a").label(app="db").node("n1").obj(),
     make_pod("a").label(app="x").node("n1").obj(), Q),
    ("unscheduled pod", AFFINE, A.ADD, None, make_pod("a").label(app="db").obj(), SKIP),
])
def test_inter_pod_affinity_pod_changed(case: str, pod: Pod, action: ActionType, old: Pod | None, new: Pod | None,
                                        expected: QueueingHint) -> None:
    """InterPodAffinity queues only for the rejected pod's OWN terms: a target added or an anti-target gone."""
    assert hint(InterPodAffinity, EventResource.ASSIGNED_POD, action, pod, old, new) is expected


@pytest.mark.parametrize(("case", "pod", "old", "new", "expected"), [
    ("node with the affinity key added", AFFINE, None, make_node("n").label(zone="a").obj(), Q),
    ("node without it added", AFFINE, None, make_node("n").obj(), SKIP),
    ("any node added, anti-affinity", ANTI, None, make_node("n").obj(), Q),
    ("any node added, no affinity", PLAIN, None, make_node("n").label(zone="a").obj(), SKIP),
    ("anti-affinity key removed", ANTI, make_node("n").label(zone="a").obj(), make_node("n").obj(), Q),
    ("affinity key value changed", AFFINE, make_node("n").label(zone="a").obj(),
     make_node("n").label(zone="b").obj(), Q),
])
def test_inter_pod_affinity_node_changed(case: str, pod: Pod, old: Node | None, new: Node,
                                         expected: QueueingHint) -> None:
    """InterPodAffinity queues for nodes gaining an affinity topology key or losing an anti-affinity one."""
    action = A.ADD if old is None else A.UPDATE_NODE_LABEL
    assert hint(InterPodAffinity, EventResource.NODE, action, pod, old, new) is expected


@pytest.mark.parametrize(("changed", "expected"), [("p", Q), ("other", SKIP)])
def test_scheduling_gates_eliminated(changed: str, expected: QueueingHint) -> None:
    """SchedulingGates queues the gated pod when its own last gate is removed."""
    pod = make_pod("p").scheduling_gates("g").obj()
    assert hint(SchedulingGates, EventResource.UNSCHEDULED_POD, A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, pod,
                make_pod(changed).scheduling_gates("g").obj(), make_pod(changed).obj()) is expected

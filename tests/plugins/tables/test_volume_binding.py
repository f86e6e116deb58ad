"""kube-scheduler v1.32's VolumeBinding tables (pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go:
TestVolumeBinding's PreFilter and Filter statuses; binder_test.go: TestFindPodVolumesWithoutProvisioning,
TestFindPodVolumesWithProvisioning and TestCapacity through PreFilter and Filter; the queueing hints' tables
Test_isSchedulableAfter*Change), case by case with kube's names, written with the public testing kit only.

Not translated:
- TestVolumeBinding's scores: VolumeBinding scores only behind the VolumeCapacityPriority gate, off in v1.32.
- TestFindPodVolumesWithCSIMigration: kubesched checks an in-tree PV's node affinity as written (no CSI
  translation of its topology labels).
- The binder's cache tests (TestAssumePodVolumes, TestRevertAssumedPodVolumes, TestBindAPIUpdate, TestCheckBindings,
  TestBindPodVolumes): tests/plugins/test_volume_binding_cycle.py covers Reserve, Unreserve and PreBind.
- Hint cases passing objects of the wrong type: kubesched's hints get typed objects.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import NO_PROVISIONER, SELECTED_NODE_ANNOTATION, Volume
from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, QueueingHint, Status
from kubesched.testing import (
    hint,
    like,
    make_capacity,
    make_csi_driver,
    make_csi_node,
    make_node,
    make_node_term,
    make_pod,
    make_pv,
    make_pvc,
    make_selector,
    make_storage_class,
    plugin_framework,
)

NAME = "VolumeBinding"
SKIP = like(Status.skip())
FITS = like(None)
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
NODE_CONFLICT = "node(s) had volume node affinity conflict"
NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
PROVISIONER = "test-provisioner"


def rejected(*reasons: str) -> Any:
    """Filter's rejection: UnschedulableAndUnresolvable with these reasons in kube's order."""
    return like(Status.unresolvable(*reasons))


# volume_binding_test.go's classes: Immediate, and two WaitForFirstConsumer ones that cannot provision.
CLASSES = [make_storage_class("immediate-sc", NO_PROVISIONER),
           make_storage_class("wait-sc", NO_PROVISIONER).wait_for_first_consumer(),
           make_storage_class("wait-hdd-sc", NO_PROVISIONER).wait_for_first_consumer()]


def pod_with(*claims: str) -> Any:
    """kube's makePod("pod-a").withPVCVolume(...) for each claim."""
    pod = make_pod("pod-a")
    for claim in claims:
        pod.pvc(claim)
    return pod


def wait_pv(name: str, size: str, cls: str = "wait-sc", affinity: dict[str, list[str]] | None = None) -> Any:
    """An Available PV of a WaitForFirstConsumer class, with a node affinity term for each key and its values."""
    pv = make_pv(name).storage_class(cls).capacity(size)
    for key, values in (affinity or {}).items():
        pv.node_affinity_in(key, *values)
    return pv


def zonal_node(name: str, zone: str) -> Any:
    return make_node(name).labels({REGION: f"region-{zone}", ZONE: f"zone-{zone}"}).obj()


def zonal_pv(name: str, size: str, zone: str) -> Any:
    """A PV of wait-sc whose one node affinity term requires the zone's region and the zone."""
    term = make_node_term().expression(REGION, "In", f"region-{zone}").expression(ZONE, "In", f"zone-{zone}")
    return make_pv(name).storage_class("wait-sc").capacity(size).node_affinity_term(term)


VOLUME_BINDING_CASES = [
    pytest.param(make_pod("pod-a"), [make_node("node-a").obj()], [], [], SKIP, [], id="pod has not pvcs"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()], [make_pvc("pvc-a").storage_class("wait-sc")
                 .bound("pv-a")], [make_pv("pv-a").storage_class("wait-sc")], FITS, [FITS], id="all bound"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()], [], [],
                 like(Status.unresolvable('persistentvolumeclaim "pvc-a" not found')), [], id="PVC does not exist"),
    pytest.param(pod_with("pvc-a", "pvc-b"), [make_node("node-a").obj()],
                 [make_pvc("pvc-a").storage_class("wait-sc").bound("pv-a")], [],
                 like(Status.unresolvable('persistentvolumeclaim "pvc-b" not found')), [],
                 id="Part of PVCs do not exist"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()], [make_pvc("pvc-a").storage_class("immediate-sc")],
                 [], like(Status.unresolvable(UNBOUND_IMMEDIATE)), [], id="immediate claims not bound"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()], [make_pvc("pvc-a").storage_class("wait-sc")], [],
                 FITS, [rejected(BIND_CONFLICT)], id="unbound claims no matches"),
    pytest.param(pod_with("pvc-a", "pvc-b"), [make_node("node-a").label(foo="barbar").obj()],
                 [make_pvc("pvc-a").storage_class("wait-sc").bound("pv-a"), make_pvc("pvc-b").storage_class("wait-sc")],
                 [wait_pv("pv-a", "1Gi", affinity={"foo": ["bar"]})], FITS, [rejected(NODE_CONFLICT, BIND_CONFLICT)],
                 id="bound and unbound unsatisfied"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()], [], [],
                 like(Status.unresolvable('persistentvolumeclaim "pvc-a" not found')), [], id="pvc not found"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()],
                 [make_pvc("pvc-a").storage_class("wait-sc").bound("pv-a")], [], FITS, [rejected(PV_NOT_EXIST)],
                 id="pv not found"),
    pytest.param(pod_with("pvc-a"), [make_node("node-a").obj()],
                 [make_pvc("pvc-a").storage_class("wait-sc").bound("pv-a").phase("Lost")], [],
                 like(Status.unresolvable('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume '
                                          '"pv-a"')), [], id="pv not found claim lost"),
    pytest.param(pod_with("pvc-a"), [make_node(n).obj() for n in ("node-a", "node-b", "node-c")],
                 [make_pvc("pvc-a").storage_class("wait-sc").request("50Gi")],
                 [wait_pv(f"pv-{n}-{i}", size, affinity={HOSTNAME: [f"node-{n}"]})
                  for n, size in (("a", "200Gi"), ("b", "100Gi")) for i in range(2)],
                 FITS, [FITS, FITS, rejected(BIND_CONFLICT)], id="local volumes with close capacity are preferred"),
    pytest.param(pod_with("pvc-0", "pvc-1"), [make_node(n).obj() for n in ("node-a", "node-b", "node-c")],
                 [make_pvc("pvc-0").storage_class("wait-sc").request("50Gi"),
                  make_pvc("pvc-1").storage_class("wait-hdd-sc").request("100Gi")],
                 [wait_pv(f"pv-{n}-{i}", size, cls, affinity={HOSTNAME: [f"node-{n}"]})
                  for n, size in (("a", "200Gi"), ("b", "100Gi"))
                  for i, cls in enumerate(("wait-sc", "wait-sc", "wait-hdd-sc", "wait-hdd-sc"))],
                 FITS, [FITS, FITS, rejected(BIND_CONFLICT)],
                 id="local volumes with close capacity are preferred (multiple pvcs)"),
    pytest.param(pod_with("pvc-a"), [zonal_node(f"zone-{z}-node-{n}", z) for z in "abc" for n in "ab"],
                 [make_pvc("pvc-a").storage_class("wait-sc").request("50Gi")],
                 [zonal_pv(f"pv-{z}-{i}", size, z) for z, size in (("a", "200Gi"), ("b", "100Gi")) for i in range(2)],
                 FITS, [FITS, FITS, FITS, FITS, rejected(BIND_CONFLICT), rejected(BIND_CONFLICT)],
                 id="zonal volumes with close capacity are preferred"),
]


def framework_over(nodes: list[Any], storage: list[Any], path: Any = "per-node") -> Any:
    """A framework of VolumeBinding over ``nodes`` with kube's test classes and ``storage``."""
    return plugin_framework(NAME, path=path, nodes=nodes, storage=[*CLASSES, *storage])


def hook(framework: Any, name: str) -> Any:
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


@pytest.mark.parametrize(("pod", "nodes", "pvcs", "pvs", "pre_filter", "filters"), VOLUME_BINDING_CASES)
def test_volume_binding(pod: Any, nodes: list[Any], pvcs: list[Any], pvs: list[Any], pre_filter: Any,
                        filters: list[Any]) -> None:
    """TestVolumeBinding: PreFilter's status, then Filter's status on each node in order."""
    framework = framework_over(nodes, [*pvcs, *pvs])
    state = CycleState()
    assert hook(framework, "pre_filter")(state, pod.obj()) == pre_filter
    if pre_filter == FITS:
        assert [hook(framework, "filter")(state, pod.obj(), info) for info in framework.handle.snapshot.list()] \
            == filters


@pytest.mark.parametrize("path", ["per-node", "batch"])
@pytest.mark.parametrize(("pod", "nodes", "pvcs", "pvs", "pre_filter", "filters"), VOLUME_BINDING_CASES)
def test_node_search(path: Any, pod: Any, nodes: list[Any], pvcs: list[Any], pvs: list[Any], pre_filter: Any,
                     filters: list[Any]) -> None:
    """The scheduler's search gives each node Filter's status (success when PreFilter skipped), on both paths."""
    if pre_filter not in (FITS, SKIP):
        return
    framework = framework_over(nodes, [*pvcs, *pvs], path)
    want = filters if pre_filter == FITS else [FITS] * len(nodes)
    assert framework.run_filter(pod) == {node.name: status for node, status in zip(nodes, want, strict=True)}


# -- binder_test.go: FindPodVolumes on node1 (label nodeKey=node1) -----------------------------------------------
NODE_KEY = "nodeKey"
NODE1 = make_node("node1").label(nodeKey="node1").obj()
# binder_test.go's classes: waitClass cannot provision; waitClassWithProvisioner and topoMismatchClass can, in
# nodeKey topologies node1 (and reference-value) and reference-value only.
BINDER_CLASSES = [
    make_storage_class("waitClass", NO_PROVISIONER).wait_for_first_consumer(),
    make_storage_class("immediateClass", NO_PROVISIONER),
    make_storage_class("waitClassWithProvisioner", PROVISIONER).wait_for_first_consumer()
    .allowed_topology({NODE_KEY: ("node1", "reference-value")}),
    make_storage_class("topoMismatchClass", PROVISIONER).wait_for_first_consumer()
    .allowed_topology({NODE_KEY: ("reference-value",)}),
]


def kube_pvc(name: str, size: str, cls: str, *, bound_to: str = "", prebound_to: str = "",
             selected_node: str = "") -> Any:
    """binder_test.go's makeTestPVC in namespace testns."""
    claim = make_pvc(name, "testns").request(size).storage_class(cls)
    if bound_to:
        claim.bound(bound_to)
    if prebound_to:
        claim.prebound(prebound_to)
    if selected_node:
        claim.annotations({SELECTED_NODE_ANNOTATION: selected_node})
    return claim


def kube_pv(name: str, node: str, size: str, cls: str, bound_to: Any = None) -> Any:
    """binder_test.go's makeTestPV: node affinity nodeKey In [node], bound to a claim when given."""
    pv = make_pv(name).capacity(size).storage_class(cls).node_affinity_in(NODE_KEY, node)
    if bound_to is not None:
        claim = bound_to.obj()
        pv.bound_to(claim.namespace, claim.name, claim.metadata.uid)
    return pv


UNBOUND = kube_pvc("unbound-pvc", "1G", "waitClass")
UNBOUND2 = kube_pvc("unbound-pvc2", "5G", "waitClass")
PREBOUND = kube_pvc("prebound-pvc", "1G", "waitClass", prebound_to="pv-node1a")
BOUND = kube_pvc("bound-pvc", "1G", "waitClass", bound_to="pv-bound")
IMMEDIATE_UNBOUND = kube_pvc("immediate-unbound-pvc", "1G", "immediateClass")
IMMEDIATE_BOUND = kube_pvc("immediate-bound-pvc", "1G", "immediateClass", bound_to="pv-bound-immediate")
PROVISIONED = kube_pvc("provisioned-pvc", "1Gi", "waitClassWithProvisioner")
NO_PROVISIONER_PVC = kube_pvc("no-provisioner-pvc", "1Gi", "waitClass")
TOPO_MISMATCH = kube_pvc("topo-mismatch-pvc", "1Gi", "topoMismatchClass")
SELECTED = kube_pvc("provisioned-pvc", "1Gi", "waitClassWithProvisioner", selected_node="node1")

PV_NODE1A = kube_pv("pv-node1a", "node1", "5G", "waitClass")
PV_NODE1B = kube_pv("pv-node1b", "node1", "10G", "waitClass")
PV_NODE2 = kube_pv("pv-node2", "node2", "1G", "waitClass")
PV_BOUND = kube_pv("pv-bound", "node1", "1G", "waitClass", BOUND)
PV_NODE1A_BOUND = kube_pv("pv-node1a", "node1", "5G", "waitClass", UNBOUND)
PV_BOUND_IMMEDIATE = kube_pv("pv-bound-immediate", "node1", "1G", "immediateClass", IMMEDIATE_BOUND)
PV_BOUND_IMMEDIATE_NODE2 = kube_pv("pv-bound-immediate", "node2", "1G", "immediateClass", IMMEDIATE_BOUND)

# (the pod's claims, the PVs, PreFilter's status, Filter's status on node1: None when PreFilter rejects)
FIND_CASES = [
    pytest.param([BOUND], [PV_BOUND], FITS, FITS, id="bound-pvc"),
    pytest.param([BOUND], [], FITS, rejected(PV_NOT_EXIST), id="bound-pvc,pv-not-exists"),
    pytest.param([PREBOUND], [PV_NODE1A_BOUND], like(Status.unresolvable(UNBOUND_IMMEDIATE)), None,
                 id="prebound-pvc"),
    pytest.param([UNBOUND], [PV_NODE2, PV_NODE1A, PV_NODE1B], FITS, FITS, id="unbound-pvc,pv-same-node"),
    pytest.param([UNBOUND], [PV_NODE2], FITS, rejected(BIND_CONFLICT), id="unbound-pvc,pv-different-node"),
    pytest.param([UNBOUND, UNBOUND2], [PV_NODE1A, PV_NODE1B], FITS, FITS, id="two-unbound-pvcs"),
    pytest.param([UNBOUND2, UNBOUND], [PV_NODE1A, PV_NODE1B], FITS, FITS, id="two-unbound-pvcs,order-by-size"),
    pytest.param([UNBOUND, UNBOUND2], [PV_NODE1A], FITS, rejected(BIND_CONFLICT), id="two-unbound-pvcs,partial-match"),
    pytest.param([UNBOUND, BOUND], [PV_BOUND, PV_NODE1A], FITS, FITS, id="one-bound,one-unbound"),
    pytest.param([UNBOUND, BOUND], [PV_BOUND, PV_NODE2], FITS, rejected(BIND_CONFLICT),
                 id="one-bound,one-unbound,no-match"),
    pytest.param([UNBOUND, PREBOUND], [PV_NODE1A, PV_NODE1B], like(Status.unresolvable(UNBOUND_IMMEDIATE)), None,
                 id="one-prebound,one-unbound"),
    pytest.param([IMMEDIATE_BOUND], [PV_BOUND_IMMEDIATE], FITS, FITS, id="immediate-bound-pvc"),
    pytest.param([IMMEDIATE_BOUND], [PV_BOUND_IMMEDIATE_NODE2], FITS, rejected(NODE_CONFLICT),
                 id="immediate-bound-pvc-wrong-node"),
    pytest.param([IMMEDIATE_UNBOUND], [], like(Status.unresolvable(UNBOUND_IMMEDIATE)), None,
                 id="immediate-unbound-pvc"),
    pytest.param([IMMEDIATE_UNBOUND, BOUND], [PV_BOUND], like(Status.unresolvable(UNBOUND_IMMEDIATE)), None,
                 id="immediate-unbound-pvc,delayed-mode-bound"),
    pytest.param([IMMEDIATE_UNBOUND, UNBOUND], [], like(Status.unresolvable(UNBOUND_IMMEDIATE)), None,
                 id="immediate-unbound-pvc,delayed-mode-unbound"),
    # TestFindPodVolumesWithProvisioning
    pytest.param([PROVISIONED], [], FITS, FITS, id="one-provisioned"),
    pytest.param([UNBOUND, PROVISIONED], [PV_NODE1A], FITS, FITS, id="two-unbound-pvcs,one-matched,one-provisioned"),
    pytest.param([BOUND, PROVISIONED], [PV_BOUND], FITS, FITS, id="one-bound,one-provisioned"),
    pytest.param([BOUND, SELECTED], [PV_BOUND], FITS, FITS, id="one-binding,one-selected-node"),
    pytest.param([IMMEDIATE_BOUND, PROVISIONED], [PV_BOUND_IMMEDIATE], FITS, FITS,
                 id="one-immediate-bound,one-provisioned"),
    pytest.param([NO_PROVISIONER_PVC], [], FITS, rejected(BIND_CONFLICT), id="invalid-provisioner"),
    pytest.param([TOPO_MISMATCH], [], FITS, rejected(BIND_CONFLICT), id="volume-topology-unsatisfied"),
    # Not kube cases: a claim whose selected node is another node fails fast; one given up by the provisioner
    # (no selected node) may go anywhere its class allows.
    pytest.param([kube_pvc("elsewhere", "1Gi", "waitClassWithProvisioner", selected_node="node2")], [], FITS,
                 rejected(BIND_CONFLICT), id="selected-node-is-another-node"),
]


def claims_pod(claims: list[Any]) -> Any:
    pod = make_pod("test-pod", "testns")
    for claim in claims:
        pod.pvc(claim.obj().name)
    return pod


@pytest.mark.parametrize(("claims", "pvs", "pre_filter", "want"), FIND_CASES)
def test_find_pod_volumes(claims: list[Any], pvs: list[Any], pre_filter: Any, want: Any) -> None:
    """FindPodVolumes' reasons on node1 (through PreFilter, which fails the pods kube's scenarios expect to fail)."""
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[*BINDER_CLASSES, *claims, *pvs])
    state = CycleState()
    pod = claims_pod(claims).obj()
    assert hook(framework, "pre_filter")(state, pod) == pre_filter
    if want is not None:
        (node_info,) = framework.handle.snapshot.list()
        assert hook(framework, "filter")(state, pod, node_info) == want


# -- binder_test.go TestCapacity: a CSI driver with capacity tracking needs a CSIStorageCapacity with room --------
CAPACITY_CLASS = make_storage_class("waitClassWithProvisioner", PROVISIONER).wait_for_first_consumer()


def room(size: str | None, *, cls: str = "waitClassWithProvisioner", topology: str | None = "node1",
         maximum: str | None = None) -> Any:
    """A CSIStorageCapacity of ``cls`` whose topology selects nodeKey=``topology`` (None: it has no topology)."""
    selector = None if topology is None else make_selector().labels({NODE_KEY: topology})
    return make_capacity("capacity", cls, size, namespace="testns", topology=selector, maximum_volume_size=maximum)


@pytest.mark.parametrize(("capacities", "want"), [
    pytest.param([], rejected(NOT_ENOUGH_SPACE), id="no capacity objects"),
    pytest.param([room("1Gi")], FITS, id="network-attached"),
    pytest.param([room("100Gi")], FITS, id="enough storage"),
    pytest.param([room("1Mi")], rejected(NOT_ENOUGH_SPACE), id="insufficient storage"),
    pytest.param([room("100Gi", maximum="1Mi")], rejected(NOT_ENOUGH_SPACE), id="insufficient volume size"),
    pytest.param([room("1Mi", maximum="1Gi")], FITS, id="volume size wins over capacity"),
    pytest.param([room("0")], rejected(NOT_ENOUGH_SPACE), id="zero storage"),
    pytest.param([room(None)], rejected(NOT_ENOUGH_SPACE), id="nil storage"),
    pytest.param([room("1Gi", cls="other")], rejected(NOT_ENOUGH_SPACE), id="wrong storage class"),
    pytest.param([room("1Gi", topology="node2")], rejected(NOT_ENOUGH_SPACE), id="wrong topology"),
    pytest.param([room("1Gi", topology=None)], rejected(NOT_ENOUGH_SPACE), id="nil topology"),
])
def test_capacity(capacities: list[Any], want: Any) -> None:
    """A 1Gi claim to provision on node1 with a driver that tracks capacity."""
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[
        CAPACITY_CLASS, make_csi_driver(PROVISIONER, storage_capacity=True), PROVISIONED, *capacities])
    state = CycleState()
    pod = claims_pod([PROVISIONED]).obj()
    assert hook(framework, "pre_filter")(state, pod) is None
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "filter")(state, pod, node_info) == want


@pytest.mark.parametrize("driver", [
    pytest.param(None, id="no CSIDriver"),
    pytest.param(make_csi_driver(PROVISIONER, storage_capacity=False), id="CSIDriver without capacity tracking"),
])
def test_capacity_is_checked_only_for_drivers_that_track_it(driver: Any) -> None:
    """Without a CSIDriver asking for capacity checks, no CSIStorageCapacity is needed."""
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[
        CAPACITY_CLASS, PROVISIONED, *([driver] if driver is not None else [])])
    state = CycleState()
    pod = claims_pod([PROVISIONED]).obj()
    assert hook(framework, "pre_filter")(state, pod) is None
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "filter")(state, pod, node_info) == FITS


# -- generic ephemeral volumes and claims that cannot be used -----------------------------------------------------
EPHEMERAL_POD = make_pod("test-pod", "testns").ephemeral("test-volume")


@pytest.mark.parametrize(("claims", "want"), [
    pytest.param([], 'waiting for ephemeral volume controller to create the persistentvolumeclaim '
                     '"test-pod-test-volume"', id="generic-ephemeral,no-pvc"),
    pytest.param([make_pvc("test-pod-test-volume", "testns").storage_class("waitClass").bound("pv-bound")],
                 "PVC testns/test-pod-test-volume was not created for pod testns/test-pod (pod is not owner)",
                 id="generic-ephemeral,wrong-pvc"),
    pytest.param([make_pvc("test-pod-test-volume", "testns").storage_class("waitClass").bound("pv-bound")
                  .owned_by(EPHEMERAL_POD.obj()).deleting()],
                 'persistentvolumeclaim "test-pod-test-volume" is being deleted', id="generic-ephemeral,deleting"),
])
def test_unusable_ephemeral_claim(claims: list[Any], want: str) -> None:
    """PreFilter rejects a pod whose ephemeral volume's claim is missing, not its own, or being deleted."""
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[*BINDER_CLASSES, *claims])
    assert hook(framework, "pre_filter")(CycleState(), EPHEMERAL_POD.obj()) == like(Status.unresolvable(want))


def test_owned_ephemeral_claim_is_used() -> None:
    """generic-ephemeral,with-pvc: the pod's own bound claim fits node1."""
    claim = make_pvc("test-pod-test-volume", "testns").storage_class("waitClass").bound("pv-bound") \
        .owned_by(EPHEMERAL_POD.obj())
    pv = make_pv("pv-bound").capacity("1G").storage_class("waitClass").node_affinity_in(NODE_KEY, "node1") \
        .bound_to("testns", "test-pod-test-volume")
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[*BINDER_CLASSES, claim, pv])
    state = CycleState()
    assert hook(framework, "pre_filter")(state, EPHEMERAL_POD.obj()) is None
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "filter")(state, EPHEMERAL_POD.obj(), node_info) == FITS


def test_pvc_being_deleted() -> None:
    """A claim with a deletionTimestamp cannot be used."""
    framework = plugin_framework(NAME, nodes=[NODE1], storage=[*BINDER_CLASSES, BOUND.deleting(), PV_BOUND])
    assert hook(framework, "pre_filter")(CycleState(), claims_pod([BOUND]).obj()) == like(
        Status.unresolvable('persistentvolumeclaim "bound-pvc" is being deleted'))


# -- the queueing hints (volume_binding_test.go Test_isSchedulableAfter*Change) ---------------------------------
def event(resource: EventResource, old: Any, new: Any) -> ClusterEvent:
    """The Add (no ``old``) or Update event of a storage object."""
    return ClusterEvent(resource, ActionType.ADD if old is None else ActionType.UPDATE)


def built(value: Any) -> Any:
    return value.obj() if hasattr(value, "obj") else value


POD_WITH_CLAIMS = make_pod("pod-a").pvc("pvc1").ephemeral("ephemeral")


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, make_pvc("pvc1"), QueueingHint.QUEUE, id="queue-on-add-pvc"),
    pytest.param(make_pvc("pvc1"), make_pvc("pvc1").bound("pv1"), QueueingHint.QUEUE, id="queue-on-update-pvc"),
    pytest.param(None, make_pvc("pod-a-ephemeral"), QueueingHint.QUEUE, id="queue-on-add-generic-ephemeral-pvc"),
    pytest.param(None, make_pvc("pvc1", "other"), QueueingHint.QUEUE_SKIP, id="skip-queue-pvc-other-namespace"),
    pytest.param(None, make_pvc("unrelated"), QueueingHint.QUEUE_SKIP, id="skip-queue-unrelated-pvc"),
])
def test_is_schedulable_after_persistent_volume_claim_change(old: Any, new: Any, want: QueueingHint) -> None:
    """A claim the pod uses (by name, in its namespace) was added or changed."""
    ev = event(EventResource.PERSISTENT_VOLUME_CLAIM, old, new)
    assert hint(NAME, POD_WITH_CLAIMS, ev, None if old is None else built(old), built(new)) is want


SC = make_storage_class("sc-a").wait_for_first_consumer()


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, SC, QueueingHint.QUEUE, id="queue-new-object-storage-class"),
    pytest.param(SC, make_storage_class("sc-a").wait_for_first_consumer().allowed_topology({ZONE: ("a",)}),
                 QueueingHint.QUEUE, id="queue-on-allowedTopologies-change"),
    pytest.param(SC, make_storage_class("sc-a").wait_for_first_consumer().label(team="x"), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-other-update"),
])
def test_is_schedulable_after_storage_class_change(old: Any, new: Any, want: QueueingHint) -> None:
    """A new class, or a change of its allowedTopologies."""
    ev = event(EventResource.STORAGE_CLASS, old, new)
    assert hint(NAME, POD_WITH_CLAIMS, ev, None if old is None else built(old), built(new)) is want


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, make_csi_node("node-a"), QueueingHint.QUEUE, id="queue-on-add"),
    pytest.param(make_csi_node("node-a").migrated("kubernetes.io/gce-pd"), make_csi_node("node-a"), QueueingHint.QUEUE,
                 id="queue-on-migrated-plugins-annotation-change"),
    pytest.param(make_csi_node("node-a"), make_csi_node("node-a").driver("csi.example.com", 10),
                 QueueingHint.QUEUE_SKIP, id="skip-queue-on-other-change"),
])
def test_is_schedulable_after_csi_node_change(old: Any, new: Any, want: QueueingHint) -> None:
    """A new CSINode, or a change of the plugins its drivers took over."""
    ev = event(EventResource.CSI_NODE, old, new)
    assert hint(NAME, POD_WITH_CLAIMS, ev, None if old is None else built(old), built(new)) is want


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, make_capacity("cap", "sc-a", "10Gi"), QueueingHint.QUEUE, id="queue-on-add"),
    pytest.param(make_capacity("cap", "sc-a", "10Gi"), make_capacity("cap", "sc-a", "20Gi"), QueueingHint.QUEUE,
                 id="queue-on-capacity-increase"),
    pytest.param(make_capacity("cap", "sc-a", "20Gi"), make_capacity("cap", "sc-a", "10Gi"), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-capacity-decrease"),
    pytest.param(make_capacity("cap", "sc-a", None), make_capacity("cap", "sc-a", "1Gi"), QueueingHint.QUEUE,
                 id="queue-on-capacity-set"),
    pytest.param(make_capacity("cap", "sc-a", "20Gi", maximum_volume_size="1Gi"),
                 make_capacity("cap", "sc-a", "20Gi", maximum_volume_size="2Gi"), QueueingHint.QUEUE,
                 id="queue-on-maximum-volume-size-increase"),
    pytest.param(make_capacity("cap", "sc-a", "10Gi", maximum_volume_size="1Gi"),
                 make_capacity("cap", "sc-a", "20Gi", maximum_volume_size="1Gi"), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-capacity-increase-under-maximum-volume-size"),
])
def test_is_schedulable_after_csi_storage_capacity_change(old: Any, new: Any, want: QueueingHint) -> None:
    """A new CSIStorageCapacity, or one whose volume limit (maximumVolumeSize, else capacity) grew."""
    assert hint(NAME, POD_WITH_CLAIMS, event(EventResource.CSI_STORAGE_CAPACITY, old, new), old, new) is want


CSI_POD = make_pod("pod-a").volume(Volume(name="inline", source="csi", driver="csi.example.com"))


@pytest.mark.parametrize(("pod", "old", "new", "want"), [
    pytest.param(CSI_POD, make_csi_driver("csi.example.com", storage_capacity=True),
                 make_csi_driver("csi.example.com", storage_capacity=False), QueueingHint.QUEUE,
                 id="queue-on-storage-capacity-disabled"),
    pytest.param(CSI_POD, make_csi_driver("csi.example.com", storage_capacity=False),
                 make_csi_driver("csi.example.com", storage_capacity=True), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-storage-capacity-enabled"),
    pytest.param(CSI_POD, make_csi_driver("other.example.com", storage_capacity=True),
                 make_csi_driver("other.example.com", storage_capacity=False), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-other-driver"),
    pytest.param(POD_WITH_CLAIMS, make_csi_driver("csi.example.com", storage_capacity=True),
                 make_csi_driver("csi.example.com", storage_capacity=False), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-pod-without-inline-csi-volume"),
])
def test_is_schedulable_after_csi_driver_change(pod: Any, old: Any, new: Any, want: QueueingHint) -> None:
    """A CSIDriver of one of the pod's inline CSI volumes stopped asking for capacity checks."""
    assert hint(NAME, pod, ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE), old, new) is want


@pytest.mark.parametrize(("event_", "want"), [
    pytest.param(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD), QueueingHint.QUEUE, id="pv-add"),
    pytest.param(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.UPDATE), QueueingHint.QUEUE, id="pv-update"),
    pytest.param(ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.DELETE), QueueingHint.QUEUE_SKIP,
                 id="pv-delete"),
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.ADD), QueueingHint.QUEUE, id="node-add"),
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL), QueueingHint.QUEUE,
                 id="node-label-update"),
    pytest.param(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.DELETE), QueueingHint.QUEUE_SKIP,
                 id="pvc-delete"),
])
def test_registered_events_without_hints(event_: ClusterEvent, want: QueueingHint) -> None:
    """PersistentVolume adds and updates and node adds and label changes always requeue; deletes never do."""
    old = make_pv("pv").obj() if event_.resource is EventResource.PERSISTENT_VOLUME else None
    assert hint(NAME, POD_WITH_CLAIMS, event_, old, None) is want

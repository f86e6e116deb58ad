"""kube-scheduler v1.32's VolumeZone tables (pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go:
TestSingleZone, TestMultiZone, TestWithBinding, TestIsSchedulableAfterPersistentVolumeClaimAdded,
TestIsSchedulableAfterStorageClassAdded, TestIsSchedulableAfterPersistentVolumeChange), case by case with kube's
names and expected values, written with the public testing kit; plus the cases kube's tables leave out (a value
LabelZonesToSet cannot parse, a class or volume that does not exist), whose words the v1.32 binary printed.

Not expressible with the kit (not translated):
- "unbound volume immediate binding mode" expects "VolumeBindingMode not set for StorageClass": the API server
  always sets a class's mode (Immediate by default), so kubesched's class has one; the row below gives what v1.32
  answers for that class (``PersistentVolume had no name``, as the binary printed for an unbound claim of an
  Immediate class).
- the hint rows "error-wrong-new-object" / "error-wrong-old-object": they pass a string where Go's interface{} wants
  the object; the runtime hands kubesched's hints typed objects.
- the fake StorageClass lister's NotFound words (``storageclasses.storage.k8s.io``): the real informer's lister says
  ``storageclass.storage.k8s.io``, as the v1.32 binary printed.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, QueueingHint, Status
from kubesched.testing import (
    PATHS,
    hint,
    like,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
    plugin_framework,
)

NAME = "VolumeZone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
CONFLICT = like(Status.unresolvable("node(s) had no available volume zone"))
SKIP = like(Status.skip())
FITS = like(None)

SINGLE_ZONE_VOLUMES = {
    "Vol_1": {BETA_ZONE: "us-west1-a"},
    "Vol_2": {BETA_REGION: "us-west1", "uselessLabel": "none"},
    "Vol_3": {BETA_REGION: "us-west1"},
    "Vol_Stable_1": {ZONE: "us-west1-a"},
    "Vol_Stable_2": {REGION: "us-west1", "uselessLabel": "none"},
    "Vol_Stable_3": {ZONE: "us-west1-a", REGION: "us-west1-a"},
}
MULTI_ZONE_VOLUMES = {
    "Vol_1": {BETA_ZONE: "us-west1-a"},
    "Vol_2": {BETA_ZONE: "us-west1-b", "uselessLabel": "none"},
    "Vol_3": {BETA_ZONE: "us-west1-c__us-west1-a"},
    "Vol_Stable_1": {ZONE: "us-west1-a"},
    "Vol_Stable_2": {ZONE: "us-west1-c__us-west1-a"},
    # Not kube's: a value LabelZonesToSet refuses (an empty zone) is ignored.
    "Vol_Bad": {ZONE: "us-west1-a____us-west1-b"},
}


def hook(framework: Any, name: str) -> Any:
    """The plugin's implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def storage(volumes: dict[str, dict[str, str]]) -> list[Any]:
    """Each volume with those labels, and claim ``PVC<suffix>`` bound to it (``Vol_1`` <- ``PVC_1``), plus
    ``PVC_4`` pre-bound to a volume that does not exist."""
    objects: list[Any] = []
    for name, labels in volumes.items():
        objects.append(make_pv(name).labels(labels))
        objects.append(make_pvc(name.replace("Vol", "PVC")).bound(name))
    objects.append(make_pvc("PVC_4").bound("Vol_not_exist"))
    return objects


def pod_with(claim: str | None) -> Any:
    """Pod ``pod_1`` using ``claim`` (no volume when None)."""
    pod = make_pod("pod_1")
    return pod.pvc(claim) if claim is not None else pod


def host(labels: dict[str, str]) -> Any:
    """Node ``host1`` with these labels and nothing else (not even the hostname label)."""
    return make_node("host1").unlabel("kubernetes.io/hostname").labels(labels)


def verdicts(objects: list[Any], pod: Any, node: Any) -> tuple[Any, Any]:
    """(PreFilter's status, Filter's status on ``node``): Filter runs as kube's tables run it, after PreFilter
    whatever it answered (so without PreFilter's state when PreFilter failed)."""
    framework = plugin_framework(NAME, nodes=[node], storage=objects)
    state = CycleState()
    (node_info,) = framework.handle.snapshot.list()
    pre_filter = hook(framework, "pre_filter")(state, pod.obj())
    return pre_filter, hook(framework, "filter")(state, pod.obj(), node_info)


SINGLE_ZONE = [
    pytest.param(pod_with(None), {BETA_ZONE: "us-west1-a"}, SKIP, FITS, id="pod without volume"),
    pytest.param(pod_with("PVC_1"), {}, FITS, FITS, id="node without labels"),
    pytest.param(pod_with("PVC_1"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, FITS, FITS,
                 id="beta zone label matched"),
    pytest.param(pod_with("PVC_2"), {BETA_REGION: "us-west1", "uselessLabel": "none"}, FITS, FITS,
                 id="beta region label matched"),
    pytest.param(pod_with("PVC_2"), {BETA_REGION: "no_us-west1", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="beta region label doesn't match"),
    pytest.param(pod_with("PVC_1"), {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="beta zone label doesn't match"),
    pytest.param(pod_with("PVC_Stable_1"), {ZONE: "us-west1-a", "uselessLabel": "none"}, FITS, FITS,
                 id="zone label matched"),
    pytest.param(pod_with("PVC_Stable_2"), {REGION: "us-west1", "uselessLabel": "none"}, FITS, FITS,
                 id="region label matched"),
    pytest.param(pod_with("PVC_Stable_2"), {REGION: "no_us-west1", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="region label doesn't match"),
    pytest.param(pod_with("PVC_Stable_1"), {ZONE: "no_us-west1-a", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="zone label doesn't match"),
    pytest.param(pod_with("PVC_Stable_3"), {ZONE: "us-west1-a"}, FITS, CONFLICT,
                 id="pv with zone and region, node with only zone"),
    pytest.param(pod_with("PVC_Stable_1"), {BETA_ZONE: "us-west1-a"}, FITS, CONFLICT,
                 id="pv with zone,node with beta zone"),
    pytest.param(pod_with("PVC_1"), {ZONE: "us-west1-a"}, FITS, FITS,
                 id="pv with beta label,node with ga label, matched"),
    pytest.param(pod_with("PVC_1"), {ZONE: "us-west1-b"}, FITS, CONFLICT,
                 id="pv with beta label,node with ga label, don't match"),
]


@pytest.mark.parametrize(("pod", "labels", "pre_filter", "want"), SINGLE_ZONE)
def test_single_zone(pod: Any, labels: dict[str, str], pre_filter: Any, want: Any) -> None:
    """TestSingleZone: each zone or region label of the bound volume must be the node's, beta or current."""
    assert verdicts(storage(SINGLE_ZONE_VOLUMES), pod, host(labels)) == (pre_filter, want)


MULTI_ZONE = [
    pytest.param(pod_with("PVC_3"), {}, FITS, FITS, id="node without labels"),
    pytest.param(pod_with("PVC_3"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, FITS, FITS,
                 id="beta zone label matched"),
    pytest.param(pod_with("PVC_1"), {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="beta zone label doesn't match"),
    pytest.param(pod_with("PVC_Stable_2"), {ZONE: "us-west1-a", "uselessLabel": "none"}, FITS, FITS,
                 id="zone label matched"),
    pytest.param(pod_with("PVC_Stable_1"), {ZONE: "us-west1-b", "uselessLabel": "none"}, FITS, CONFLICT,
                 id="zone label doesn't match"),
    pytest.param(pod_with("PVC_Bad"), {ZONE: "us-west1-c"}, SKIP, FITS, id="unparsable zone label ignored"),
]


@pytest.mark.parametrize(("pod", "labels", "pre_filter", "want"), MULTI_ZONE)
def test_multi_zone(pod: Any, labels: dict[str, str], pre_filter: Any, want: Any) -> None:
    """TestMultiZone: a ``__``-separated label value allows any of its zones."""
    assert verdicts(storage(MULTI_ZONE_VOLUMES), pod, host(labels)) == (pre_filter, want)


NO_NAMES = like(Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name"))
NO_CLASS = like(Status.unresolvable('storageclass.storage.k8s.io "Class_0" not found'))
NO_PV_NAME = like(Status.unresolvable("PersistentVolume had no name"))
NO_CLAIM = like(Status.unresolvable('persistentvolumeclaim "PVC_missing" not found'))
NO_PV = like(Status.unresolvable('persistentvolume "Vol_not_exist" not found'))
BINDING_STORAGE = [
    make_storage_class("Class_Immediate"), make_storage_class("Class_Wait").wait_for_first_consumer(),
    make_pv("Vol_1").labels({BETA_ZONE: "us-west1-a"}), make_pvc("PVC_1").bound("Vol_1"),
    make_pvc("PVC_NoSC").storage_class("Class_0"), make_pvc("PVC_EmptySC"),
    make_pvc("PVC_WaitSC").storage_class("Class_Wait"), make_pvc("PVC_ImmediateSC").storage_class("Class_Immediate"),
    make_pvc("PVC_4").bound("Vol_not_exist"),
]
TEST_NODE = host({BETA_ZONE: "us-west1-a", "uselessLabel": "none"})


@pytest.mark.parametrize(("claim", "pre_filter", "want"), [
    pytest.param("PVC_1", FITS, FITS, id="label zone failure domain matched"),
    pytest.param("PVC_EmptySC", NO_NAMES, NO_NAMES, id="unbound volume empty storage class"),
    pytest.param("PVC_NoSC", NO_CLASS, NO_CLASS, id="unbound volume no storage class"),
    pytest.param("PVC_ImmediateSC", NO_PV_NAME, NO_PV_NAME, id="unbound volume immediate binding mode"),
    pytest.param("PVC_WaitSC", SKIP, FITS, id="unbound volume wait binding mode"),
    pytest.param("PVC_missing", NO_CLAIM, NO_CLAIM, id="claim not found"),
    pytest.param("PVC_4", NO_PV, NO_PV, id="bound volume not found"),
])
def test_with_binding(claim: str, pre_filter: Any, want: Any) -> None:
    """TestWithBinding: an unbound WaitForFirstConsumer claim adds nothing; a claim that cannot be resolved rejects
    the pod in PreFilter, and Filter run without PreFilter's state answers the same."""
    assert verdicts(BINDING_STORAGE, pod_with(claim), TEST_NODE) == (pre_filter, want)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("claim", "want"), [
    pytest.param("PVC_1", {"za": FITS, "zb": CONFLICT, "bare": FITS}, id="zonal-volume"),
    pytest.param("PVC_3", {"za": FITS, "zb": CONFLICT, "bare": FITS}, id="multi-zone-volume"),
    pytest.param("PVC_2", {"za": CONFLICT, "zb": FITS, "bare": FITS}, id="other-zone"),
])
def test_node_search(path: Any, claim: str, want: dict[str, Any]) -> None:
    """The scheduler's search gives each node Filter's status, on both paths."""
    nodes = [make_node("za").labels({ZONE: "us-west1-a"}), make_node("zb").labels({BETA_ZONE: "us-west1-b"}),
             make_node("bare")]
    framework = plugin_framework(NAME, path=path, nodes=nodes, storage=storage(MULTI_ZONE_VOLUMES))
    assert framework.run_filter(pod_with(claim)) == want


CLAIM_EVENT = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.UPDATE)


@pytest.mark.parametrize(("pod", "old", "new", "want"), [
    pytest.param(pod_with(None), None, make_pvc("PVC_1").bound("Vol_1"), QueueingHint.QUEUE_SKIP,
                 id="pvc-was-added-but-pod-refers-no-pvc"),
    pytest.param(pod_with("PVC_2"), None, make_pvc("PVC_1").bound("Vol_1"), QueueingHint.QUEUE_SKIP,
                 id="pvc-was-added-and-pod-was-bound-to-different-pvc"),
    pytest.param(pod_with("PVC_1"), None, make_pvc("PVC_1", "ns1").bound("Vol_1"), QueueingHint.QUEUE_SKIP,
                 id="pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns"),
    pytest.param(pod_with("PVC_1"), None, make_pvc("PVC_1").bound("Vol_1"), QueueingHint.QUEUE,
                 id="pvc-was-added-and-pod-was-bound-to-the-pvc"),
    pytest.param(pod_with("PVC_1"), make_pvc("PVC_1"), make_pvc("PVC_1").bound("Vol_1"), QueueingHint.QUEUE,
                 id="pvc-was-updated-and-pod-was-bound-to-the-pvc"),
    pytest.param(pod_with(None), make_pvc("PVC_1"), make_pvc("PVC_1").bound("Vol_1"), QueueingHint.QUEUE_SKIP,
                 id="pvc-was-updated-but-pod-refers-no-pvc"),
])
def test_is_schedulable_after_persistent_volume_claim_change(pod: Any, old: Any, new: Any,
                                                              want: QueueingHint) -> None:
    """A claim added or changed requeues the pod only when it is one of the pod's."""
    event = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD if old is None else ActionType.UPDATE)
    assert hint(NAME, pod, event, old and old.obj(), new.obj()) is want


@pytest.mark.parametrize(("added", "want"), [
    pytest.param(make_storage_class("SC_1"), QueueingHint.QUEUE_SKIP, id="sc-doesn't-have-volume-binding-mode"),
    pytest.param(make_storage_class("SC_1").wait_for_first_consumer(), QueueingHint.QUEUE,
                 id="new-sc-is-wait-for-first-consumer-mode"),
])
def test_is_schedulable_after_storage_class_added(added: Any, want: QueueingHint) -> None:
    """Only a new WaitForFirstConsumer class may help (an unbound claim of it no longer rejects the pod)."""
    event = ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD)
    assert hint(NAME, pod_with("PVC_1"), event, None, added.obj()) is want


@pytest.mark.parametrize(("old", "new", "want"), [
    pytest.param(None, {BETA_ZONE: "us-west1-b"}, QueueingHint.QUEUE, id="new-pv-was-added"),
    pytest.param({BETA_ZONE: "us-west1-a"}, {BETA_ZONE: "us-west1-b"}, QueueingHint.QUEUE,
                 id="pv-was-updated-and-changed-topology"),
    pytest.param({BETA_ZONE: "us-west1-a"}, {BETA_ZONE: "us-west1-a", ZONE: "zone"}, QueueingHint.QUEUE,
                 id="pv-was-updated-and-added-topology-label"),
    pytest.param({BETA_ZONE: "us-west1-a", ZONE: "zone"}, {BETA_ZONE: "us-west1-a", ZONE: "zone"},
                 QueueingHint.QUEUE_SKIP, id="pv-was-updated-but-no-topology-is-changed"),
    pytest.param({BETA_ZONE: "us-west1-a"}, {BETA_ZONE: "us-west1-a", "other": "x"}, QueueingHint.QUEUE_SKIP,
                 id="pv-was-updated-with-another-label"),
])
def test_is_schedulable_after_persistent_volume_change(old: dict[str, str] | None, new: dict[str, str],
                                                        want: QueueingHint) -> None:
    """A new volume, or a change of a volume's zone or region labels, may help."""
    event = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD if old is None else ActionType.UPDATE)
    before = make_pv("Vol_1").labels(old).obj() if old is not None else None
    assert hint(NAME, pod_with("PVC_1"), event, before, make_pv("Vol_1").labels(new).obj()) is want


NODE = make_node("n1")


@pytest.mark.parametrize(("event", "old", "new", "want"), [
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.ADD), None, NODE, QueueingHint.QUEUE, id="node-added"),
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL), NODE, NODE, QueueingHint.QUEUE,
                 id="node-relabelled"),
    pytest.param(ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_ALLOCATABLE), NODE, NODE,
                 QueueingHint.QUEUE_SKIP, id="node-allocatable-changed"),
    pytest.param(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.UPDATE), make_storage_class("SC_1"),
                 make_storage_class("SC_1").wait_for_first_consumer(), QueueingHint.QUEUE_SKIP, id="class-updated"),
])
def test_other_registered_events(event: ClusterEvent, old: Any, new: Any, want: QueueingHint) -> None:
    """Node/Add and Node/UpdateNodeLabel may help without a hint; a class's update never does (its binding mode is
    immutable)."""
    assert hint(NAME, pod_with("PVC_1"), event, old and old.obj(), new.obj()) is want

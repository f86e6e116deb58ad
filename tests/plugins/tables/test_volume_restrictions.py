"""kube-scheduler v1.32's VolumeRestrictions tables (pkg/scheduler/framework/plugins/volumerestrictions/
volume_restrictions_test.go: TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts,
TestAccessModeConflicts, Test_isSchedulableAfterPodDeleted, Test_isSchedulableAfterPersistentVolumeClaimChange), case
by case with kube's names and expected values, written with the public testing kit; plus the read-only rules of
isVolumeConflict that kube's tables leave out, the PreFilter extensions preemption relies on, and PreFilter disabled.

Not expressible with the kit (not translated): the "volume with no restriction" row's empty VolumeSource (the API
server makes it an emptyDir, which kubesched's pod model leaves out: the row's pod has no volume here, with the same
answers).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Volume
from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, PodInfo, QueueingHint, Status
from kubesched.testing import PATHS, hint, like, make_node, make_pod, make_pvc, plugin_framework

NAME = "VolumeRestrictions"
DISK_CONFLICT = like(Status.unschedulable("node(s) had no available disk"))
CLAIM_CONFLICT = like(Status.unschedulable(
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"))
SKIP = like(Status.skip())
FITS = like(None)


def hook(framework: Any, name: str) -> Any:
    """The plugin's implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def gce(pd: str, read_only: bool = False) -> Volume:
    return Volume(name="v", source="gcePersistentDisk", handle=pd, read_only=read_only)


def aws(volume_id: str, read_only: bool = False) -> Volume:
    return Volume(name="v", source="awsElasticBlockStore", handle=volume_id, read_only=read_only)


def rbd(monitors: str, pool: str, image: str, read_only: bool = False) -> Volume:
    return Volume(name="v", source="rbd", handle=f"{monitors}/{pool}/{image}", read_only=read_only)


def iscsi(iqn: str, read_only: bool = False) -> Volume:
    return Volume(name="v", source="iscsi", handle=iqn, read_only=read_only)


def with_volume(name: str, volume: Volume | None) -> Any:
    """A pod with one volume (none when None)."""
    pod = make_pod(name)
    return pod.volume(volume) if volume is not None else pod


def verdicts(pod: Any, existing: list[Any], storage: tuple[Any, ...] = ()) -> tuple[Any, Any]:
    """(PreFilter's status, Filter's status on node-1 holding ``existing``; None when PreFilter did not succeed)."""
    framework = plugin_framework(NAME, nodes=[make_node("node-1")], pods=[p.node("node-1") for p in existing],
                                 storage=storage)
    state = CycleState()
    (node_info,) = framework.handle.snapshot.list()
    pre_filter = hook(framework, "pre_filter")(state, pod.obj(), [node_info])
    if pre_filter is not None:
        return pre_filter, None
    return pre_filter, hook(framework, "filter")(state, pod.obj(), node_info)


DISK_CASES = [
    # kube's four tables, one volume kind each: state is the disk the node's pod mounts, state2 another disk.
    *(case for kind, state, state2 in [
        ("gce", gce("foo"), gce("bar")),
        ("aws", aws("foo"), aws("bar")),
        ("rbd", rbd("a,b", "foo", "bar"), rbd("c,d", "foo", "bar")),
        ("iscsi", iscsi("iqn.2016-12.server:storage.target01"), iscsi("iqn.2017-12.server:storage.target01")),
    ] for case in [
        pytest.param(None, None, SKIP, None, id=f"{kind}-nothing"),
        pytest.param(None, state, SKIP, None, id=f"{kind}-one state"),
        pytest.param(state, state, FITS, DISK_CONFLICT, id=f"{kind}-same state"),
        pytest.param(state2, state, FITS, FITS, id=f"{kind}-different state"),
    ]),
    pytest.param(None, None, SKIP, None, id="pod with a volume that doesn't have restrictions"),
    # isVolumeConflict's read-only rules, which kube's tables do not exercise.
    pytest.param(gce("foo", True), gce("foo", True), FITS, FITS, id="gce-both-read-only"),
    pytest.param(gce("foo", True), gce("foo"), FITS, DISK_CONFLICT, id="gce-one-read-only"),
    pytest.param(aws("foo", True), aws("foo", True), FITS, DISK_CONFLICT, id="aws-read-only-still-conflicts"),
    pytest.param(iscsi("iqn.x", True), iscsi("iqn.x", True), FITS, FITS, id="iscsi-both-read-only"),
    pytest.param(rbd("a,b", "foo", "bar", True), rbd("b,c", "foo", "bar", True), FITS, FITS, id="rbd-both-read-only"),
    pytest.param(rbd("a,b", "foo", "bar"), rbd("b,c", "foo", "bar"), FITS, DISK_CONFLICT, id="rbd-one-shared-monitor"),
    pytest.param(rbd("a,b", "foo", "bar"), rbd("a,b", "other", "bar"), FITS, FITS, id="rbd-other-pool"),
    pytest.param(rbd("a,b", "foo", "bar"), rbd("a,b", "foo", "baz"), FITS, FITS, id="rbd-other-image"),
    pytest.param(gce("foo"), aws("foo"), FITS, FITS, id="same-name-other-kind"),
]


@pytest.mark.parametrize(("wanted", "mounted", "pre_filter", "want"), DISK_CASES)
def test_disk_conflicts(wanted: Volume | None, mounted: Volume | None, pre_filter: Any, want: Any) -> None:
    """Test{GCE,AWS,RBD,ISCSI}DiskConflicts: PreFilter skips a pod without such a disk; Filter rejects a node whose
    pod mounts the same disk in a way that kind forbids."""
    existing = [with_volume("existing", mounted)] if mounted is not None else []
    assert verdicts(with_volume("pod", wanted), existing) == (pre_filter, want)


def rwop(name: str) -> Any:
    return make_pvc(name).access_modes("ReadWriteOncePod")


ACCESS_MODE_CLAIMS = (rwop("claim-with-rwop-1"), rwop("claim-with-rwop-2"),
                      make_pvc("claim-with-rwx").access_modes("ReadWriteMany"))


def using(name: str, *claims: str, namespace: str = "default") -> Any:
    """A new pod builder using these claims."""
    pod = make_pod(name, namespace)
    for claim in claims:
        pod.pvc(claim)
    return pod


@pytest.mark.parametrize(("pod", "existing", "claims", "pre_filter", "want"), [
    pytest.param(make_pod("pod"), [], (), SKIP, None, id="nothing"),
    pytest.param(using("pod-with-one-pvc", "claim-with-rwop-1"), [], (),
                 like(Status.unresolvable('persistentvolumeclaim "claim-with-rwop-1" not found')), None,
                 id="failed to get PVC"),
    pytest.param(using("pod-with-one-pvc", "claim-with-rwop-1"), [using("pod-with-rwx", "claim-with-rwx")],
                 ACCESS_MODE_CLAIMS, SKIP, None, id="no access mode conflict"),
    pytest.param(using("pod-with-one-conflict", "claim-with-rwop-1"),
                 [using("pod-with-one-pvc", "claim-with-rwop-1"), using("pod-with-rwx", "claim-with-rwx")],
                 ACCESS_MODE_CLAIMS, FITS, CLAIM_CONFLICT, id="access mode conflict, unschedulable"),
    pytest.param(using("pod-with-two-conflicts", "claim-with-rwop-1", "claim-with-rwop-2"),
                 [using("pod-with-two-pvcs", "claim-with-rwop-1", "claim-with-rwop-2"),
                  using("pod-with-rwx", "claim-with-rwx")],
                 ACCESS_MODE_CLAIMS, FITS, CLAIM_CONFLICT, id="two conflicts, unschedulable"),
    pytest.param(using("pod", "claim-with-rwop-1", namespace="other"), [using("pod-with-one-pvc", "claim-with-rwop-1")],
                 (*ACCESS_MODE_CLAIMS, make_pvc("claim-with-rwop-1", "other").access_modes("ReadWriteOncePod")),
                 SKIP, None, id="same-claim-name-in-another-namespace"),
])
def test_access_mode_conflicts(pod: Any, existing: list[Any], claims: tuple[Any, ...], pre_filter: Any,
                               want: Any) -> None:
    """TestAccessModeConflicts: a missing claim rejects the pod; a ReadWriteOncePod claim another pod uses rejects
    every node (Unschedulable)."""
    assert verdicts(pod, existing, claims) == (pre_filter, want)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "want"), [
    pytest.param(with_volume("pod", gce("foo")), {"n1": DISK_CONFLICT, "n2": FITS}, id="disk-mounted-on-n1"),
    pytest.param(make_pod("pod").pvc("rwop"), {"n1": CLAIM_CONFLICT, "n2": CLAIM_CONFLICT},
                 id="claim-held-on-n1-rejects-every-node"),
    pytest.param(with_volume("pod", gce("bar")), {"n1": FITS, "n2": FITS}, id="other-disk"),
])
def test_node_search(path: Any, pod: Any, want: dict[str, Any]) -> None:
    """The scheduler's search gives each node Filter's status, on both paths."""
    holder = with_volume("holder", gce("foo")).pvc("rwop").node("n1")
    framework = plugin_framework(NAME, path=path, nodes=[make_node("n1"), make_node("n2")], pods=[holder],
                                 storage=[rwop("rwop")])
    assert framework.run_filter(pod) == want


def test_remove_pod_frees_the_claim_and_add_pod_takes_it_again() -> None:
    """The PreFilter extensions count the claim's users, so a preemption dry run that removes the holder sees the
    claim free, and one that puts it back sees it taken; a cloned state keeps its own count."""
    holder = make_pod("holder").pvc("rwop").node("n1").obj()
    framework = plugin_framework(NAME, nodes=[make_node("n1")], pods=[holder], storage=[rwop("rwop")])
    (node_info,) = framework.handle.snapshot.list()
    pod = make_pod("pod").pvc("rwop").obj()
    state = CycleState()
    assert hook(framework, "pre_filter")(state, pod, [node_info]) is None
    branch = state.clone()
    assert framework.run_pre_filter_extension_remove_pod(branch, pod, PodInfo.of(holder), node_info) is None
    assert hook(framework, "filter")(branch, pod, node_info) == FITS
    assert hook(framework, "filter")(state, pod, node_info) == CLAIM_CONFLICT
    assert framework.run_pre_filter_extension_add_pod(branch, pod, PodInfo.of(holder), node_info) is None
    assert hook(framework, "filter")(branch, pod, node_info) == CLAIM_CONFLICT


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is an Error in v1.32's words (after the disk check passed)."""
    framework = plugin_framework(NAME, nodes=[make_node("n1")])
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "filter")(CycleState(), with_volume("pod", gce("foo")).obj(), node_info) == like(
        Status.as_error('cannot read "PreFilterVolumeRestrictions" from cycleState'))


def deleted(old: Any) -> ClusterEvent:
    """The delete event of pod ``old``."""
    resource = EventResource.ASSIGNED_POD if old.spec.node_name else EventResource.UNSCHEDULED_POD
    return ClusterEvent(resource, ActionType.DELETE)


@pytest.mark.parametrize(("pod", "old", "want"), [
    *(case for kind, state, state2 in [
        ("gcedisk", gce("foo"), gce("bar")), ("awsdisk", aws("foo"), aws("bar")),
        ("rbddisk", rbd("a,b", "foo", "bar"), rbd("c,d", "foo", "bar")),
        ("iscsidisk", iscsi("iqn.2016-12.server:storage.target01"), iscsi("iqn.2017-12.server:storage.target01")),
    ] for case in [
        pytest.param(with_volume("pod", state), with_volume("old", state), QueueingHint.QUEUE,
                     id=f"queue-new-object-{kind}-conflict"),
        pytest.param(with_volume("pod", state), with_volume("old", state2), QueueingHint.QUEUE_SKIP,
                     id=f"skip-new-object-{kind}-no-conflict"),
    ]),
    pytest.param(using("pod1", "claim-rwop"), using("pod2", "claim-rwop"), QueueingHint.QUEUE,
                 id="queue-has-same-claim"),
    pytest.param(using("pod1", "claim-1-rwop"), using("pod2", "claim-2-rwop"), QueueingHint.QUEUE_SKIP,
                 id="skip-no-same-claim"),
    pytest.param(with_volume("pod", gce("foo")), make_pod("old", "other").volume(gce("foo")), QueueingHint.QUEUE_SKIP,
                 id="skip-other-namespace"),
])
def test_is_schedulable_after_pod_deleted(pod: Any, old: Any, want: QueueingHint) -> None:
    """A deleted pod of the pod's namespace requeues it when it mounted a conflicting disk or used a claim of the
    same name."""
    deleted_pod = old.node("node-1").obj()
    assert hint(NAME, pod, deleted(deleted_pod), deleted_pod, None) is want


@pytest.mark.parametrize(("pod", "added", "want"), [
    pytest.param(using("pod-with-two-pvcs", "claim-with-rwx-1", "claim-with-rwx-2"), make_pvc("claim-with-rwx-1"),
                 QueueingHint.QUEUE, id="queue-new-object-pvc-belong-pod"),
    pytest.param(using("pod-with-one-pvc", "claim-with-rwx-1"), make_pvc("claim-with-rwx-2"),
                 QueueingHint.QUEUE_SKIP, id="skip-new-object-not-belong-pod"),
    pytest.param(using("pod-with-one-pvc", "claim-with-rwx-1", namespace="kube-system"),
                 make_pvc("claim-with-rwx-1"), QueueingHint.QUEUE_SKIP, id="skip-new-object-namespace-not-equal-pod"),
])
def test_is_schedulable_after_persistent_volume_claim_added(pod: Any, added: Any, want: QueueingHint) -> None:
    """A claim created in the pod's namespace under a name its volumes use may help."""
    event = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)
    assert hint(NAME, pod, event, None, added.obj()) is want


def test_node_added_may_help() -> None:
    """A new node may help, without a hint."""
    assert hint(NAME, with_volume("pod", gce("foo")), ClusterEvent(EventResource.NODE, ActionType.ADD), None,
                make_node("n2").obj()) is QueueingHint.QUEUE

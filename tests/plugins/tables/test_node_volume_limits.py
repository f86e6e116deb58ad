"""kube-scheduler v1.32's NodeVolumeLimits tables (pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go:
TestCSILimits, TestCSILimitsQHint, TestCSILimitsAddedPVCQHint), case by case with kube's names and expected values,
written with the public testing kit and kube's fixtures (volumes ``csi-<driver>-<n>``, claim ``csi-4`` unbound with
class ``csi-sc``, ``csi-5`` without a class, ``csi-6`` pre-bound to a missing volume); plus what the v1.32 binaries
answered beyond kube's tables: in-tree volume IDs as CSI migration translates them, the errors of translation, and
what never counts.

Not translated: the rows counting VolumeAttachment objects ("should count VolumeAttachments towards volume limit
when no pods exist", "... does not exceed limit"; kubesched does not model VolumeAttachments: a node detaches a
volume when its last pod goes), and the "skip Filter when the pod only uses secrets and configmaps" row's volumes
(kubesched's pod model leaves configMap and secret volumes out; a pod without volumes is skipped alike).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api import OwnerReference, Volume
from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, QueueingHint, Status
from kubesched.testing import (
    PATHS,
    hint,
    like,
    make_csi_node,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
    plugin_framework,
)

NAME = "NodeVolumeLimits"
NODE = "node-for-max-pd-test-1"
EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
AWS_PLUGIN = "kubernetes.io/aws-ebs"
HOSTPATH_PLUGIN = "kubernetes.io/hostpath"
SC_NAME = "csi-sc"
EXCEEDED = like(Status.unschedulable("node(s) exceed max volume count"))
SKIP = like(Status.skip())
FITS = like(None)


def hook(framework: Any, name: str) -> Any:
    """The plugin's implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def volume_objects(driver: str) -> list[Any]:
    """kube's four volumes of ``driver`` (an in-tree AWS EBS or hostPath one for those plugin names) and their
    claims, bound."""
    objects: list[Any] = []
    for j in range(4):
        name = f"csi-{driver}-{j}"
        pv = make_pv(name)
        if driver == AWS_PLUGIN:
            pv.source("awsElasticBlockStore", name)
        elif driver == HOSTPATH_PLUGIN:
            pv.source("hostPath")
        else:
            pv.csi(driver, name)
        objects += [pv, make_pvc(name).bound(name)]
    return objects


def storage(drivers: list[str], limit_source: str, max_vols: int, extra: list[Any]) -> list[Any]:
    """kube's fixtures: every driver's volumes, claims csi-4, csi-5 and csi-6, class csi-sc provisioned by the first
    driver, and the node's CSINode listing the drivers (with ``max_vols`` each for "csinode", without a count for
    "csinode-with-no-limit", none at all for "")."""
    objects = [o for driver in drivers for o in volume_objects(driver)]
    objects += [make_pvc("csi-4").storage_class(SC_NAME), make_pvc("csi-5"),
                make_pvc("csi-6").storage_class(SC_NAME).bound("missing-in-action"),
                make_storage_class(SC_NAME, drivers[0]), *extra]
    if limit_source:
        csi_node = make_csi_node(NODE).migrated(AWS_PLUGIN)
        for driver in drivers:
            csi_node.driver(driver, max_vols if limit_source == "csinode" else None)
        objects.append(csi_node)
    return objects


def pvcs(*claims: str) -> Any:
    """A pod using these claims."""
    pod = make_pod("pod")
    for claim in claims:
        pod.pvc(claim)
    return pod


def aws_inline(volume_id: str) -> Any:
    return make_pod("pod").volume(Volume(name="v", source="awsElasticBlockStore", handle=volume_id))


def ephemeral_pod(uid: str, *volumes: str) -> Any:
    pod = make_pod("abc", "test").uid(uid)
    for volume in volumes:
        pod.ephemeral(volume)
    return pod


def ephemeral_claim(name: str, owner_uid: str | None) -> Any:
    """Claim ``test/<name>`` of class csi-sc, controlled by the pod with ``owner_uid`` (no owner when None)."""
    claim = make_pvc(name, "test").storage_class(SC_NAME).obj()
    if owner_uid is None:
        return claim
    owner = OwnerReference("v1", "Pod", "abc", owner_uid, controller=True)
    return attrs.evolve(claim, metadata=attrs.evolve(claim.metadata, owner_references=(owner,)))


RUNNING = pvcs(f"csi-{EBS}-3")
CSI_EBS_ONE = pvcs(f"csi-{EBS}-0")
CSI_EBS_TWO = pvcs(f"csi-{EBS}-1", f"csi-{EBS}-2")
IN_TREE_ONE = pvcs(f"csi-{AWS_PLUGIN}-0")
IN_TREE_TWO = pvcs(f"csi-{AWS_PLUGIN}-1", f"csi-{AWS_PLUGIN}-2")
EPHEMERAL = ephemeral_pod("12345", "xyz")
EPHEMERAL_CLAIM = ephemeral_claim("abc-xyz", "12345")
EPHEMERAL_TWO = ephemeral_pod("12345II", "x", "y")
EPHEMERAL_MISSING = like(Status.unresolvable('looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found'))
IN_TREE = [AWS_PLUGIN, EBS]

# (pod, existing pods, extra storage, drivers, CSINode source, count per driver, PreFilter, Filter)
CASES = [
    pytest.param(CSI_EBS_ONE, [RUNNING, CSI_EBS_TWO], [], [EBS], "csinode", 4, FITS, FITS,
                 id="fits when node volume limit >= new pods CSI volume"),
    pytest.param(CSI_EBS_ONE, [RUNNING, CSI_EBS_TWO], [], [EBS], "csinode", 2, FITS, EXCEEDED,
                 id="doesn't when node volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE, [RUNNING, CSI_EBS_TWO], [], [EBS], "csinode-with-no-limit", 2, FITS, FITS,
                 id="should when driver does not support volume limits"),
    pytest.param(CSI_EBS_ONE, [pvcs("csi-4"), CSI_EBS_TWO], [], [EBS], "csinode", 2, FITS, EXCEEDED,
                 id="count pending PVCs towards volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE, [pvcs("csi-4"), pvcs("csi-4"), CSI_EBS_TWO], [], [EBS], "csinode", 4, FITS, FITS,
                 id="count multiple pending pvcs towards volume limit >= pods CSI volume"),
    pytest.param(CSI_EBS_ONE, [pvcs("csi-6"), CSI_EBS_TWO], [], [EBS], "csinode", 2, FITS, EXCEEDED,
                 id="should count PVCs with invalid PV name but valid SC"),
    pytest.param(CSI_EBS_ONE, [RUNNING, pvcs("csi-5")], [], [EBS], "csinode", 2, FITS, FITS,
                 id="don't count pvcs with missing SC towards volume limit"),
    pytest.param(CSI_EBS_ONE, [pvcs(f"csi-{GCE}-1", f"csi-{GCE}-2"), CSI_EBS_TWO], [], [EBS, GCE], "csinode", 2,
                 FITS, EXCEEDED, id="count pvcs with the same type towards volume limit"),
    pytest.param(pvcs(f"csi-{GCE}-1", f"csi-{GCE}-2"), [CSI_EBS_TWO, RUNNING], [], [EBS, GCE], "csinode", 2,
                 FITS, FITS, id="don't count pvcs with different type towards volume limit"),
    pytest.param(IN_TREE_ONE, [IN_TREE_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="should count in-tree volumes if migration is enabled"),
    pytest.param(aws_inline("aws-inline1"), [IN_TREE_TWO], [], IN_TREE, "", 0, FITS, FITS, id="nil csi node"),
    pytest.param(pvcs("csi-4"), [IN_TREE_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="should count unbound in-tree volumes if migration is enabled"),
    pytest.param(IN_TREE_ONE, [IN_TREE_TWO], [], IN_TREE, "csinode-with-no-limit", 2, FITS, FITS,
                 id="should not limit pod if volume used does not report limits"),
    pytest.param(pvcs(f"csi-{HOSTPATH_PLUGIN}-0"), [CSI_EBS_TWO], [], [HOSTPATH_PLUGIN, EBS], "csinode", 2, FITS,
                 FITS, id="should not count non-migratable in-tree volumes"),
    pytest.param(aws_inline("aws-inline1"), [IN_TREE_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="should count in-tree inline volumes if migration is enabled"),
    pytest.param(IN_TREE_ONE, [CSI_EBS_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)"),
    pytest.param(aws_inline("aws-inline1"), [CSI_EBS_TWO, IN_TREE_ONE], [], IN_TREE, "csinode", 3, FITS, EXCEEDED,
                 id="should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree "
                    "volumes)"),
    pytest.param(aws_inline(f"csi-{EBS}-1"), [CSI_EBS_TWO, IN_TREE_ONE], [], IN_TREE, "csinode", 3, FITS, FITS,
                 id="should not count in-tree, inline and csi volumes if migration is enabled (when scheduling "
                    "in-tree volumes)"),
    pytest.param(CSI_EBS_ONE, [IN_TREE_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)"),
    pytest.param(EPHEMERAL, [], [], [EBS], "csinode-with-no-limit", 0, FITS, EPHEMERAL_MISSING,
                 id="ephemeral volume missing"),
    pytest.param(EPHEMERAL, [], [ephemeral_claim("abc-xyz", None)], [EBS], "csinode-with-no-limit", 0, FITS,
                 like(Status.as_error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")),
                 id="ephemeral volume not owned"),
    pytest.param(EPHEMERAL, [], [EPHEMERAL_CLAIM], [EBS], "csinode-with-no-limit", 0, FITS, FITS,
                 id="ephemeral volume unbound"),
    pytest.param(EPHEMERAL, [RUNNING, CSI_EBS_TWO], [EPHEMERAL_CLAIM], [EBS], "csinode", 2, FITS, EXCEEDED,
                 id="ephemeral doesn't when node volume limit <= pods CSI volume"),
    pytest.param(CSI_EBS_ONE, [RUNNING, EPHEMERAL_TWO],
                 [ephemeral_claim("abc-x", "12345II"), ephemeral_claim("abc-y", "12345II")], [EBS], "csinode", 2,
                 FITS, EXCEEDED, id="ephemeral doesn't when node volume limit <= pods ephemeral CSI volume"),
    pytest.param(CSI_EBS_ONE, [RUNNING, EPHEMERAL, CSI_EBS_TWO], [EPHEMERAL_CLAIM], [EBS], "csinode", 3, FITS,
                 EXCEEDED, id="persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
                              "volume"),
    pytest.param(CSI_EBS_ONE, [RUNNING, EPHEMERAL, CSI_EBS_TWO], [EPHEMERAL_CLAIM], [EBS], "csinode", 5, FITS, FITS,
                 id="persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume"),
    pytest.param(make_pod("pod"), [], [], [EBS], "csinode", 2, SKIP, None,
                 id="skip Filter when the pod only uses secrets and configmaps"),
    pytest.param(CSI_EBS_ONE, [], [], [EBS], "csinode", 2, FITS, FITS, id="don't skip Filter when the pod has pvcs"),
    pytest.param(EPHEMERAL, [], [], [EBS], "csinode-with-no-limit", 0, FITS, EPHEMERAL_MISSING,
                 id="don't skip Filter when the pod has ephemeral volumes"),
    pytest.param(aws_inline("aws-inline1"), [IN_TREE_TWO], [], IN_TREE, "csinode", 2, FITS, EXCEEDED,
                 id="don't skip Filter when the pod has inline migratable volumes"),
]


def bound(existing: list[Any]) -> list[Any]:
    """The existing pods bound to the node, a name (and uid) used twice made unique."""
    pods, seen = [], set()
    for i, builder in enumerate(existing):
        pod = builder.obj()
        if pod.name in seen:
            pod = attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, name=f"{pod.name}-{i}", uid=f"{pod.uid}-{i}"))
        seen.add(pod.name)
        pods.append(pod.with_node_name(NODE))
    return pods


def verdicts(pod: Any, existing: list[Any], objects: list[Any]) -> tuple[Any, Any]:
    """(PreFilter's status, Filter's status on the node holding ``existing``; None after a PreFilter Skip)."""
    framework = plugin_framework(NAME, nodes=[make_node(NODE)], storage=objects, pods=bound(existing))
    state = CycleState()
    (node_info,) = framework.handle.snapshot.list()
    pre_filter = hook(framework, "pre_filter")(state, pod.obj())
    if pre_filter is not None:
        return pre_filter, None
    return pre_filter, hook(framework, "filter")(state, pod.obj(), node_info)


@pytest.mark.parametrize(("pod", "existing", "extra", "drivers", "limit_source", "max_vols", "pre_filter", "want"),
                         CASES)
def test_csi_limits(pod: Any, existing: list[Any], extra: list[Any], drivers: list[str], limit_source: str,
                    max_vols: int, pre_filter: Any, want: Any) -> None:
    """TestCSILimits: the node's volumes of each driver, each unique volume once, plus the pod's new ones, must stay
    within the driver's count in the node's CSINode."""
    assert verdicts(pod, existing, storage(drivers, limit_source, max_vols, extra)) == (pre_filter, want)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "want"), [
    pytest.param(CSI_EBS_ONE, {"full": EXCEEDED, "roomy": FITS, "no-csinode": FITS}, id="new-volume"),
    pytest.param(pvcs(f"csi-{EBS}-1"), {"full": FITS, "roomy": FITS, "no-csinode": FITS}, id="volume-already-there"),
])
def test_node_search(path: Any, pod: Any, want: dict[str, Any]) -> None:
    """The scheduler's search gives each node Filter's status, on both paths: a node at its count rejects a new
    volume but not one already attached there; a node without a CSINode has no limit."""
    nodes = [make_node("full"), make_node("roomy"), make_node("no-csinode")]
    objects = [*volume_objects(EBS), make_csi_node("full").driver(EBS, 2), make_csi_node("roomy").driver(EBS, 3)]
    pods = [CSI_EBS_TWO.obj().with_node_name("full"),
            attrs.evolve(CSI_EBS_TWO.obj(), metadata=attrs.evolve(CSI_EBS_TWO.obj().metadata, name="p2", uid="p2"))
            .with_node_name("roomy")]
    assert plugin_framework(NAME, path=path, nodes=nodes, pods=pods, storage=objects).run_filter(pod) == want


def deleted(old: Any) -> ClusterEvent:
    """The delete event of pod ``old``."""
    resource = EventResource.ASSIGNED_POD if old.spec.node_name else EventResource.UNSCHEDULED_POD
    return ClusterEvent(resource, ActionType.DELETE)


@pytest.mark.parametrize(("deleted_pod", "scheduled", "want"), [
    pytest.param(pvcs("placeholder"), True, QueueingHint.QUEUE, id="return a Queue when a deleted pod has a PVC"),
    pytest.param(aws_inline(""), True, QueueingHint.QUEUE,
                 id="return a Queue when a deleted pod has a inline migratable volume"),
    pytest.param(make_pod("pod"), True, QueueingHint.QUEUE_SKIP,
                 id="return a QueueSkip when a deleted pod doesn't have any volume"),
    pytest.param(pvcs(f"csi-{EBS}-0"), False, QueueingHint.QUEUE_SKIP,
                 id="return a QueueSkip when a deleted pod is not scheduled."),
    pytest.param(make_pod("pod").volume(Volume(name="v", source="csi", driver=EBS)), True, QueueingHint.QUEUE_SKIP,
                 id="return a QueueSkip when a deleted pod has only an inline CSI volume"),
])
def test_csi_limits_qhint(deleted_pod: Any, scheduled: bool, want: QueueingHint) -> None:
    """TestCSILimitsQHint: a deleted pod requeues the pod when it was bound and had a volume that may count."""
    old = deleted_pod.obj().with_node_name(NODE) if scheduled else deleted_pod.obj()
    assert hint(NAME, pvcs(f"csi-{EBS}-2"), deleted(old), old, None) is want


@pytest.mark.parametrize(("pod", "added", "want"), [
    pytest.param(make_pod("pod", "ns1"), make_pvc("pvc", "ns2"), QueueingHint.QUEUE_SKIP,
                 id="a pod isn't in the same namespace as an added PVC"),
    pytest.param(make_pod("pod", "ns1").pvc("pvc1"), make_pvc("pvc1", "ns1"), QueueingHint.QUEUE,
                 id="a pod is in the same namespace as an added PVC"),
    pytest.param(make_pod("pod1", "ns1").ephemeral("ephemeral"), make_pvc("pod1-ephemeral", "ns1"),
                 QueueingHint.QUEUE, id="a pod has an ephemeral volume related to an added PVC"),
    pytest.param(make_pod("pod", "ns1").pvc("pvc1"), make_pvc("pvc2", "ns1"), QueueingHint.QUEUE_SKIP,
                 id="a pod doesn't have the same PVC as an added PVC"),
    pytest.param(make_pod("pod", "ns1"), make_pvc("pvc2", "ns1"), QueueingHint.QUEUE_SKIP,
                 id="a pod doesn't have any PVC attached"),
])
def test_csi_limits_added_pvc_qhint(pod: Any, added: Any, want: QueueingHint) -> None:
    """TestCSILimitsAddedPVCQHint: a claim created under a name the pod's claim or ephemeral volumes use may help."""
    event = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)
    assert hint(NAME, pod, event, None, added.obj()) is want


@pytest.mark.parametrize(("event", "want"), [
    pytest.param(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD), QueueingHint.QUEUE, id="csinode-added"),
    pytest.param(ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE), QueueingHint.QUEUE_SKIP,
                 id="csinode-updated"),
])
def test_csi_node_events(event: ClusterEvent, want: QueueingHint) -> None:
    """A new CSINode may help, without a hint; an update does not (its drivers' counts are immutable)."""
    csi_node = make_csi_node(NODE).driver(EBS, 1).obj()
    old = None if event.action_type is ActionType.ADD else csi_node
    assert hint(NAME, CSI_EBS_ONE, event, old, csi_node) is want

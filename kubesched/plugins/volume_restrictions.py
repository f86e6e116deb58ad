"""VolumeRestrictions: a disk another pod on the node mounts, or a ReadWriteOncePod claim another pod uses, keeps the
pod off.

kube-scheduler v1.32's volumerestrictions plugin. PreFilter looks up every persistentVolumeClaim volume's claim (a
missing one rejects the pod, UnschedulableAndUnresolvable, in the lister's words) and counts how many of its
ReadWriteOncePod claims some pod on a node already uses (the snapshot's PVC reference counts: bound and assumed pods'
persistentVolumeClaim volumes in the pod's namespace). It returns Skip when the pod mounts no disk the same-disk check
compares and no such claim is in use. The PreFilter extensions keep that count as pods are added to or removed from
a node (by claim name, whatever the added pod's namespace, as v1.32 does), so preemption can free a claim by evicting
the pod that holds it.

Filter rejects, Unschedulable (preemption may help), a node where a pod already mounts one of the pod's disks
(``node(s) had no available disk``): the same GCE PD unless both mount it read-only, the same AWS EBS volume ID, the
same iSCSI IQN unless both are read-only, an RBD image of the same pool sharing a Ceph monitor unless both are
read-only; and then, while some pod holds one of its ReadWriteOncePod claims, every node (``node has pod using
PersistentVolumeClaim with the same name and ReadWriteOncePod access mode``). The batch form decides the disk check
once per distinct set of disks the nodes' pods mount.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import PersistentVolumeClaim, Pod, Volume
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeBatch,
    NodeColumns,
    NodeInfo,
    Plugin,
    PodInfo,
    QueueingHint,
    StateKey,
    StateNotFoundError,
    Status,
    hookimpl,
)

NAME = "VolumeRestrictions"
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = ("node has pod using PersistentVolumeClaim with the same name and "
                                           "ReadWriteOncePod access mode")
#: Filter's Error without PreFilter's state (PreFilter disabled in the profile), in kube-scheduler v1.32's words.
NO_PRE_FILTER_STATE = f'cannot read "PreFilter{NAME}" from cycleState'

_PVC_SOURCE = "persistentVolumeClaim"
_READ_WRITE_ONCE_POD = "ReadWriteOncePod"
GCE_PD, AWS_EBS, ISCSI, RBD = "gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd"
#: The volume sources the same-disk check compares.
DISK_SOURCES = frozenset((GCE_PD, AWS_EBS, ISCSI, RBD))

_DISK_CONFLICT = Status.unschedulable(ERR_REASON_DISK_CONFLICT).with_plugin(NAME)
_CLAIM_CONFLICT = Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT).with_plugin(NAME)
#: The columns' categories of the disks the nodes' pods mount, and of the claims they use (None: none).
_DISKS_INDEX = (NAME, "disks")
_CLAIMS_INDEX = (NAME, "claims")
#: A mounted disk as the same-disk check compares it: (source, identity, read-only).
Disk = tuple[str, str, bool]


@attrs.define
class RestrictionsState:
    """PreFilter's state: the pod's ReadWriteOncePod claim names and how many of them pods already use (changed by
    the PreFilter extensions, hence the clone)."""

    read_write_once_pod_claims: frozenset[str]
    conflicting_claims: int

    def clone(self) -> RestrictionsState:
        """An independent copy (the claim names are immutable and shared)."""
        return RestrictionsState(self.read_write_once_pod_claims, self.conflicting_claims)

    def update_with_pod(self, pod_info: PodInfo, multiplier: int) -> None:
        """Count ``pod_info``'s uses of the claims in (1) or out (-1): one per volume naming one of them."""
        claims = self.read_write_once_pod_claims
        uses = sum(1 for v in pod_info.pod.spec.volumes if v.source == _PVC_SOURCE and v.claim_name in claims)
        self.conflicting_claims += multiplier * uses


_STATE_KEY = StateKey[RestrictionsState]("PreFilter" + NAME)


def disks_conflict(mine: Disk, theirs: Disk) -> bool:
    """Whether two mounts of disks (source, identity, read-only) are of one disk in a way v1.32 forbids on a node."""
    source, handle, read_only = mine
    other_source, other_handle, other_read_only = theirs
    if source != other_source:
        return False
    both_read_only = read_only and other_read_only
    if source == AWS_EBS:
        return handle == other_handle
    if source in (GCE_PD, ISCSI):
        return handle == other_handle and not both_read_only
    if source == RBD:
        monitors, pool, image = _rbd_parts(handle)
        other_monitors, other_pool, other_image = _rbd_parts(other_handle)
        return bool(monitors & other_monitors) and pool == other_pool and image == other_image and not both_read_only
    return False


def _rbd_parts(handle: str) -> tuple[frozenset[str], str, str]:
    """The Ceph monitors, pool and image of an RBD volume's identity (``mon1,mon2/pool/image``)."""
    monitors, _, rest = handle.partition("/")
    pool, _, image = rest.partition("/")
    return frozenset(m for m in monitors.split(",") if m), pool, image


def pod_disks(volumes: Iterable[Volume]) -> tuple[Disk, ...]:
    """The disks among ``volumes`` the same-disk check compares."""
    return tuple((v.source, v.handle, v.read_only) for v in volumes if v.source in DISK_SOURCES)


def _node_disks(node_info: NodeInfo) -> frozenset[Disk] | None:
    found = frozenset(disk for pod_info in node_info.pods for disk in pod_disks(pod_info.pod.spec.volumes))
    return found or None


def _node_claims(node_info: NodeInfo) -> frozenset[str] | None:
    found = frozenset(f"{p.pod.namespace}/{v.claim_name}" for p in node_info.pods for v in p.pod.spec.volumes
                      if v.source == _PVC_SOURCE)
    return found or None


def fits_disks(disks: tuple[Disk, ...], mounted: Iterable[Disk]) -> bool:
    """Whether none of ``disks`` conflicts with a disk ``mounted`` on the node."""
    mounted = tuple(mounted)
    return not any(disks_conflict(mine, theirs) for mine in disks for theirs in mounted)


def claims_in_use(columns: NodeColumns) -> frozenset[str]:
    """``namespace/claim`` of every claim a pod on some node of ``columns`` uses (the snapshot's PVC reference
    counts), from the columns' incremental index."""
    codes, claim_sets = columns.categories(_CLAIMS_INDEX, _node_claims)
    if not claim_sets:
        return frozenset()
    used = np.unique(codes)
    return frozenset().union(*(claim_sets[code] for code in used.tolist() if code >= 0))


#: Skip, shared (a Status is immutable): the answer for a pod without volumes.
_SKIP = Status.skip()

class VolumeRestrictions(Plugin):
    """Rejects nodes where a pod mounts the same disk, and every node while a ReadWriteOncePod claim of the pod is
    in use (both Unschedulable: evicting the other pod helps)."""

    name = NAME

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deleted (it may free a disk or a claim), a node added, one of the pod's claims created."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.hint_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.hint_claim_added),
        ]

    def hint_pod_deleted(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the deleted pod, of the pod's namespace, mounted a disk that conflicts with one of the pod's or
        used a claim of the same name (its access mode is not looked up, as in v1.32)."""
        if old_obj is None:
            return QueueingHint.QUEUE
        if old_obj.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if not fits_disks(pod_disks(pod.spec.volumes), pod_disks(old_obj.spec.volumes)):
            return QueueingHint.QUEUE
        claims = {v.claim_name for v in pod.spec.volumes if v.source == _PVC_SOURCE}
        if any(v.source == _PVC_SOURCE and v.claim_name in claims for v in old_obj.spec.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_claim_added(self, pod: Pod, old_obj: PersistentVolumeClaim | None,
                         new_obj: PersistentVolumeClaim | None) -> QueueingHint:
        """Queue when the new claim is one the pod's volumes name, in its namespace."""
        if new_obj is None or new_obj.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(v.source == _PVC_SOURCE and v.claim_name == new_obj.name for v in pod.spec.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _read_write_once_pod_claims(self, pod: Pod) -> tuple[frozenset[str], Status | None]:
        """The pod's ReadWriteOncePod claim names, or the status rejecting a pod whose claim does not exist."""
        lister = self.handle.storage_lister
        found = set()
        for volume in pod.spec.volumes:
            if volume.source != _PVC_SOURCE:
                continue
            claim = lister.claim(pod.namespace, volume.claim_name)
            if claim is None:
                return frozenset(), Status.unresolvable(f'persistentvolumeclaim "{volume.claim_name}" not found')
            if _READ_WRITE_ONCE_POD in claim.spec.access_modes:
                found.add(claim.name)
        return frozenset(found), None

    def _pre_filter(self, state: CycleState, pod: Pod, claims_in_use: Callable[[], frozenset[str]]) -> Status | None:
        """PreFilter, the claims pods use (``namespace/name``) told by ``claims_in_use`` when the pod has a
        ReadWriteOncePod claim."""
        if not pod.spec.volumes:
            return Status.skip()
        claims, status = self._read_write_once_pod_claims(pod)
        if status is not None:
            return status
        conflicting = 0
        if claims:
            used = claims_in_use()
            conflicting = sum(1 for name in claims if f"{pod.namespace}/{name}" in used)
        if conflicting == 0 and not pod_disks(pod.spec.volumes):
            return Status.skip()
        state.write(_STATE_KEY, RestrictionsState(claims, conflicting))
        return None

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Record the pod's ReadWriteOncePod claims and how many are in use (counted over ``nodes``' pods); Skip
        when there is nothing to check; reject a pod whose claim does not exist."""
        if not pod.spec.volumes:
            return _SKIP
        return self._pre_filter(state, pod, lambda: frozenset(
            claim for info in nodes for claim in _node_claims(info) or ()))

    @hookimpl
    def pre_filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
        """:meth:`pre_filter`, the claims in use read from the columns' incremental index."""
        if not pod.spec.volumes:
            return _SKIP
        return self._pre_filter(state, pod, lambda: claims_in_use(node_batch.columns))

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod_info_to_add: PodInfo) -> Status | None:
        """Count the added pod's uses of the pod's ReadWriteOncePod claims."""
        recorded = state.get(_STATE_KEY)
        if recorded is None:
            return Status.as_error(NO_PRE_FILTER_STATE)
        recorded.update_with_pod(pod_info_to_add, 1)
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod_info_to_remove: PodInfo) -> Status | None:
        """Stop counting the removed pod's uses of the pod's ReadWriteOncePod claims."""
        recorded = state.get(_STATE_KEY)
        if recorded is None:
            return Status.as_error(NO_PRE_FILTER_STATE)
        recorded.update_with_pod(pod_info_to_remove, -1)
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable where a pod on the node mounts one of the pod's disks, else everywhere while one of its
        ReadWriteOncePod claims is in use; an Error without PreFilter's state."""
        disks = pod_disks(pod.spec.volumes)
        if disks and not fits_disks(disks, (d for p in node_info.pods for d in pod_disks(p.pod.spec.volumes))):
            return _DISK_CONFLICT
        recorded = state.get(_STATE_KEY)
        if recorded is None:
            return Status.as_error(NO_PRE_FILTER_STATE)
        return _CLAIM_CONFLICT if recorded.conflicting_claims > 0 else None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch: the disk check decided once per distinct set of mounted
        disks, then the claim check alike for every node."""
        recorded = state.get(_STATE_KEY)
        if recorded is None:
            raise StateNotFoundError(NO_PRE_FILTER_STATE)
        if recorded.conflicting_claims > 0:
            return np.full(len(node_batch), Code.UNSCHEDULABLE, dtype=np.int8)
        disks = pod_disks(pod.spec.volumes)
        if not disks:
            return None
        codes, disk_sets = node_batch.columns.categories(_DISKS_INDEX, _node_disks)
        rejected = [not fits_disks(disks, mounted) for mounted in disk_sets]
        if not any(rejected):
            return None
        # table[code] answers for a node with that set of disks; table[-1] for a node with none.
        table = np.zeros(len(disk_sets) + 1, dtype=np.int8)
        table[:-1][rejected] = Code.UNSCHEDULABLE
        out: npt.NDArray[np.int8] = table[node_batch.column(codes)]
        return out

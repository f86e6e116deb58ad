"""NodeVolumeLimits: a node takes no more volumes of a CSI driver than its CSINode says the driver can attach.

kube-scheduler v1.32's CSILimits (the in-tree EBS, GCE PD, Azure Disk and Cinder limit plugins are gone in v1.32).
PreFilter returns Skip for a pod without a persistentVolumeClaim, generic ephemeral or migratable in-tree volume (an
inline CSI volume is never counted). Filter gathers the pod's volumes as ``<driver>/<handle>`` unique names: a claim
bound to a CSI PersistentVolume gives its driver and handle, one bound to an in-tree volume the CSI driver it migrated
to (when the node's CSINode says so, see :mod:`.translation`), an unbound claim (or one whose volume is missing) its
class's provisioner and a name of its own; an inline in-tree volume is translated the same way. The node's pods'
volumes are gathered alike, each unique name counted once; the pod's volumes already on the node add nothing. The
node fits while, for every driver of the pod's new volumes with an allocatable count in the node's CSINode, the
attached volumes plus the new ones stay within the count (``node(s) exceed max volume count``, Unschedulable:
evicting pods frees attachments). A node without a CSINode, or without counts, always fits.

A missing claim of the pod rejects the node UnschedulableAndUnresolvable (``looking up PVC ns/name: ...``); a
generic ephemeral volume's claim not owned by the pod, or an inline volume csi-translation-lib cannot translate (an
azureDisk of a kind other than Managed, an EBS volume ID of another form), is an Error, for the pod's volumes and the
node's pods' alike. Not modelled: VolumeAttachment objects (v1.32 also counts volumes still attached for pods already
gone; kubesched's nodes detach at once), and the azureFile and vsphereVolume in-tree sources (never counted in v1.32).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubesched.api import CSINode, PersistentVolumeClaim, Pod, Volume
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    Handle,
    NodeInfo,
    Plugin,
    QueueingHint,
    Status,
    StorageLister,
    hookimpl,
)
from kubesched.plugins.nodevolumelimits.translation import (
    CSI_DRIVER_OF_PLUGIN,
    PLUGIN_OF_SOURCE,
    CSIVolume,
    TranslationError,
    migration_on,
    translate_inline,
    translate_pv,
)

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
_PVC_SOURCE = "persistentVolumeClaim"
_EPHEMERAL_SOURCE = "ephemeral"
_CSI_SOURCE = "csi"
#: The handle prefix of an unbound claim's volume (v1.32 draws 32 random characters per scheduler; a fixed prefix
#: keeps runs repeatable and, like them, matches no real volume handle).
UNBOUND_HANDLE_PREFIX = "kubesched-unbound-claim"

_EXCEEDED = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED).with_plugin(NAME)


class ClaimNotFoundError(Exception):
    """A pod's claim does not exist (an apierrors NotFound: UnschedulableAndUnresolvable for the pod's own)."""


class VolumeError(Exception):
    """A pod's volumes cannot be counted (an Error status)."""


def counts_volumes(volume: Volume) -> bool:
    """Whether ``volume`` may count against a limit: a claim, a generic ephemeral volume or a migratable in-tree
    volume (PreFilter's test)."""
    return volume.source in (_PVC_SOURCE, _EPHEMERAL_SOURCE) or volume.source in PLUGIN_OF_SOURCE


def claim_of(pod: Pod, volume: Volume) -> str:
    """The claim a claim or generic ephemeral volume uses (``<pod>-<volume>`` for the latter), or ""."""
    return volume.claim_of(pod.name)


class NodeVolumeLimits(Plugin):
    """Rejects nodes where the pod's new CSI volumes would exceed their driver's attach limit (Unschedulable)."""

    name = NAME

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args)
        self._volumes = AttachableVolumes(handle.storage_lister)

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A CSINode added, a pod with counted volumes deleted from a node, one of the pod's claims created."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.hint_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.hint_claim_added),
        ]

    def hint_pod_deleted(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the deleted pod was bound and had a volume that may count against a limit."""
        if old_obj is None:
            return QueueingHint.QUEUE
        if not old_obj.spec.node_name or not any(counts_volumes(v) for v in old_obj.spec.volumes):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def hint_claim_added(self, pod: Pod, old_obj: PersistentVolumeClaim | None,
                         new_obj: PersistentVolumeClaim | None) -> QueueingHint:
        """Queue when the new claim is one the pod's claim or ephemeral volumes use, in its namespace."""
        if new_obj is None or new_obj.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(claim_of(pod, v) == new_obj.name for v in pod.spec.volumes if v.source != _CSI_SOURCE):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    @hookimpl
    def pre_filter(self, pod: Pod) -> Status | None:
        """Skip for a pod without a volume that may count against a limit."""
        volumes = pod.spec.volumes
        return None if volumes and any(counts_volumes(v) for v in volumes) else Status.skip()

    @hookimpl
    def filter(self, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable when a driver's attached plus new volumes exceed the node's allocatable count for it."""
        node = node_info.node
        if not pod.spec.volumes or node is None:
            return None
        csi_node = self.handle.storage_lister.csi_node(node.name)
        try:
            new = self._volumes.of(pod, csi_node, new_pod=True)
        except ClaimNotFoundError as error:
            return Status.unresolvable(str(error))
        except VolumeError as error:
            return Status.as_error(str(error))
        if not new:
            return None
        limits = volume_limits(csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        try:
            for pod_info in node_info.pods:
                attached.update(self._volumes.of(pod_info.pod, csi_node, new_pod=False))
        except VolumeError as error:
            return Status.as_error(str(error))
        attached_count: dict[str, int] = {}
        for unique_name, driver in attached.items():
            new.pop(unique_name, None)  # a volume already on the node counts once
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return _EXCEEDED
        return None


class AttachableVolumes:
    """Counts pods' volumes as CSI attachments, reading claims, volumes and classes through a storage lister (the
    plugin's, or the simulation's for the result's per-node counts)."""

    def __init__(self, lister: StorageLister) -> None:
        self._lister = lister

    def of(self, pod: Pod, csi_node: CSINode | None, *, new_pod: bool) -> dict[str, str]:
        """The pod's countable volumes on a node with ``csi_node``: unique name -> driver (filterAttachableVolumes).
        A missing claim raises :class:`ClaimNotFoundError` for the pod being scheduled and is skipped for a pod on
        the node."""
        lister = self._lister
        found: dict[str, str] = {}
        for volume in pod.spec.volumes:
            if volume.source not in (_PVC_SOURCE, _EPHEMERAL_SOURCE):
                inline = _inline_volume(volume, csi_node)
                if inline is not None:
                    found[inline.unique_name] = inline.driver
                continue
            name = claim_of(pod, volume)
            if not name:
                raise VolumeError("PersistentVolumeClaim had no name")
            claim = lister.claim(pod.namespace, name)
            if claim is None:
                if new_pod:
                    raise ClaimNotFoundError(f'looking up PVC {pod.namespace}/{name}: persistentvolumeclaim "{name}" '
                                             "not found")
                continue
            if volume.source == _EPHEMERAL_SOURCE and not _owned_by(claim, pod):
                raise VolumeError(f"PVC {claim.namespace}/{claim.name} was not created for pod "
                                  f"{pod.namespace}/{pod.name} (pod is not owner)")
            counted = self._claim_volume(claim, csi_node)
            if counted is not None:
                found[counted.unique_name] = counted.driver
        return found

    def _claim_volume(self, claim: PersistentVolumeClaim, csi_node: CSINode | None) -> CSIVolume | None:
        """The CSI volume a claim counts as (getCSIDriverInfo), or None when it does not count."""
        if not claim.volume_name:
            return self._class_volume(claim, csi_node)
        pv = self._lister.volume(claim.volume_name)
        if pv is None:
            return self._class_volume(claim, csi_node)  # deleted, or pre-bound to a volume not created yet
        if pv.source == _CSI_SOURCE:
            return CSIVolume(pv.driver, pv.handle) if pv.driver and pv.handle else None
        plugin = PLUGIN_OF_SOURCE.get(pv.source)
        if plugin is None or not migration_on(csi_node, plugin):
            return None
        try:
            translated = translate_pv(pv)
        except TranslationError:
            return None
        return translated if translated.driver and translated.handle else None

    def _class_volume(self, claim: PersistentVolumeClaim, csi_node: CSINode | None) -> CSIVolume | None:
        """An unbound claim's volume: its class's provisioner (or the CSI driver an in-tree one migrated to) and a
        handle of its own (getCSIDriverInfoFromSC); None without a class."""
        class_name = claim.class_name
        if not class_name:
            return None
        storage_class = self._lister.storage_class(class_name)
        if storage_class is None:
            return None
        handle = f"{UNBOUND_HANDLE_PREFIX}-{claim.namespace}/{claim.name}"
        provisioner = storage_class.provisioner
        if provisioner in CSI_DRIVER_OF_PLUGIN:
            if not migration_on(csi_node, provisioner):
                return None
            return CSIVolume(CSI_DRIVER_OF_PLUGIN[provisioner], handle)
        return CSIVolume(provisioner, handle)

    def per_driver(self, pods: Iterable[Pod], csi_node: CSINode | None) -> dict[str, int]:
        """How many unique volumes of each driver ``pods`` (a node's) attach; pods whose volumes cannot be counted
        are left out."""
        attached: dict[str, str] = {}
        for pod in pods:
            try:
                attached.update(self.of(pod, csi_node, new_pod=False))
            except VolumeError:
                continue
        counts: dict[str, int] = {}
        for driver in attached.values():
            counts[driver] = counts.get(driver, 0) + 1
        return counts


def _inline_volume(volume: Volume, csi_node: CSINode | None) -> CSIVolume | None:
    """An inline in-tree volume as the CSI volume it counts as on a node with ``csi_node`` (checkAttachableInline-
    Volume), or None when it does not count."""
    plugin = PLUGIN_OF_SOURCE.get(volume.source)
    if plugin is None or not migration_on(csi_node, plugin):
        return None
    try:
        return translate_inline(volume)
    except TranslationError as error:
        raise VolumeError(f"converting volume({volume.name}) from inline to csi: {error}") from None


def _owned_by(claim: PersistentVolumeClaim, pod: Pod) -> bool:
    """Whether the pod controls the claim (ephemeral.VolumeIsForPod): same namespace, controller reference to it."""
    owner = next((ref for ref in claim.metadata.owner_references if ref.controller), None)
    return claim.namespace == pod.namespace and owner is not None and owner.uid == pod.uid


def volume_limits(csi_node: CSINode | None) -> dict[str, int]:
    """The node's attach limit per CSI driver, from its CSINode's allocatable counts (none without a CSINode)."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable_count for d in csi_node.drivers if d.allocatable_count is not None}


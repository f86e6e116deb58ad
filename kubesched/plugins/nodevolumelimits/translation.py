"""In-tree volumes as CSI volumes, as kube-scheduler v1.32's NodeVolumeLimits sees them through csi-translation-lib:
which in-tree plugins migrated to which CSI drivers, whether a node's CSINode says the migration is on, and the
volume handle a translated volume gets (the unique name ``<driver>/<handle>`` two pods' volumes are compared by).
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

import attrs

from kubesched.api import CSINode, PersistentVolume, Volume

GCE_PD_PLUGIN = "kubernetes.io/gce-pd"
AWS_EBS_PLUGIN = "kubernetes.io/aws-ebs"
AZURE_DISK_PLUGIN = "kubernetes.io/azure-disk"
CINDER_PLUGIN = "kubernetes.io/cinder"
PORTWORX_PLUGIN = "kubernetes.io/portworx-volume"
#: Every in-tree plugin csi-translation-lib migrates, and its CSI driver (IsMigratableIntreePluginByName).
CSI_DRIVER_OF_PLUGIN = {
    GCE_PD_PLUGIN: "pd.csi.storage.gke.io",
    AWS_EBS_PLUGIN: "ebs.csi.aws.com",
    CINDER_PLUGIN: "cinder.csi.openstack.org",
    AZURE_DISK_PLUGIN: "disk.csi.azure.com",
    "kubernetes.io/azure-file": "file.csi.azure.com",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
    PORTWORX_PLUGIN: "pxd.portworx.com",
}
#: The in-tree plugin of each migratable volume source that kubesched reads (a pod's or a PersistentVolume's).
PLUGIN_OF_SOURCE = {
    "gcePersistentDisk": GCE_PD_PLUGIN,
    "awsElasticBlockStore": AWS_EBS_PLUGIN,
    "azureDisk": AZURE_DISK_PLUGIN,
    "cinder": CINDER_PLUGIN,
    "portworxVolume": PORTWORX_PLUGIN,
}
#: Plugins whose migration v1.32 takes as on wherever the node has a CSINode (their CSIMigration gates are GA).
_ALWAYS_MIGRATED = frozenset((GCE_PD_PLUGIN, AWS_EBS_PLUGIN, AZURE_DISK_PLUGIN, CINDER_PLUGIN))
#: The zones in a multi-zone label value, and the labels a GCE PD's zone is read from (beta first).
_MULTI_ZONE_DELIMITER = "__"
_ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
_UNSPECIFIED = "UNSPECIFIED"
_EBS_VOLUME_ID = re.compile(r"^vol-[^/]*$")


class TranslationError(Exception):
    """csi-translation-lib could not translate a volume (its message is v1.32's)."""


@attrs.frozen
class CSIVolume:
    """A volume as NodeVolumeLimits counts it: its CSI driver and volume handle."""

    driver: str
    handle: str

    @property
    def unique_name(self) -> str:
        """``<driver>/<handle>``: two pods' volumes with the same unique name count once on a node."""
        return f"{self.driver}/{self.handle}"


def migration_on(csi_node: CSINode | None, plugin: str) -> bool:
    """Whether the node's volumes of in-tree ``plugin`` are served by its CSI driver (isCSIMigrationOn): never
    without a CSINode; always for GCE PD, AWS EBS, Azure Disk and Cinder; for Portworx when the CSINode's
    migrated-plugins annotation lists it; never for the others."""
    if csi_node is None or not plugin:
        return False
    if plugin in _ALWAYS_MIGRATED:
        return True
    return plugin == PORTWORX_PLUGIN and plugin in csi_node.migrated_plugins()


def ebs_volume_id(volume_id: str) -> str:
    """An AWS EBS volume's ID (``vol-...``) from the in-tree ``volumeID`` (``aws://<zone>/vol-...`` or bare)."""
    if not volume_id.startswith("aws://"):
        return volume_id
    aws_id = unquote(urlsplit(volume_id).path).strip("/")
    if not _EBS_VOLUME_ID.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({volume_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    """The one region of GCE ``zones`` (``us-central1-a`` is in ``us-central1``)."""
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def _gce_pv_handle(pv: PersistentVolume) -> str:
    """A GCE PD PersistentVolume's CSI handle: zonal or regional by its zone label, unspecified without one."""
    label = pv.labels.get(_ZONE_LABELS[0]) or pv.labels.get(_ZONE_LABELS[1], "")
    zones = label.split(_MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pv.handle}"
    if len(zones) > 1:
        try:
            region = _gce_region(zones)
        except TranslationError as error:
            raise TranslationError(f"failed to get region from zones: {error}") from None
        return f"projects/{_UNSPECIFIED}/regions/{region}/disks/{pv.handle}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pv.handle}"


def _check_azure_kind(kind: str) -> None:
    if kind and kind.lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")


def translate_pv(pv: PersistentVolume) -> CSIVolume:
    """An in-tree PersistentVolume as its CSI driver's volume (TranslateInTreePVToCSI)."""
    plugin = PLUGIN_OF_SOURCE[pv.source]
    driver = CSI_DRIVER_OF_PLUGIN[plugin]
    if plugin == GCE_PD_PLUGIN:
        return CSIVolume(driver, _gce_pv_handle(pv))
    if plugin == AWS_EBS_PLUGIN:
        return CSIVolume(driver, ebs_volume_id(pv.handle))
    if plugin == AZURE_DISK_PLUGIN:
        _check_azure_kind(pv.disk_kind)
    return CSIVolume(driver, pv.handle)


def translate_inline(volume: Volume) -> CSIVolume:
    """An in-tree pod volume as its CSI driver's volume (TranslateInTreeInlineVolumeToCSI)."""
    plugin = PLUGIN_OF_SOURCE[volume.source]
    driver = CSI_DRIVER_OF_PLUGIN[plugin]
    if plugin == GCE_PD_PLUGIN:
        return CSIVolume(driver, f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{volume.handle}")
    if plugin == AWS_EBS_PLUGIN:
        try:
            return CSIVolume(driver, ebs_volume_id(volume.handle))
        except TranslationError as error:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {error}") from None
    if plugin == AZURE_DISK_PLUGIN:
        _check_azure_kind(volume.disk_kind)
    return CSIVolume(driver, volume.handle)

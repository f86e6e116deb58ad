"""A pod's volumes and the claim template a claim is made from (apart from the storage objects, so the pod model
can hold volumes without importing them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kubesched.api.meta import EMPTY_MAP, LabelSelector, frozen_str_map, frozen_strs, frozen_tuple
from kubesched.api.quantity import Quantity

#: Pod volume kinds (the key of the pod's ``volumes[]`` entry naming its source).
PVC_SOURCE = "persistentVolumeClaim"
EPHEMERAL_SOURCE = "ephemeral"
CSI_SOURCE = "csi"


@attrs.frozen(slots=True)
class ClaimTemplate:
    """What a claim asks for: a StatefulSet's volumeClaimTemplate, a generic ephemeral volume's template, or a
    PVC's own spec."""

    access_modes: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    #: spec.resources.requests.storage; None when unset.
    storage: Quantity | None = None
    #: spec.storageClassName; None when unset (the default class applies), "" for "no class".
    storage_class_name: str | None = None
    volume_name: str = ""
    selector: LabelSelector | None = None
    volume_mode: str = "Filesystem"


@attrs.frozen(slots=True)
class Volume:
    """A pod volume: its name, the source kind (``persistentVolumeClaim``, ``ephemeral``, ``csi``,
    ``gcePersistentDisk``, ``emptyDir``...) and what the volume plugins read of it."""

    name: str
    source: str
    #: persistentVolumeClaim.claimName.
    claim_name: str = ""
    read_only: bool = False
    #: The disk's identity for the same-disk checks and in-tree limits: pdName, volumeID, diskURI, ``iqn:lun``,
    #: ``monitors/pool/image``, a CSI driver's volume handle.
    handle: str = ""
    #: The CSI driver of an inline CSI volume.
    driver: str = ""
    #: A generic ephemeral volume's claim template, and the labels of its metadata (its claims carry them).
    ephemeral: ClaimTemplate | None = None
    ephemeral_labels: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    #: An azureDisk's kind as the API server defaults it (``Shared`` when unset); "" for other sources.
    disk_kind: str = ""

    def claim_of(self, pod_name: str) -> str:
        """The claim this volume uses: its claimName, or ``<pod>-<volume>`` for a generic ephemeral volume,
        or "" when it uses none."""
        if self.source == PVC_SOURCE:
            return self.claim_name
        if self.source == EPHEMERAL_SOURCE:
            return f"{pod_name}-{self.name}"
        return ""


def frozen_volumes(value: Iterable[Volume]) -> tuple[Volume, ...]:
    """Converter of a pod's volume list."""
    return frozen_tuple(value)




@attrs.frozen(slots=True)
class VolumeClaimTemplate:
    """A StatefulSet's volumeClaimTemplate: pod ``<set>-<n>`` gets claim ``<name>-<set>-<n>`` with this spec."""

    name: str
    spec: ClaimTemplate
    labels: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)


def frozen_claim_templates(value: Iterable[VolumeClaimTemplate]) -> tuple[VolumeClaimTemplate, ...]:
    """Converter of a StatefulSet's volumeClaimTemplates."""
    return frozen_tuple(value)

"""The storage object model: pod volumes, PersistentVolumes and their claims, StorageClasses and the CSI objects
(CSINode, CSIDriver, CSIStorageCapacity) the volume plugins read, as frozen attrs classes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta, frozen_strs, frozen_tuple
from kubesched.api.pod import NodeSelector
from kubesched.api.quantity import Quantity
from kubesched.api.volume import ClaimTemplate

READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)

BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
BINDING_MODES = (BINDING_IMMEDIATE, BINDING_WAIT_FOR_FIRST_CONSUMER)

#: StorageClass annotation marking the class claims without a class get (DefaultStorageClass admission).
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
#: Its beta spelling, still honoured.
BETA_DEFAULT_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
#: PVC annotation: the node the scheduler chose for a WaitForFirstConsumer claim's provisioning.
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
#: PVC annotation naming the provisioner that should provision the claim.
STORAGE_PROVISIONER_ANNOTATION = "volume.kubernetes.io/storage-provisioner"
#: The provisioner of classes whose volumes are created by hand (local volumes): never provisioned.
NO_PROVISIONER = "kubernetes.io/no-provisioner"
#: CSINode annotation listing the in-tree plugins whose volumes the node's CSI drivers serve (CSI migration).
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

@attrs.frozen(slots=True)
class ClaimRef:
    """A PersistentVolume's spec.claimRef: the claim it is bound (or pre-bound) to."""

    namespace: str
    name: str
    uid: str = ""

    @property
    def key(self) -> str:
        """``namespace/name`` of the claim."""
        return f"{self.namespace}/{self.name}"


@attrs.frozen(slots=True)
class PersistentVolume:
    """A PersistentVolume: capacity, access modes, class, the claim it is bound to, node affinity, and the disk it
    is (a CSI driver and handle, or an in-tree source kind and its identity)."""

    metadata: ObjectMeta
    capacity: Quantity | None = None
    access_modes: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    storage_class_name: str = ""
    claim_ref: ClaimRef | None = None
    node_affinity: NodeSelector | None = None
    volume_mode: str = "Filesystem"
    #: The volume source kind (``csi``, ``local``, ``hostPath``, ``gcePersistentDisk``...).
    source: str = ""
    driver: str = ""
    handle: str = ""
    phase: str = "Available"
    #: An azureDisk volume's kind as the API server defaults it (``Shared`` when unset); "" for other sources.
    disk_kind: str = ""

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def labels(self) -> Mapping[str, str]:
        """metadata.labels."""
        return self.metadata.labels


@attrs.frozen(slots=True)
class PersistentVolumeClaim:
    """A PersistentVolumeClaim: what it asks for and, once bound, the volume it is bound to (spec.volumeName)."""

    metadata: ObjectMeta
    spec: ClaimTemplate = attrs.field(factory=ClaimTemplate)
    phase: str = "Pending"

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """metadata.namespace."""
        return self.metadata.namespace

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.metadata.namespace}/{self.metadata.name}"

    @property
    def volume_name(self) -> str:
        """spec.volumeName: the PV the claim is bound to (or pre-bound to), or ""."""
        return self.spec.volume_name

    @property
    def class_name(self) -> str:
        """The claim's class as the binder reads it (storagehelpers.GetPersistentVolumeClaimClass): the
        spec.storageClassName, "" when unset."""
        return self.spec.storage_class_name or ""


@attrs.frozen(slots=True)
class TopologySelectorRequirement:
    """One key of a StorageClass's allowedTopologies term, with the values it allows."""

    key: str
    values: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


def _topology_requirements(value: Iterable[TopologySelectorRequirement]) -> tuple[TopologySelectorRequirement, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class TopologySelectorTerm:
    """An allowedTopologies term: its requirements are ANDed; the class's terms are ORed."""

    match_label_expressions: tuple[TopologySelectorRequirement, ...] = attrs.field(
        default=(), converter=_topology_requirements)


def _topology_terms(value: Iterable[TopologySelectorTerm]) -> tuple[TopologySelectorTerm, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class StorageClass:
    """A StorageClass: who provisions its volumes, when claims bind, and where its volumes may be provisioned."""

    metadata: ObjectMeta
    provisioner: str
    volume_binding_mode: str = BINDING_IMMEDIATE
    allowed_topologies: tuple[TopologySelectorTerm, ...] = attrs.field(default=(), converter=_topology_terms)

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def is_default(self) -> bool:
        """Whether the class is marked as the default class (either annotation)."""
        annotations = self.metadata.annotations
        return "true" in (annotations.get(DEFAULT_CLASS_ANNOTATION), annotations.get(BETA_DEFAULT_CLASS_ANNOTATION))


@attrs.frozen(slots=True)
class CSINodeDriver:
    """One CSI driver on a node: its topology keys and how many of its volumes the node can attach (None: no
    limit)."""

    name: str
    node_id: str = ""
    allocatable_count: int | None = None
    topology_keys: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


def _drivers(value: Iterable[CSINodeDriver]) -> tuple[CSINodeDriver, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class CSINode:
    """A node's CSI drivers (named as the node)."""

    metadata: ObjectMeta
    drivers: tuple[CSINodeDriver, ...] = attrs.field(default=(), converter=_drivers)

    @property
    def name(self) -> str:
        """metadata.name: the node's."""
        return self.metadata.name

    def driver(self, name: str) -> CSINodeDriver | None:
        """The node's entry for driver ``name``, or None."""
        return next((d for d in self.drivers if d.name == name), None)

    def migrated_plugins(self) -> frozenset[str]:
        """The in-tree plugins whose volumes the node's CSI drivers serve (CSI migration)."""
        text = self.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION, "")
        return frozenset(part.strip() for part in text.split(",") if part.strip())


@attrs.frozen(slots=True)
class CSIDriver:
    """A CSI driver's declared behaviour: whether the scheduler must check CSIStorageCapacity for it."""

    metadata: ObjectMeta
    storage_capacity: bool = False
    attach_required: bool = True

    @property
    def name(self) -> str:
        """metadata.name: the driver's."""
        return self.metadata.name


@attrs.frozen(slots=True)
class CSIStorageCapacity:
    """How much a class's driver can still provision in the topology segment its selector picks."""

    metadata: ObjectMeta
    storage_class_name: str
    node_topology: LabelSelector | None = None
    capacity: Quantity | None = None
    maximum_volume_size: Quantity | None = None

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name


#: Every storage object the cluster holds, as one type (the loader's and the cluster's).
StorageObject = (PersistentVolume | PersistentVolumeClaim | StorageClass | CSINode | CSIDriver
                 | CSIStorageCapacity)
STORAGE_TYPES = (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver, CSIStorageCapacity)

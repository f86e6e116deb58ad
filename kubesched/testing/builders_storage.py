"""Builders for the storage objects the volume plugins read: PersistentVolume, PersistentVolumeClaim,
StorageClass, CSINode, CSIDriver and CSIStorageCapacity (pod volumes are PodBuilder's ``pvc`` and ``volume``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta, OwnerReference
from kubesched.api.pod import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod
from kubesched.api.quantity import Quantity
from kubesched.api.storage import (
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    DEFAULT_CLASS_ANNOTATION,
    MIGRATED_PLUGINS_ANNOTATION,
    READ_WRITE_ONCE,
    ClaimRef,
    CSIDriver,
    CSINode,
    CSINodeDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorRequirement,
    TopologySelectorTerm,
)
from kubesched.api.volume import ClaimTemplate
from kubesched.testing.builders_terms import MetadataBuilder, NodeTermLike, SelectorLike, node_term_of, selector_of

#: The annotation the PV controller puts on a claim once its binding is complete.
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"


def _meta(name: str, namespace: str = "") -> ObjectMeta:
    uid = f"{namespace}/{name}-uid" if namespace else f"{name}-uid"
    return ObjectMeta(name=name, namespace=namespace, uid=uid)


class PvBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.storage.PersistentVolume`: 1Gi, ReadWriteOnce, no class, unbound, a CSI
    volume of driver ``csi.example.com`` whose handle is its name."""

    def __init__(self, name: str) -> None:
        self._meta = _meta(name)
        self._pv = PersistentVolume(self._meta, capacity=Quantity.parse("1Gi"), access_modes=(READ_WRITE_ONCE,),
                                    source="csi", driver="csi.example.com", handle=name)

    def capacity(self, size: str) -> PvBuilder:
        """Set spec.capacity.storage (``"10Gi"``)."""
        self._pv = attrs.evolve(self._pv, capacity=Quantity.parse(size))
        return self

    def access_modes(self, *modes: str) -> PvBuilder:
        """Set spec.accessModes."""
        self._pv = attrs.evolve(self._pv, access_modes=modes)
        return self

    def storage_class(self, name: str) -> PvBuilder:
        """Set spec.storageClassName."""
        self._pv = attrs.evolve(self._pv, storage_class_name=name)
        return self

    def bound_to(self, namespace: str, name: str, uid: str | None = None) -> PvBuilder:
        """Set spec.claimRef to claim ``namespace/name`` and the phase Bound."""
        ref = ClaimRef(namespace, name, f"{namespace}/{name}-uid" if uid is None else uid)
        self._pv = attrs.evolve(self._pv, claim_ref=ref, phase="Bound")
        return self

    def node_affinity_in(self, key: str, *values: str) -> PvBuilder:
        """Add a required node affinity term ``key In values`` (one more ORed term per call)."""
        term = NodeSelectorTerm(match_expressions=(NodeSelectorRequirement(key, "In", values),))
        current = self._pv.node_affinity.node_selector_terms if self._pv.node_affinity else ()
        self._pv = attrs.evolve(self._pv, node_affinity=NodeSelector((*current, term)))
        return self

    def node_affinity_term(self, term: NodeTermLike) -> PvBuilder:
        """Add a required node affinity term built with ``make_node_term`` (its expressions ANDed; one more ORed
        term per call)."""
        current = self._pv.node_affinity.node_selector_terms if self._pv.node_affinity else ()
        self._pv = attrs.evolve(self._pv, node_affinity=NodeSelector((*current, node_term_of(term))))
        return self

    def csi(self, driver: str, handle: str | None = None) -> PvBuilder:
        """Make it a CSI volume of ``driver`` (handle: the PV's name unless given)."""
        self._pv = attrs.evolve(self._pv, source="csi", driver=driver, handle=handle or self._pv.name)
        return self

    def source(self, kind: str, handle: str = "") -> PvBuilder:
        """Make it an in-tree or local volume (``local``, ``hostPath``, ``gcePersistentDisk``...) with that
        disk identity."""
        self._pv = attrs.evolve(self._pv, source=kind, driver="", handle=handle)
        return self

    def phase(self, phase: str) -> PvBuilder:
        """Set status.phase."""
        self._pv = attrs.evolve(self._pv, phase=phase)
        return self

    def obj(self) -> PersistentVolume:
        """The PersistentVolume."""
        return attrs.evolve(self._pv, metadata=self._meta)


class PvcBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.storage.PersistentVolumeClaim`: 1Gi, ReadWriteOnce, no class set, pending."""

    def __init__(self, name: str, namespace: str = "default") -> None:
        self._meta = _meta(name, namespace)
        self._pvc = PersistentVolumeClaim(self._meta, ClaimTemplate(access_modes=(READ_WRITE_ONCE,),
                                                                    storage=Quantity.parse("1Gi")))

    def _spec(self, **changes: Any) -> PvcBuilder:
        self._pvc = attrs.evolve(self._pvc, spec=attrs.evolve(self._pvc.spec, **changes))
        return self

    def request(self, size: str) -> PvcBuilder:
        """Set spec.resources.requests.storage."""
        return self._spec(storage=Quantity.parse(size))

    def access_modes(self, *modes: str) -> PvcBuilder:
        """Set spec.accessModes."""
        return self._spec(access_modes=modes)

    def storage_class(self, name: str | None) -> PvcBuilder:
        """Set spec.storageClassName (None: unset, "": no class)."""
        return self._spec(storage_class_name=name)

    def selector(self, selector: SelectorLike | None) -> PvcBuilder:
        """Set spec.selector."""
        return self._spec(selector=selector_of(selector))

    def bound(self, volume_name: str) -> PvcBuilder:
        """Bind it to PersistentVolume ``volume_name`` as the PV controller does: spec.volumeName, the
        ``pv.kubernetes.io/bind-completed`` annotation (the scheduler counts only such a claim bound) and phase
        Bound."""
        self._spec(volume_name=volume_name)
        self.annotations({BIND_COMPLETED_ANNOTATION: "yes"})
        self._pvc = attrs.evolve(self._pvc, phase="Bound")
        return self

    def prebound(self, volume_name: str) -> PvcBuilder:
        """Name PersistentVolume ``volume_name`` in spec.volumeName only, as a user pre-binds a claim (still
        pending: the PV controller completes the binding)."""
        return self._spec(volume_name=volume_name)

    def phase(self, phase: str) -> PvcBuilder:
        """Set status.phase (``Lost`` for a bound claim whose PV is gone)."""
        self._pvc = attrs.evolve(self._pvc, phase=phase)
        return self

    def owned_by(self, pod: Pod) -> PvcBuilder:
        """Make ``pod`` its controller, as the ephemeral volume controller does for a pod's generic ephemeral
        volume (ownerReference v1 Pod with the pod's uid, controller true)."""
        ref = OwnerReference("v1", "Pod", pod.name, pod.uid, controller=True)
        self._meta = attrs.evolve(self._meta, owner_references=(*self._meta.owner_references, ref))
        return self

    def deleting(self, when: str = "1970-01-01T00:00:00Z") -> PvcBuilder:
        """Mark it as being deleted (metadata.deletionTimestamp)."""
        self._meta = attrs.evolve(self._meta, deletion_timestamp=datetime.fromisoformat(when.replace("Z", "+00:00")))
        return self

    def obj(self) -> PersistentVolumeClaim:
        """The PersistentVolumeClaim."""
        return attrs.evolve(self._pvc, metadata=self._meta)


class StorageClassBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.storage.StorageClass`: Immediate binding, no allowed topologies."""

    def __init__(self, name: str, provisioner: str = "csi.example.com") -> None:
        self._meta = _meta(name)
        self._class = StorageClass(self._meta, provisioner=provisioner)

    def wait_for_first_consumer(self) -> StorageClassBuilder:
        """volumeBindingMode WaitForFirstConsumer."""
        self._class = attrs.evolve(self._class, volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER)
        return self

    def immediate(self) -> StorageClassBuilder:
        """volumeBindingMode Immediate (the default)."""
        self._class = attrs.evolve(self._class, volume_binding_mode=BINDING_IMMEDIATE)
        return self

    def allowed_topology(self, values: Mapping[str, tuple[str, ...] | list[str]]) -> StorageClassBuilder:
        """Add an allowedTopologies term: every key of ``values`` must take one of its values (ANDed)."""
        term = TopologySelectorTerm(tuple(TopologySelectorRequirement(key, tuple(vals))
                                          for key, vals in values.items()))
        self._class = attrs.evolve(self._class, allowed_topologies=(*self._class.allowed_topologies, term))
        return self

    def default(self) -> StorageClassBuilder:
        """Mark it as the default class."""
        return self.annotations({DEFAULT_CLASS_ANNOTATION: "true"})

    def obj(self) -> StorageClass:
        """The StorageClass."""
        return attrs.evolve(self._class, metadata=self._meta)


class CSINodeBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.storage.CSINode` (named as its node), with no drivers."""

    def __init__(self, name: str) -> None:
        self._meta = _meta(name)
        self._drivers: list[CSINodeDriver] = []

    def driver(self, name: str, count: int | None = None, *topology_keys: str) -> CSINodeBuilder:
        """Add driver ``name`` with an allocatable volume count (None: unlimited) and topology keys."""
        self._drivers.append(CSINodeDriver(name=name, node_id=self._meta.name, allocatable_count=count,
                                           topology_keys=topology_keys))
        return self

    def migrated(self, *plugins: str) -> CSINodeBuilder:
        """Set the migrated-plugins annotation (``kubernetes.io/gce-pd``...)."""
        self.annotations({MIGRATED_PLUGINS_ANNOTATION: ",".join(plugins)})
        return self

    def obj(self) -> CSINode:
        """The CSINode."""
        return CSINode(self._meta, tuple(self._drivers))


def make_pv(name: str) -> PvBuilder:
    """A PersistentVolume builder."""
    return PvBuilder(name)


def make_pvc(name: str, namespace: str = "default") -> PvcBuilder:
    """A PersistentVolumeClaim builder."""
    return PvcBuilder(name, namespace)


def make_storage_class(name: str, provisioner: str = "csi.example.com") -> StorageClassBuilder:
    """A StorageClass builder."""
    return StorageClassBuilder(name, provisioner)


def make_csi_node(name: str) -> CSINodeBuilder:
    """A CSINode builder (``name``: its node's)."""
    return CSINodeBuilder(name)


def make_csi_driver(name: str, *, storage_capacity: bool = False, attach_required: bool = True) -> CSIDriver:
    """A CSIDriver."""
    return CSIDriver(_meta(name), storage_capacity=storage_capacity, attach_required=attach_required)


def make_capacity(name: str, storage_class: str, capacity: str | None, *, namespace: str = "default",
                  topology: SelectorLike | None = None, maximum_volume_size: str | None = None) -> CSIStorageCapacity:
    """A CSIStorageCapacity of ``storage_class`` in the segment ``topology`` selects."""
    selector: LabelSelector | None = selector_of(topology)
    return CSIStorageCapacity(
        _meta(name, namespace), storage_class_name=storage_class, node_topology=selector,
        capacity=None if capacity is None else Quantity.parse(capacity),
        maximum_volume_size=None if maximum_volume_size is None else Quantity.parse(maximum_volume_size))

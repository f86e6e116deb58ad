"""Decode the storage objects (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
CSIStorageCapacity) and a pod's volumes, checked as the API server checks them, every failure naming its field."""

from __future__ import annotations

from kubesched.api import validation
from kubesched.api.pod import NodeSelector
from kubesched.api.quantity import Quantity
from kubesched.api.storage import (
    BINDING_IMMEDIATE,
    BINDING_MODES,
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
from kubesched.api.volume import CSI_SOURCE
from kubesched.io import decode_volumes
from kubesched.io import fields as f
from kubesched.io.decode_pod import node_selector_term
from kubesched.io.meta import Obj, check_name, label_selector, object_meta

#: Every PersistentVolume source (core/v1 PersistentVolumeSource).
PV_SOURCES = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder", "cephfs",
    "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk",
    "portworxVolume", "scaleIO", "local", "storageos", "csi",
)


def _claim_ref(value: object, path: str) -> ClaimRef | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    return ClaimRef(namespace=f.string(obj.get("namespace"), f"{path}.namespace", "default") or "default",
                    name=f.string(obj.get("name"), f"{path}.name"), uid=f.string(obj.get("uid"), f"{path}.uid"))


def _volume_node_affinity(value: object, path: str) -> NodeSelector | None:
    if value is None:
        return None
    obj = f.mapping(value, path)
    required = obj.get("required")
    if required is None:
        return None
    req = f.mapping(required, f"{path}.required")
    terms = f.items(req.get("nodeSelectorTerms"), f"{path}.required.nodeSelectorTerms", node_selector_term)
    if not terms:
        f.report(f"{path}.required.nodeSelectorTerms", "Required value: must have at least one node selector term")
    return NodeSelector(terms)


def persistent_volume(obj: Obj) -> PersistentVolume:
    """Decode a PersistentVolume, checked in ValidatePersistentVolumeSpec's order: access modes, capacity, node
    affinity, then the one volume source."""
    meta = object_meta(obj, namespaced=False)
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    modes = decode_volumes.access_modes(spec.get("accessModes"), "spec.accessModes", required=True)
    capacity = f.resource_list(spec.get("capacity"), "spec.capacity")
    storage = capacity.get("storage")
    if storage is None:
        f.report("spec.capacity", "Required value")
        if not capacity:
            f.report("spec.capacity", 'Unsupported value: core.ResourceList(nil): supported values: "storage"')
    for name in capacity:
        if name != "storage":
            f.report("spec.capacity", f'Unsupported value: {f.quote(name)}: supported values: "storage"')
    affinity = _volume_node_affinity(spec.get("nodeAffinity"), "spec.nodeAffinity")
    if spec.get("local") is not None and affinity is None:
        f.report("spec.nodeAffinity", "Required value: Local volume requires node affinity")
    source = decode_volumes.sources(spec, "spec", PV_SOURCES)
    source_spec = f.mapping(spec.get(source), f"spec.{source}") if source else {}
    driver = ""
    if source == CSI_SOURCE:
        driver = decode_volumes.csi_driver_name(source_spec, f"spec.{source}.driver")
        if not source_spec.get("volumeHandle"):
            f.report(f"spec.{source}.volumeHandle", "Required value")
    handle, _read_only = decode_volumes.handle(source, source_spec, f"spec.{source}") if source else ("", False)
    kind = decode_volumes.disk_kind(source, source_spec, f"spec.{source}")
    return PersistentVolume(
        metadata=meta, capacity=storage, access_modes=modes,
        storage_class_name=f.string(spec.get("storageClassName"), "spec.storageClassName"),
        claim_ref=_claim_ref(spec.get("claimRef"), "spec.claimRef"),
        node_affinity=affinity,
        volume_mode=f.one_of(spec.get("volumeMode"), "spec.volumeMode", decode_volumes.VOLUME_MODES,
                             "Filesystem") or "Filesystem",
        source=source, driver=driver, handle=handle, disk_kind=kind,
        phase=f.string(status.get("phase"), "status.phase", "Available") or "Available",
    )


def persistent_volume_claim(obj: Obj) -> PersistentVolumeClaim:
    """Decode a PersistentVolumeClaim."""
    status = f.mapping(obj.get("status"), "status")
    return PersistentVolumeClaim(
        metadata=object_meta(obj, namespaced=True),
        spec=decode_volumes.claim_template(f.mapping(obj.get("spec"), "spec"), "spec"),
        phase=f.string(status.get("phase"), "status.phase", "Pending") or "Pending",
    )


def _topology_requirement(obj: Obj, path: str) -> TopologySelectorRequirement:
    """One allowedTopologies requirement: its values (at least one), then its key (a qualified name)."""
    values = f.string_list(obj.get("values"), f"{path}.values")
    if not values:
        f.report(f"{path}.values", "Required value")
    key = f.string(obj.get("key"), f"{path}.key")
    check_name(key, f"{path}.key", validation.qualified_name)
    return TopologySelectorRequirement(key=key, values=values)


def _topology_term(obj: Obj, path: str) -> TopologySelectorTerm:
    return TopologySelectorTerm(f.items(obj.get("matchLabelExpressions"), f"{path}.matchLabelExpressions",
                                        _topology_requirement))


def storage_class(obj: Obj) -> StorageClass:
    """Decode a StorageClass (allowVolumeExpansion, parameters and mount options do not affect scheduling)."""
    provisioner = f.string(obj.get("provisioner"), "provisioner")
    if not provisioner:
        f.report("provisioner", "Required value")
    else:
        check_name(provisioner, "provisioner", validation.qualified_name)
    return StorageClass(
        metadata=object_meta(obj, namespaced=False),
        provisioner=provisioner,
        volume_binding_mode=f.one_of(obj.get("volumeBindingMode"), "volumeBindingMode", BINDING_MODES,
                                     BINDING_IMMEDIATE) or BINDING_IMMEDIATE,
        allowed_topologies=f.items(obj.get("allowedTopologies"), "allowedTopologies", _topology_term),
    )


def _csi_node_driver(obj: Obj, path: str) -> CSINodeDriver:
    allocatable = f.mapping(obj.get("allocatable"), f"{path}.allocatable")
    count = f.integer(allocatable.get("count"), f"{path}.allocatable.count", bits=32)
    if count is not None and count < 0:
        f.report(f"{path}.allocatable.count", f"Invalid value: {count}: must be greater than or equal to 0")
    name = decode_volumes.csi_driver_name(obj, f"{path}.name", "name")
    node_id = f.string(obj.get("nodeID"), f"{path}.nodeID")
    if not node_id:
        f.report(f"{path}.nodeID", "Required value")
    return CSINodeDriver(name=name, node_id=node_id, allocatable_count=count,
                         topology_keys=f.string_list(obj.get("topologyKeys"), f"{path}.topologyKeys"))


def csi_node(obj: Obj) -> CSINode:
    """Decode a CSINode: its drivers and their attachable-volume counts (a driver's problems, then its name
    repeated)."""
    spec = f.mapping(obj.get("spec"), "spec")
    drivers: list[CSINodeDriver] = []
    for i, item in enumerate(f.sequence(spec.get("drivers"), "spec.drivers")):
        driver = _csi_node_driver(f.mapping(item, f"spec.drivers[{i}]"), f"spec.drivers[{i}]")
        if driver.name and any(d.name == driver.name for d in drivers):
            f.report(f"spec.drivers[{i}].name", f"Duplicate value: {f.quote(driver.name)}")
        drivers.append(driver)
    return CSINode(metadata=object_meta(obj, namespaced=False), drivers=tuple(drivers))


def csi_driver(obj: Obj) -> CSIDriver:
    """Decode a CSIDriver: whether its capacity is checked and whether its volumes attach."""
    spec = f.mapping(obj.get("spec"), "spec")
    return CSIDriver(metadata=object_meta(obj, namespaced=False),
                     storage_capacity=f.boolean(spec.get("storageCapacity"), "spec.storageCapacity"),
                     attach_required=f.boolean(spec.get("attachRequired"), "spec.attachRequired", True))


def _optional_quantity(value: object, path: str) -> Quantity | None:
    return None if value is None else f.quantity(value, path)


def csi_storage_capacity(obj: Obj) -> CSIStorageCapacity:
    """Decode a CSIStorageCapacity: a class's remaining capacity in one topology segment."""
    class_name = f.string(obj.get("storageClassName"), "storageClassName")
    check_name(class_name, "storageClassName", validation.dns1123_subdomain)
    return CSIStorageCapacity(
        metadata=object_meta(obj, namespaced=True),
        storage_class_name=class_name,
        node_topology=label_selector(obj.get("nodeTopology"), "nodeTopology"),
        capacity=_optional_quantity(obj.get("capacity"), "capacity"),
        maximum_volume_size=_optional_quantity(obj.get("maximumVolumeSize"), "maximumVolumeSize"),
    )

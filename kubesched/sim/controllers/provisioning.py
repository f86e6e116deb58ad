"""What a simulated provisioner makes: which provisioners run in the simulated cluster, the topology segment a
new volume lands in, and the PersistentVolume it creates for a claim (as a CSI external-provisioner does)."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime

import attrs

from kubesched.api.meta import ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kubesched.api.quantity import Quantity
from kubesched.api.storage import (
    NO_PROVISIONER,
    ClaimRef,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from kubesched.storage import StorageStore

#: The PV annotation naming the provisioner that made it.
PROVISIONED_BY_ANNOTATION = "pv.kubernetes.io/provisioned-by"
#: The zone label: a provisioner's topology when no CSINode says otherwise.
ZONE_LABEL = "topology.kubernetes.io/zone"
#: In-tree provisioners and the CSI drivers that provision for them in v1.32 (CSI migration).
MIGRATED_PROVISIONERS: Mapping[str, str] = {
    "kubernetes.io/aws-ebs": "ebs.csi.aws.com",
    "kubernetes.io/gce-pd": "pd.csi.storage.gke.io",
    "kubernetes.io/azure-disk": "disk.csi.azure.com",
    "kubernetes.io/azure-file": "file.csi.azure.com",
    "kubernetes.io/cinder": "cinder.csi.openstack.org",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
    "kubernetes.io/portworx-volume": "pxd.portworx.com",
}
#: The ``provisioners`` setting's value that makes every provisioner run.
ALL_PROVISIONERS = "*"


def driver_of(provisioner: str) -> str:
    """The CSI driver that provisions for ``provisioner`` (itself, unless an in-tree name migrated to CSI)."""
    return MIGRATED_PROVISIONERS.get(provisioner, provisioner)


def provisioner_runs(provisioner: str, chosen: tuple[str, ...] | None, store: StorageStore) -> bool:
    """Whether the simulated cluster runs ``provisioner``: ``chosen`` lists the provisioners that run (``*``: all);
    None means those the input shows running: a CSIDriver of that name, a CSINode listing it, or a PV it
    provisioned. ``kubernetes.io/no-provisioner`` never runs."""
    if not provisioner or provisioner == NO_PROVISIONER:
        return False
    if chosen is not None:
        return ALL_PROVISIONERS in chosen or provisioner in chosen or driver_of(provisioner) in chosen
    names = {provisioner, driver_of(provisioner)}
    if any(store.csi_driver(name) is not None for name in names):
        return True
    if any(driver.name in names for csi_node in store.csi_nodes() for driver in csi_node.drivers):
        return True
    return any(pv.metadata.annotations.get(PROVISIONED_BY_ANNOTATION) in names for pv in store.volumes())


def topology_keys(provisioner: str, store: StorageStore, node_name: str | None = None) -> tuple[str, ...]:
    """The topology keys the driver reports on its CSINodes (the given node's, else any), else the zone label."""
    driver = driver_of(provisioner)
    csi_nodes = [store.csi_node(node_name)] if node_name is not None else list(store.csi_nodes())
    for csi_node in csi_nodes:
        entry = csi_node.driver(driver) if csi_node is not None else None
        if entry is not None and entry.topology_keys:
            return entry.topology_keys
    return (ZONE_LABEL,)


def segment_of(node: Node, keys: Iterable[str]) -> dict[str, str]:
    """The node's values of ``keys`` (those it has)."""
    labels = node.metadata.labels
    return {key: labels[key] for key in keys if key in labels}


def allowed_segment(storage_class: StorageClass, rng: random.Random) -> dict[str, str] | None:
    """A segment the class's allowedTopologies allow, picked with ``rng`` (a term, then a value per key); None
    when the class names none."""
    if not storage_class.allowed_topologies:
        return None
    term = rng.choice(storage_class.allowed_topologies)
    return {req.key: rng.choice(req.values) for req in term.match_label_expressions if req.values}


def immediate_segment(storage_class: StorageClass, keys: tuple[str, ...], nodes: Iterable[Node],
                      rng: random.Random) -> dict[str, str]:
    """Where an Immediate claim's volume goes: a segment of the class's allowedTopologies, else one of the nodes'
    segments of ``keys`` (picked with ``rng`` among the distinct ones, sorted), else none."""
    allowed = allowed_segment(storage_class, rng)
    if allowed is not None:
        return allowed
    segments = sorted({tuple(sorted(segment_of(node, keys).items())) for node in nodes if segment_of(node, keys)})
    return dict(rng.choice(segments)) if segments else {}


def provisioned_volume(claim: PersistentVolumeClaim, storage_class: StorageClass, segment: Mapping[str, str],
                       rng: random.Random, when: datetime) -> PersistentVolume:
    """The PV ``pvc-<claim uid>`` a provisioner creates for ``claim``: the requested size, modes and class, a CSI
    volume of the provisioner's driver, pre-bound to the claim, with a node affinity on ``segment``."""
    name = f"pvc-{claim.metadata.uid}"
    affinity = None
    if segment:
        term = NodeSelectorTerm(match_expressions=tuple(NodeSelectorRequirement(key, "In", (value,))
                                                        for key, value in sorted(segment.items())))
        affinity = NodeSelector((term,))
    meta = ObjectMeta(name=name, uid=str(uuid.UUID(int=rng.getrandbits(128), version=4)), creation_timestamp=when,
                      annotations={PROVISIONED_BY_ANNOTATION: storage_class.provisioner})
    return PersistentVolume(
        metadata=meta, capacity=claim.spec.storage or Quantity.from_int(0), access_modes=claim.spec.access_modes,
        storage_class_name=storage_class.name,
        claim_ref=ClaimRef(claim.namespace, claim.name, claim.metadata.uid), node_affinity=affinity,
        volume_mode=claim.spec.volume_mode, source="csi", driver=driver_of(storage_class.provisioner), handle=name)


def with_annotations(claim: PersistentVolumeClaim, changes: Mapping[str, str | None]) -> PersistentVolumeClaim:
    """``claim`` with annotations set (a None value removes the key)."""
    annotations = {k: v for k, v in claim.metadata.annotations.items() if k not in changes}
    annotations.update({k: v for k, v in changes.items() if v is not None})
    return attrs.evolve(claim, metadata=attrs.evolve(claim.metadata, annotations=annotations))

"""The matching rules the binder shares with the PV controller (component-helpers' storage/volume): a PV's node
affinity, which PV a claim gets (FindMatchingVolume), a class's allowed topologies, and a CSI driver's storage
capacity for a new volume."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from kubesched.api import (
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    Quantity,
    StorageClass,
    TopologySelectorTerm,
    term_matches,
)
from kubesched.framework import Handle
from kubesched.plugins.volume_binding.claims import claim_class, volume_class

#: A PV's status.phase while it is free to bind.
VOLUME_AVAILABLE = "Available"
#: CheckNodeAffinity's error when no term of a PV's required node affinity matches the node.
NO_MATCHING_TERMS = "no matching NodeSelectorTerms"


def node_affinity_error(volume: PersistentVolume, labels: Mapping[str, str]) -> str | None:
    """CheckNodeAffinity: None when the node's labels satisfy the PV's required node affinity (or it has none),
    else the error. Only labels count: a ``metadata.name`` field selector never matches, as in kube-scheduler."""
    affinity = volume.node_affinity
    if affinity is None or not affinity.node_selector_terms:
        return None
    if any(term_matches(term, labels, "") for term in affinity.node_selector_terms):
        return None
    return NO_MATCHING_TERMS


def is_bound_to(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """IsVolumeBoundToClaim: the PV's claimRef names the claim (and its uid, when the ref has one)."""
    ref = volume.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
        return False
    return not ref.uid or ref.uid == claim.metadata.uid


def access_modes_fit(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """CheckAccessModes: the PV offers every access mode the claim asks for."""
    return set(claim.spec.access_modes) <= set(volume.access_modes)


def _amount(quantity: Quantity | None) -> int:
    return 0 if quantity is None else quantity.value()


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         labels: Mapping[str, str] | None, excluded: Collection[str] = (),
                         delay_binding: bool = False) -> PersistentVolume | None:
    """FindMatchingVolume: a PV pre-bound to the claim (None when its node affinity fails the node), else the
    smallest free PV of the claim's class, volume mode and selector that holds the request (the first of equal
    sizes). ``labels`` are the node's on the scheduler's path, None on the PV controller's, where
    ``delay_binding`` leaves free PVs to the scheduler and access modes are checked by the caller's index."""
    requested = _amount(claim.spec.storage)
    requested_class = claim_class(claim)
    selector = claim.spec.selector
    smallest: PersistentVolume | None = None
    smallest_size = 0
    for volume in volumes:
        if volume.name in excluded:
            continue
        bound_here = is_bound_to(volume, claim)
        if volume.claim_ref is not None and not bound_here:
            continue
        size = _amount(volume.capacity)
        if size < requested or volume.volume_mode != claim.spec.volume_mode:
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        affinity_ok = labels is None or node_affinity_error(volume, labels) is None
        if bound_here:
            return volume if affinity_ok else None
        if labels is None and delay_binding:
            continue
        if volume.phase != VOLUME_AVAILABLE or (selector is not None and not selector.matches(volume.labels)):
            continue
        if volume_class(volume) != requested_class or not affinity_ok:
            continue
        if labels is not None and not access_modes_fit(claim, volume):
            continue
        if smallest is None or smallest_size > size:
            smallest, smallest_size = volume, size
    return smallest


def topology_allows(terms: tuple[TopologySelectorTerm, ...], labels: Mapping[str, str]) -> bool:
    """MatchTopologySelectorTerms: no terms allow every node; otherwise some term whose every key has one of its
    values among the node's labels."""
    if not terms:
        return True
    return any(all(labels.get(req.key) in req.values for req in term.match_label_expressions) for term in terms)


def volume_limit(capacity: CSIStorageCapacity) -> Quantity | None:
    """The largest volume a CSIStorageCapacity allows: maximumVolumeSize when set, else its capacity."""
    return capacity.maximum_volume_size if capacity.maximum_volume_size is not None else capacity.capacity


def has_enough_capacity(handle: Handle, claim: PersistentVolumeClaim, storage_class: StorageClass,
                        labels: Mapping[str, str]) -> bool:
    """hasEnoughCapacity: True unless the class's provisioner is a CSIDriver asking for capacity checks
    (``storageCapacity: true``) and no CSIStorageCapacity of the class whose topology selects the node allows a
    volume of the claim's size."""
    if claim.spec.storage is None:
        return True
    driver = handle.storage_lister.csi_driver(storage_class.provisioner)
    if driver is None or not driver.storage_capacity:
        return True
    size = claim.spec.storage.value()
    for capacity in handle.storage_lister.capacities():
        if capacity.storage_class_name != storage_class.name:
            continue
        limit = volume_limit(capacity)
        if limit is None or limit.value() < size:
            continue
        if capacity.node_topology is not None and capacity.node_topology.matches(labels):
            return True
    return False

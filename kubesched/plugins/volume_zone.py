"""VolumeZone: a pod's bound PersistentVolumes labelled with a zone or region keep it to nodes of that zone or region.

kube-scheduler v1.32's volumezone plugin. PreFilter reads the pod's persistentVolumeClaim volumes (not its generic
ephemeral ones): each claim must exist; a claim bound to a PersistentVolume contributes the volume's zone and region
labels, current (``topology.kubernetes.io/zone|region``) and beta (``failure-domain.beta.kubernetes.io/zone|region``)
alike, each value a ``__``-separated set of zones (a value with an empty member is ignored, as LabelZonesToSet
fails on it); an unbound claim of a WaitForFirstConsumer class adds nothing (VolumeBinding places it); an unbound
claim of any other class, or without a class, rejects the pod. A missing claim, volume or class rejects the pod with
the lister's NotFound words. All these PreFilter rejections are UnschedulableAndUnresolvable. Without any labelled
volume PreFilter returns Skip.

Filter passes a node without any zone or region label (a single-zone cluster); otherwise every labelled volume must
find its value among the node's labels under the same key, or under the current key for a beta one
(``node(s) had no available volume zone``, UnschedulableAndUnresolvable: preemption cannot move a volume). The verdict
reads only the node's labels, so the plugin declares ``filter_reads = NODE`` and decides its batch form once per
distinct set of zone labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import PersistentVolume, PersistentVolumeClaim, Pod, StorageClass
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    NodeBatch,
    NodeInfo,
    Plugin,
    QueueingHint,
    StateKey,
    Status,
    hookimpl,
)

NAME = "VolumeZone"
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
#: The labels read, in kube-scheduler's order (a volume's topologies are listed in it).
TOPOLOGY_LABELS = (LABEL_ZONE_BETA, LABEL_REGION_BETA, LABEL_ZONE, LABEL_REGION)
#: A beta key a node may carry under its current name instead.
_GA_LABEL = {LABEL_ZONE_BETA: LABEL_ZONE, LABEL_REGION_BETA: LABEL_REGION}
#: The separator of the zones in a multi-zone label value (LabelMultiZoneDelimiter).
MULTI_ZONE_DELIMITER = "__"
_PVC_SOURCE = "persistentVolumeClaim"
_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

_ADD_OR_UPDATE = ActionType.ADD | ActionType.UPDATE
_REJECT = Status.unresolvable(ERR_REASON_CONFLICT).with_plugin(NAME)
#: The columns' categories of the nodes' zone and region labels (None for a node without any).
_ZONE_LABELS_INDEX = (NAME, "zone-labels")
NodeZoneLabels = tuple[tuple[str, str], ...]


@attrs.frozen
class PVTopology:
    """One zone or region label of a bound volume: the volume, the label key and the values it allows."""

    pv_name: str
    key: str
    values: frozenset[str]


@attrs.frozen
class PVTopologies:
    """PreFilter's state: the pod's volume topologies (immutable, so a cloned CycleState shares it)."""

    topologies: tuple[PVTopology, ...]


_STATE_KEY = StateKey[PVTopologies]("PreFilter" + NAME)


def label_zones(value: str) -> frozenset[str] | None:
    """The zones of a zone label value (``a__b``), each trimmed; None when one is empty (LabelZonesToSet's error)."""
    zones = [zone.strip() for zone in value.split(MULTI_ZONE_DELIMITER)]
    return None if any(not zone for zone in zones) else frozenset(zones)


def pv_topologies(pv: PersistentVolume) -> tuple[PVTopology, ...]:
    """The zone and region labels of ``pv`` (getPVTopologies), in :data:`TOPOLOGY_LABELS` order, unparsable ones
    left out."""
    found = []
    labels = pv.labels
    for key in TOPOLOGY_LABELS:
        value = labels.get(key)
        if value is None:
            continue
        zones = label_zones(value)
        if zones is not None:
            found.append(PVTopology(pv.name, key, zones))
    return tuple(found)


def not_found(resource: str, name: str) -> str:
    """A lister's NotFound error text (``persistentvolumeclaim "data" not found``)."""
    return f'{resource} "{name}" not found'


def claim_names(pod: Pod) -> list[str]:
    """The claims of the pod's persistentVolumeClaim volumes, in volume order."""
    return [volume.claim_name for volume in pod.spec.volumes if volume.source == _PVC_SOURCE]


def fits_zones(topologies: tuple[PVTopology, ...], labels: Mapping[str, str]) -> bool:
    """Whether a node with ``labels`` satisfies every volume topology: a node without any zone or region label
    always does; otherwise each key (or the current key of a beta one) must carry one of the volume's values."""
    if not any(key in labels for key in TOPOLOGY_LABELS):
        return True
    for topology in topologies:
        value = labels.get(topology.key)
        if value is None:
            value = labels.get(_GA_LABEL.get(topology.key, topology.key))
        if value is None or value not in topology.values:
            return False
    return True


def _zone_labels(node_info: NodeInfo) -> NodeZoneLabels | None:
    node = node_info.node
    if node is None:
        return None
    labels = node.labels
    found = tuple((key, labels[key]) for key in TOPOLOGY_LABELS if key in labels)
    return found or None


class VolumeZone(Plugin):
    """Keeps a pod on nodes in the zones and regions of its bound volumes (UnschedulableAndUnresolvable)."""

    name = NAME
    #: Filter reads only the node's labels (and the pod's state).
    filter_reads = FilterReads.NODE

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A WaitForFirstConsumer class added, a node added or relabelled, one of the pod's claims added or changed,
        a volume added or its zone labels changed."""
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD), self.hint_class_added),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, _ADD_OR_UPDATE),
                                 self.hint_claim_changed),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, _ADD_OR_UPDATE),
                                 self.hint_volume_changed),
        ]

    def hint_class_added(self, pod: Pod, old_obj: StorageClass | None, new_obj: StorageClass | None) -> QueueingHint:
        """Queue for a new WaitForFirstConsumer class (an unbound claim of it no longer rejects the pod)."""
        if new_obj is not None and new_obj.volume_binding_mode == _WAIT_FOR_FIRST_CONSUMER:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_claim_changed(self, pod: Pod, old_obj: PersistentVolumeClaim | None,
                           new_obj: PersistentVolumeClaim | None) -> QueueingHint:
        """Queue when the claim is one of the pod's (same namespace, a claimName of its volumes)."""
        if new_obj is not None and new_obj.namespace == pod.namespace and new_obj.name in claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_volume_changed(self, pod: Pod, old_obj: PersistentVolume | None,
                            new_obj: PersistentVolume | None) -> QueueingHint:
        """Queue for a new volume, or one whose zone and region labels changed."""
        if old_obj is None or new_obj is None or pv_topologies(old_obj) != pv_topologies(new_obj):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _topologies(self, pod: Pod) -> tuple[tuple[PVTopology, ...], Status | None]:
        """The topologies of the pod's bound volumes (getPVbyPod), or the status rejecting the pod."""
        lister = self.handle.storage_lister
        found: list[PVTopology] = []
        for name in claim_names(pod):
            if not name:
                return (), Status.unresolvable("PersistentVolumeClaim had no name")
            claim = lister.claim(pod.namespace, name)
            if claim is None:
                return (), Status.unresolvable(not_found("persistentvolumeclaim", name))
            pv_name = claim.volume_name
            if not pv_name:
                class_name = claim.class_name
                if not class_name:
                    return (), Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                storage_class = lister.storage_class(class_name)
                if storage_class is None:
                    return (), Status.unresolvable(not_found("storageclass.storage.k8s.io", class_name))
                if storage_class.volume_binding_mode == _WAIT_FOR_FIRST_CONSUMER:
                    continue  # VolumeBinding picks the node its volume is provisioned for
                return (), Status.unresolvable("PersistentVolume had no name")
            pv = lister.volume(pv_name)
            if pv is None:
                return (), Status.unresolvable(not_found("persistentvolume", pv_name))
            found.extend(pv_topologies(pv))
        return tuple(found), None

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod) -> Status | None:
        """Record the zone and region labels of the pod's bound volumes; Skip when there are none; reject a pod
        whose claims cannot be resolved."""
        if not pod.spec.volumes:
            return Status.skip()
        topologies, status = self._topologies(pod)
        if status is not None:
            return status
        if not topologies:
            return Status.skip()
        state.write(_STATE_KEY, PVTopologies(topologies))
        return None

    def _state(self, state: CycleState, pod: Pod) -> tuple[tuple[PVTopology, ...], Status | None]:
        """PreFilter's topologies, or (as v1.32 falls back to) the pod's volumes read again without them."""
        recorded = state.get(_STATE_KEY)
        if recorded is not None:
            return recorded.topologies, None
        return self._topologies(pod)

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable on a node with zone or region labels that some bound volume's do not
        match."""
        if not pod.spec.volumes:
            return None
        topologies, status = self._state(state, pod)
        if status is not None:
            return status
        node = node_info.node
        if node is None or fits_zones(topologies, node.labels):
            return None
        return _REJECT

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch, decided once per distinct set of zone and region labels."""
        if not pod.spec.volumes:
            return None
        topologies, status = self._state(state, pod)
        if status is not None:
            # Only without PreFilter (disabled in the profile): the same status on every node, as Filter gives it.
            return np.full(len(node_batch), status.code, dtype=np.int8)
        codes, label_sets = node_batch.columns.categories(_ZONE_LABELS_INDEX, _zone_labels)
        if not label_sets:
            return None
        rejected = [not fits_zones(topologies, dict(labels)) for labels in label_sets]
        if not any(rejected):
            return None
        # table[code] answers for a node with that set of labels; table[-1] for a node without any.
        table = np.zeros(len(label_sets) + 1, dtype=np.int8)
        table[:-1][rejected] = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        out: npt.NDArray[np.int8] = table[node_batch.column(codes)]
        return out

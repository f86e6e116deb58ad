"""The simulated storage control loop: kube-controller-manager's PV controller (binding claims to matching
PersistentVolumes, asking provisioners for the others), the provisioners that run in the simulated cluster (a CSI
external-provisioner each, after ``provisioning_delay`` seconds of virtual time), the ephemeral volume
controller (a pod's ``<pod>-<volume>`` claims) and the garbage collector's part (a pod's ephemeral claims go with
it; a deleted claim's provisioned PV goes with it, a static one is Released).

It reacts to the cluster's changes at the end of the request that made them (the PV controller's reaction is a
matter of milliseconds) and its choices come from one generator seeded by the run's seed. A claim already bound in
the input is left as it is, even when its PV is missing (the real PV controller would mark it Lost; a dump without
its PVs then shows what kube-scheduler says of such a claim).
"""

from __future__ import annotations

import random
import uuid

import attrs

from kubesched.admission.chain import admit_claim
from kubesched.admission.default_storage_class import default_class
from kubesched.api.meta import ObjectMeta, OwnerReference
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.storage import (
    SELECTED_NODE_ANNOTATION,
    STORAGE_PROVISIONER_ANNOTATION,
    ClaimRef,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObject,
)
from kubesched.api.volume import EPHEMERAL_SOURCE
from kubesched.plugins.volume_binding.claims import (
    BIND_COMPLETED_ANNOTATION,
    BOUND_BY_CONTROLLER_ANNOTATION,
    claim_class,
    is_fully_bound,
    volume_class,
)
from kubesched.plugins.volume_binding.matching import access_modes_fit, find_matching_volume, is_bound_to
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.controllers.provisioning import (
    MIGRATED_PROVISIONERS,
    PROVISIONED_BY_ANNOTATION,
    immediate_segment,
    provisioned_volume,
    provisioner_runs,
    segment_of,
    topology_keys,
    with_annotations,
)

#: The beta twin of volume.kubernetes.io/storage-provisioner, which the PV controller sets as well.
BETA_PROVISIONER_ANNOTATION = "volume.beta.kubernetes.io/storage-provisioner"
CLAIM = "PersistentVolumeClaim"


@attrs.frozen
class StorageSettings:
    """How the simulated storage control loop behaves: how long a provisioner takes to create a volume (seconds
    of virtual time), and which provisioners run (None: those the input shows running; ``"*"``: all)."""

    provisioning_delay: float = 5.0
    provisioners: tuple[str, ...] | None = None


def is_in_tree(provisioner: str) -> bool:
    """Whether the PV controller looks for an in-tree plugin for ``provisioner`` (a ``kubernetes.io/`` name not
    migrated to CSI, such as ``kubernetes.io/no-provisioner``): v1.32 has none that provisions by default."""
    return provisioner.startswith("kubernetes.io/") and provisioner not in MIGRATED_PROVISIONERS


def volume_mismatch(volume: PersistentVolume, claim: PersistentVolumeClaim) -> str | None:
    """checkVolumeSatisfyClaim: why the PV a claim names cannot be bound to it (the PV controller's words), or
    None when it fits: not being deleted, holding the request, of the claim's class, volume mode and access
    modes."""
    if volume.metadata.deletion_timestamp is not None:
        return f'the volume is marked for deletion "{volume.name}"'
    requested = claim.spec.storage.value() if claim.spec.storage is not None else 0
    if (volume.capacity.value() if volume.capacity is not None else 0) < requested:
        return "requested PV is too small"
    if volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if volume.volume_mode != claim.spec.volume_mode:
        return "incompatible volumeMode"
    if not access_modes_fit(claim, volume):
        return "incompatible accessMode"
    return None


class StorageController:
    """The PV controller, the running provisioners, the ephemeral volume controller and the storage garbage
    collection of one simulated cluster."""

    def __init__(self, cluster: InMemoryCluster, *, seed: int = 0, settings: StorageSettings | None = None) -> None:
        self.cluster = cluster
        self.store = cluster.storage
        self.settings = settings or StorageSettings()
        self.rng = random.Random(f"kubesched-storage:{seed}")
        self._queued: dict[str, None] = {}
        self._sync_due = False
        self._provisioning: set[str] = set()
        self._recorded: set[tuple[str, str, str]] = set()
        self.store.subscribe(self._on_storage)
        cluster.subscribe(self)

    # -- queueing ------------------------------------------------------------------------------------
    def resync(self) -> None:
        """Sync every claim (at the end of the current request), as at the controller's start."""
        for claim in list(self.store.claims()):
            self._queue(claim.key)

    def _queue(self, key: str) -> None:
        self._queued[key] = None
        if not self._sync_due:
            self._sync_due = True
            self.cluster.agenda.at_request_end(self._sync)

    def _sync(self) -> None:
        self._sync_due = False
        while self._queued:
            key = next(iter(self._queued))
            del self._queued[key]
            namespace, _, name = key.partition("/")
            claim = self.store.claim(namespace, name)
            if claim is not None:
                self._sync_claim(claim)

    def _on_storage(self, old: StorageObject | None, new: StorageObject | None) -> None:
        changed = new if new is not None else old
        if isinstance(changed, PersistentVolumeClaim):
            if new is None:
                self._claim_deleted(changed)
            elif not is_fully_bound(changed):
                self._queue(changed.key)
        elif isinstance(changed, PersistentVolume) and new is not None:
            ref = changed.claim_ref
            if ref is not None and self.store.claim(ref.namespace, ref.name) is not None:
                self._queue(ref.key)  # syncVolume queues the claim it names only when that claim exists
            for claim in self._unbound_claims():
                if claim_class(claim) == volume_class(changed):
                    self._queue(claim.key)
        elif isinstance(changed, StorageClass) and new is not None:
            for claim in self._unbound_claims():
                if claim_class(claim) in (changed.name, ""):
                    self._queue(claim.key)

    def _unbound_claims(self) -> list[PersistentVolumeClaim]:
        return [c for c in self.store.claims() if not is_fully_bound(c)]

    # -- the PV controller ---------------------------------------------------------------------------
    def _sync_claim(self, claim: PersistentVolumeClaim) -> None:
        """syncUnboundClaim: bind the claim to its PV, a pre-bound or matching one, or have one provisioned."""
        if is_fully_bound(claim) or claim.metadata.deletion_timestamp is not None:
            return
        if claim.volume_name:
            volume = self.store.volume(claim.volume_name)
            if volume is None:
                return  # a PV the claim names that does not exist (yet): the claim stays Pending
            problem = volume_mismatch(volume, claim) if volume.claim_ref is None else None
            if problem is not None:
                self._event(claim, "Warning", "VolumeMismatch",
                            f'Cannot bind to requested volume "{volume.name}": {problem}')
            elif volume.claim_ref is None or is_bound_to(volume, claim):
                self._bind(volume, claim)
            else:
                self._event(claim, "Warning", "FailedBinding",
                            f'volume "{volume.name}" already bound to a different claim.')
            return
        if claim.spec.storage_class_name is None:
            found = default_class(self.store.storage_classes())
            if found is not None:  # the PV controller's retroactive default class
                self.cluster.update_claim(attrs.evolve(claim, spec=attrs.evolve(claim.spec,
                                                                                storage_class_name=found.name)))
                return
        storage_class = self.store.storage_class(claim_class(claim)) if claim_class(claim) else None
        delayed = storage_class is not None and storage_class.volume_binding_mode == "WaitForFirstConsumer"
        volume = self._best_match(claim, delayed)
        if volume is not None:
            self._bind(volume, claim)
        elif delayed and SELECTED_NODE_ANNOTATION not in claim.metadata.annotations:
            self._wait_for_consumer(claim)
        elif not claim_class(claim):
            self._event(claim, "Normal", "FailedBinding",
                        "no persistent volumes available for this claim and no storage class is set")
        elif storage_class is None:
            self._event(claim, "Warning", "ProvisioningFailed",
                        f'storageclass.storage.k8s.io "{claim_class(claim)}" not found')
        elif is_in_tree(storage_class.provisioner):  # findProvisionablePlugin: no in-tree plugin provisions it
            self._event(claim, "Warning", "ProvisioningFailed",
                        f"no volume plugin matched name: {storage_class.provisioner}")
        else:
            self._provision(claim, storage_class)

    def _wait_for_consumer(self, claim: PersistentVolumeClaim) -> None:
        """emitEventForUnboundDelayBindingClaim: WaitForPodScheduled naming the claim's unscheduled pods, or
        WaitForFirstConsumer while no pod uses it."""
        waiting = sorted(pod.name for pod in self.cluster.list_pods_in_namespace(claim.namespace)
                         if not pod.spec.node_name and pod.status.phase not in ("Succeeded", "Failed")
                         and any(v.claim_of(pod.name) == claim.name for v in pod.spec.volumes))
        if not waiting:
            self._event(claim, "Normal", "WaitForFirstConsumer",
                        "waiting for first consumer to be created before binding")
        else:
            pods = f"pod {waiting[0]}" if len(waiting) == 1 else f"pods {','.join(waiting)}"
            self._event(claim, "Normal", "WaitForPodScheduled", f"waiting for {pods} to be scheduled")

    def _best_match(self, claim: PersistentVolumeClaim, delayed: bool) -> PersistentVolume | None:
        """findBestMatchForClaim: the PVs indexed by their access modes, the smallest set of modes holding the
        claim's first; in each, FindMatchingVolume on the PV controller's path."""
        wanted = set(claim.spec.access_modes)
        groups: dict[frozenset[str], list[PersistentVolume]] = {}
        for volume in self.store.volumes():
            groups.setdefault(frozenset(volume.access_modes), []).append(volume)
        for modes in sorted((m for m in groups if wanted <= m), key=lambda m: (len(m), sorted(m))):
            found = find_matching_volume(claim, groups[modes], None, delay_binding=delayed)
            if found is not None:
                return found
        return None

    def _bind(self, volume: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        """bind: the PV's claimRef and phase Bound, then the claim's volume, annotations and phase Bound."""
        prebound = is_bound_to(volume, claim)
        volume_annotations = dict(volume.metadata.annotations)
        if not prebound:
            volume_annotations[BOUND_BY_CONTROLLER_ANNOTATION] = "yes"
        bound_volume = attrs.evolve(volume, claim_ref=ClaimRef(claim.namespace, claim.name, claim.metadata.uid),
                                    phase="Bound",
                                    metadata=attrs.evolve(volume.metadata, annotations=volume_annotations))
        if bound_volume != volume:
            self.cluster.update_volume(bound_volume)
        changes: dict[str, str | None] = {BIND_COMPLETED_ANNOTATION: "yes"}
        if not claim.volume_name:
            changes[BOUND_BY_CONTROLLER_ANNOTATION] = "yes"
        bound_claim = with_annotations(claim, changes)
        bound_claim = attrs.evolve(bound_claim, spec=attrs.evolve(claim.spec, volume_name=volume.name), phase="Bound")
        self.cluster.update_claim(bound_claim)

    # -- provisioning --------------------------------------------------------------------------------
    def _provision(self, claim: PersistentVolumeClaim, storage_class: StorageClass) -> None:
        """provisionClaim for an external provisioner: annotate the claim with it; a provisioner that runs creates
        the PV ``provisioning_delay`` later."""
        provisioner = storage_class.provisioner
        if claim.metadata.annotations.get(STORAGE_PROVISIONER_ANNOTATION) != provisioner:
            self.cluster.update_claim(with_annotations(claim, {STORAGE_PROVISIONER_ANNOTATION: provisioner,
                                                               BETA_PROVISIONER_ANNOTATION: provisioner}))
            return  # synced again with its annotations
        self._event(claim, "Normal", "ExternalProvisioning",
                    f"Waiting for a volume to be created either by the external provisioner '{provisioner}' or "
                    "manually by the system administrator. If volume creation is delayed, please verify that the "
                    "provisioner is running and correctly registered.")
        if claim.key in self._provisioning or not provisioner_runs(provisioner, self.settings.provisioners,
                                                                   self.store):
            return
        self._event(claim, "Normal", "Provisioning",
                    f'External provisioner is provisioning volume for claim "{claim.key}"')
        if claim.spec.selector is not None:  # the external-provisioner's answer, final
            self._event(claim, "Warning", "ProvisioningFailed",
                        f'failed to provision volume with StorageClass "{storage_class.name}": '
                        "claim Selector is not supported")
            return
        self._provisioning.add(claim.key)
        self.cluster.after(self.settings.provisioning_delay, lambda: self._create_volume(claim.key))

    def _create_volume(self, key: str) -> None:
        """The provisioner's CreateVolume returned: the PV, in the selected node's topology (WaitForFirstConsumer)
        or in one picked for the class (Immediate); a selected node that is gone makes it give up (the scheduler
        then chooses again)."""
        self._provisioning.discard(key)
        namespace, _, name = key.partition("/")
        claim = self.store.claim(namespace, name)
        if claim is None or claim.volume_name or is_fully_bound(claim):
            return
        storage_class = self.store.storage_class(claim_class(claim))
        if storage_class is None:
            return
        selected = claim.metadata.annotations.get(SELECTED_NODE_ANNOTATION)
        if selected is not None:
            node = self.cluster.nodes.get(selected)
            if node is None:
                self._event(claim, "Warning", "ProvisioningFailed",
                            f'failed to get target node: node "{selected}" not found')
                self.cluster.update_claim(with_annotations(claim, {SELECTED_NODE_ANNOTATION: None}))
                return
            segment = segment_of(node, topology_keys(storage_class.provisioner, self.store, selected))
        elif storage_class.volume_binding_mode == "WaitForFirstConsumer":
            return  # the scheduler gave up on it meanwhile
        else:
            keys = topology_keys(storage_class.provisioner, self.store)
            segment = immediate_segment(storage_class, keys, self._nodes(), self.rng)
        volume = provisioned_volume(claim, storage_class, segment, self.rng, self.cluster.clock.timestamp())
        self.store.put(volume)
        self._event(claim, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {volume.name}")

    def _nodes(self) -> list[Node]:
        return [self.cluster.nodes[name] for name in sorted(self.cluster.nodes)]

    # -- garbage collection and the ephemeral volume controller --------------------------------------
    def _claim_deleted(self, claim: PersistentVolumeClaim) -> None:
        """A deleted claim's PV: deleted when provisioned (reclaim policy Delete), else Released."""
        for volume in list(self.store.volumes()):
            if volume.claim_ref is not None and is_bound_to(volume, claim):
                if PROVISIONED_BY_ANNOTATION in volume.metadata.annotations:
                    self.store.delete(volume)
                else:
                    self.cluster.update_volume(attrs.evolve(volume, phase="Released"))

    def on_pod_add(self, pod: Pod) -> None:
        """A pod with generic ephemeral volumes gets their claims, owned by it."""
        if any(v.source == EPHEMERAL_SOURCE for v in pod.spec.volumes):
            self.cluster.agenda.at_request_end(lambda: self._create_ephemeral_claims(pod))

    def _create_ephemeral_claims(self, pod: Pod) -> None:
        """The ephemeral volume controller: each missing claim from its volume's template (spec and labels)."""
        if self.cluster.pods.get(pod.uid) is None:
            return
        owner = OwnerReference("v1", "Pod", pod.name, pod.uid, controller=True)
        for volume in pod.spec.volumes:
            if volume.source != EPHEMERAL_SOURCE or volume.ephemeral is None:
                continue
            name = volume.claim_of(pod.name)
            if self.store.claim(pod.namespace, name) is not None:
                continue  # an existing claim is the pod's or not: the scheduler tells
            meta = ObjectMeta(name=name, namespace=pod.namespace, uid=self._uid(), labels=volume.ephemeral_labels,
                              creation_timestamp=self.cluster.clock.timestamp(), owner_references=(owner,))
            claim = PersistentVolumeClaim(meta, volume.ephemeral)
            self.store.put(admit_claim(claim, self.store.storage_classes()))

    def on_pod_delete(self, pod: Pod) -> None:
        """The claims a pod owns (its ephemeral volumes') are deleted with it."""
        claims = self.store.claims()
        if not claims:
            return
        for claim in list(claims):
            if claim.namespace == pod.namespace and any(
                    ref.controller and ref.uid == pod.uid for ref in claim.metadata.owner_references):
                self.store.delete(claim)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """Nothing to do."""

    def on_node_add(self, node: Node) -> None:
        """Nothing to do."""

    def on_node_update(self, node: Node) -> None:
        """Nothing to do."""

    def on_node_delete(self, name: str) -> None:
        """Nothing to do."""

    # -- helpers -------------------------------------------------------------------------------------
    def _uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _event(self, claim: PersistentVolumeClaim, kind: str, reason: str, message: str) -> None:
        """Record an event about the claim, once per reason and message (kube aggregates repeats)."""
        key = (claim.key, reason, message)
        if key in self._recorded:
            return
        self._recorded.add(key)
        self.cluster.record_object_event(CLAIM, claim.namespace, claim.name, kind, reason, message)

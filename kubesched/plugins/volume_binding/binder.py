"""The volume binder (kube-scheduler's volumebinding binder.go): a pod's claims sorted for the cycle, whether a
node can serve them (bound PVs' node affinity, a free PV to bind, or a class to provision in the node's topology
with room in its storage capacity), the bindings Reserve assumes, the writes PreBind makes and the check it
polls until the PV controller has bound every claim."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from kubesched.api import (
    NO_PROVISIONER,
    SELECTED_NODE_ANNOTATION,
    ClaimRef,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
)
from kubesched.framework import Handle
from kubesched.plugins.volume_binding.assume import AssumeCache
from kubesched.plugins.volume_binding.claims import (
    BOUND_BY_CONTROLLER_ANNOTATION,
    PodVolumeClaims,
    claim_class,
    is_delay_binding,
    is_fully_bound,
    is_owned_by,
    pod_claims,
)
from kubesched.plugins.volume_binding.matching import (
    find_matching_volume,
    has_enough_capacity,
    is_bound_to,
    node_affinity_error,
    topology_allows,
)

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """Something the binder cannot decide on (kube-scheduler returns these as errors): an Error status."""


@attrs.frozen
class Binding:
    """A static binding: the claim and the PV chosen for it (after Reserve, the PV pre-bound to the claim)."""

    claim: PersistentVolumeClaim
    volume: PersistentVolume


@attrs.frozen
class PodVolumes:
    """What a node needs for the pod's unbound claims: PVs to bind and claims to provision."""

    static_bindings: tuple[Binding, ...] = ()
    dynamic_provisions: tuple[PersistentVolumeClaim, ...] = ()


class VolumeBinder:
    """The binder of one plugin instance: it reads the cluster through the handle and keeps the assume cache."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.cache = AssumeCache(handle)

    # -- PreFilter -----------------------------------------------------------------------------------
    def pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """GetPodVolumeClaims: the pod's claims (assumed versions included) as bound, delayed or immediate, with
        the PVs of each delayed claim's class. The claims exist (PreFilter checked)."""
        bound: list[PersistentVolumeClaim] = []
        delayed: list[PersistentVolumeClaim] = []
        immediate: list[PersistentVolumeClaim] = []
        for name, ephemeral in pod_claims(pod):
            claim = self.cache.claim(pod.namespace, name)
            if claim is None:
                raise BinderError(f'error getting PVC "{pod.namespace}/{name}": not found')
            if ephemeral and not is_owned_by(claim, pod):
                raise BinderError(f"PVC {claim.namespace}/{claim.name} was not created for pod "
                                  f"{pod.namespace}/{pod.name} (pod is not owner)")
            if is_fully_bound(claim):
                bound.append(claim)
            elif is_delay_binding(claim, self.handle) and not claim.volume_name:
                delayed.append(claim)
            else:
                immediate.append(claim)  # pre-bound claims count as immediate: the PV controller binds them
        by_class = {claim_class(claim): self.cache.volumes_of_class(claim_class(claim)) for claim in delayed}
        return PodVolumeClaims(tuple(bound), tuple(delayed), tuple(immediate), by_class)

    # -- Filter --------------------------------------------------------------------------------------
    def find_pod_volumes(self, claims: PodVolumeClaims, node: Node) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: what ``node`` needs for the pod's unbound claims, and the reasons it cannot serve them
        (empty: it can)."""
        bound_ok, pvs_found, unbound_ok, enough = True, True, True, True
        static: tuple[Binding, ...] = ()
        dynamic: tuple[PersistentVolumeClaim, ...] = ()
        labels = node.metadata.labels
        if claims.bound:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound, labels)
        if claims.delayed:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            for claim in claims.delayed:
                selected = claim.metadata.annotations.get(SELECTED_NODE_ANNOTATION)
                if selected is None:
                    to_match.append(claim)
                elif selected != node.name:
                    return PodVolumes(), _reasons(bound_ok, False, enough, pvs_found)  # provisioned elsewhere
                else:
                    to_provision.append(claim)
            if to_match:
                unbound_ok, static, unmatched = self._find_matching_volumes(to_match, claims, labels)
                to_provision.extend(unmatched)
            if to_provision:
                unbound_ok, enough, dynamic = self._check_volume_provisions(to_provision, labels)
        return PodVolumes(static, dynamic), _reasons(bound_ok, unbound_ok, enough, pvs_found)

    def _check_bound_claims(self, claims: Sequence[PersistentVolumeClaim],
                            labels: Mapping[str, str]) -> tuple[bool, bool]:
        """(node affinity satisfied, every PV found) for the bound claims, stopping at the first failure."""
        for claim in claims:
            volume = self.cache.volume(claim.volume_name)
            if volume is None:
                return True, False
            if node_affinity_error(volume, labels) is not None:
                return False, True
        return True, True

    def _find_matching_volumes(self, to_match: list[PersistentVolumeClaim], claims: PodVolumeClaims,
                               labels: Mapping[str, str]
                               ) -> tuple[bool, tuple[Binding, ...], list[PersistentVolumeClaim]]:
        """findMatchingVolumes: a PV for each claim, smallest request first, none chosen twice; the claims left
        over go on to provisioning."""
        chosen: set[str] = set()
        bindings: list[Binding] = []
        unmatched: list[PersistentVolumeClaim] = []
        for claim in sorted(to_match, key=lambda c: c.spec.storage.amount if c.spec.storage is not None else 0):
            volume = find_matching_volume(claim, claims.volumes_by_class.get(claim_class(claim), ()),
                                          labels, chosen)
            if volume is None:
                unmatched.append(claim)
                continue
            chosen.add(volume.name)
            bindings.append(Binding(claim, volume))
        return not unmatched, tuple(bindings), unmatched

    def _check_volume_provisions(self, claims: list[PersistentVolumeClaim], labels: Mapping[str, str]
                                 ) -> tuple[bool, bool, tuple[PersistentVolumeClaim, ...]]:
        """checkVolumeProvisions: (provisioning possible, enough capacity, the claims to provision); stops at the
        first claim whose class cannot provision here."""
        for claim in claims:
            name = claim_class(claim)
            if not name:
                raise BinderError(f'no class for claim "{claim.key}"')
            storage_class = self.handle.storage_lister.storage_class(name)
            if storage_class is None:
                raise BinderError(f'failed to find storage class "{name}"')
            if not storage_class.provisioner or storage_class.provisioner == NO_PROVISIONER:
                return False, True, ()
            if not topology_allows(storage_class.allowed_topologies, labels):
                return False, True, ()
            if not has_enough_capacity(self.handle, claim, storage_class, labels):
                return True, False, ()
        return True, True, tuple(claims)

    def label_keys(self, claims: PodVolumeClaims) -> tuple[tuple[str, ...], bool]:
        """The node label keys :meth:`find_pod_volumes` can read for these claims (the node affinities of their
        PVs and candidate PVs, their classes' allowedTopologies, the capacities' topologies), and whether it reads
        the node's name (a delayed claim with a selected node): nodes alike in these give the same answer."""
        keys: set[str] = set()
        volumes = [self.cache.volume(claim.volume_name) for claim in claims.bound]
        volumes.extend(v for candidates in claims.volumes_by_class.values() for v in candidates)
        for volume in volumes:
            if volume is not None and volume.node_affinity is not None:
                keys.update(r.key for term in volume.node_affinity.node_selector_terms
                            for r in term.match_expressions)
        lister = self.handle.storage_lister
        for claim in claims.delayed:
            storage_class = lister.storage_class(claim_class(claim))
            if storage_class is not None:
                keys.update(r.key for term in storage_class.allowed_topologies for r in term.match_label_expressions)
        if claims.delayed:
            for capacity in lister.capacities():
                if capacity.node_topology is not None:
                    keys.update(capacity.node_topology.match_labels)
                    keys.update(r.key for r in capacity.node_topology.match_expressions)
        by_name = any(SELECTED_NODE_ANNOTATION in claim.metadata.annotations for claim in claims.delayed)
        return tuple(sorted(keys)), by_name

    # -- Reserve / Unreserve -------------------------------------------------------------------------
    def all_bound(self, pod: Pod) -> bool:
        """arePodVolumesBound: every claim of the pod (assumed versions included) is fully bound."""
        for name, _ephemeral in pod_claims(pod):
            claim = self.cache.claim(pod.namespace, name)
            if claim is None or not is_fully_bound(claim):
                return False
        return True

    def assume_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes) -> tuple[bool, PodVolumes]:
        """AssumePodVolumes: (all claims already bound, the bindings as assumed): each chosen PV pre-bound to its
        claim and each claim to provision annotated with the node, in the assume cache."""
        if self.all_bound(pod):
            return True, volumes
        bindings = []
        for binding in volumes.static_bindings:
            volume = bind_volume_to_claim(binding.volume, binding.claim)
            if volume is not binding.volume:
                self.cache.assume_volume(volume)
            bindings.append(Binding(binding.claim, volume))
        provisions = []
        for claim in volumes.dynamic_provisions:
            annotations = {**claim.metadata.annotations, SELECTED_NODE_ANNOTATION: node_name}
            annotated = attrs.evolve(claim, metadata=attrs.evolve(claim.metadata, annotations=annotations))
            self.cache.assume_claim(annotated)
            provisions.append(annotated)
        return False, PodVolumes(tuple(bindings), tuple(provisions))

    def revert(self, volumes: PodVolumes) -> None:
        """RevertAssumedPodVolumes: show the cluster's objects again."""
        for binding in volumes.static_bindings:
            self.cache.restore_volume(binding.volume.name)
        for claim in volumes.dynamic_provisions:
            self.cache.restore_claim(claim.key)

    # -- PreBind -------------------------------------------------------------------------------------
    def bind_api_update(self, volumes: PodVolumes) -> tuple[tuple[PersistentVolume | None, ...],
                                                            tuple[PersistentVolumeClaim | None, ...]]:
        """bindAPIUpdate: write each pre-bound PV and each annotated claim; returns the cluster's objects as they
        were before the writes, to tell the writes' return from stale reads."""
        lister = self.handle.storage_lister
        before_volumes = tuple(lister.volume(b.volume.name) for b in volumes.static_bindings)
        before_claims = tuple(lister.claim(c.namespace, c.name) for c in volumes.dynamic_provisions)
        client = self.handle.client
        for binding in volumes.static_bindings:
            client.update_volume(binding.volume)
        for claim in volumes.dynamic_provisions:
            client.update_claim(claim)
        return before_volumes, before_claims

    def check_bindings(self, pod: Pod, volumes: PodVolumes, stale_volumes: Sequence[object],
                       stale_claims: Sequence[object]) -> bool:
        """checkBindings: whether the PV controller has bound every claim the pod's binding touched; raises
        BinderError when binding must be retried (the pod gone, a claimRef dropped, provisioning given up, a PV
        whose node affinity no longer fits)."""
        lister = self.handle.storage_lister
        node_name = pod.spec.node_name
        node_info = self.handle.snapshot.get(node_name)
        node = node_info.node if node_info is not None else None
        if node is None:
            raise BinderError(f'failed to get node "{node_name}": node "{node_name}" not found')
        if self.handle.pod_lister.get(pod.namespace, pod.name) is None:
            raise BinderError(f'pod does not exist any more: pods "{pod.name}" not found')
        labels = node.metadata.labels
        for binding, stale in zip(volumes.static_bindings, stale_volumes, strict=True):
            volume = lister.volume(binding.volume.name)
            claim = lister.claim(binding.claim.namespace, binding.claim.name)
            if volume is None or claim is None:
                what = (f'persistentvolume "{binding.volume.name}"' if volume is None
                        else f'persistentvolumeclaim "{binding.claim.key}"')
                raise BinderError(f"failed to check binding: could not find {what}")
            if volume is stale:
                return False  # the write has not come back yet
            if (error := node_affinity_error(volume, labels)) is not None:
                raise BinderError(f'pv "{volume.name}" node affinity doesn\'t match node "{node_name}": {error}')
            if volume.claim_ref is None or not volume.claim_ref.uid:
                raise BinderError(f'ClaimRef got reset for pv "{volume.name}"')
            if not is_fully_bound(claim):
                return False
        for provision, stale in zip(volumes.dynamic_provisions, stale_claims, strict=True):
            claim = lister.claim(provision.namespace, provision.name)
            if claim is None:
                raise BinderError(f'failed to check provisioning pvc: could not find persistentvolumeclaim '
                                  f'"{provision.key}"')
            if claim is stale:
                return False
            if claim.metadata.annotations.get(SELECTED_NODE_ANNOTATION) != node_name:
                raise BinderError(f'provisioning failed for PVC "{claim.name}"')
            if claim.volume_name:
                volume = lister.volume(claim.volume_name)
                if volume is None:
                    return False  # not seen yet; if it is gone, the claim will be unbound
                if (error := node_affinity_error(volume, labels)) is not None:
                    raise BinderError(f'pv "{volume.name}" node affinity doesn\'t match node "{node_name}": {error}')
            if not is_fully_bound(claim):
                return False
        return True


def bind_volume_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> PersistentVolume:
    """GetBindVolumeToClaim: ``volume`` with its claimRef naming the claim (and its uid) and, unless it was
    already bound to it, the bound-by-controller annotation; ``volume`` itself when nothing changes."""
    changed = volume
    ref = volume.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace or ref.uid != claim.metadata.uid:
        changed = attrs.evolve(changed, claim_ref=ClaimRef(claim.namespace, claim.name, claim.metadata.uid))
    if not is_bound_to(volume, claim) and BOUND_BY_CONTROLLER_ANNOTATION not in volume.metadata.annotations:
        annotations = {**volume.metadata.annotations, BOUND_BY_CONTROLLER_ANNOTATION: "yes"}
        changed = attrs.evolve(changed, metadata=attrs.evolve(changed.metadata, annotations=annotations))
    return changed


def _reasons(bound_ok: bool, unbound_ok: bool, enough: bool, pvs_found: bool) -> list[str]:
    """The reasons in FindPodVolumes' order."""
    reasons = []
    if not bound_ok:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not enough:
        reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not pvs_found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return reasons

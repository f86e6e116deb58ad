"""A pod's claims as VolumeBinding reads them: which claims it uses, whether each exists and may be used
(kube-scheduler's podHasPVCs, with its messages), and how they split into bound claims, claims left to the
scheduler (WaitForFirstConsumer) and claims that should already be bound (GetPodVolumeClaims)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from kubesched.api import (
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    EPHEMERAL_SOURCE,
    PVC_SOURCE,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
)
from kubesched.framework import Handle

#: The claim annotation the PV controller sets once the claim's binding is complete.
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"
#: The annotation marking a binding the PV controller (or the scheduler) made, on the PV and on the claim.
BOUND_BY_CONTROLLER_ANNOTATION = "pv.kubernetes.io/bound-by-controller"
#: The beta class annotation, which wins over spec.storageClassName on claims and volumes alike.
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
#: A claim's phase once its PersistentVolume is gone.
CLAIM_LOST = "Lost"


def pod_claims(pod: Pod) -> Iterator[tuple[str, bool]]:
    """The names of the claims ``pod`` uses, in volume order, each with whether it is a generic ephemeral
    volume's (``<pod>-<volume>``)."""
    for volume in pod.spec.volumes:
        if volume.source == PVC_SOURCE:
            yield volume.claim_name, False
        elif volume.source == EPHEMERAL_SOURCE:
            yield volume.claim_of(pod.name), True


def has_claims(pod: Pod) -> bool:
    """Whether ``pod`` uses any claim (the plugin skips pods that use none)."""
    volumes = pod.spec.volumes
    return bool(volumes) and any(volume.source in (PVC_SOURCE, EPHEMERAL_SOURCE) for volume in volumes)


def claim_class(claim: PersistentVolumeClaim) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else ""."""
    annotated = claim.metadata.annotations.get(BETA_CLASS_ANNOTATION)
    return annotated if annotated is not None else claim.class_name


def volume_class(volume: PersistentVolume) -> str:
    """GetPersistentVolumeClass: the beta annotation, else spec.storageClassName."""
    annotated = volume.metadata.annotations.get(BETA_CLASS_ANNOTATION)
    return annotated if annotated is not None else volume.storage_class_name


def is_fully_bound(claim: PersistentVolumeClaim) -> bool:
    """A claim with a volume and the PV controller's bind-completed annotation."""
    return bool(claim.volume_name) and BIND_COMPLETED_ANNOTATION in claim.metadata.annotations


def is_owned_by(claim: PersistentVolumeClaim, pod: Pod) -> bool:
    """Whether ``pod`` controls ``claim`` (same namespace, a controller reference with the pod's uid)."""
    return claim.namespace == pod.namespace and any(
        ref.controller and ref.uid == pod.uid for ref in claim.metadata.owner_references)


def usage_problem(pod: Pod, handle: Handle) -> str | None:
    """Why ``pod`` cannot use its claims at all (UnschedulableAndUnresolvable in PreFilter), in kube-scheduler's
    words: a claim missing, lost, being deleted, or a generic ephemeral volume's claim not made for this pod."""
    lister = handle.storage_lister
    for name, ephemeral in pod_claims(pod):
        claim = lister.claim(pod.namespace, name)
        if claim is None:
            if ephemeral:
                return f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
            return f'persistentvolumeclaim "{name}" not found'
        if claim.phase == CLAIM_LOST:
            return f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{claim.volume_name}"'
        if claim.metadata.deletion_timestamp is not None:
            return f'persistentvolumeclaim "{name}" is being deleted'
        if ephemeral and not is_owned_by(claim, pod):
            return (f"PVC {claim.namespace}/{claim.name} was not created for pod {pod.namespace}/{pod.name} "
                    "(pod is not owner)")
    return None


@attrs.frozen
class PodVolumeClaims:
    """A pod's claims, split as the binder needs them: bound ones (their PV's node affinity is checked), unbound
    ones of WaitForFirstConsumer classes (the scheduler finds or provisions their volumes), unbound ones that
    should already be bound (Immediate classes, or naming their volume), and the PVs of the delayed claims'
    classes (read once per cycle)."""

    bound: tuple[PersistentVolumeClaim, ...] = ()
    delayed: tuple[PersistentVolumeClaim, ...] = ()
    immediate: tuple[PersistentVolumeClaim, ...] = ()
    volumes_by_class: Mapping[str, tuple[PersistentVolume, ...]] = attrs.field(factory=dict)


def is_delay_binding(claim: PersistentVolumeClaim, handle: Handle) -> bool:
    """IsDelayBindingMode: the claim's class exists and binds WaitForFirstConsumer (no class, or a class that does
    not exist, is Immediate)."""
    name = claim_class(claim)
    if not name:
        return False
    found = handle.storage_lister.storage_class(name)
    return found is not None and found.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER

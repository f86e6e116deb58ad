"""The StatefulSet controller: pods ``<statefulset>-<ordinal>``.

OrderedReady (the default) creates ordinal i+1 only once ordinals 0..i are running (bound, as kubesched models
readiness) and removes the highest ordinal first, one at a time; Parallel creates and removes them all at once.
A pod's replacement keeps its name, so it is created only once the old pod is gone (not merely terminating).
Before each pod, the claims of its volumeClaimTemplates, ``<template>-<statefulset>-<ordinal>``, are created if
missing, and the pod's volumes use them. They are kept when the pod goes or the set scales down (v1.32's default
persistentVolumeClaimRetentionPolicy, Retain/Retain: no owner references), so a re-created pod finds its claims.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from kubesched.admission.chain import admit_claim
from kubesched.api.apps import PARALLEL, StatefulSet
from kubesched.api.meta import ObjectMeta
from kubesched.api.pod import Pod
from kubesched.api.storage import PersistentVolumeClaim
from kubesched.api.volume import PVC_SOURCE, Volume
from kubesched.sim.controllers.base import ScaledController, is_available

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


class StatefulSetController(ScaledController):
    """A StatefulSet's controller."""

    kind = "StatefulSet"

    def __init__(self, manager: ControllerHost, workload: StatefulSet) -> None:
        super().__init__(manager, workload.metadata, workload.replicas)
        self.workload = workload


    def created_message(self, pod: Pod) -> str:
        """The StatefulSet controller's own words (recordPodEvent)."""
        return f"create Pod {pod.name} in StatefulSet {self.metadata.name} successful"

    def failed_create_message(self, pod: Pod, error: str) -> str:
        """The StatefulSet controller's own words (recordPodEvent)."""
        return f"create Pod {pod.name} in StatefulSet {self.metadata.name} failed error: {error}"

    def _ordinal(self, pod: Pod) -> int | None:
        prefix = f"{self.metadata.name}-"
        tail = pod.name[len(prefix):]
        return int(tail) if pod.name.startswith(prefix) and tail.isdigit() else None

    def sync(self) -> None:
        """Create the missing ordinals below ``replicas`` and delete those at or above it, in order."""
        by_ordinal = {o: p for p in self.pods() if (o := self._ordinal(p)) is not None}
        ordered = self.workload.pod_management_policy != PARALLEL
        for ordinal in range(self.replicas):
            pod = by_ordinal.get(ordinal)
            if pod is None:
                name = f"{self.metadata.name}-{ordinal}"
                if self.manager.cluster.get_pod(self.metadata.namespace, name) is None and self._claims_ready(name):
                    pod = self.make_pod(name, self.workload.template,
                                        {POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)})
                    self.create_pod(self._with_claims(pod))
                if ordered:
                    return
            elif ordered and not is_available(pod):
                return  # wait until it is running (or, terminating, gone)
        surplus = sorted((o for o in by_ordinal if o >= self.replicas), reverse=True)
        for ordinal in surplus:
            pod = by_ordinal[ordinal]
            if pod.metadata.deletion_timestamp is None:
                self.manager.delete_pod(pod, f"delete Pod {pod.name} in StatefulSet {self.metadata.name} "
                                             "successful", self)
            if ordered:
                return

    def _claim_name(self, template: str, pod_name: str) -> str:
        return f"{template}-{pod_name}"

    def _claims_ready(self, pod_name: str) -> bool:
        """Create the pod's missing claims (SuccessfulCreate events); True once they all exist. While one of them
        is being deleted the pod waits for it to go, as kube's controller does; after creating claims, the pod
        comes in a sync of its own at once: kube's controller creates it in a request after theirs, which the PV
        controller has usually seen by then (so it waits for a first consumer, not for the pod)."""
        store = self.manager.cluster.storage
        namespace = self.metadata.namespace
        created = False
        for template in self.workload.volume_claim_templates:
            name = self._claim_name(template.name, pod_name)
            existing = store.claim(namespace, name)
            if existing is not None:
                if existing.metadata.deletion_timestamp is not None:
                    return False
                continue
            labels = {**template.labels, **self.workload.selector.match_labels}
            meta = ObjectMeta(name=name, namespace=namespace, uid=self.manager.new_uid(), labels=labels,
                              creation_timestamp=self.manager.clock.timestamp())
            store.put(admit_claim(PersistentVolumeClaim(meta, template.spec), store.storage_classes()))
            self.manager.cluster.record_object_event(
                *self.regarding, "Normal", "SuccessfulCreate",
                f"create Claim {name} Pod {pod_name} in StatefulSet {self.metadata.name} success")
            created = True
        if created:
            self.manager.queue(self, 0)
        return not created

    def _with_claims(self, pod: Pod) -> Pod:
        """The pod with a persistentVolumeClaim volume per volumeClaimTemplate (replacing a template volume of that
        name), as updateStorage does."""
        templates = self.workload.volume_claim_templates
        if not templates:
            return pod
        names = {t.name for t in templates}
        volumes = [Volume(name=t.name, source=PVC_SOURCE, claim_name=self._claim_name(t.name, pod.name))
                   for t in templates]
        volumes.extend(v for v in pod.spec.volumes if v.name not in names)
        return attrs.evolve(pod, spec=attrs.evolve(pod.spec, volumes=tuple(volumes)))

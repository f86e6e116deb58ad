"""What ``kubesched capacity`` copies: the Pod of POD.yaml, or the pod a workload's controller would create from its
template (the namespace, labels and owner such a pod gets), each copy under a fresh name and uid.

A copy names its controller as a controller's pod does (default topology spreading looks the controller up by kind
and name), but under a uid no running controller has: the input's own ReplicaSet or Job, if it runs, must not
adopt the copies (it would delete the surplus, or count them as its completions).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime

import attrs

from kubesched.admission.chain import admit_claim
from kubesched.api.apps import Deployment, Job, ReplicaSet, StatefulSet
from kubesched.api.meta import LabelSelector, ObjectMeta, OwnerReference
from kubesched.api.pod import Pod, PodStatus
from kubesched.api.replace import replaced
from kubesched.api.storage import PersistentVolumeClaim, StorageClass
from kubesched.api.volume import PVC_SOURCE, Volume, VolumeClaimTemplate
from kubesched.api.workload import WorkloadController
from kubesched.io.load import derived_uid
from kubesched.sim.controllers.base import template_hash
from kubesched.sim.controllers.deployment import POD_TEMPLATE_HASH
from kubesched.sim.controllers.job import JOB_LABELS
from kubesched.sim.controllers.statefulset import POD_INDEX_LABEL, POD_NAME_LABEL

#: The workload kinds whose pod template POD.yaml may give (a DaemonSet's pods are one per node, a CronJob's belong
#: to Jobs it has not created yet).
TEMPLATE_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job")
#: What a copy's name adds to the template's: ``web-capacity-1``, ``web-capacity-2``...
COPY_INFIX = "-capacity-"

Workload = Deployment | ReplicaSet | StatefulSet | Job


@attrs.frozen
class CopyTemplate:
    """The pod every copy starts from, with where it came from and what its copies need besides."""

    #: The object POD.yaml holds: its kind and location (``deployments/default/web``).
    kind: str
    location: str
    #: Namespace, labels, annotations, owner and spec of every copy; its name is the copies' stem.
    pod: Pod
    #: Whether the loader admitted ``pod`` already (a Pod); a workload's template is admitted like a pod its
    #: controller creates, once, before the first copy.
    admitted: bool
    #: The controller the copies name as their owner, registered for plugins to look up when the input has none.
    owner: WorkloadController | None = None
    #: A StatefulSet's volumeClaimTemplates: each copy gets its own claims, as each of its pods does.
    claim_templates: tuple[VolumeClaimTemplate, ...] = ()
    #: A StatefulSet's replicas: copy ``i`` carries the pod index the set's next pods would have.
    first_index: int = 0

    def copy_name(self, index: int) -> str:
        """The name of copy ``index`` (from 1)."""
        return f"{self.pod.name}{COPY_INFIX}{index}"

    def make(self, name: str, index: int, now: datetime) -> Pod:
        """Copy ``index`` under ``name``: a fresh uid, created ``now``, pending, on no node."""
        meta = self.pod.metadata
        labels: Mapping[str, str] = meta.labels
        if self.kind == "StatefulSet":
            labels = {**labels, POD_NAME_LABEL: name, POD_INDEX_LABEL: str(self.first_index + index - 1)}
        uid = derived_uid(f"capacity/{meta.namespace}/{name}")
        new_meta = ObjectMeta(name=name, namespace=meta.namespace, uid=uid, labels=labels,
                              annotations=meta.annotations, creation_timestamp=now,
                              owner_references=meta.owner_references)
        spec = self.pod.spec
        if self.claim_templates:
            names = {t.name for t in self.claim_templates}
            volumes = [Volume(name=t.name, source=PVC_SOURCE, claim_name=claim_name(t, name))
                       for t in self.claim_templates]
            volumes.extend(v for v in spec.volumes if v.name not in names)
            spec = attrs.evolve(spec, volumes=tuple(volumes))
        return Pod(metadata=new_meta, spec=spec, status=PodStatus())

    def claims(self, pod: Pod, classes: Collection[StorageClass], now: datetime) -> list[PersistentVolumeClaim]:
        """The claims a StatefulSet would create for ``pod`` (one per volumeClaimTemplate), as admission stores
        them."""
        found = []
        for template in self.claim_templates:
            name = claim_name(template, pod.name)
            meta = ObjectMeta(name=name, namespace=pod.namespace, uid=derived_uid(f"capacity-claim/{pod.namespace}/"
                                                                                  f"{name}"),
                              labels=template.labels, creation_timestamp=now)
            found.append(admit_claim(PersistentVolumeClaim(meta, template.spec), classes))
        return found


def claim_name(template: VolumeClaimTemplate, pod_name: str) -> str:
    """``<template>-<pod>``, the claim a StatefulSet's pod gets of a volumeClaimTemplate."""
    return f"{template.name}-{pod_name}"


def _unadopted(refs: tuple[OwnerReference, ...]) -> tuple[OwnerReference, ...]:
    """The owner references with each controller's uid replaced by one no controller has (see the module's
    docstring)."""
    return tuple(attrs.evolve(r, uid=derived_uid(f"capacity-owner/{r.kind}/{r.name}/{r.uid}")) if r.controller
                 else r for r in refs)


def _owned(kind: str, api_version: str, namespace: str, name: str) -> OwnerReference:
    """The controller reference a pod of that workload carries, under a uid of the copies' own."""
    return OwnerReference(api_version, kind, name, derived_uid(f"capacity-owner/{kind}/{namespace}/{name}"),
                          controller=True)


def from_pod(pod: Pod, location: str) -> CopyTemplate:
    """A Pod of POD.yaml: copies keep its metadata (owner references unadopted) and spec, on no node."""
    meta = attrs.evolve(pod.metadata, owner_references=_unadopted(pod.metadata.owner_references))
    spec = replaced(pod.spec, node_name="") if pod.spec.node_name else pod.spec
    return CopyTemplate("Pod", location, Pod(metadata=meta, spec=spec), admitted=True)


def from_workload(workload: Workload, location: str) -> CopyTemplate:
    """A workload of POD.yaml: copies are the pods its controller creates (a Deployment's through its ReplicaSet,
    named ``<deployment>-<pod-template-hash>``)."""
    meta, template = workload.metadata, workload.template
    namespace = meta.namespace
    labels: dict[str, str] = dict(template.metadata.labels)
    owner: WorkloadController | None = None
    claim_templates: tuple[VolumeClaimTemplate, ...] = ()
    first_index = 0
    if isinstance(workload, Deployment):
        digest = template_hash(template)
        labels[POD_TEMPLATE_HASH] = digest
        name = f"{meta.name}-{digest}"
        selector = LabelSelector(match_labels={**workload.selector.match_labels, POD_TEMPLATE_HASH: digest},
                                 match_expressions=workload.selector.match_expressions)
        owner = WorkloadController("ReplicaSet", ObjectMeta(name=name, namespace=namespace), selector)
        ref = _owned("ReplicaSet", "apps/v1", namespace, name)
    elif isinstance(workload, Job):
        labels.update(zip(JOB_LABELS, (meta.uid, meta.name, meta.uid, meta.name), strict=True))
        ref = _owned("Job", "batch/v1", namespace, meta.name)
    else:
        owner = WorkloadController(workload.kind, meta, workload.selector)
        ref = _owned(workload.kind, workload.api_version, namespace, meta.name)
        if isinstance(workload, StatefulSet):
            claim_templates, first_index = workload.volume_claim_templates, workload.replicas
    pod_meta = ObjectMeta(name=meta.name, namespace=namespace, labels=labels,
                          annotations=template.metadata.annotations, owner_references=(ref,))
    return CopyTemplate(workload.kind, location, Pod(metadata=pod_meta, spec=template.spec), admitted=False,
                        owner=owner, claim_templates=claim_templates, first_index=first_index)

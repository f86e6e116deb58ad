"""The admission a pod goes through when it is created, in the v1.32 API server's order: the mutating plugins
(LimitRanger, Priority, DefaultTolerationSeconds, DefaultStorageClass, RuntimeClass), then the validation of what
they changed (HTTP 422), then the validating plugins (LimitRanger, RuntimeClass, and ResourceQuota last).

:func:`admit` runs every plugin but ResourceQuota, whose verdict depends on the pods that exist at that moment: the
caller (the loader for the input's pods, the simulation for the pods it creates) runs
:func:`kubesched.admission.resource_quota.admit` after it. DefaultStorageClass admits PersistentVolumeClaims, not
pods: claims go through :data:`CLAIM_PLUGINS` (:func:`admit_claim`).

A pod that carries ``spec.priority`` was admitted already (a dump of a live cluster, read back from an API server
that always runs Priority): it is taken as it is, by every plugin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from kubesched.admission import (
    default_storage_class,
    default_toleration_seconds,
    limit_ranger,
    priority,
    runtime_class,
)
from kubesched.admission.errors import INVALID, AdmissionError, Cause
from kubesched.api import validation
from kubesched.api.admission_objects import LimitRange, RuntimeClass
from kubesched.api.meta import frozen_str_map
from kubesched.api.pod import Container, Pod, PodSpec
from kubesched.api.policy import PriorityClass
from kubesched.api.replace import replaced
from kubesched.api.storage import PersistentVolumeClaim, StorageClass
from kubesched.validation import key_path

#: The default admission plugins that change what the scheduler sees, in the API server's order
#: (pkg/kubeapiserver/options/plugins.go); each runs its mutating half, then each its validating half.
ORDER = ("LimitRanger", "Priority", "DefaultTolerationSeconds", "DefaultStorageClass", "RuntimeClass",
         "ResourceQuota")
#: The plugins a PersistentVolumeClaim goes through that change what the scheduler sees: DefaultStorageClass gives a
#: claim without a class the default class (LimitRanger's and ResourceQuota's bounds on claims are not enforced:
#: the loader warns where an input has them).
CLAIM_PLUGINS: tuple[str, ...] = ("DefaultStorageClass",)


def admit_claim(claim: PersistentVolumeClaim, storage_classes: Iterable[StorageClass]) -> PersistentVolumeClaim:
    """A claim created now, as admission stores it (the default class when it sets none)."""
    return default_storage_class.admit_claim(claim, storage_classes)


@attrs.frozen
class AdmissionObjects:
    """What the plugins before ResourceQuota read: LimitRanges by namespace, RuntimeClasses and PriorityClasses
    by name (the built-in system classes included) and the globalDefault PriorityClass."""

    limit_ranges: Mapping[str, tuple[LimitRange, ...]] = attrs.field(factory=dict)
    runtime_classes: Mapping[str, RuntimeClass] = attrs.field(factory=dict)
    priority_classes: Mapping[str, PriorityClass] = attrs.field(
        factory=lambda: priority.effective_priority_classes(()))
    default_priority_class: PriorityClass | None = None

    @classmethod
    def of(cls, limit_ranges: Iterable[LimitRange] = (), runtime_classes: Iterable[RuntimeClass] = (),
           priority_classes: Sequence[PriorityClass] = ()) -> AdmissionObjects:
        """The objects an input (or a cluster at some moment) holds."""
        by_namespace: dict[str, list[LimitRange]] = {}
        for limit_range in limit_ranges:
            by_namespace.setdefault(limit_range.namespace, []).append(limit_range)
        classes = priority.effective_priority_classes(priority_classes)
        return cls({ns: tuple(ranges) for ns, ranges in by_namespace.items()},
                   {rc.name: rc for rc in runtime_classes}, classes, priority.default_priority_class(classes))


def is_admitted(pod: Pod) -> bool:
    """Whether the pod was admitted when it was created: it carries spec.priority, as every pod an API server
    returns does."""
    return pod.spec.priority is not None


def _changed_containers(before: tuple[Container, ...], after: tuple[Container, ...],
                        group: str) -> list[Cause]:
    """The API server's checks of the resources LimitRanger changed (requests above a defaulted limit...)."""
    causes = []
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        if old is new:
            continue
        path = f"spec.{group}[{i}].resources"
        for part, name, message in validation.resource_requirement_problems(new.requests, new.limits):
            where = f"{path}.{part}" if part else path
            causes.append(Cause(key_path(where, name) if name else where, message))
    return causes


def _validate_changes(before: PodSpec, after: PodSpec, pod_name: str) -> None:
    """Validation after the mutating plugins (HTTP 422): what they changed must still be a valid pod."""
    causes = [*_changed_containers(before.containers, after.containers, "containers"),
              *_changed_containers(before.init_containers, after.init_containers, "initContainers")]
    if causes:
        raise AdmissionError(INVALID, pod_name, causes)


def admit(pod: Pod, objects: AdmissionObjects) -> Pod:
    """The pod as the plugins before ResourceQuota admit it, or :class:`AdmissionError` as the API server refuses
    it. An admitted pod only has an unset preemptionPolicy read as PreemptLowerPriority."""
    classes, default = objects.priority_classes, objects.default_priority_class
    if is_admitted(pod):
        return priority.admit_pod(pod, classes, default)
    ranges = objects.limit_ranges.get(pod.namespace, ())
    admitted = limit_ranger.mutate(pod, ranges)
    admitted = priority.admit_pod(admitted, classes, default)
    admitted = default_toleration_seconds.mutate(admitted)
    admitted = runtime_class.mutate(admitted, objects.runtime_classes)
    _validate_changes(pod.spec, admitted.spec, pod.name)
    limit_ranger.validate(admitted, ranges)
    runtime_class.validate(admitted, objects.runtime_classes)
    return admitted


#: The fields of a pod spec admission may read, all but spec.nodeName (which it neither reads nor changes).
_READ_FIELDS = tuple(field.name for field in attrs.fields(PodSpec) if field.name != "node_name")


def _shape(pod: Pod) -> tuple[object, ...]:
    """What admission's result depends on: the namespace and the identity of every spec field but the node."""
    spec = pod.spec
    return (pod.namespace, *(id(getattr(spec, name)) for name in _READ_FIELDS))


def admit_all(pods: Sequence[Pod], objects: AdmissionObjects) -> tuple[list[Pod | None], list[AdmissionError | None]]:
    """:func:`admit` for each pod: the admitted pods (None where refused) and the errors (None where admitted).

    What admission makes of a pod depends on its namespace and its spec but the node alone: pods sharing those (a
    workload's pods in a dump, decoded into shared fields) share the admitted fields, and the LimitRanger
    annotation, computed once."""
    admitted: list[Pod | None] = []
    errors: list[AdmissionError | None] = []
    known: dict[tuple[object, ...], tuple[PodSpec, PodSpec, str | None]] = {}
    for pod in pods:
        spec = pod.spec
        if spec.priority is not None and spec.preemption_policy is not None:
            admitted.append(pod)  # admitted already, with nothing left to read as a default: a dump's pod
            errors.append(None)
            continue
        shape = _shape(pod)
        seen = known.get(shape)
        if seen is not None:
            admitted.append(_like(pod, seen[1], seen[2]))
            errors.append(None)
            continue
        try:
            result = admit(pod, objects)
        except AdmissionError as exc:
            admitted.append(None)
            errors.append(exc)
            continue
        note = result.metadata.annotations.get(limit_ranger.ANNOTATION) if result.metadata is not pod.metadata \
            else None
        known[shape] = (pod.spec, result.spec, note)  # the first spec kept: its fields' ids stay theirs
        admitted.append(result)
        errors.append(None)
    return admitted, errors


def _like(pod: Pod, spec: PodSpec, note: str | None) -> Pod:
    """``pod`` admitted as another pod of its namespace and spec (but the node) was."""
    if spec.node_name != pod.spec.node_name:
        spec = replaced(spec, node_name=pod.spec.node_name)
    if note is None:
        return pod if spec is pod.spec else replaced(pod, spec=spec)
    annotations = {**pod.metadata.annotations, limit_ranger.ANNOTATION: note}
    return replaced(pod, spec=spec, metadata=replaced(pod.metadata, annotations=frozen_str_map(annotations)))

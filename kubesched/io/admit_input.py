"""The admission of what an input creates: its pods (all plugins but ResourceQuota, which the simulation runs when
it creates them) and, as a probe, its workloads' pod templates, with the admission objects of the input's group
and the groups before it (a scenario's steps). A refusal becomes the input's errors, located at its fields."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from kubesched.admission import priority
from kubesched.admission.chain import AdmissionObjects, admit, admit_all, admit_claim, is_admitted
from kubesched.admission.errors import AdmissionError
from kubesched.api.admission_objects import LimitRange, RuntimeClass
from kubesched.api.apps import CronJob, DaemonSet, Deployment, Job, ReplicaSet, StatefulSet
from kubesched.api.pod import Pod
from kubesched.api.policy import PriorityClass
from kubesched.api.storage import PersistentVolumeClaim, StorageClass
from kubesched.errors import InputError

WORKLOAD_TYPES = (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob)


class Entry(Protocol):
    """A decoded object with where it came from (the loader's entries)."""

    file: str
    order: tuple[int, ...]
    where: str
    value: Any
    #: Whether the loader derived its uid: an object no API server returned, which the input creates.
    derived: bool


#: Records an error at an order (group, file, document, item).
Report = Callable[[tuple[int, ...], InputError], None]


def _report(report: Report, entry: Entry, error: AdmissionError, field_prefix: str = "") -> None:
    for problem in error.input_errors(entry.where, field_prefix=field_prefix):
        report(entry.order, problem.located(file=entry.file))


def admission_objects(entries: Sequence[Entry], groups: int) -> list[AdmissionObjects]:
    """What admission reads when each group's pods are created: the objects of that group and the groups before it
    (a later definition of an object replacing the earlier one)."""
    found: list[AdmissionObjects] = []
    current: dict[str, Any] = {}
    # A tuple of classes: isinstance with a union costs several times as much, once per object of the input.
    read = [e for e in entries if isinstance(e.value, (LimitRange, RuntimeClass, PriorityClass))]
    for group in range(groups):
        current.update((e.where, e.value) for e in read if e.order[0] == group)
        values = list(current.values())
        found.append(AdmissionObjects.of(
            [v for v in values if isinstance(v, LimitRange)], [v for v in values if isinstance(v, RuntimeClass)],
            [v for v in values if isinstance(v, PriorityClass)]))
    return found


def admit_pods(pod_entries: Sequence[Entry], objects: Sequence[AdmissionObjects], flawed: set[tuple[int, ...]],
               report: Report) -> tuple[dict[int, Pod], set[str]]:
    """Admit the input's pods with what their group's admission reads: the admitted pods by the id of the decoded
    one, and the uids of those the input creates (not admitted before). A pod already found faulty (its order in
    ``flawed``) meets Priority alone (its unknown class is reported too), as the other plugins would judge values
    that are not its own."""
    admitted_of: dict[int, Pod] = {}
    created: set[str] = set()
    for entry in pod_entries:
        if entry.order in flawed:
            group_objects = objects[entry.order[0]]
            try:
                priority.admit_pod(entry.value, group_objects.priority_classes, group_objects.default_priority_class)
            except AdmissionError as exc:
                _report(report, entry, exc)
    by_group: dict[int, list[Entry]] = {}
    for e in pod_entries:
        if e.order not in flawed:
            by_group.setdefault(e.order[0], []).append(e)
    for group, group_objects in enumerate(objects):
        entries = by_group.get(group, [])
        pods, errors = admit_all([e.value for e in entries], group_objects)
        for entry, pod, error in zip(entries, pods, errors, strict=True):
            if error is not None:
                _report(report, entry, error)
            elif pod is not None:
                admitted_of[id(entry.value)] = pod
                if not is_admitted(entry.value):
                    created.add(pod.uid)
    return admitted_of, created


def admit_templates(entries: Sequence[Entry], objects: Sequence[AdmissionObjects], report: Report) -> None:
    """A pod template must pass the admission of its group's objects (an existing priorityClassName and
    runtimeClassName, the LimitRanges' bounds), or every pod its controller creates is refused."""
    for entry in entries:
        value = entry.value
        if not isinstance(value, WORKLOAD_TYPES):
            continue
        if isinstance(value, CronJob):
            template, path = value.job_template.template, "spec.jobTemplate.spec.template."
        else:
            template, path = value.template, "spec.template."
        probe = Pod(metadata=attrs.evolve(template.metadata, name=value.metadata.name,
                                          namespace=value.metadata.namespace), spec=template.spec)
        try:
            admit(probe, objects[entry.order[0]])
        except AdmissionError as exc:
            _report(report, entry, exc, path)


def admit_claims(entries: Sequence[Entry]) -> dict[int, PersistentVolumeClaim]:
    """The claims the input creates (no uid of their own: never returned by an API server), admitted with the
    StorageClasses of their group and the groups before it, by the id of the decoded claim."""
    classes: dict[str, StorageClass] = {}
    admitted: dict[int, PersistentVolumeClaim] = {}
    by_group: dict[int, list[Entry]] = {}  # one pass: a scenario may have thousands of groups (steps)
    for e in entries:
        if isinstance(e.value, (StorageClass, PersistentVolumeClaim)):
            by_group.setdefault(e.order[0], []).append(e)
    for group in sorted(by_group):
        in_group = by_group[group]
        classes.update((e.value.name, e.value) for e in in_group if isinstance(e.value, StorageClass))
        for entry in in_group:
            if isinstance(entry.value, PersistentVolumeClaim) and entry.derived:
                admitted[id(entry.value)] = admit_claim(entry.value, classes.values())
    return admitted

"""RuntimeClass, as the v1.32 API server runs it on pod creation: a pod naming a RuntimeClass gets the class's pod
overhead (counted in its requests) and its scheduling constraints (node selector merged in, tolerations merged as
``tolerations.MergeTolerations`` does); a class that does not exist, an overhead the pod sets itself or a node
selector that contradicts the class's refuses the pod (HTTP 403)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.admission.errors import forbidden
from kubesched.api.admission_objects import RuntimeClass
from kubesched.api.meta import frozen_str_map
from kubesched.api.node import NO_EXECUTE
from kubesched.api.pod import Pod, ResourceList, Toleration
from kubesched.api.replace import replaced
from kubesched.validation import quote

_OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"


def _class_of(pod: Pod, classes: Mapping[str, RuntimeClass]) -> RuntimeClass | None:
    """The pod's RuntimeClass (None when it names none); a name with no class refuses the pod."""
    name = pod.spec.runtime_class_name
    if not name:
        return None
    found = classes.get(name)
    if found is None:
        raise forbidden(pod.name, f"pod rejected: RuntimeClass {quote(name)} not found", "spec.runtimeClassName")
    return found


def _same(left: ResourceList, right: ResourceList) -> bool:
    """Semantic equality of resource lists: the same names with equal amounts."""
    return left.keys() == right.keys() and all(left[name].amount == right[name].amount for name in left)


def _is_superset(wide: Toleration, narrow: Toleration) -> bool:
    """Whether ``wide`` tolerates everything ``narrow`` does (tolerations' isSuperset)."""
    if wide == narrow:
        return True
    if narrow.key != wide.key and (wide.key or wide.operator != "Exists"):
        return False
    if narrow.effect != wide.effect and wide.effect:
        return False
    if wide.effect == NO_EXECUTE and wide.toleration_seconds is not None and (
            narrow.toleration_seconds is None or narrow.toleration_seconds > wide.toleration_seconds):
        return False
    if wide.operator == "Exists":
        return True
    return narrow.operator == "Equal" and narrow.value == wide.value


def merge_tolerations(first: Sequence[Toleration], second: Sequence[Toleration]) -> tuple[Toleration, ...]:
    """MergeTolerations: both lists in order, less what another toleration already covers (of two equal ones, the
    first stays)."""
    every = [*first, *second]
    merged: list[Toleration] = []
    for i, toleration in enumerate(every):
        if any(_is_superset(kept, toleration) for kept in merged):
            continue
        if any(other != toleration and _is_superset(other, toleration) for other in every[i + 1:]):
            continue
        merged.append(toleration)
    return tuple(merged)


def mutate(pod: Pod, classes: Mapping[str, RuntimeClass]) -> Pod:
    """The pod with its RuntimeClass's overhead and scheduling constraints (setOverhead, then setScheduling)."""
    runtime_class = _class_of(pod, classes)
    if runtime_class is None:
        return pod
    spec = pod.spec
    overhead = runtime_class.overhead
    if overhead is not None:
        if spec.overhead and not _same(overhead, spec.overhead):
            raise forbidden(pod.name, _OVERHEAD_MISMATCH, "spec.overhead")
        spec = replaced(spec, overhead=overhead)
    if runtime_class.node_selector or runtime_class.tolerations:
        selector = dict(spec.node_selector)
        for key in sorted(runtime_class.node_selector):
            wanted, own = runtime_class.node_selector[key], selector.get(key)
            if own is not None and own != wanted:
                raise forbidden(pod.name, f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {wanted}; "
                                          f"pod.spec.nodeSelector[{key}] = {own}", "spec.nodeSelector")
            selector[key] = wanted
        spec = replaced(spec, node_selector=frozen_str_map(selector),
                        tolerations=merge_tolerations(spec.tolerations, runtime_class.tolerations))
    return pod if spec is pod.spec else replaced(pod, spec=spec)


def validate(pod: Pod, classes: Mapping[str, RuntimeClass]) -> None:
    """validateOverhead: a pod's overhead is its RuntimeClass's, and a pod without one sets none."""
    runtime_class = _class_of(pod, classes)
    if runtime_class is not None and runtime_class.overhead is not None:
        if not _same(runtime_class.overhead, pod.spec.overhead):
            raise forbidden(pod.name, _OVERHEAD_MISMATCH, "spec.overhead")
    elif pod.spec.overhead:
        raise forbidden(pod.name, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
                        "spec.overhead")

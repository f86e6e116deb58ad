"""Priority, as the API server's admission plugin runs on pod creation: the pod's PriorityClass (named, or the
globalDefault one) resolved into spec.priority and spec.preemptionPolicy, or the pod refused (HTTP 403).

A pod that already carries ``spec.priority`` was admitted when it was created (a dump of a live cluster): it is
taken as it is, as kube-scheduler takes it, whether or not the input holds its PriorityClass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.admission.errors import forbidden
from kubesched.api.pod import PREEMPT_LOWER_PRIORITY, Pod
from kubesched.api.policy import PriorityClass, builtin_priority_classes
from kubesched.api.replace import replaced
from kubesched.validation import escape

# scheduling.DefaultPriorityWhenNoDefaultClassExists
DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0


def effective_priority_classes(classes: Sequence[PriorityClass]) -> dict[str, PriorityClass]:
    """The input's classes plus the built-in system classes the input does not redefine."""
    by_name = {pc.name: pc for pc in builtin_priority_classes()}
    by_name.update((pc.name, pc) for pc in classes)
    return by_name


def default_priority_class(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """The globalDefault class; with several, the lowest value wins (then the name, for determinism)."""
    defaults = [pc for pc in classes.values() if pc.global_default]
    return min(defaults, key=lambda pc: (pc.value, pc.name)) if defaults else None


def admit_pod(pod: Pod, classes: Mapping[str, PriorityClass], default: PriorityClass | None) -> Pod:
    """Resolve the pod's priority class into spec.priority and spec.preemptionPolicy, or raise AdmissionError.

    A pod with ``spec.priority`` is already admitted: it keeps its values (an unset policy reads as
    PreemptLowerPriority, kube-scheduler's reading of a nil one)."""
    spec = pod.spec
    if spec.priority is not None:
        if spec.preemption_policy is not None:
            return pod
        return _with_spec(pod, preemption_policy=PREEMPT_LOWER_PRIORITY)
    class_name = spec.priority_class_name
    if not class_name:
        pc = default
        class_name = pc.name if pc else ""
    else:
        pc = classes.get(class_name)
        if pc is None:
            raise forbidden(pod.name, f"no PriorityClass with name {escape(class_name)} was found",
                            "spec.priorityClassName")
    priority = pc.value if pc else DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS
    # With no class at all the API server still computes PreemptLowerPriority (getDefaultPriority).
    computed = pc.preemption_policy if pc is not None else PREEMPT_LOWER_PRIORITY
    policy = spec.preemption_policy
    if policy is not None and policy != computed:
        raise forbidden(pod.name, f"the string value of PreemptionPolicy ({policy}) must not be provided in pod "
                                  f"spec; priority admission controller computed {computed} from the given "
                                  "PriorityClass name", "spec.preemptionPolicy")
    policy = computed
    return _with_spec(pod, priority=priority, priority_class_name=class_name, preemption_policy=policy)


#: The spec fields admission sets: plain values, which no converter of PodSpec touches.
_ADMITTED_FIELDS = frozenset({"priority", "priority_class_name", "preemption_policy"})


def _with_spec(pod: Pod, **changes: object) -> Pod:
    """``pod`` with the admitted spec ``changes``, copied without converters: ``attrs.evolve`` would run every
    converter of the spec again (containers, tolerations, selectors), a tenth of loading a large cluster."""
    assert _ADMITTED_FIELDS.issuperset(changes)
    return replaced(pod, spec=replaced(pod.spec, **changes))

"""Decode Kubernetes manifests (already parsed into dicts) into the attrs object model: nodes, priority classes,
disruption budgets, namespaces, services and workload controllers (pods are decode_pod's).

Unknown fields are ignored, as kubectl dumps carry many the scheduler never reads. Known fields are
type-checked and validated the way the API server would, and every failure names its field path.
"""

from __future__ import annotations

import re

from kubesched.api import validation
from kubesched.api.meta import LabelSelector
from kubesched.api.node import TAINT_EFFECTS, ContainerImage, Node, NodeSpec, NodeStatus, Taint
from kubesched.api.pod import PREEMPT_LOWER_PRIORITY
from kubesched.api.policy import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_PRIORITY_CLASS_PREFIX,
    IntOrPercent,
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
    PriorityClass,
    builtin_priority_classes,
)
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.io import fields as f
from kubesched.io.decode_pod import PREEMPTION_POLICIES
from kubesched.io.meta import Obj, check_name, label_selector, object_meta

_PERCENT_TEXT = re.compile(r"[0-9]+%", re.ASCII)


@f.remembered
def _taint(obj: Obj, path: str) -> Taint:
    key = f.string(obj.get("key"), f"{path}.key")
    if not key:
        f.report(f"{path}.key", "Required value")
    else:
        check_name(key, f"{path}.key", validation.qualified_name)
    value = f.string(obj.get("value"), f"{path}.value")
    check_name(value, f"{path}.value", validation.label_value)
    effect = f.one_of(obj.get("effect"), f"{path}.effect", TAINT_EFFECTS)
    if effect is None and obj.get("effect") is None:
        f.report(f"{path}.effect", "Required value")
    return Taint(key=key, effect=effect or "NoSchedule", value=value)


@f.remembered
def _image(obj: Obj, path: str) -> ContainerImage:
    return ContainerImage(names=f.string_list(obj.get("names"), f"{path}.names"),
                          size_bytes=f.integer(obj.get("sizeBytes"), f"{path}.sizeBytes", 0) or 0)


def node(obj: Obj) -> Node:
    """Decode a Node; allocatable defaults to capacity, as the API server does."""
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    capacity = f.resource_list(status.get("capacity"), "status.capacity")
    allocatable = f.resource_list(status.get("allocatable"), "status.allocatable")
    if "allocatable" not in status or status.get("allocatable") is None:
        allocatable = dict(capacity)
    return Node(
        metadata=object_meta(obj, namespaced=False),
        spec=NodeSpec(taints=f.items(spec.get("taints"), "spec.taints", _taint),
                      unschedulable=f.boolean(spec.get("unschedulable"), "spec.unschedulable")),
        status=NodeStatus(capacity=f.shared_resources(capacity), allocatable=f.shared_resources(allocatable),
                          images=f.items(status.get("images"), "status.images", _image)),
    )


def priority_class(obj: Obj) -> PriorityClass:
    """Decode a PriorityClass, with the API server's limits on user-defined values and names."""
    meta = object_meta(obj, namespaced=False)
    value = f.integer(obj.get("value"), "value", bits=32)
    if value is None:
        if obj.get("value") is None:
            f.report("value", "Required value")
        value = 0
    global_default = f.boolean(obj.get("globalDefault"), "globalDefault")
    if meta.name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = _system_class_problem(meta.name, value, global_default)
        if problem:
            f.report("metadata.name", "Forbidden: priority class names with 'system-' prefix are reserved for "
                                          f"system use only. error: {problem}")
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        f.report("value", f"Forbidden: maximum allowed value of a user defined priority is "
                              f"{HIGHEST_USER_DEFINABLE_PRIORITY}")
    return PriorityClass(
        metadata=meta,
        value=value,
        global_default=global_default,
        preemption_policy=f.one_of(obj.get("preemptionPolicy"), "preemptionPolicy", PREEMPTION_POLICIES,
                                   PREEMPT_LOWER_PRIORITY) or PREEMPT_LOWER_PRIORITY,
        description=f.string(obj.get("description"), "description"),
    )


def _system_class_problem(name: str, value: int, global_default: bool) -> str:
    """Why a ``system-`` class is not one of the API server's own (scheduling.IsKnownSystemPriorityClass)."""
    known = {pc.name: pc for pc in builtin_priority_classes()}.get(name)
    if known is None:
        return f"{f.escape(name)} is not a known system priority class"
    if known.value != value:
        return f"value of {name} PriorityClass must be {known.value}"
    if known.global_default != global_default:
        return f"globalDefault of {name} PriorityClass must be {str(known.global_default).lower()}"
    return ""


def _int_or_percent(value: object, path: str, *, at_most_100: bool = True) -> IntOrPercent | None:
    """An intstr.IntOrString that must be a non-negative int32 or a percent string (ValidatePositiveIntOrPercent):
    a string is a percent or nothing, its digits ASCII only, and at most 100% (IsNotMoreThan100Percent) unless
    ``at_most_100`` is False (a Deployment's maxSurge may exceed it)."""
    if value is None:
        return None
    if not isinstance(value, str):
        number = f.integer(value, path, bits=32)
        if number is None:
            return None
        if number < 0:
            f.report(path, f"Invalid value: {number}: must be greater than or equal to 0")
            return None
        return IntOrPercent(number)
    if not _PERCENT_TEXT.fullmatch(value):
        f.report(path, f"Invalid value: {f.quote(value)}: a valid percent string must be a numeric string followed "
                       "by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")
        return None
    percent = int(value[:-1]) if len(value) <= 20 else 2**63
    if at_most_100 and percent > 100:
        f.report(path, f"Invalid value: {f.quote(value)}: must not be greater than 100%")
        return None
    return IntOrPercent(percent, is_percent=True)


#: The intstr reader, for the workload decoders (maxSurge, maxUnavailable).
int_or_percent = _int_or_percent


def pod_disruption_budget(obj: Obj) -> PodDisruptionBudget:
    """Decode a PodDisruptionBudget (minAvailable xor maxUnavailable)."""
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    min_available = _int_or_percent(spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        f.report("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set")
    disrupted = f.mapping(status.get("disruptedPods"), "status.disruptedPods")
    return PodDisruptionBudget(
        metadata=object_meta(obj, namespaced=True),
        selector=label_selector(spec.get("selector"), "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        status=PodDisruptionBudgetStatus(
            disruptions_allowed=f.integer(status.get("disruptionsAllowed"), "status.disruptionsAllowed"),
            current_healthy=f.integer(status.get("currentHealthy"), "status.currentHealthy"),
            desired_healthy=f.integer(status.get("desiredHealthy"), "status.desiredHealthy"),
            expected_pods=f.integer(status.get("expectedPods"), "status.expectedPods"),
            disrupted_pods=f.string_map(disrupted, "status.disruptedPods"),
        ),
    )


def namespace(obj: Obj) -> Namespace:
    """Decode a Namespace (its labels are what namespaceSelector reads)."""
    return Namespace(metadata=object_meta(obj, namespaced=False, name_rule=validation.dns1123_label))


def service(obj: Obj) -> Service:
    """Decode a Service: its spec.selector label map."""
    spec = f.mapping(obj.get("spec"), "spec")
    return Service(metadata=object_meta(obj, namespaced=True, name_rule=validation.dns1035_label),
                   selector=f.string_map(spec.get("selector"), "spec.selector"))


def workload_controller(obj: Obj) -> WorkloadController:
    """Decode a ReplicaSet, StatefulSet or ReplicationController: kind, metadata and pod selector."""
    kind = f.string(obj.get("kind"), "kind")
    spec = f.mapping(obj.get("spec"), "spec")
    raw = spec.get("selector")
    if kind == "ReplicationController":
        labels = f.string_map(raw, "spec.selector")
        selector = LabelSelector(match_labels=labels) if labels else None
    else:
        selector = label_selector(raw, "spec.selector")
    # StatefulSet names become pod hostnames, so the API server holds them to the stricter DNS-1123 label.
    rule = validation.dns1123_label if kind == "StatefulSet" else validation.dns1123_subdomain
    return WorkloadController(kind=kind, metadata=object_meta(obj, namespaced=True, name_rule=rule),
                              selector=selector)

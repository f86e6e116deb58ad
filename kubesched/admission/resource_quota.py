"""ResourceQuota, as the v1.32 API server's validating admission runs it last on pod creation: what a pod uses
(the pod evaluator's usage: count/pods, pods, cpu, memory, ephemeral-storage requests and limits, hugepages and
extended resources), which quotas match it (the resources they limit and every scope: Terminating, NotTerminating,
BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity), and the refusal when one would be exceeded.

The usage a quota has already is the caller's (the simulation keeps it as the quota controller recomputes it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.admission.amounts import ResourceAmounts, add, pod_limits, pod_requests, show
from kubesched.admission.errors import forbidden
from kubesched.api.admission_objects import (
    SCOPE_BEST_EFFORT,
    SCOPE_CROSS_NAMESPACE_POD_AFFINITY,
    SCOPE_NOT_BEST_EFFORT,
    SCOPE_NOT_TERMINATING,
    SCOPE_PRIORITY_CLASS,
    SCOPE_TERMINATING,
    ResourceQuota,
    ScopedResourceSelectorRequirement,
)
from kubesched.api.pod import Container, Pod, PodAffinity
from kubesched.api.quantity import Quantity
from kubesched.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_extended_resource_name, is_native_resource

POD_COUNT = "count/pods"
#: The names the pod evaluator counts (podResources), besides hugepages and extended resources.
POD_RESOURCES = frozenset({POD_COUNT, CPU, MEMORY, EPHEMERAL_STORAGE, "requests.cpu", "requests.memory",
                           "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
                           "pods"})
_PREFIXES = ("hugepages-", "requests.hugepages-")
#: A quota on one of these makes every container state it (the pod evaluator's validationSet).
_MUST_SPECIFY = frozenset({CPU, MEMORY, "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_ONE = Quantity.parse("1")
TERMINAL_PHASES = ("Succeeded", "Failed")


def matching_resources(names: Sequence[str]) -> list[str]:
    """MatchingResources: the names among ``names`` that a pod can use."""
    return [name for name in names if name in POD_RESOURCES or name.startswith(_PREFIXES)
            or (not is_native_resource(name) and name.startswith("requests."))]


def _compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceAmounts:
    """podComputeUsageHelper: the quota names a set of requests and limits counts against."""
    usage: ResourceAmounts = {"pods": _ONE}
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        if name in requests:
            usage[name] = requests[name]
            usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, request in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = request
            usage[f"requests.{name}"] = request
        if is_extended_resource_name(name):
            usage[f"requests.{name}"] = request
    return usage


def usage(pod: Pod) -> ResourceAmounts:
    """PodUsageFunc: the object count always; the pod's compute usage unless it has finished."""
    found: ResourceAmounts = {POD_COUNT: _ONE}
    if pod.status.phase not in TERMINAL_PHASES:
        for name, quantity in _compute_usage(pod_requests(pod), pod_limits(pod)).items():
            found[name] = add(found.get(name), quantity)
    return found


def is_terminating(pod: Pod) -> bool:
    """The Terminating scope: the pod has an activeDeadlineSeconds."""
    seconds = pod.spec.active_deadline_seconds
    return seconds is not None and seconds >= 0


def is_best_effort(pod: Pod) -> bool:
    """The BestEffort scope (QoS class BestEffort): no container asks for or limits cpu or memory."""
    return not any(q.amount > 0 for c in (*pod.spec.containers, *pod.spec.init_containers)
                   for values in (c.requests, c.limits) for name, q in values.items() if name in (CPU, MEMORY))


def _cross_namespace(group: PodAffinity | None) -> bool:
    if group is None:
        return False
    terms = (*group.required, *(w.pod_affinity_term for w in group.preferred))
    return any(term.namespaces or term.namespace_selector is not None for term in terms)


def _priority_class_matches(pod: Pod, requirement: ScopedResourceSelectorRequirement) -> bool:
    """The PriorityClass scope: the selector applied to the label set ``{PriorityClass: <the pod's class>}``."""
    name = pod.spec.priority_class_name
    operator = requirement.operator
    if operator == "Exists":
        return bool(name)
    if operator == "DoesNotExist":
        return not name
    if operator == "In":
        return bool(name) and name in requirement.values
    return not name or name not in requirement.values


def scope_matches(pod: Pod, requirement: ScopedResourceSelectorRequirement) -> bool:
    """podMatchesScopeFunc: whether the pod is in the scope of ``requirement``."""
    scope = requirement.scope_name
    if scope == SCOPE_TERMINATING:
        return is_terminating(pod)
    if scope == SCOPE_NOT_TERMINATING:
        return not is_terminating(pod)
    if scope == SCOPE_BEST_EFFORT:
        return is_best_effort(pod)
    if scope == SCOPE_NOT_BEST_EFFORT:
        return not is_best_effort(pod)
    if scope == SCOPE_PRIORITY_CLASS:
        return _priority_class_matches(pod, requirement)
    if scope == SCOPE_CROSS_NAMESPACE_POD_AFFINITY:
        affinity = pod.spec.affinity
        return affinity is not None and (_cross_namespace(affinity.pod_affinity)
                                         or _cross_namespace(affinity.pod_anti_affinity))
    return False


def matches(quota: ResourceQuota, pod: Pod) -> bool:
    """Whether the quota counts the pod: it limits something a pod uses, and the pod is in every one of its
    scopes."""
    return bool(matching_resources(list(quota.hard))) and all(scope_matches(pod, r) for r in quota.selectors())


def _container_names(container: Container) -> set[str]:
    return set(_compute_usage(container.requests, container.limits))


def _missing(quota: ResourceQuota, pod: Pod) -> str | None:
    """Constraints: with cpu or memory limited, every container must state them ("must specify ...")."""
    required = set(matching_resources(list(quota.hard))) & _MUST_SPECIFY
    missing: dict[str, set[str]] = {}
    for container in (*pod.spec.containers, *pod.spec.init_containers):
        for name in required - _container_names(container):
            missing.setdefault(name, set()).add(container.name)
    if not missing:
        return None
    return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))


def _pretty(values: Mapping[str, Quantity]) -> str:
    """prettyPrint: ``name=amount`` pairs in name order, comma-separated."""
    return ",".join(f"{name}={show(values[name])}" for name in sorted(values))


def admit(pod: Pod, quotas: Sequence[tuple[ResourceQuota, Mapping[str, Quantity]]]) -> None:
    """Refuse the pod (403) when a matching quota, given with its usage so far, would be exceeded or lacks a
    container's cpu or memory; quotas are checked in name order, the first refusal reported."""
    pertinent = []
    for quota, used in sorted(quotas, key=lambda pair: pair[0].name):
        if not matches(quota, pod):
            continue
        missing = _missing(quota, pod)
        if missing is not None:
            raise forbidden(pod.name, f"failed quota: {quota.name}: {missing}")
        pertinent.append((quota, used))
    if not pertinent:
        return
    delta = {name: q for name, q in usage(pod).items() if q.amount != 0}
    for quota, used in pertinent:
        requested = {name: q for name, q in delta.items() if name in quota.hard}
        exceeded = sorted(name for name, q in requested.items()
                          if add(used.get(name), q).amount > quota.hard[name].amount)
        if exceeded:
            raise forbidden(pod.name, f"exceeded quota: {quota.name}, requested: "
                                      f"{_pretty({n: requested[n] for n in exceeded})}, used: "
                                      f"{_pretty({n: used[n] for n in exceeded if n in used})}, limited: "
                                      f"{_pretty({n: quota.hard[n] for n in exceeded})}")

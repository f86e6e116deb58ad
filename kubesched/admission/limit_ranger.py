"""LimitRanger, as the v1.32 API server runs it on pod creation: the mutating half defaults each container's
missing requests and limits from its namespace's LimitRanges (and says so in the ``kubernetes.io/limit-ranger``
annotation); the validating half enforces their min, max and maxLimitRequestRatio per container and per pod.

LimitRanges apply in name order (the API server's informer has none); within one, resources in name order (Go's
map order is random), so the first LimitRange a pod breaks is the one reported, with every bound it breaks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.admission.amounts import ResourceAmounts, pod_limits, pod_requests, show, stored
from kubesched.admission.errors import FORBIDDEN, AdmissionError, Cause
from kubesched.api.admission_objects import LIMIT_TYPE_CONTAINER, LIMIT_TYPE_POD, LimitRange
from kubesched.api.meta import frozen_str_map
from kubesched.api.pod import Container, Pod, ResourceList, frozen_resources
from kubesched.api.quantity import Quantity
from kubesched.api.replace import replaced

ANNOTATION = "kubernetes.io/limit-ranger"
#: resource.MaxMilliValue: below it, amounts are compared in thousandths, above in whole units.
MAX_MILLI_VALUE = (2**63 - 1) // 1000


def in_order(ranges: Sequence[LimitRange]) -> list[LimitRange]:
    """The LimitRanges in the order kubesched applies them: by name."""
    return sorted(ranges, key=lambda r: r.name)


def _defaults(limit_range: LimitRange) -> tuple[ResourceList, ResourceList]:
    """defaultContainerResourceRequirements: the Container items' default requests and default limits."""
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for item in limit_range.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def _merged(container: Container, requests: ResourceList, limits: ResourceList, kind: str,
            notes: list[str]) -> Container:
    """mergeContainerResources: the container with the missing defaults set, and a note of what was set."""
    set_limits = sorted(name for name in limits if name not in container.limits)
    set_requests = sorted(name for name in requests if name not in container.requests)
    if set_requests:
        notes.append(f"{', '.join(set_requests)} request for {kind} {container.name}")
    if set_limits:
        notes.append(f"{', '.join(set_limits)} limit for {kind} {container.name}")
    if not set_limits and not set_requests:
        return container
    return replaced(container,
                    requests=frozen_resources({**container.requests, **{n: requests[n] for n in set_requests}}),
                    limits=frozen_resources({**container.limits, **{n: limits[n] for n in set_limits}}))


def mutate(pod: Pod, ranges: Sequence[LimitRange]) -> Pod:
    """The pod with each LimitRange's defaults merged into its containers and init containers, in turn."""
    for limit_range in in_order(ranges):
        requests, limits = _defaults(limit_range)
        if not requests and not limits:
            continue
        notes: list[str] = []
        containers = tuple(_merged(c, requests, limits, "container", notes) for c in pod.spec.containers)
        inits = tuple(_merged(c, requests, limits, "init container", notes) for c in pod.spec.init_containers)
        if not notes:
            continue
        annotations = {**pod.metadata.annotations, ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}
        pod = replaced(pod, metadata=replaced(pod.metadata, annotations=frozen_str_map(annotations)),
                       spec=replaced(pod.spec, containers=containers, init_containers=inits))
    return pod


def _compared(request: Quantity | None, limit: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: the three amounts in thousandths when none is too large, else in units."""
    values = [q.value() if q is not None else 0 for q in (request, limit, enforced)]
    if all(v <= MAX_MILLI_VALUE for v in values):
        values = [q.milli_value() if q is not None else 0 for q in (request, limit, enforced)]
    return values[0], values[1], values[2]


def _min(kind: str, name: str, enforced: Quantity, requests: Mapping[str, Quantity],
         limits: Mapping[str, Quantity]) -> str | None:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, bound = _compared(request, limit, enforced)
    if request is None:
        return f"minimum {name} usage per {kind} is {show(enforced)}.  No request is specified"
    if observed_request < bound:
        return f"minimum {name} usage per {kind} is {show(enforced)}, but request is {show(request)}"
    if limit is not None and observed_limit < bound:
        return f"minimum {name} usage per {kind} is {show(enforced)}, but limit is {show(limit)}"
    return None


def _max(kind: str, name: str, enforced: Quantity, requests: Mapping[str, Quantity],
         limits: Mapping[str, Quantity]) -> str | None:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, bound = _compared(request, limit, enforced)
    if limit is None:
        return f"maximum {name} usage per {kind} is {show(enforced)}.  No limit is specified"
    if observed_limit > bound:
        return f"maximum {name} usage per {kind} is {show(enforced)}, but limit is {show(limit)}"
    if request is not None and observed_request > bound:
        return f"maximum {name} usage per {kind} is {show(enforced)}, but request is {show(request)}"
    return None


def _ratio(kind: str, name: str, enforced: Quantity, requests: Mapping[str, Quantity],
           limits: Mapping[str, Quantity]) -> str | None:
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, _ = _compared(request, limit, enforced)
    start = f"{name} max limit to request ratio per {kind} is {show(enforced)}"
    if request is None or observed_request == 0:
        return f"{start}, but no request is specified or request is 0"
    if limit is None or observed_limit == 0:
        return f"{start}, but no limit is specified or limit is 0"
    ratio = observed_limit / observed_request
    shown, bound = ratio, float(enforced.value())
    if enforced.value() <= MAX_MILLI_VALUE:
        ratio, bound = ratio * 1000, float(enforced.milli_value())
    return f"{start}, but provided ratio is {shown:f}" if ratio > bound else None


def _bounds(kind: str, item_min: ResourceList, item_max: ResourceList, ratios: ResourceList,
            requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> list[str]:
    """Every bound broken, min then max then ratio, resources in name order."""
    found = []
    for check, bounds in ((_min, item_min), (_max, item_max), (_ratio, ratios)):
        for name in sorted(bounds):
            problem = check(kind, name, stored(bounds[name]), requests, limits)
            if problem is not None:
                found.append(problem)
    return found


def _stored(values: ResourceList) -> ResourceAmounts:
    return {name: stored(q) for name, q in values.items()}


def _violations(pod: Pod, limit_range: LimitRange) -> list[Cause]:
    """PodValidateLimitFunc: every bound of ``limit_range`` the pod breaks, located at the container (or pod)."""
    causes = []
    for item in limit_range.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            for group, containers in (("containers", pod.spec.containers),
                                      ("initContainers", pod.spec.init_containers)):
                for i, container in enumerate(containers):
                    causes += [Cause(f"spec.{group}[{i}].resources", problem) for problem in _bounds(
                        item.type, item.min, item.max, item.max_limit_request_ratio, _stored(container.requests),
                        _stored(container.limits))]
        elif item.type == LIMIT_TYPE_POD:
            problems = _bounds(item.type, item.min, item.max, item.max_limit_request_ratio,
                               pod_requests(pod, overhead=False), pod_limits(pod, overhead=False))
            causes += [Cause("spec", problem) for problem in problems]
    return causes


def validate(pod: Pod, ranges: Sequence[LimitRange]) -> None:
    """Raise the API server's 403 for the first LimitRange whose bounds the (defaulted) pod breaks."""
    for limit_range in in_order(ranges):
        causes = _violations(pod, limit_range)
        if causes:
            raise AdmissionError(FORBIDDEN, pod.name, causes)

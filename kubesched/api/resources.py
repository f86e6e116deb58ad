"""Resource names and a pod's effective request, computed as kube-scheduler's ``PodRequests`` does."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction

from kubesched.api.pod import Container, Pod

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what a container without a request "costs"
# when spreading and scoring (never when filtering).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
NON_ZERO_DEFAULTS: Mapping[str, Fraction] = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}

_NATIVE_PREFIX = "kubernetes.io/"

#: The resources every node may carry, in the order outputs show them; the others (extended resources,
#: hugepages, attachable volumes) follow by name.
FIRST_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


def resource_order(names: Iterable[str]) -> list[str]:
    """``names`` in output order: cpu, memory, ephemeral-storage, pods, then the rest sorted."""
    unique = set(names)
    return [n for n in FIRST_RESOURCES if n in unique] + sorted(unique - set(FIRST_RESOURCES))


def is_native_resource(name: str) -> bool:
    """Unprefixed names and ``kubernetes.io/`` names are native (v1helper.IsNativeResource)."""
    return "/" not in name or _NATIVE_PREFIX in name


_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def is_qualified_name(name: str) -> bool:
    """apimachinery's IsQualifiedName: an optional DNS-subdomain prefix and a name of at most 63 characters."""
    prefix, _, base = name.rpartition("/")
    if "/" in name and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return False
    return 0 < len(base) <= 63 and bool(_QUALIFIED_NAME_PART.match(base))


def is_extended_resource_name(name: str) -> bool:
    """A domain-prefixed, non-native resource such as ``nvidia.com/gpu`` (v1helper.IsExtendedResourceName)."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    """Resources the scheduler tracks in ``ScalarResources``: extended, hugepages, prefixed native, volumes."""
    return is_extended_resource_name(name) or _NATIVE_PREFIX in name or name.startswith(
        ("hugepages-", "attachable-volumes-"))


def _container_requests(container: Container, non_missing: Mapping[str, Fraction] | None) -> dict[str, Fraction]:
    requests = {name: q.amount for name, q in container.requests.items()}
    if non_missing:
        for name, default in non_missing.items():
            if name not in container.requests:
                requests[name] = default
    return requests


def _add_into(total: dict[str, Fraction], extra: Mapping[str, Fraction]) -> None:
    for name, amount in extra.items():
        if name in total:
            total[name] += amount
        else:
            total[name] = amount


def _max_into(total: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for name, amount in other.items():
        if amount > total.get(name, Fraction(0)):
            total[name] = amount


def pod_requests(pod: Pod, *, non_missing: Mapping[str, Fraction] | None = None) -> dict[str, Fraction]:
    """The pod's effective request per resource.

    Regular containers and sidecars (restartable init containers) are summed; each regular init container
    runs alongside the sidecars started before it, and the pod needs the larger of the two phases; then
    ``spec.overhead`` is added. ``non_missing`` gives defaults for containers that leave a resource unset
    (the scheduler's non-zero accounting).
    """
    spec = pod.spec
    containers = spec.containers
    total = _container_requests(containers[0], non_missing) if containers else {}
    for container in containers[1:]:
        _add_into(total, _container_requests(container, non_missing))
    if not spec.init_containers and not spec.overhead:
        return total
    init_peak: dict[str, Fraction] = {}
    sidecars: dict[str, Fraction] = {}
    for container in spec.init_containers:
        requests = _container_requests(container, non_missing)
        if container.restart_policy == "Always":
            _add_into(total, requests)
            _add_into(sidecars, requests)
            phase = dict(sidecars)
        else:
            phase = dict(requests)
            _add_into(phase, sidecars)
        _max_into(init_peak, phase)
    _max_into(total, init_peak)
    _add_into(total, {name: q.amount for name, q in spec.overhead.items()})
    return total

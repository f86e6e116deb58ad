"""Resource-allocation scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

The strategies (LeastAllocated, MostAllocated, RequestedToCapacityRatio, balanced) compare what a node
would have requested with the pod added against its allocatable, per configured resource.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import attrs

from kubesched.api.pod import Pod
from kubesched.api.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    NON_ZERO_DEFAULTS,
    is_scalar_resource_name,
    pod_requests,
)
from kubesched.framework.args import ArgsError
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.resource import Resource
from kubesched.framework.types import MAX_NODE_SCORE

# config.MaxCustomPriorityScore: RequestedToCapacityRatio shape scores are 0..10, scaled x10.
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

Scorer = Callable[[Sequence[int], Sequence[int]], int]


def _weight_or_default(weight: int) -> int:
    """kube-scheduler's defaulting: a weight of 0 (unset) means 1."""
    return 1 if weight == 0 else weight


@attrs.frozen
class ResourceSpec:
    """A resource to score and its weight (0 means the default, 1; valid weights are in (0, 100])."""

    name: str
    weight: int = attrs.field(default=1, converter=_weight_or_default)

    def __attrs_post_init__(self) -> None:
        if not 0 < self.weight <= 100:
            raise ArgsError(f"Invalid value: {self.weight}: resource weight of {self.name} not in valid range "
                            "(0, 100]", "weight")


DEFAULT_RESOURCES = (ResourceSpec(CPU), ResourceSpec(MEMORY))


def default_if_empty(resources: tuple[ResourceSpec, ...]) -> tuple[ResourceSpec, ...]:
    """An empty resource list means the default cpu and memory (kube-scheduler's defaulting)."""
    return tuple(resources) or DEFAULT_RESOURCES


def unique_names(_instance: object, attribute: attrs.Attribute[tuple[ResourceSpec, ...]],
                 value: tuple[ResourceSpec, ...]) -> None:
    """An attrs validator: each resource at most once."""
    seen: set[str] = set()
    for i, spec in enumerate(value):
        if spec.name in seen:
            raise ArgsError(f'Duplicate value: "{spec.name}"', f"{attribute.name}[{i}].name")
        seen.add(spec.name)


def _truncating_div(a: int, b: int) -> int:
    """Integer division rounding toward zero, as Go's ``/`` does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def least_requested_score(requested: int, capacity: int) -> int:
    """Share of the node left free, 0..100."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """Share of the node in use, 0..100 (requests above capacity count as full)."""
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def weighted_scorer(resources: Sequence[ResourceSpec], per_resource: Callable[[int, int], int]) -> Scorer:
    """The weighted average of a per-resource score over resources the node has."""
    weights = [r.weight for r in resources]

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            total += per_resource(req, alloc) * weight
            weight_sum += weight
        return total // weight_sum if weight_sum else 0

    return score


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """A piecewise-linear function through (utilization, score) points, flat beyond the ends."""

    def value(p: int) -> int:
        for i, (utilization, score) in enumerate(shape):
            if p <= utilization:
                if i == 0:
                    return score
                prev_u, prev_s = shape[i - 1]
                return prev_s + _truncating_div((score - prev_s) * (p - prev_u), utilization - prev_u)
        return shape[-1][1]

    return value


def requested_to_capacity_ratio_scorer(resources: Sequence[ResourceSpec],
                                       shape: Sequence[tuple[int, int]]) -> Scorer:
    """Score utilisation through the shape; only resources scoring above 0 enter the average."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    raw = broken_linear(scaled)
    weights = [r.weight for r in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        total = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            value = resource_score(req, alloc)
            if value > 0:
                total += value * weight
                weight_sum += weight
        return _round_half_away(total, weight_sum) if weight_sum else 0

    return score


def _round_half_away(numerator: int, denominator: int) -> int:
    """math.Round(n/d) for non-negative integers, exactly."""
    return (2 * numerator + denominator) // (2 * denominator)


def balanced_scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """100 * (1 - standard deviation of the requested fractions): higher when resources are even."""
    fractions = [min(req / alloc, 1.0) for req, alloc in zip(requested, allocatable, strict=True) if alloc]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


_CPU, _MEMORY, _EPHEMERAL, _SCALAR, _UNKNOWN = range(5)


def _kind(name: str) -> int:
    if name == CPU:
        return _CPU
    if name == MEMORY:
        return _MEMORY
    if name == EPHEMERAL_STORAGE:
        return _EPHEMERAL
    return _SCALAR if is_scalar_resource_name(name) else _UNKNOWN


@attrs.define
class ResourceAllocationScorer:
    """Applies a scorer to (requested with the pod, allocatable) per configured resource."""

    resources: tuple[ResourceSpec, ...]
    scorer: Scorer
    #: Use real requests (BalancedAllocation) instead of the non-zero defaults (Fit's strategies).
    use_requested: bool = False
    _kinds: tuple[int, ...] = attrs.field(init=False)
    _cpu_memory: bool = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._kinds = tuple(_kind(spec.name) for spec in self.resources)
        # The default (and by far the most common) configuration gets a loop-free path.
        self._cpu_memory = self._kinds == (_CPU, _MEMORY)

    def pod_requests(self, pod: Pod) -> list[int]:
        """The pod's request per configured resource (millicores for cpu)."""
        amounts = pod_requests(pod, non_missing=None if self.use_requested else NON_ZERO_DEFAULTS)
        requests = Resource.from_amounts(amounts)
        return [requests.get(spec.name) for spec in self.resources]

    def score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        """The node's score with the pod added (calculateResourceAllocatableRequest per resource)."""
        sums = node_info.requested if self.use_requested else node_info.non_zero_requested
        allocatable = node_info.allocatable
        if self._cpu_memory:
            cpu, memory = allocatable.milli_cpu, allocatable.memory
            return self.scorer((sums.milli_cpu + pod_requests[0] if cpu else 0,
                                sums.memory + pod_requests[1] if memory else 0), (cpu, memory))
        req_list: list[int] = []
        alloc_list: list[int] = []
        for kind, spec, pod_request in zip(self._kinds, self.resources, pod_requests, strict=True):
            if kind == _CPU:
                alloc, req = allocatable.milli_cpu, sums.milli_cpu + pod_request
            elif kind == _MEMORY:
                alloc, req = allocatable.memory, sums.memory + pod_request
            elif kind == _EPHEMERAL:
                alloc, req = allocatable.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
            elif kind == _SCALAR and pod_request and spec.name in allocatable.scalar_resources:
                alloc = allocatable.scalar_resources[spec.name]
                req = node_info.requested.scalar_resources.get(spec.name, 0) + pod_request
            else:  # unknown resource, or an extended resource the pod does not request: not scored
                alloc = req = 0
            req_list.append(req if alloc else 0)
            alloc_list.append(alloc)
        return self.scorer(req_list, alloc_list)

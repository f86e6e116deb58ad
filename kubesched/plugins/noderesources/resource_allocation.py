"""Resource-allocation scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

The strategies (LeastAllocated, MostAllocated, RequestedToCapacityRatio, balanced) compare what a node
would have requested with the pod added against its allocatable, per configured resource.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    NON_ZERO_DEFAULTS,
    Pod,
    PodSpec,
    is_scalar_resource_name,
    pod_requests,
)
from kubesched.framework import MAX_NODE_SCORE, ArgsError, NodeBatch, NodeInfo, Resource
from kubesched.plugins.noderesources.node_memo import NodeMemo

# config.MaxCustomPriorityScore: RequestedToCapacityRatio shape scores are 0..10, scaled x10.
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

Scorer = Callable[[Sequence[int], Sequence[int]], int]
IntArray = npt.NDArray[np.int64]
#: A Scorer over every node of a batch at once: per configured resource (requested with the pod, allocatable)
#: arrays, where an allocatable of 0 leaves the resource out of that node's score as the per-node scorer does.
BatchScorer = Callable[[Sequence[IntArray], Sequence[IntArray]], IntArray]
#: Pod requests at or above this (or negative) are scored by the per-node scorer: the batch arithmetic must stay
#: exact in int64 and float64 (node amounts are below 2**53, see kubesched.framework._columns).
_BATCH_REQUEST_LIMIT = 2**53


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


def _nonzero(capacity: IntArray) -> IntArray:
    """``capacity`` with zeros replaced by 1, to divide by where the zero entries are masked out anyway."""
    return np.where(capacity == 0, 1, capacity)


def least_requested_batch(requested: IntArray, capacity: IntArray) -> IntArray:
    """:func:`least_requested_score` per node, for capacities that are all non-zero (0 where a node is over)."""
    free: IntArray = np.maximum(capacity - requested, 0)
    return free * MAX_NODE_SCORE // capacity


def most_requested_batch(requested: IntArray, capacity: IntArray) -> IntArray:
    """:func:`most_requested_score` per node, for capacities that are all non-zero."""
    return np.minimum(requested, capacity) * MAX_NODE_SCORE // capacity


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


def weighted_batch_scorer(resources: Sequence[ResourceSpec],
                          per_resource: Callable[[IntArray, IntArray], IntArray]) -> BatchScorer:
    """:func:`weighted_scorer` per node, with ``per_resource`` the batch form of its per-resource score (called
    with non-zero capacities only: a node without the resource leaves it out of its average)."""
    weights = [r.weight for r in resources]

    def score(requested: Sequence[IntArray], allocatable: Sequence[IntArray]) -> IntArray:
        total: IntArray | int = 0
        weight_sum: IntArray | int = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc.all():  # every node has the resource (the common case): no masking
                part = per_resource(req, alloc)
                weight_sum = weight_sum + weight
            else:
                has = alloc != 0
                part = np.where(has, per_resource(req, np.where(has, alloc, 1)), 0)
                weight_sum = weight_sum + has * weight
            total = total + (part if weight == 1 else part * weight)
        size = len(requested[0]) if requested else 0
        if isinstance(weight_sum, int):
            if weight_sum == 0 or isinstance(total, int):
                return np.zeros(size, dtype=np.int64)
            return total // weight_sum
        return np.where(weight_sum == 0, 0, total // np.maximum(weight_sum, 1))

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


def requested_to_capacity_ratio_batch_scorer(resources: Sequence[ResourceSpec],
                                             shape: Sequence[tuple[int, int]]) -> BatchScorer:
    """:func:`requested_to_capacity_ratio_scorer` per node: the shape is tabulated at every utilisation 0..100."""
    scaled = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    raw = broken_linear(scaled)
    # Utilisations below 0 cannot occur (requests are non-negative) and the shape is flat above its last point.
    table = np.array([raw(p) for p in range(MAX_UTILIZATION + 1)], dtype=np.int64)
    weights = [r.weight for r in resources]

    def score(requested: Sequence[IntArray], allocatable: Sequence[IntArray]) -> IntArray:
        total: IntArray | None = None
        weight_sum: IntArray | None = None
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            utilization = np.clip(req * MAX_UTILIZATION // _nonzero(alloc), 0, MAX_UTILIZATION)
            value = np.where(req > alloc, table[MAX_UTILIZATION], table[utilization])
            counted = (alloc != 0) & (value > 0)
            part = np.where(counted, value * weight, 0)
            share = counted * weight
            total = part if total is None else total + part
            weight_sum = share if weight_sum is None else weight_sum + share
        if total is None or weight_sum is None:
            return np.zeros(0, dtype=np.int64)
        divisor = 2 * np.maximum(weight_sum, 1)
        return np.where(weight_sum == 0, 0, (2 * total + weight_sum) // divisor)

    return score


def _round_half_away(numerator: int, denominator: int) -> int:
    """math.Round(n/d) for non-negative integers, exactly."""
    return (2 * numerator + denominator) // (2 * denominator)


def balanced_scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """100 * (1 - standard deviation of the requested fractions): higher when resources are even.

    The float operations are Go's, in Go's order (a running sum, ``d * d`` rather than ``d ** 2``, which C's pow
    may round differently), so the batch form can match them bit for bit on every Python version.
    """
    fractions = [min(req / alloc, 1.0) for req, alloc in zip(requested, allocatable, strict=True) if alloc]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        total = 0.0
        for fraction in fractions:
            total += fraction
        mean = total / len(fractions)
        squares = 0.0
        for fraction in fractions:
            squares += (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_batch_scorer(requested: Sequence[IntArray], allocatable: Sequence[IntArray]) -> IntArray:
    """:func:`balanced_scorer` per node, with the same float operations in the same order."""
    if not requested:
        return np.zeros(0, dtype=np.int64)
    if len(requested) == 2 and allocatable[0].all() and allocatable[1].all():  # cpu and memory on every node
        std = np.abs((np.minimum(requested[0] / allocatable[0], 1.0) - np.minimum(requested[1] / allocatable[1], 1.0))
                     / 2)
    else:
        fractions = [np.minimum(req / _nonzero(alloc), 1.0)
                     for req, alloc in zip(requested, allocatable, strict=True)]
        present = [alloc != 0 for alloc in allocatable]
        size = len(requested[0])
        count = np.zeros(size, dtype=np.int64)
        first = np.zeros(size)
        second = np.zeros(size)
        total = np.zeros(size)
        for fraction, has in zip(fractions, present, strict=True):
            first = np.where(has & (count == 0), fraction, first)
            second = np.where(has & (count == 1), fraction, second)
            total = np.where(has, total + fraction, total)
            count += has
        mean = total / np.maximum(count, 1)
        squares = np.zeros(size)
        for fraction, has in zip(fractions, present, strict=True):
            deviation = fraction - mean
            squares = np.where(has, squares + deviation * deviation, squares)
        std = np.where(count == 2, np.abs((first - second) / 2),
                       np.where(count > 2, np.sqrt(squares / np.maximum(count, 1)), 0.0))
    return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)


#: Memoised effective requests: (non-zero defaults?, the identities of the pod's request quantities) -> (the pod
#: spec, which keeps those quantities alive so their identities stay theirs, and the request).
_REQUESTS: dict[tuple[bool, tuple[Any, ...]], tuple[PodSpec, Resource]] = {}
_REQUESTS_SIZE = 4096
#: The last spec asked about and its request, per non-zero choice (False, True): the spec is kept alive with it.
_LAST: list[tuple[PodSpec | None, Resource]] = [(None, Resource()), (None, Resource())]


def _requests_key(spec: PodSpec) -> tuple[Any, ...]:
    """What a pod's effective request depends on, by identity: Quantity.parse hands out one object per text, so
    pods written alike share keys. A single container without init containers or overhead gets a flat key."""
    containers = spec.containers
    if len(containers) == 1 and not spec.init_containers and not spec.overhead:
        requests = containers[0].requests
        return (*requests, *map(id, requests.values()))
    return (tuple((*c.requests, *map(id, c.requests.values())) for c in containers),
            tuple((c.restart_policy, *c.requests, *map(id, c.requests.values())) for c in spec.init_containers),
            (*spec.overhead, *map(id, spec.overhead.values())))


def pod_resource(pod: Pod, *, non_zero: bool = False) -> Resource:
    """The pod's effective request (with kube's non-zero cpu and memory defaults when ``non_zero``), computed once
    per distinct set of requests: PreFilter and PreScore of the resource plugins run for every pod. Read-only."""
    spec = pod.spec
    last = _LAST[non_zero]
    if last[0] is spec:  # the same pod again (PreFilter, then PreScore of two plugins): no key to build
        return last[1]
    key = (non_zero, _requests_key(spec))
    known = _REQUESTS.get(key)
    if known is not None:
        request = known[1]
    else:
        request = Resource.from_amounts(pod_requests(pod, non_missing=NON_ZERO_DEFAULTS if non_zero else None))
        if len(_REQUESTS) >= _REQUESTS_SIZE:
            _REQUESTS.clear()
        _REQUESTS[key] = (spec, request)
    _LAST[non_zero] = (spec, request)
    return request


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
    #: The same scorer over a batch of nodes (for :meth:`score_batch`).
    batch_scorer: BatchScorer
    #: Use real requests (BalancedAllocation) instead of the non-zero defaults (Fit's strategies).
    use_requested: bool = False
    _kinds: tuple[int, ...] = attrs.field(init=False)
    _cpu_memory: bool = attrs.field(init=False)
    #: Scores per node for consecutive pods with the same requests (the score depends only on the node's row).
    _memo: NodeMemo = attrs.field(init=False, factory=NodeMemo)

    def __attrs_post_init__(self) -> None:
        self._kinds = tuple(_kind(spec.name) for spec in self.resources)
        # The default (and by far the most common) configuration gets a loop-free path.
        self._cpu_memory = self._kinds == (_CPU, _MEMORY)

    def pod_requests(self, pod: Pod) -> list[int]:
        """The pod's request per configured resource (millicores for cpu)."""
        requests = pod_resource(pod, non_zero=not self.use_requested)
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

    def score_batch(self, node_batch: NodeBatch, pod_requests: Sequence[int]) -> IntArray:
        """:meth:`score` of every node of ``node_batch``, from the snapshot's columns."""
        if not all(0 <= request < _BATCH_REQUEST_LIMIT for request in pod_requests):
            return np.array([self.score(info, pod_requests) for info in node_batch], dtype=np.int64)
        columns = node_batch.columns
        known = self._memo.read(
            columns, tuple(pod_requests), node_batch.positions,
            lambda at: self._score_columns(NodeBatch(columns.infos_at(at), at, columns), pod_requests),
            lambda at: self.score(columns.infos[at], pod_requests))
        return known if known is not None else self._score_columns(node_batch, pod_requests)

    def _score_columns(self, node_batch: NodeBatch, pod_requests: Sequence[int]) -> IntArray:
        columns = node_batch.columns
        column = node_batch.column
        sums = columns.requested if self.use_requested else columns.non_zero_requested
        requested: list[IntArray] = []
        allocatable: list[IntArray] = []
        for kind, spec, pod_request in zip(self._kinds, self.resources, pod_requests, strict=True):
            if kind in (_CPU, _MEMORY):
                alloc, used = columns.allocatable[spec.name], sums[spec.name]
            elif kind == _EPHEMERAL or (kind == _SCALAR and pod_request):
                alloc, used = columns.resource(spec.name)
            else:  # as in score: not scored on any node (an allocatable of 0 leaves it out)
                alloc = used = np.zeros(len(columns), dtype=np.int64)
            requested.append(column(used) + pod_request)
            allocatable.append(column(alloc))
        return self.batch_scorer(requested, allocatable)

"""NodeResourcesFit: Filter on free cpu, memory, ephemeral storage, pod count and extended resources;
Score with LeastAllocated, MostAllocated or RequestedToCapacityRatio."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Node, Pod, is_extended_resource_name
from kubesched.framework import (
    ActionType,
    ArgsError,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    NodeBatch,
    NodeColumns,
    NodeInfo,
    Plugin,
    QueueingHint,
    Resource,
    StateKey,
    StateNotFoundError,
    Status,
    hookimpl,
    in_range,
)
from kubesched.plugins.noderesources.node_memo import NodeMemo
from kubesched.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCES,
    BatchScorer,
    ResourceAllocationScorer,
    ResourceSpec,
    Scorer,
    default_if_empty,
    least_requested_batch,
    least_requested_score,
    most_requested_batch,
    most_requested_score,
    pod_resource,
    requested_to_capacity_ratio_batch_scorer,
    requested_to_capacity_ratio_scorer,
    unique_names,
    weighted_batch_scorer,
    weighted_scorer,
)

NAME = "NodeResourcesFit"
LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"

_PRE_FILTER_KEY = StateKey[Resource]("PreFilterNodeResourcesFit")
_PRE_SCORE_KEY = StateKey[list[int]]("PreScoreNodeResourcesFit")
#: Filter's Error without PreFilter's state (PreFilter disabled in the profile), in kube-scheduler v1.32's words.
NO_PRE_FILTER_STATE = f'error reading "{_PRE_FILTER_KEY.name}" from cycleState: not found'
#: Pod requests are clamped to this in batch comparisons (far beyond any node amount, far from int64 overflow).
_CLAMP = 2**60
_UNSCHEDULABLE = int(Code.UNSCHEDULABLE)
IntArray = npt.NDArray[np.int64]


@attrs.frozen
class UtilizationShapePoint:
    """A point of the RequestedToCapacityRatio shape: utilisation (0-100) maps to score (0-10)."""

    utilization: int = attrs.field(validator=in_range(0, 100))
    score: int = attrs.field(validator=in_range(0, 10))


def _increasing(_instance: object, attribute: attrs.Attribute[tuple[UtilizationShapePoint, ...]],
                value: tuple[UtilizationShapePoint, ...]) -> None:
    if not value:
        raise ArgsError("Required value: at least one point must be specified", attribute.name)
    for i in range(1, len(value)):
        if value[i - 1].utilization >= value[i].utilization:
            raise ArgsError(f"Invalid value: {value[i].utilization}: utilization values must be sorted in "
                            "increasing order",
                            f"{attribute.name}[{i}].utilization")


@attrs.frozen
class RequestedToCapacityRatioParam:
    """The shape of the RequestedToCapacityRatio scoring function."""

    shape: tuple[UtilizationShapePoint, ...] = attrs.field(default=(), validator=_increasing)


@attrs.frozen
class ScoringStrategy:
    """How NodeResourcesFit scores nodes."""

    type: Literal["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"] = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = attrs.field(default=DEFAULT_RESOURCES, converter=default_if_empty,
                                                      validator=unique_names)
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None

    def __attrs_post_init__(self) -> None:
        if self.type == REQUESTED_TO_CAPACITY_RATIO and self.requested_to_capacity_ratio is None:
            raise ArgsError("Required value: must be specified when type is RequestedToCapacityRatio",
                            "requested-to-capacity-ratio")
        if self.type != REQUESTED_TO_CAPACITY_RATIO and self.requested_to_capacity_ratio is not None:
            raise ArgsError("Forbidden: must be nil when type is not RequestedToCapacityRatio",
                            "requested-to-capacity-ratio")


def _groups_without_slash(_instance: object, attribute: attrs.Attribute[tuple[str, ...]],
                          value: tuple[str, ...]) -> None:
    for i, group in enumerate(value):
        if "/" in group:
            raise ArgsError(f"Invalid value: \"{group}\": resource group name can't contain '/'",
                            f"{attribute.name.replace('_', '-')}[{i}]")


@attrs.frozen
class NodeResourcesFitArgs:
    """Args of NodeResourcesFit."""

    #: Extended resources Filter ignores (for example ones a device plugin manages elsewhere).
    ignored_resources: tuple[str, ...] = ()
    #: Extended-resource domains (``example.com``) Filter ignores.
    ignored_resource_groups: tuple[str, ...] = attrs.field(default=(), validator=_groups_without_slash)
    scoring_strategy: ScoringStrategy = ScoringStrategy()


@attrs.frozen
class InsufficientResource:
    """A resource the node lacks for the pod."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int


def fits_request(request: Resource, node_info: NodeInfo, ignored: frozenset[str] = frozenset(),
                 ignored_groups: frozenset[str] = frozenset()) -> list[InsufficientResource]:
    """What the node lacks for a pod requesting ``request``, in kube-scheduler's order."""
    out: list[InsufficientResource] = []
    allocatable = node_info.allocatable
    requested = node_info.requested
    pod_count = len(node_info.pods)
    if pod_count + 1 > allocatable.allowed_pod_number:
        out.append(InsufficientResource("pods", "Too many pods", 1, pod_count, allocatable.allowed_pod_number))
    if request.is_zero():
        return out
    if request.milli_cpu > 0 and request.milli_cpu > allocatable.milli_cpu - requested.milli_cpu:
        out.append(InsufficientResource("cpu", "Insufficient cpu", request.milli_cpu, requested.milli_cpu,
                                        allocatable.milli_cpu))
    if request.memory > 0 and request.memory > allocatable.memory - requested.memory:
        out.append(InsufficientResource("memory", "Insufficient memory", request.memory, requested.memory,
                                        allocatable.memory))
    if request.ephemeral_storage > 0 and \
            request.ephemeral_storage > allocatable.ephemeral_storage - requested.ephemeral_storage:
        out.append(InsufficientResource("ephemeral-storage", "Insufficient ephemeral-storage",
                                        request.ephemeral_storage, requested.ephemeral_storage,
                                        allocatable.ephemeral_storage))
    # Go iterates a map here (random order); sorting by name makes the reasons deterministic.
    for name in sorted(request.scalar_resources):
        quantity = request.scalar_resources[name]
        if quantity == 0:
            continue
        if is_extended_resource_name(name) and (name in ignored or name.split("/")[0] in ignored_groups):
            continue
        used = requested.scalar_resources.get(name, 0)
        capacity = allocatable.scalar_resources.get(name, 0)
        if quantity > capacity - used:
            out.append(InsufficientResource(name, f"Insufficient {name}", quantity, used, capacity))
    return out


def _strategy_scorers(strategy: ScoringStrategy) -> tuple[Scorer, BatchScorer]:
    """The strategy's per-node scorer and its batch form."""
    if strategy.type == MOST_ALLOCATED:
        return (weighted_scorer(strategy.resources, most_requested_score),
                weighted_batch_scorer(strategy.resources, most_requested_batch))
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        assert strategy.requested_to_capacity_ratio is not None
        shape = [(p.utilization, p.score) for p in strategy.requested_to_capacity_ratio.shape]
        return (requested_to_capacity_ratio_scorer(strategy.resources, shape),
                requested_to_capacity_ratio_batch_scorer(strategy.resources, shape))
    return (weighted_scorer(strategy.resources, least_requested_score),
            weighted_batch_scorer(strategy.resources, least_requested_batch))


class NodeResourcesFit(Plugin):
    """Checks that the node has room for the pod's requests, and scores by the configured strategy."""

    name = NAME
    #: Filter reads only allocatable, requested amounts and pod count: equal resource rows give equal statuses.
    filter_reads = FilterReads.RESOURCES
    Args = NodeResourcesFitArgs

    def __init__(self, handle: object, args: NodeResourcesFitArgs | None = None) -> None:
        super().__init__(handle, args or NodeResourcesFitArgs())  # type: ignore[arg-type]
        config: NodeResourcesFitArgs = self.args
        self._ignored = frozenset(config.ignored_resources)
        self._ignored_groups = frozenset(config.ignored_resource_groups)
        strategy = config.scoring_strategy
        self._scorer = ResourceAllocationScorer(strategy.resources, *_strategy_scorers(strategy))
        # Filter's verdict per node for consecutive pods with the same requests (it reads only the node's row).
        self._memo = NodeMemo()
        # The empty NodeInfo of the node of the last Node event: the hint is asked once per rejected pod per event.
        self._event_node: tuple[Node, NodeInfo] | None = None

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """An assigned pod's deletion frees room; a new node, or more allocatable, may fit the pod (v1.32 with
        queueing hints on and InPlacePodVerticalScaling off, so no pod scale-down event)."""
        nodes = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE), self.hint_pod_deleted),
                ClusterEventWithHint(ClusterEvent(EventResource.NODE, nodes), self.hint_node_changed)]

    def hint_pod_deleted(self, pod: Pod, old_obj: Pod | None, new_obj: Pod | None) -> QueueingHint:
        """Queue when the deleted pod was bound (its requests are freed), not when it was still unscheduled."""
        return QueueingHint.QUEUE if old_obj is not None and old_obj.spec.node_name else QueueingHint.QUEUE_SKIP

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when the pod fits the new or updated node while empty and, for an update, when the allocatable of
        some resource the pod requests (or the pod count) grew."""
        if new_obj is None:
            return QueueingHint.QUEUE
        request = pod_resource(pod)
        if fits_request(request, self._empty_node_info(new_obj)):
            return QueueingHint.QUEUE_SKIP
        if old_obj is None:
            return QueueingHint.QUEUE
        before, after = NodeInfo.of(old_obj).allocatable, NodeInfo.of(new_obj).allocatable
        grew = (after.allowed_pod_number > before.allowed_pod_number
                or (request.milli_cpu > 0 and after.milli_cpu > before.milli_cpu)
                or (request.memory > 0 and after.memory > before.memory)
                or (request.ephemeral_storage > 0 and after.ephemeral_storage > before.ephemeral_storage)
                or any(quantity and after.scalar_resources.get(name, 0) > before.scalar_resources.get(name, 0)
                       for name, quantity in request.scalar_resources.items()))
        return QueueingHint.QUEUE if grew else QueueingHint.QUEUE_SKIP

    def _empty_node_info(self, node: Node) -> NodeInfo:
        """``node`` as a NodeInfo without pods, built once per (immutable) node object rather than once per pod."""
        cached = self._event_node
        if cached is None or cached[0] is not node:
            cached = self._event_node = (node, NodeInfo.of(node))
        return cached[1]

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Compute the pod's effective request once per cycle."""
        state.write(_PRE_FILTER_KEY, pod_resource(pod))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable with one reason per insufficient resource; an Error without PreFilter's state."""
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            return Status.as_error(NO_PRE_FILTER_STATE)
        # Fast path for the common case: room for everything and no extended resources to check.
        allocatable, used = node_info.allocatable, node_info.requested
        if (not request.scalar_resources and len(node_info.pods) < allocatable.allowed_pod_number
                and request.milli_cpu <= allocatable.milli_cpu - used.milli_cpu
                and request.memory <= allocatable.memory - used.memory
                and request.ephemeral_storage <= allocatable.ephemeral_storage - used.ephemeral_storage):
            return None
        insufficient = fits_request(request, node_info, self._ignored, self._ignored_groups)
        if not insufficient:
            return None
        return Status(Code.UNSCHEDULABLE, tuple(r.reason for r in insufficient), NAME)

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> IntArray | None:
        """Filter's codes for every node at once: Unschedulable where some resource (or the pod count) is short."""
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            raise StateNotFoundError(NO_PRE_FILTER_STATE)
        columns = node_batch.columns
        key = (request.milli_cpu, request.memory, request.ephemeral_storage, *request.scalar_resources.items())
        codes = self._memo.read(columns, key, node_batch.positions,
                                lambda at: _codes(self._short(request, NodeBatch(columns.infos_at(at), at, columns))),
                                lambda at: _UNSCHEDULABLE if self._short_at(request, columns, at) else 0)
        if codes is None:
            codes = _codes(self._short(request, node_batch))
            return codes if codes.any() else None
        if node_batch.positions is columns.all_positions():
            return codes if self._memo.any_nonzero else None
        return codes if codes.any() else None

    def _checked(self, request: Resource) -> list[tuple[str, int]]:
        """The resources Filter compares for ``request`` (the pod count aside), with the amounts asked: the standard
        ones asked for, then the scalar ones neither zero nor ignored extended resources."""
        if request.is_zero():
            return []
        checked = [(name, amount) for name, amount in ((CPU, request.milli_cpu), (MEMORY, request.memory),
                                                       (EPHEMERAL_STORAGE, request.ephemeral_storage)) if amount > 0]
        checked += [(name, quantity) for name, quantity in request.scalar_resources.items()
                    if quantity != 0 and not (is_extended_resource_name(name) and (
                        name in self._ignored or name.split("/")[0] in self._ignored_groups))]
        return checked

    def _short_at(self, request: Resource, columns: NodeColumns, at: int) -> bool:
        """:meth:`_short` for the one node at position ``at``, read from the same columns (an overlay's too)."""
        if int(columns.pod_count[at]) >= int(columns.allocatable[PODS][at]):
            return True
        for name, amount in self._checked(request):
            allocatable, requested = columns.resource(name)
            if max(-_CLAMP, min(amount, _CLAMP)) > int(allocatable[at]) - int(requested[at]):
                return True
        return False

    def _short(self, request: Resource, node_batch: NodeBatch) -> npt.NDArray[np.bool_]:
        """Per node of the batch, whether some resource (or the pod count) is short for ``request``."""
        columns = node_batch.columns
        column = node_batch.column
        short = column(columns.pod_count) >= column(columns.allocatable[PODS])
        for name, amount in self._checked(request):
            short |= _exceeds(amount, columns, column, name)
        return short

    def filter_reason_counts(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> dict[str, int]:
        """How many of the batch's nodes (all rejected by :meth:`filter_nodes`) :meth:`filter` gives each reason:
        each short resource is one reason per node, so the counts come from the columns, without a status per
        node (the FitError message reads these)."""
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            raise StateNotFoundError(NO_PRE_FILTER_STATE)
        columns = node_batch.columns
        column = node_batch.column
        counts: dict[str, int] = {}

        def count(reason: str, short: npt.NDArray[np.bool_]) -> None:
            times = int(np.count_nonzero(short))
            if times:
                counts[reason] = counts.get(reason, 0) + times

        count("Too many pods", column(columns.pod_count) >= column(columns.allocatable[PODS]))
        if request.is_zero():
            return counts
        for name, amount in ((CPU, request.milli_cpu), (MEMORY, request.memory),
                             (EPHEMERAL_STORAGE, request.ephemeral_storage)):
            if amount > 0:
                count(f"Insufficient {name}", _exceeds(amount, columns, column, name))
        for name, quantity in request.scalar_resources.items():
            if quantity == 0 or (is_extended_resource_name(name) and (
                    name in self._ignored or name.split("/")[0] in self._ignored_groups)):
                continue
            count(f"Insufficient {name}", _exceeds(quantity, columns, column, name))
        return counts

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Compute the pod's per-resource request for scoring (non-zero defaults for cpu and memory)."""
        state.write(_PRE_SCORE_KEY, self._scorer.pod_requests(pod))
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The configured strategy's score for the node with the pod added."""
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = self._scorer.pod_requests(pod)
        return self._scorer.score(node_info, requests)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> IntArray:
        """Score of every node at once, from the snapshot's columns."""
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = self._scorer.pod_requests(pod)
        return self._scorer.score_batch(node_batch, requests)


def _codes(short: npt.NDArray[np.bool_]) -> IntArray:
    """Filter's codes from a per-node shortage: Unschedulable where short, else 0 (Success)."""
    return np.where(short, _UNSCHEDULABLE, 0)


def _exceeds(amount: int, columns: NodeColumns, column: Callable[[IntArray], IntArray], name: str
             ) -> npt.NDArray[np.bool_]:
    """Per node of the batch, whether ``amount`` of resource ``name`` exceeds what the node has left."""
    allocatable, requested = columns.resource(name)
    # Node amounts are below 2**53 (or the batch path is off), so clamping keeps every comparison's outcome.
    bounded = max(-_CLAMP, min(amount, _CLAMP))
    return bounded > column(allocatable) - column(requested)

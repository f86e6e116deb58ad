"""The run metrics, defined once for every command and output (docs/analysis.md): pod outcomes, attempts,
allocation per resource and its spread over nodes, fragmentation, pending time, preemptions, and their series."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kubesched.analysis.nodes import ClusterTally
from kubesched.analysis.recorder import PodLife
from kubesched.analysis.series import Series
from kubesched.analysis.stats import Percentiles, Spread, percentiles, spread

#: The pod outcomes counted, in output order; each pod of the run is in exactly one.
OUTCOMES = ("bound", "pending", "preempted", "evicted", "failed", "succeeded", "lost", "deleted")
_BY_PHASE = {"Bound": "bound", "Pending": "pending", "Evicted": "evicted", "Rejected": "failed",
             "Succeeded": "succeeded", "Lost": "lost", "Deleted": "deleted"}
#: The spread figures over nodes, in output order.
SPREAD_FIGURES = ("mean", "max", "p95", "cv", "jain")


@attrs.frozen
class ResourceMetrics:
    """One resource: what the pods request and the nodes offer over the cluster, their ratio, and how the
    per-node ratio (requested / allocatable, over the nodes offering it) spreads."""

    name: str
    allocated: int
    allocatable: int
    ratio: float
    nodes: Spread

    def to_json(self) -> dict[str, object]:
        """The resource's entry of ``analysis.resources``."""
        return {"allocated": self.allocated, "allocatable": self.allocatable, "ratio": self.ratio,
                "nodes": self.nodes.to_json()}


@attrs.frozen
class Fragmentation:
    """For a reference pod (its requests per resource): how many more copies fit by resources alone, how many
    nodes cannot take one, and the room left on those nodes (stranded) per resource."""

    reference: Mapping[str, int]
    copies: int
    nodes_without_room: int
    stranded: Mapping[str, int]

    def to_json(self) -> dict[str, object]:
        """``analysis.fragmentation``."""
        return {"reference": dict(self.reference), "copies": self.copies,
                "nodesWithoutRoom": self.nodes_without_room, "stranded": dict(self.stranded)}


@attrs.frozen
class PreemptionMetrics:
    """Preemptions: how many, how many victims, victims per priority, and the run time the victims lost (from
    their binding to their deletion, or to the end of the run)."""

    count: int
    victims: int
    victims_by_priority: Mapping[int, int]
    lost_run_time: Percentiles
    lost_run_time_total: float

    def to_json(self) -> dict[str, object]:
        """``analysis.preemptions``."""
        return {"count": self.count, "victims": self.victims,
                "victimsByPriority": {str(p): n for p, n in sorted(self.victims_by_priority.items())},
                "lostRunTime": {**self.lost_run_time.to_json(), "total": self.lost_run_time_total}}


@attrs.frozen
class RunMetrics:
    """Every run metric at the end of a run."""

    end_time: float
    pods: Mapping[str, int]
    attempts: int
    resources: tuple[ResourceMetrics, ...]
    fragmentation: Fragmentation
    pending_time: Percentiles
    pending_time_by_priority: Mapping[int, Percentiles]
    preemptions: PreemptionMetrics

    def to_json(self) -> dict[str, object]:
        """The ``analysis`` key of a result, without its series."""
        return {"endTime": self.end_time, "pods": dict(self.pods), "attempts": self.attempts,
                "resources": {r.name: r.to_json() for r in self.resources},
                "fragmentation": self.fragmentation.to_json(),
                "pendingTime": {**self.pending_time.to_json(),
                                "byPriority": {str(p): v.to_json()
                                               for p, v in sorted(self.pending_time_by_priority.items())}},
                "preemptions": self.preemptions.to_json()}

    def flat(self) -> dict[str, float]:
        """Every figure under a dotted name (``pods.bound``, ``resources.cpu.nodes.cv``...): the rows of compare's
        table and of a sweep's Parquet file."""
        return dict(_flatten(self.to_json(), ""))


def _flatten(value: object, prefix: str) -> Iterable[tuple[str, float]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, bool):
        yield prefix, float(value)
    elif isinstance(value, int | float):
        yield prefix, value


@attrs.frozen
class RunAnalysis:
    """A run's metrics and their series."""

    metrics: RunMetrics
    series: Series

    def to_json(self) -> dict[str, object]:
        """The result's ``analysis`` key."""
        return {**self.metrics.to_json(), "series": self.series.to_json()}


def pending_times(pods: Iterable[PodLife], end_time: float) -> tuple[Percentiles, dict[int, Percentiles]]:
    """How long each pod that did not start bound waited: from its creation to its binding (or to its deletion,
    or to the end of the run, when it was never bound); over all pods and per priority."""
    values: list[float] = []
    by_priority: dict[int, list[float]] = {}
    for life in pods:
        if life.born_bound:
            continue
        until = life.bound if life.bound is not None else life.ended if life.ended is not None else end_time
        values.append(until - life.created)
        by_priority.setdefault(life.priority, []).append(until - life.created)
    return percentiles(values), {p: percentiles(v) for p, v in by_priority.items()}


def resource_metrics(tally: ClusterTally) -> tuple[ResourceMetrics, ...]:
    """The per-resource figures of the cluster as ``tally`` holds it now (the spread computed exactly)."""
    return tuple(ResourceMetrics(name, t.allocated, t.allocatable, t.ratio(), spread(list(t.ratios)))
                 for name, t in tally.tallies.items())

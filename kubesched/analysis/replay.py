"""A run's log replayed in virtual time: the metrics at the end and the series of every metric, sampled at each
instant one changed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from kubesched.analysis.metrics import (
    _BY_PHASE,
    OUTCOMES,
    SPREAD_FIGURES,
    Fragmentation,
    PreemptionMetrics,
    RunAnalysis,
    RunMetrics,
    pending_times,
    resource_metrics,
)
from kubesched.analysis.nodes import ClusterTally
from kubesched.analysis.recorder import NodeChange, PodChange, PodLife, RunLog
from kubesched.analysis.series import SeriesBuilder
from kubesched.analysis.stats import percentiles
from kubesched.api.resources import CPU, MEMORY, PODS, resource_order
from kubesched.collector import collector_paused


def default_reference(log: RunLog) -> dict[str, int]:
    """The reference pod of the fragmentation figures when none is given: the requests most of the run's pods
    share (ties: more cpu, then more memory, then the first in name order); the scheduler's non-zero defaults
    (100m cpu, 200Mi memory) for a run without pods."""
    counts: dict[tuple[tuple[str, int], ...], int] = {}
    for life in log.pods.values():
        key = tuple(sorted((n, v) for n, v in life.requests.items() if n != PODS))
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        return {CPU: 100, MEMORY: 200 * 1024 * 1024}
    best = min(counts, key=lambda k: (-counts[k], -dict(k).get(CPU, 0), -dict(k).get(MEMORY, 0), k))
    return dict(best)


@attrs.frozen
class _Count:
    """A pod outcome count (or the preemption count) moving by ``delta``."""

    outcome: str
    delta: int


def _outcome(life: PodLife, phase: str | None, victims: set[str], uid: str) -> str:
    if uid in victims:
        return "preempted"
    if phase is not None:
        return _BY_PHASE.get(phase, "deleted")
    if life.ended is not None:
        return "deleted"
    return "bound" if life.bound is not None else "pending"


def analyse(log: RunLog, *, end_time: float, phases: Sequence[tuple[str, str]],
            preemptions: Sequence[tuple[float, Sequence[str]]], attempts: int,
            reference: Mapping[str, int] | None = None) -> RunAnalysis:
    """The metrics and series of a run from its log; ``phases`` are the result's (uid, phase) pairs (a refused
    pod has no uid), ``preemptions`` each preemption's time and victims' uids, ``attempts`` the scheduling
    attempts, ``reference`` the fragmentation's reference pod (default: :func:`default_reference`)."""
    with collector_paused():  # the replay makes many small objects and no cycle
        return _analyse(log, end_time, phases, preemptions, attempts, reference)


def _analyse(log: RunLog, end_time: float, phases: Sequence[tuple[str, str]],
             preemptions: Sequence[tuple[float, Sequence[str]]], attempts: int,
             reference: Mapping[str, int] | None) -> RunAnalysis:
    ref = dict(reference) if reference is not None else default_reference(log)
    names = resource_order({n for c in log.changes if isinstance(c, NodeChange) and c.allocatable is not None
                            for n in c.allocatable} | set(ref))
    tally = ClusterTally(names, ref)
    phase_of = {uid: phase for uid, phase in phases if uid}
    victims = {uid for _, uids in preemptions for uid in uids}
    refused = sum(1 for uid, phase in phases if phase == "Rejected")

    # Every change as (time, order, change); the log's changes keep their order, then the pods' outcomes.
    steps: list[tuple[float, int, NodeChange | PodChange | _Count]] = [
        (c.time, i, c) for i, c in enumerate(log.changes)]
    order = len(steps)
    for uid, life in log.pods.items():
        outcome = _outcome(life, phase_of.get(uid), victims, uid)
        if not life.born_bound:
            steps.append((life.created, order, _Count("pending", 1)))
            if life.bound is not None:
                steps.append((life.bound, order, _Count("pending", -1)))
                steps.append((life.bound, order, _Count("bound", 1)))
        else:
            steps.append((life.created, order, _Count("bound", 1)))
        if life.ended is not None:
            steps.append((life.ended, order, _Count("bound" if life.bound is not None else "pending", -1)))
            steps.append((life.ended, order, _Count(outcome, 1)))
        order += 1
    steps.extend((when, order, _Count("preemptions", 1)) for when, _ in preemptions)
    steps.extend((when, order, _Count("failed", 1)) for when in log.rejected.values())
    steps.sort(key=lambda s: (s[0], s[1]))

    counts = dict.fromkeys((*OUTCOMES, "preemptions"), 0)
    columns = [f"pods.{o}" for o in OUTCOMES] + ["preemptions.count"]
    for name in names:
        columns += [f"resources.{name}.{f}" for f in ("allocated", "allocatable", "ratio")]
        columns += [f"resources.{name}.nodes.{f}" for f in SPREAD_FIGURES]
    columns += ["fragmentation.copies", "fragmentation.nodesWithoutRoom"]
    columns += [f"fragmentation.stranded.{name}" for name in names]
    builder = SeriesBuilder(columns)

    def row() -> list[float]:
        values: list[float] = [counts[o] for o in OUTCOMES]
        values.append(counts["preemptions"])
        for t in tally.tallies.values():
            s = t.spread()
            values += [t.allocated, t.allocatable, t.ratio(), s.mean, s.max, s.p95, s.cv, s.jain]
        values += [tally.copies, tally.nodes_without_room]
        values.extend(tally.stranded[n] for n in names)
        return values

    for index, (when, _, change) in enumerate(steps):
        if isinstance(change, NodeChange):
            tally.set_node(change.node, change.allocatable)
        elif isinstance(change, PodChange):
            tally.move(change.node, change.requests, change.sign)
        else:
            counts[change.outcome] += change.delta
        if index + 1 == len(steps) or steps[index + 1][0] != when:
            builder.sample(when, row())

    final = dict.fromkeys(OUTCOMES, 0)
    for uid, life in log.pods.items():
        final[_outcome(life, phase_of.get(uid), victims, uid)] += 1
    final["failed"] += refused
    pending, by_priority = pending_times(log.pods.values(), end_time)
    lost = [(life.ended if life.ended is not None else end_time) - (life.bound if life.bound is not None
                                                                     else life.created)
            for uid, life in log.pods.items() if uid in victims]
    victims_by_priority: dict[int, int] = {}
    for uid in victims:
        victim = log.pods.get(uid)
        if victim is not None:
            victims_by_priority[victim.priority] = victims_by_priority.get(victim.priority, 0) + 1
    metrics = RunMetrics(
        end_time=end_time, pods=final, attempts=attempts, resources=resource_metrics(tally),
        fragmentation=Fragmentation(ref, tally.copies, tally.nodes_without_room, dict(tally.stranded)),
        pending_time=pending, pending_time_by_priority=by_priority,
        preemptions=PreemptionMetrics(len(preemptions), len(victims), victims_by_priority, percentiles(lost),
                                      sum(lost)))
    return RunAnalysis(metrics, builder.build())

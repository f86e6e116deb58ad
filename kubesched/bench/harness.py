"""Run a workload on the simulator's machinery and measure it as scheduler_perf does.

The cluster is the one ``kubesched simulate`` drives (InMemoryCluster, Scheduler, virtual clock, settling
policy): the init pods are created and scheduled until the cluster settles, then the measured pods are created
and scheduled until it settles again. Wall-clock time is read only around the measured pods.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import resource
import sys
import time
from collections.abc import Collection, Sequence
from typing import Protocol

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.bench.churn import Churn
from kubesched.bench.workloads import BenchError, Workload
from kubesched.framework._status import Status
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.settling import SettlingPolicy
from kubesched.sim.simulate import Simulation

PERCENTILES = (50, 90, 99)
# How many unscheduled pods a failure message names.
SHOWN = 3


class Progress(Protocol):
    """Where the harness reports how far it got (a progress bar on a terminal)."""

    def phase(self, description: str, total: int) -> None:
        """A new phase starts: ``total`` pods are expected to be scheduled in it."""

    def advance(self) -> None:
        """One more pod was scheduled in the current phase."""


class DecisionLog:
    """Follows the cluster and the scheduler's attempts: hashes every placement, nomination and preemption in the
    order they happen, and times the measured pods (first attempt, binding) on the wall clock.

    It is a cluster listener and wraps the settling policy as the scheduler's attempt observer, so the simulator
    behaves exactly as without it.
    """

    def __init__(self, cluster: InMemoryCluster, policy: SettlingPolicy, progress: Progress | None = None) -> None:
        self._cluster = cluster
        self._policy = policy
        self._progress = progress
        self._hash = hashlib.sha256()
        self._preemptions_seen = 0
        #: Decisions hashed so far.
        self.decisions = 0
        self.measured: set[str] = set()
        #: Wall time (time.perf_counter) of each measured pod's first attempt and of its binding, by uid.
        self.first_attempt: dict[str, float] = {}
        self.bound_at: dict[str, float] = {}

    def _record(self, line: str) -> None:
        self._hash.update(line.encode())
        self._hash.update(b"\n")
        self.decisions += 1

    def _flush_preemptions(self) -> None:
        """Hash the preemptions recorded since the last decision, before the decision that follows them."""
        recorded = self._cluster.preemptions
        while self._preemptions_seen < len(recorded):
            p = recorded[self._preemptions_seen]
            self._record(f"preempt {p.preemptor} on {p.node}: {' '.join(p.victims)}")
            self._preemptions_seen += 1

    def digest(self) -> str:
        """The sha256 (hex) of every decision so far."""
        self._flush_preemptions()
        return self._hash.copy().hexdigest()

    # -- the scheduler's attempt observer (forwarding to the settling policy) ----------------------------
    def attempt_started(self, pod: Pod) -> None:
        """Note a measured pod's first attempt."""
        self._policy.attempt_started(pod)
        uid = pod.uid
        if uid in self.measured and uid not in self.first_attempt:
            self.first_attempt[uid] = time.perf_counter()

    def attempt_failed(self, pod: Pod, status: Status, *, binding_cycle: bool) -> None:
        """Forwarded to the settling policy."""
        self._policy.attempt_failed(pod, status, binding_cycle=binding_cycle)

    def assumed_pod_forgotten(self, pod: Pod, woken: Sequence[Pod]) -> None:
        """Forwarded to the settling policy."""
        self._policy.assumed_pod_forgotten(pod, woken)

    # -- the cluster's listener ------------------------------------------------------------------------
    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A binding is a placement; a new nominatedNodeName is a nomination."""
        if new.spec.node_name and not old.spec.node_name:
            now = time.perf_counter()
            self._flush_preemptions()
            self._record(f"bind {new.key} to {new.spec.node_name}")
            if new.uid in self.measured:
                self.bound_at[new.uid] = now
            if self._progress is not None:
                self._progress.advance()
        elif new.status.nominated_node_name and new.status.nominated_node_name != old.status.nominated_node_name:
            self._flush_preemptions()
            self._record(f"nominate {new.key} to {new.status.nominated_node_name}")

    def on_node_add(self, node: Node) -> None:
        """Nothing to record."""

    def on_node_update(self, node: Node) -> None:
        """Nothing to record."""

    def on_node_delete(self, name: str) -> None:
        """Nothing to record."""

    def on_pod_add(self, pod: Pod) -> None:
        """Nothing to record."""

    def on_pod_delete(self, pod: Pod) -> None:
        """Nothing to record."""


@attrs.frozen
class BenchResult:
    """The figures of one benchmark run."""

    workload: str
    nodes: int
    init_pods: int
    measure_pods: int
    pods_per_second: float
    #: Per-pod scheduling latency percentiles in seconds, keyed p50, p90, p99.
    latency_seconds: dict[str, float]
    peak_rss_bytes: int
    decision_digest: str
    reference: bool
    #: How many decisions the digest covers (placements, nominations and preemptions, init pods included).
    decisions: int = 0

    def to_json(self) -> dict[str, object]:
        """The documented JSON shape of ``kubesched bench --output json``."""
        return {
            "workload": self.workload,
            "nodes": self.nodes,
            "initPods": self.init_pods,
            "measurePods": self.measure_pods,
            "podsPerSecond": self.pods_per_second,
            "latencySeconds": dict(self.latency_seconds),
            "peakRssBytes": self.peak_rss_bytes,
            "decisionDigest": self.decision_digest,
            "reference": self.reference,
        }


def percentile(values: Sequence[float], pct: int) -> float:
    """The nearest-rank percentile: the smallest value with at least ``pct`` percent of the values at or below."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def peak_rss_bytes() -> int:
    """The process's peak resident set size so far (getrusage counts kilobytes on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


def _unscheduled(sim: Simulation, pods: Collection[Pod], *, bound: bool) -> list[Pod]:
    """The live pods of ``pods`` that are (``bound``) or are not (not ``bound``) on a node."""
    live = (sim.cluster.pods.get(p.uid) for p in pods)
    return [p for p in live if p is not None and bool(p.spec.node_name) == bound]


def _describe(pods: Sequence[Pod]) -> str:
    """The first few pods, each with its last PodScheduled message."""
    parts = []
    for pod in pods[:SHOWN]:
        message = next((c.message for c in pod.status.conditions if c.type == "PodScheduled"), "")
        parts.append(f"{pod.key} ({json.dumps(message, ensure_ascii=False)})" if message else pod.key)
    return ", ".join(parts) + (f", and {len(pods) - SHOWN} more" if len(pods) > SHOWN else "")


def run_bench(workload: Workload, config: SchedulerConfiguration, registry: PluginRegistry, *, nodes: int,
              init_pods: int, measure_pods: int, seed: int = 0, reference: bool = False,
              progress: Progress | None = None) -> BenchResult:
    """Build ``workload`` at the given size, schedule its init pods, then measure its measured pods. The per-node
    plugin path runs when ``reference``. A BenchError when a pod did not end up where the workload says."""
    if reference:
        config = attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=False))
    init = workload.build_init_pods(init_pods)
    measured = workload.build_measure_pods(measure_pods)
    # No run log: the bench measures scheduling, not the run metrics kept beside it (docs/performance.md).
    sim = Simulation(ClusterInput(nodes=tuple(workload.build_nodes(nodes)), pods=tuple(init)), config, registry,
                     seed=seed, record=False)
    log = DecisionLog(sim.cluster, sim.policy, progress)
    sim.cluster.subscribe(log)
    sim.scheduler.attempt_observer = log

    if progress is not None:
        progress.phase("init pods", 0 if workload.init_pods_pending else init_pods)
    sim.start()
    sim.settle()
    wrong = _unscheduled(sim, init, bound=workload.init_pods_pending)
    if wrong:
        what = "were scheduled though they fit nowhere" if workload.init_pods_pending else "were not scheduled"
        raise BenchError(f"{workload.name}: {len(wrong)} of {init_pods} init pod(s) {what}: {_describe(wrong)}")

    log.measured = {p.uid for p in measured}
    if workload.churn:
        sim.cluster.subscribe(Churn(sim, log.measured))
    if progress is not None:
        progress.phase("measured pods", measure_pods)
    sim.add_pods(measured)
    # The cluster built so far lives to the end: frozen, the collector's full passes in the measured phase skip it
    # (they would rescan every node and init pod, which is no scheduling work).
    gc.freeze()
    try:
        sim.settle()
    finally:
        gc.unfreeze()
    missed = _unscheduled(sim, measured, bound=False)
    if missed or len(log.bound_at) != measure_pods:
        missed = missed or [p for p in measured if p.uid not in log.bound_at]
        raise BenchError(f"{workload.name}: {len(missed)} of {measure_pods} measured pod(s) were not scheduled: "
                         f"{_describe(missed)}")
    if workload.init_pods_pending:
        wrong = _unscheduled(sim, init, bound=True)
        if wrong:
            raise BenchError(f"{workload.name}: {len(wrong)} of {init_pods} init pod(s) were scheduled though they "
                             f"fit nowhere: {_describe(wrong)}")

    elapsed = max(log.bound_at.values()) - min(log.first_attempt.values())
    latencies = [log.bound_at[uid] - log.first_attempt[uid] for uid in log.bound_at]
    return BenchResult(
        workload=workload.name, nodes=nodes, init_pods=init_pods, measure_pods=measure_pods,
        pods_per_second=measure_pods / max(elapsed, 1e-9),
        latency_seconds={f"p{pct}": percentile(latencies, pct) for pct in PERCENTILES},
        peak_rss_bytes=peak_rss_bytes(), decision_digest=log.digest(), reference=reference,
        decisions=log.decisions)

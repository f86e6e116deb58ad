"""``kubesched compare``: one input under several profiles, with the same seed; the run metrics side by side and
the pods each profile placed differently (docs/analysis.md, "Comparing profiles")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.result import PHASE_BOUND, PHASE_PENDING, PodResult, SimulationResult
from kubesched.sim.scenario_run import run_scenario
from kubesched.sim.scenario_steps import Scenario
from kubesched.sim.simulate import simulate

#: The figures of the side-by-side table, in order (every figure is in the JSON).
HEADLINE = ("pods.bound", "pods.pending", "pods.preempted", "pods.evicted", "pods.failed", "attempts",
            "preemptions.count", "pendingTime.p50", "pendingTime.p95", "pendingTime.max", "fragmentation.copies")
HEADLINE_PER_RESOURCE = ("ratio", "nodes.max", "nodes.cv", "nodes.jain")


@attrs.frozen
class Placement:
    """Where one pod ended up under each profile: its phase and node (None when on no node)."""

    pod: str
    uids: tuple[str, ...]
    phases: tuple[str, ...]
    nodes: tuple[str | None, ...]

    @property
    def change(self) -> str:
        """How the profiles differ for it: ``moved`` (bound everywhere, not on one node), ``newlyPending`` or
        ``newlyBound`` (against the first profile), ``preempted`` or ``evicted`` (preempted, or evicted by a drain,
        under some profiles only), or ``outcome`` (another difference of phase)."""
        first = self.phases[0]
        for gone in ("Preempted", "Evicted"):
            if gone in self.phases and any(p != gone for p in self.phases):
                return gone.lower()
        if all(p == PHASE_BOUND for p in self.phases):
            return "moved"
        if first == PHASE_BOUND and PHASE_PENDING in self.phases[1:]:
            return "newlyPending"
        if first == PHASE_PENDING and PHASE_BOUND in self.phases[1:]:
            return "newlyBound"
        return "outcome"

    def to_json(self) -> dict[str, object]:
        """One entry of the comparison's ``placements``."""
        return {"pod": self.pod, "change": self.change, "uids": list(self.uids), "phases": list(self.phases),
                "nodes": list(self.nodes)}


@attrs.frozen
class Comparison:
    """The runs of one input under each profile (named as given), in the order given."""

    names: tuple[str, ...]
    results: tuple[SimulationResult, ...]
    seed: int

    def metrics(self) -> list[dict[str, float]]:
        """Every run's flat metrics (``RunMetrics.flat``), in profile order."""
        return [r.analysis.metrics.flat() if r.analysis is not None else {} for r in self.results]

    def figures(self) -> list[str]:
        """The names of every figure any run has, in the first run's order, then the others' new ones."""
        names: dict[str, None] = {}
        for flat in self.metrics():
            names.update(dict.fromkeys(flat))
        return list(names)

    def placements(self) -> list[Placement]:
        """Every pod whose phase or node is not the same under every profile, in the first run's pod order (then
        pods only later runs have). Pods are matched by ``namespace/name`` and, for a name used several times in
        a run (a re-created StatefulSet pod), by its rank among them."""
        table: dict[tuple[str, int], list[PodResult | None]] = {}
        for index, result in enumerate(self.results):
            seen: dict[str, int] = {}
            for pod in result.pods:
                key = f"{pod.namespace}/{pod.name}"
                rank = seen[key] = seen.get(key, -1) + 1
                row = table.setdefault((key, rank), [None] * len(self.results))
                row[index] = pod
        preempted = [{uid for p in r.preemptions for uid in p.victim_uids} for r in self.results]
        differing = []
        for (key, _), row in table.items():
            phases = tuple(_phase(pod, victims) for pod, victims in zip(row, preempted, strict=True))
            nodes = tuple(pod.node if pod is not None and pod.phase == PHASE_BOUND else None for pod in row)
            if len(set(phases)) > 1 or len(set(nodes)) > 1:
                uids = tuple(pod.uid if pod is not None else "" for pod in row)
                differing.append(Placement(key, uids, phases, nodes))
        return differing

    def to_json(self) -> dict[str, object]:
        """The documented JSON shape (``Comparison``, docs/analysis.md)."""
        metrics = self.metrics()
        first = metrics[0] if metrics else {}
        return {
            "kind": "Comparison",
            "seed": self.seed,
            "profiles": list(self.names),
            "metrics": {name: [m.get(name) for m in metrics] for name in self.figures()},
            "differences": {name: [_delta(m.get(name), first.get(name)) for m in metrics]
                            for name in self.figures()},
            "placements": [p.to_json() for p in self.placements()],
            "runs": [{"profile": name, "analysis": r.analysis.to_json() if r.analysis is not None else None,
                      "nodes": [n.to_json() for n in r.nodes], "preemptions": [p.to_json() for p in r.preemptions]}
                     for name, r in zip(self.names, self.results, strict=True)],
        }


def _phase(pod: PodResult | None, victims: set[str]) -> str:
    if pod is None:
        return "Absent"
    if pod.uid and pod.uid in victims:
        return "Preempted"
    return pod.phase


def _delta(value: float | None, base: float | None) -> float | None:
    return None if value is None or base is None else value - base


def compare(inputs: ClusterInput | Scenario, profiles: Sequence[tuple[str, SchedulerConfiguration]],
            registry: PluginRegistry, *, seed: int = 0, reference_pod: Mapping[str, int] | None = None,
            ) -> Comparison:
    """Run the loaded input (or scenario) once per profile with the same seed: the loading is shared, each run is
    a plain simulation (``reference_pod``: the fragmentation figures' pod)."""
    results = []
    for _, config in profiles:
        if isinstance(inputs, Scenario):
            result = run_scenario(inputs, config, registry, seed=seed, reference_pod=reference_pod)
        else:
            result = simulate(inputs, config, registry, seed=seed, reference_pod=reference_pod)
        # The scheduler's metrics read their gauges from the live scheduler: kept, they would keep the whole
        # finished simulation alive under the next run (a larger heap for the collector to walk).
        results.append(attrs.evolve(result, metrics=None))
    return Comparison(tuple(name for name, _ in profiles), tuple(results), seed)

"""The bench harness: every workload at small scale, the decision digest, the figures and the checks."""

from __future__ import annotations

import gc

import attrs
import pytest

from kubesched.bench import WORKLOADS, BenchError, BenchResult, run_bench
from kubesched.bench.harness import percentile
from kubesched.bench.workloads import default_pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation

# Small sizes per workload: (nodes, init pods, measured pods). PreemptionBasic fills each node with four 900m pods
# so that every measured pod must preempt; the others leave room.
SMALL = {
    "SchedulingBasic": (24, 24, 48),
    "TopologySpreading": (24, 24, 48),
    "SchedulingPodAntiAffinity": (30, 12, 24),
    "SchedulingPodAffinity": (24, 24, 48),
    "SchedulingNodeAffinity": (24, 24, 48),
    "PreemptionBasic": (12, 48, 12),
    "Unschedulable": (24, 10, 48),
    "SchedulingWithMixedChurn": (24, 0, 250),
}


@pytest.fixture(scope="module")
def config(registry: PluginRegistry) -> SchedulerConfiguration:
    """The default profile."""
    return load_config("default", registry)


def small(name: str, config: SchedulerConfiguration, registry: PluginRegistry, *, seed: int = 0,
          reference: bool = False, profile: SchedulerConfiguration | None = None) -> BenchResult:
    """Run workload ``name`` at its small size."""
    nodes, init, measure = SMALL[name]
    return run_bench(WORKLOADS[name], profile or config, registry, nodes=nodes, init_pods=init, measure_pods=measure,
                     seed=seed, reference=reference)


def test_every_workload_has_a_small_size() -> None:
    """The small-scale table covers every workload (a new workload needs a size here)."""
    assert set(SMALL) == set(WORKLOADS)


@pytest.mark.parametrize("name", list(SMALL))
def test_fast_and_reference_paths_make_the_same_decisions(name: str, config: SchedulerConfiguration,
                                                          registry: PluginRegistry) -> None:
    """Each workload at small scale gives the same decision digest on the fast path and with --reference."""
    fast = small(name, config, registry)
    reference = small(name, config, registry, reference=True)
    assert (fast.reference, reference.reference) == (False, True)
    assert fast.decision_digest == reference.decision_digest


@pytest.mark.parametrize("name", list(SMALL))
def test_the_digest_is_identical_across_runs(name: str, config: SchedulerConfiguration,
                                             registry: PluginRegistry) -> None:
    """Two runs of the same workload with the same seed give the same digest."""
    assert small(name, config, registry).decision_digest == small(name, config, registry).decision_digest


def test_a_different_seed_changes_the_digest(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Equal nodes tie on score, so another seed breaks the ties differently and the digest changes."""
    assert (small("SchedulingBasic", config, registry, seed=0).decision_digest
            != small("SchedulingBasic", config, registry, seed=1).decision_digest)


def test_a_different_profile_changes_the_digest(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """bin-packing stacks pods where default spreads them: other placements, another digest."""
    packing = load_config("bin-packing", registry)
    assert (small("SchedulingBasic", config, registry).decision_digest
            != small("SchedulingBasic", config, registry, profile=packing).decision_digest)


def test_the_digest_counts_placements_nominations_and_preemptions(config: SchedulerConfiguration,
                                                                  registry: PluginRegistry) -> None:
    """On PreemptionBasic every measured pod preempts, is nominated and is bound: three decisions each, after one
    placement per init pod."""
    _nodes, init, measure = SMALL["PreemptionBasic"]
    assert small("PreemptionBasic", config, registry).decisions == init + 3 * measure


def test_the_figures_cover_the_measured_pods(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """The result echoes the sizes and has a positive throughput, ordered latency percentiles and a peak RSS."""
    result = small("SchedulingBasic", config, registry)
    assert (result.workload, result.nodes, result.init_pods, result.measure_pods) == ("SchedulingBasic", 24, 24, 48)
    latency = result.latency_seconds
    assert result.pods_per_second > 0
    assert result.peak_rss_bytes > 0
    assert 0 <= latency["p50"] <= latency["p90"] <= latency["p99"]


def test_json_has_exactly_the_documented_keys(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """The JSON document has the issue's keys and no others; latencySeconds has p50, p90 and p99."""
    document = small("SchedulingBasic", config, registry).to_json()
    assert set(document) == {"workload", "nodes", "initPods", "measurePods", "podsPerSecond", "latencySeconds",
                             "peakRssBytes", "decisionDigest", "reference"}
    latency = document["latencySeconds"]
    assert isinstance(latency, dict)
    assert set(latency) == {"p50", "p90", "p99"}
    assert document["reference"] is False


def test_measured_pods_left_unscheduled_fail_the_run(config: SchedulerConfiguration,
                                                     registry: PluginRegistry) -> None:
    """One 4-CPU node holds 40 pods of 100m: measuring 50 leaves 10 pending, and the run fails naming them."""
    with pytest.raises(BenchError, match=r"SchedulingBasic: 10 of 50 measured pod\(s\) were not scheduled: "
                                         r"sched-1/pod-\d+ \("):
        run_bench(WORKLOADS["SchedulingBasic"], config, registry, nodes=1, init_pods=0, measure_pods=50)


def test_init_pods_left_unscheduled_fail_the_run(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Init pods that do not all fit fail the run before anything is measured."""
    with pytest.raises(BenchError, match=r"SchedulingBasic: 5 of 45 init pod\(s\) were not scheduled"):
        run_bench(WORKLOADS["SchedulingBasic"], config, registry, nodes=1, init_pods=45, measure_pods=1)


def test_init_pods_meant_to_stay_pending_fail_the_run_when_scheduled(config: SchedulerConfiguration,
                                                                     registry: PluginRegistry) -> None:
    """A workload whose init pods must stay pending fails when they are scheduled."""
    fitting = attrs.evolve(WORKLOADS["Unschedulable"], init_pod=default_pod)
    with pytest.raises(BenchError, match=r"Unschedulable: 3 of 3 init pod\(s\) were scheduled though they fit "
                                         r"nowhere"):
        run_bench(fitting, config, registry, nodes=2, init_pods=3, measure_pods=1)


def test_unschedulable_keeps_its_init_pods_pending(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Unschedulable's 9-CPU init pods are never placed: only the measured pods are."""
    result = small("Unschedulable", config, registry)
    assert result.decisions == SMALL["Unschedulable"][2]


class RecordingProgress:
    """A Progress that remembers its calls."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, int, int]] = []

    def phase(self, description: str, total: int) -> None:
        """Start counting a phase."""
        self.phases.append((description, total, 0))

    def advance(self) -> None:
        """Count one pod in the current phase."""
        description, total, done = self.phases[-1]
        self.phases[-1] = (description, total, done + 1)


def test_progress_counts_the_pods_scheduled_in_each_phase(config: SchedulerConfiguration,
                                                          registry: PluginRegistry) -> None:
    """The progress sink sees the init phase, then the measured phase, each advanced once per pod scheduled."""
    progress = RecordingProgress()
    run_bench(WORKLOADS["SchedulingBasic"], config, registry, nodes=4, init_pods=3, measure_pods=5,
              progress=progress)
    assert progress.phases == [("init pods", 3, 3), ("measured pods", 5, 5)]


class FreezeWatchingProgress(RecordingProgress):
    """Notes, at each pod scheduled, how many objects the collector holds frozen."""

    def __init__(self) -> None:
        super().__init__()
        self.frozen: list[tuple[str, int]] = []

    def advance(self) -> None:
        super().advance()
        self.frozen.append((self.phases[-1][0], gc.get_freeze_count()))


def test_the_measured_phase_runs_with_the_setup_frozen_and_unfreezes_after(config: SchedulerConfiguration,
                                                                            registry: PluginRegistry) -> None:
    """The objects built before the measured pods are frozen while they schedule, and nothing stays frozen after."""
    progress = FreezeWatchingProgress()
    run_bench(WORKLOADS["SchedulingBasic"], config, registry, nodes=4, init_pods=3, measure_pods=5,
              progress=progress)
    measured = [count for phase, count in progress.frozen if phase == "measured pods"]
    assert len(measured) == 5
    assert all(count > 0 for count in measured)
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize(("values", "pct", "expected"), [
    ([], 50, 0.0),
    ([3.0], 99, 3.0),
    ([4.0, 1.0, 3.0, 2.0], 50, 2.0),
    ([4.0, 1.0, 3.0, 2.0], 90, 4.0),
    ([float(i) for i in range(1, 101)], 99, 99.0),
])
def test_percentile_is_the_nearest_rank(values: list[float], pct: int, expected: float) -> None:
    """A percentile is the smallest value with at least that share of the values at or below it."""
    assert percentile(values, pct) == expected


def test_simulation_add_pods_schedules_pods_created_after_settling(config: SchedulerConfiguration,
                                                                   registry: PluginRegistry) -> None:
    """Pods added to a settled simulation are queued and scheduled by the next settle, and appear in the result."""
    workload = WORKLOADS["SchedulingBasic"]
    sim = Simulation(ClusterInput(nodes=tuple(workload.build_nodes(2))), config, registry)
    sim.start()
    sim.settle()
    sim.add_pods(workload.build_measure_pods(3))
    sim.settle()
    assert [(p.name, p.phase) for p in sim.result().pods] == [("pod-0", "Bound"), ("pod-1", "Bound"),
                                                             ("pod-2", "Bound")]

"""SchedulingWithMixedChurn: scheduler_perf's recreate-mode churn of a node, a 9-CPU pod and a Service, ticking in
operation time (every 100 measured bindings) beside the measured pods."""

from __future__ import annotations

import pytest

from kubesched.bench import WORKLOADS, DecisionLog, run_bench
from kubesched.bench.churn import CHURN_NAMESPACE, Churn
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation

WORKLOAD = WORKLOADS["SchedulingWithMixedChurn"]
#: The digest of 300 nodes and 1000 measured pods, seed 0, default profile (fast path and --reference alike).
DIGEST_300 = "fa481492b68c1ebe4fe922b147dbb60fd95948188225f779a274d944519647c9"


@pytest.fixture(scope="module")
def config(registry: PluginRegistry) -> SchedulerConfiguration:
    """The default profile."""
    return load_config("default", registry)


def churned(config: SchedulerConfiguration, registry: PluginRegistry, nodes: int, pods: int,
            interval: int = 100) -> tuple[Simulation, Churn, DecisionLog]:
    """Schedule ``pods`` default pods on ``nodes`` nodes with the churn beside them, as the harness does."""
    measured = WORKLOAD.build_measure_pods(pods)
    sim = Simulation(ClusterInput(nodes=tuple(WORKLOAD.build_nodes(nodes))), config, registry, record=False)
    log = DecisionLog(sim.cluster, sim.policy)
    sim.cluster.subscribe(log)
    log.measured = {p.uid for p in measured}
    churn = Churn(sim, log.measured, interval)
    sim.cluster.subscribe(churn)
    sim.start()
    sim.settle()
    sim.add_pods(measured)
    sim.settle()
    return sim, churn, log


def test_defaults_are_scheduler_perf_shape_at_5000_nodes() -> None:
    """5000 nodes, no init pods, default pods measured, churn on."""
    assert (WORKLOAD.nodes, WORKLOAD.init_pods, WORKLOAD.churn) == (5000, 0, True)
    assert not any(w.churn for name, w in WORKLOADS.items() if name != "SchedulingWithMixedChurn")


@pytest.mark.parametrize(("pods", "ticks", "live_objects"), [
    pytest.param(99, 0, 0, id="before-the-first-interval"),
    pytest.param(100, 1, 1, id="first-tick-creates"),
    pytest.param(200, 2, 0, id="second-tick-deletes"),
    pytest.param(300, 3, 1, id="third-tick-creates-again"),
])
def test_a_tick_every_interval_creates_then_deletes(pods: int, ticks: int, live_objects: int,
                                                    config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """Recreate mode: odd ticks create a node, a pod and a Service, even ticks delete the three."""
    sim, churn, _ = churned(config, registry, 20, pods)
    assert churn.ticks == ticks
    assert sum(name.startswith("node-churn-") for name in sim.cluster.nodes) == live_objects
    assert sum(p.namespace == CHURN_NAMESPACE for p in sim.cluster.pods.values()) == live_objects
    assert len(sim.cluster.services) == live_objects


def test_the_churned_pod_stays_pending(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """The 9-CPU pod of priority 10 fits no 4-CPU node, and preempting cannot make room."""
    sim, _, _ = churned(config, registry, 20, 100)
    (pod,) = [p for p in sim.cluster.pods.values() if p.namespace == CHURN_NAMESPACE]
    assert not pod.spec.node_name
    assert not pod.status.nominated_node_name


def test_measured_pods_land_on_the_churned_node(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """The empty churned node scores best, so the churn changes where measured pods go."""
    _, _, log = churned(config, registry, 20, 200)
    assert log.decisions == 200
    with_churn = log.digest()
    _, _, plain = churned(config, registry, 20, 200, interval=10**9)
    assert plain.digest() != with_churn


@pytest.mark.slow
@pytest.mark.parametrize("reference", [pytest.param(False, id="fast-path"), pytest.param(True, id="reference")])
def test_digest_at_300_nodes_is_pinned_on_both_paths(reference: bool, config: SchedulerConfiguration,
                                                     registry: PluginRegistry) -> None:
    """`kubesched bench SchedulingWithMixedChurn --nodes 300 --measure-pods 1000` decides as it always has."""
    result = run_bench(WORKLOAD, config, registry, nodes=300, init_pods=0, measure_pods=1000, reference=reference)
    assert result.decision_digest == DIGEST_300


def test_a_sweep_cell_of_the_workload_churns_too(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """A sweep's bench input runs the workload as kubesched bench does: one tick after 100 bindings leaves the
    churned pod pending among the results."""
    from kubesched.sweep.cell import _bench
    from kubesched.sweep.spec import BenchInput

    result = _bench(BenchInput("SchedulingWithMixedChurn", 20, 0, 100), config, registry, 0)
    churned = [(p.name, p.phase) for p in result.pods if p.namespace == CHURN_NAMESPACE]
    assert churned == [("pod-churn-0", "Pending")]

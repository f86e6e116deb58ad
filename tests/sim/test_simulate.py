"""Specification of a simulation run: queueing order, retries, reporting, determinism."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PodResult, Simulation, SimulationResult, queue_order, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import EXAMPLES, REAL_DUMP, write

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def run(nodes: list[Node], pods: list[Pod], registry: PluginRegistry, profile: str = "default",
        seed: int = 0) -> SimulationResult:
    cluster = ClusterInput(nodes=tuple(nodes), pods=tuple(pods))
    return simulate(cluster, load_config(profile, registry), registry, seed=seed)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    return {p.name: p for p in result.pods}


def test_quickstart_placements(registry: PluginRegistry) -> None:
    """The quickstart example lands as the README describes."""
    result = simulate(load([EXAMPLES / "quickstart.yaml"]), load_config("default", registry), registry)
    placed = {p.name: (p.phase, p.node) for p in result.pods}
    assert placed == {
        "metrics-agent": ("Bound", "worker-a"), "web-1": ("Bound", "worker-b"), "web-2": ("Bound", "worker-a"),
        "web-3": ("Bound", "worker-b"), "db": ("Bound", "worker-a"), "trainer": ("Bound", "gpu-1"),
        "analytics": ("Pending", None),
    }


def test_earlier_created_pod_wins_the_last_slot(registry: PluginRegistry) -> None:
    """Pods queue by creationTimestamp, not input order: the earlier one takes the only room."""
    node = make_node("n1").capacity(cpu="1").obj()
    late = make_pod("late").req(cpu="1").created(T0 + timedelta(minutes=5)).obj()
    early = make_pod("early").req(cpu="1").created(T0).obj()
    result = by_name(run([node], [late, early], registry))
    assert (result["early"].phase, result["late"].phase) == ("Bound", "Pending")
    assert result["late"].message == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                                      "available: 1 No preemption victims found for incoming pod.")


def test_pods_without_timestamp_queue_after_timestamped_ones() -> None:
    """Pods without creationTimestamp follow the timestamped ones, each group in input order."""
    pods = [make_pod("a").obj(), make_pod("b").created(T0 + timedelta(1)).obj(), make_pod("c").obj(),
            make_pod("d").created(T0).obj()]
    assert [p.name for p in queue_order(pods)] == ["d", "b", "a", "c"]


def test_higher_priority_goes_first(registry: PluginRegistry) -> None:
    """Priority beats creation order for the last slot."""
    node = make_node("n1").capacity(cpu="1").obj()
    low = make_pod("low").req(cpu="1").created(T0).obj()
    high = make_pod("high").req(cpu="1").priority(100).created(T0 + timedelta(hours=1)).obj()
    result = by_name(run([node], [low, high], registry))
    assert (result["high"].phase, result["low"].phase) == ("Bound", "Pending")


def test_pod_without_profile_is_reported_and_left_alone(registry: PluginRegistry) -> None:
    """A pod whose schedulerName matches no profile stays Pending with a message saying why."""
    result = by_name(run([make_node("n1").capacity(cpu="4").obj()],
                         [make_pod("p").scheduler_name("gpu-scheduler").obj()], registry))
    assert result["p"].phase == "Pending"
    assert result["p"].message == 'no profile has scheduler name "gpu-scheduler": kubesched leaves the pod alone'


def test_terminated_pods_are_skipped_with_a_warning(registry: PluginRegistry) -> None:
    """Succeeded and Failed pods hold no resources; they are left out of the run and the report."""
    node = make_node("n1").capacity(cpu="1").obj()
    done = make_pod("done").req(cpu="1").node("n1").phase("Succeeded").obj()
    result = run([node], [done, make_pod("new").req(cpu="1").obj()], registry)
    assert [(p.name, p.phase) for p in result.pods] == [("new", "Bound")]
    assert result.warnings == ("skipped 1 terminated pod(s) (phase Succeeded or Failed): they hold no resources "
                               "and are not scheduled",)


def test_pending_pod_binds_when_a_running_pod_leaves(registry: PluginRegistry) -> None:
    """A pod waiting for room is retried when a pod on the node is deleted, after its grace period."""
    node = make_node("n1").capacity(cpu="1").obj()
    old = make_pod("old").req(cpu="1").node("n1").grace_period(20).obj()
    new = make_pod("new").req(cpu="1").obj()
    simulation = Simulation(ClusterInput(nodes=(node,), pods=(old, new)), load_config("default", registry),
                            registry)
    simulation.start()
    simulation.settle()
    assert by_name(simulation.result())["new"].phase == "Pending"
    simulation.cluster.delete_pod(simulation.cluster.pods[old.uid])
    simulation.settle()
    result = simulation.result()
    assert by_name(result)["new"].node == "n1"
    assert result.events[-1].time == 20.0
    assert result.events[-1].message == "Successfully assigned default/new to n1"


class Flaky(Plugin):
    """Fails with an error twice, then accepts."""

    name = "Flaky"
    failures: ClassVar[int] = 0

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if Flaky.failures < 2:
            Flaky.failures += 1
            raise ConnectionError("inventory service unavailable")
        return None


def test_errors_are_retried_with_backoff(registry: PluginRegistry, tmp_path: Path) -> None:
    """A pod failing with an Error is retried after 1s, then 2s of backoff, and binds when it succeeds."""
    Flaky.failures = 0
    with_flaky = registry.with_plugins(Flaky)
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugins.filter]\n'
                                                     'enabled = [{ name = "Flaky" }]\n')
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(make_pod("p").obj(),))
    result = simulate(cluster, load_config(str(profile), with_flaky), with_flaky)
    outcomes = [e for e in result.events if e.reason != "PluginError"]
    assert [(e.time, e.reason) for e in outcomes] == [(0.0, "FailedScheduling"), (1.0, "FailedScheduling"),
                                                      (3.0, "Scheduled")]
    assert outcomes[0].message == 'running "Flaky" filter plugin: ConnectionError: inventory service unavailable'


def test_permanent_errors_stop_after_a_few_retries(registry: PluginRegistry, tmp_path: Path) -> None:
    """A plugin that always raises does not keep a simulation running forever."""
    Flaky.failures = -1000
    with_flaky = registry.with_plugins(Flaky)
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugins.filter]\n'
                                                     'enabled = [{ name = "Flaky" }]\n')
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(make_pod("p").obj(),))
    result = simulate(cluster, load_config(str(profile), with_flaky), with_flaky)
    assert [e.reason for e in result.events] == ["PluginError", "FailedScheduling"] * 5
    assert by_name(result)["p"].message.startswith('running "Flaky" filter plugin: ConnectionError')


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_seed_same_result(registry: PluginRegistry, seed: int) -> None:
    """Equal inputs and seeds give equal results, ties included."""
    nodes = [make_node(f"n{i}").capacity(cpu="8").obj() for i in range(6)]
    pods = [make_pod(f"p{i}").req(cpu="1").obj() for i in range(12)]
    assert run(nodes, pods, registry, seed=seed).to_json() == run(nodes, pods, registry, seed=seed).to_json()


def test_seed_decides_ties(registry: PluginRegistry) -> None:
    """With identical nodes the seed decides which one a pod gets; different seeds spread differently."""
    nodes = [make_node(f"n{i}").capacity(cpu="8").obj() for i in range(6)]
    pods = [make_pod("p").req(cpu="1").obj()]
    chosen = {by_name(run(nodes, pods, registry, seed=s))["p"].node for s in range(20)}
    assert len(chosen) > 1


def test_real_cluster_dump(registry: PluginRegistry) -> None:
    """The real dump: pending pods get kube-scheduler's messages; running pods stay where they are."""
    outcome = simulate(load([REAL_DUMP]), load_config("default", registry), registry)
    result = by_name(outcome)
    assert result["web-7c5d9f6b8-p9d7h"].node == "worker-b"
    assert result["train-0"].message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 Insufficient cpu, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Insufficient "
        "nvidia.com/gpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.")
    # report (priority 1000) fits nowhere, so it preempts the priority-10 etl pod on worker-a.
    assert [(p.preemptor, p.node, p.victims) for p in outcome.preemptions] == [
        ("default/report", "worker-a", ("batch/etl-0",))]
    assert (result["report"].phase, result["report"].node) == ("Bound", "worker-a")
    assert (result["etl-0"].phase, result["cache-0"].phase) == ("Evicted", "Bound")


class NeverEnough(Plugin):
    """A gang that never fills: every pod waits on Permit and times out."""

    name = "NeverEnough"

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait(), 60.0


def test_permit_timeouts_end_the_simulation(registry: PluginRegistry, tmp_path: Path) -> None:
    """A pod whose Permit always times out ends Pending with the timeout message; the run terminates."""
    with_gang = registry.with_plugins(NeverEnough)
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugins.permit]\n'
                                          'enabled = [{ name = "NeverEnough" }]\n')
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(make_pod("p").obj(),))
    result = simulate(cluster, load_config(str(profile), with_gang), with_gang)
    assert by_name(result)["p"].phase == "Pending"
    assert by_name(result)["p"].message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 1m0s at plugin NeverEnough.")
    assert [(e.time, e.reason) for e in result.events] == [(60.0, "FailedScheduling")]


def test_pods_pick_their_profile_by_scheduler_name(registry: PluginRegistry, tmp_path: Path) -> None:
    """With two profiles, each pod is scheduled by the profile its schedulerName names."""
    profile = write(tmp_path / "two.toml", """
[[profiles]]
scheduler-name = "default-scheduler"
[[profiles]]
scheduler-name = "bin-packer"
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "MostAllocated"
""")
    nodes = (make_node("busy").capacity(cpu="4").obj(), make_node("idle").capacity(cpu="4").obj())
    running = make_pod("running").req(cpu="2").node("busy").obj()
    spread = make_pod("spread").req(cpu="1").obj()
    packed = make_pod("packed").req(cpu="1").scheduler_name("bin-packer").obj()
    cluster = ClusterInput(nodes=nodes, pods=(running, spread, packed))
    result = by_name(simulate(cluster, load_config(str(profile), registry), registry))
    assert (result["spread"].node, result["packed"].node) == ("idle", "busy")


def test_gated_pod_stays_pending_with_its_gates(registry: PluginRegistry) -> None:
    """A pod with scheduling gates is never attempted; it is reported Pending with the gates."""
    result = run([make_node("n1").capacity(cpu="4").obj()],
                 [make_pod("gated").scheduling_gates("example.com/wait").obj(), make_pod("free").obj()], registry)
    assert by_name(result)["gated"].phase == "Pending"
    assert by_name(result)["gated"].message == "waiting for scheduling gates: [example.com/wait]"
    assert [e.object for e in result.events] == ["default/free"]


def test_features_without_a_plugin_are_warned_about(registry: PluginRegistry, tmp_path: Path) -> None:
    """Pods using a feature no enabled plugin enforces (here: anti-affinity, host ports) are warned about."""
    profile = write(tmp_path / "p.toml", """
[[profiles]]
[profiles.plugins.multi-point]
disabled = [{ name = "InterPodAffinity" }, { name = "NodePorts" }]
""")
    pods = [make_pod("a").pod_affinity("kubernetes.io/hostname", anti=True, app="a").obj(),
            make_pod("b").host_port(80).obj(), make_pod("c").host_port(80).obj()]
    result = run([make_node("n1").capacity(cpu="4").obj()], pods, registry, profile=str(profile))
    assert result.warnings == (
        '1 pod(s) use pod affinity or anti-affinity (first: default/a) but profile "default-scheduler" has no '
        "InterPodAffinity plugin: it is not enforced",
        '2 pod(s) use host ports (first: default/b) but profile "default-scheduler" has no NodePorts plugin: '
        "it is not enforced",
    )


class BrokenSort(Plugin):
    """A QueueSort plugin that raises whenever the pod named "odd" is compared."""

    name = "BrokenSort"

    @hookimpl
    def queue_sort_less(self, pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
        if "odd" in (pod_info_a.pod.name, pod_info_b.pod.name):
            raise ValueError("cannot rank odd pods")
        return pod_info_a.pod.name < pod_info_b.pod.name


def test_queue_sort_plugin_that_raises_is_reported_and_scheduling_goes_on(registry: PluginRegistry,
                                                                          tmp_path: Path) -> None:
    """Every pod is still scheduled (priority order stands in when the plugin raises) and a warning says so."""
    with_sort = registry.with_plugins(BrokenSort)
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugins.queue-sort]\n'
                                         'enabled = [{ name = "BrokenSort" }]\ndisabled = [{ name = "*" }]\n')
    pods = [make_pod(name).req(cpu="1").obj() for name in ("a", "odd", "b")]
    result = simulate(ClusterInput(nodes=(make_node("n1").capacity(cpu="8").obj(),), pods=tuple(pods)),
                      load_config(str(profile), with_sort), with_sort)
    assert {p.name: p.phase for p in result.pods} == {"a": "Bound", "odd": "Bound", "b": "Bound"}
    [warning] = [w for w in result.warnings if "QueueSort" in w]
    assert warning.startswith('QueueSort plugin "BrokenSort" raised ValueError: cannot rank odd pods comparing pods ')

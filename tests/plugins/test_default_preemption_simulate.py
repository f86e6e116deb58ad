"""DefaultPreemption end to end: simulations with the default profile, which has it at PostFilter."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PodResult, Simulation, SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write
from tests.framework.preemption_cluster import T0, pdb

HIGH, MID, LOW = 1000, 100, 1
HOSTNAME = "kubernetes.io/hostname"


@pytest.fixture(scope="module")
def config(registry: PluginRegistry) -> SchedulerConfiguration:
    """The shipped default profile, which has DefaultPreemption at PostFilter."""
    return load_config("default", registry)


def run(config: SchedulerConfiguration, registry: PluginRegistry, nodes: list[Node], pods: list[Pod],
        pdbs: tuple[PodDisruptionBudget, ...] = ()) -> SimulationResult:
    return simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods), pdbs=pdbs), config, registry)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    return {p.name: p for p in result.pods}


def test_preemptor_binds_once_its_victims_are_gone(config: SchedulerConfiguration,
                                                   registry: PluginRegistry) -> None:
    """The victim keeps its room for its grace period; then the preemptor binds in the same run."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="2").grace_period(45).obj()
    preemptor = make_pod("preemptor").priority(HIGH).req(cpu="2").obj()
    result = run(config, registry, nodes, [victim, preemptor])
    pods = by_name(result)
    assert (pods["preemptor"].phase, pods["preemptor"].node) == ("Bound", "n1")
    assert (pods["victim"].phase, pods["victim"].node) == ("Evicted", "n1")
    assert pods["victim"].message == "default-scheduler: preempting to accommodate a higher priority pod"
    assert [(e.time, e.reason, e.object, e.message) for e in result.events] == [
        (0.0, "Preempted", "default/victim", "Preempted by pod default/preemptor-uid on node n1"),
        (0.0, "FailedScheduling", "default/preemptor", "0/1 nodes are available: 1 Insufficient cpu."),
        (45.0, "Scheduled", "default/preemptor", "Successfully assigned default/preemptor to n1"),
    ]
    assert result.to_json()["preemptions"] == [
        {"time": 0.0, "preemptor": "default/preemptor", "preemptorUid": "default/preemptor-uid", "node": "n1",
         "victims": ["default/victim"], "victimUids": ["default/victim-uid"], "victimsAlreadyTerminating": [False]}]


def test_room_freed_for_the_preemptor_is_not_taken_by_a_lower_priority_pod(
        config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """While its victims terminate the preemptor is nominated; a lower-priority pod cannot take its room."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj()
    preemptor = make_pod("preemptor").priority(HIGH).req(cpu="2").obj()
    latecomer = make_pod("latecomer").priority(MID).req(cpu="2").obj()
    pods = by_name(run(config, registry, nodes, [victim, preemptor, latecomer]))
    assert (pods["preemptor"].phase, pods["latecomer"].phase) == ("Bound", "Pending")
    assert pods["latecomer"].message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
        "victims found for incoming pod.")


def test_victims_are_the_fewest_lowest_priority_pods(config: SchedulerConfiguration,
                                                     registry: PluginRegistry) -> None:
    """Of two nodes the one whose victims matter least is chosen; the victims are listed most important first."""
    nodes = [make_node("n1").capacity(cpu="4").obj(), make_node("n2").capacity(cpu="4").obj()]
    pods = [make_pod("n1-mid").node("n1").priority(MID).req(cpu="4").obj(),
            make_pod("n2-a").node("n2").priority(LOW + 1).req(cpu="2").obj(),
            make_pod("n2-b").node("n2").priority(LOW).req(cpu="2").obj(),
            make_pod("preemptor").priority(HIGH).req(cpu="4").obj()]
    result = run(config, registry, nodes, pods)
    assert result.to_json()["preemptions"] == [
        {"time": 0.0, "preemptor": "default/preemptor", "preemptorUid": "default/preemptor-uid", "node": "n2",
         "victims": ["default/n2-a", "default/n2-b"], "victimUids": ["default/n2-a-uid", "default/n2-b-uid"],
         "victimsAlreadyTerminating": [False, False]}]
    assert by_name(result)["preemptor"].node == "n2"
    assert by_name(result)["n1-mid"].phase == "Bound"


def test_pod_that_cannot_preempt_stays_pending_with_both_messages(config: SchedulerConfiguration,
                                                                  registry: PluginRegistry) -> None:
    """The FailedScheduling message carries the Filter histogram and then the preemption's own."""
    nodes = [make_node(f"n{i}").capacity(cpu="1").obj() for i in range(3)]
    pods = [make_pod(f"vip{i}").node(f"n{i}").priority(HIGH).req(cpu="1").obj() for i in range(3)]
    pods.append(make_pod("p").priority(MID).req(cpu="1").obj())
    result = by_name(run(config, registry, nodes, pods))
    assert (result["p"].phase, result["p"].nominated_node) == ("Pending", None)
    assert result["p"].message == (
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption "
        "victims found for incoming pod.")


def test_preemption_policy_never(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """A pod with preemptionPolicy Never waits, however high its priority; nothing is evicted."""
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="1").obj()
    polite = make_pod("polite").priority(HIGH).req(cpu="1").preemption_policy("Never").obj()
    result = run(config, registry, nodes, [victim, polite])
    pods = by_name(result)
    assert (pods["victim"].phase, pods["polite"].phase) == ("Bound", "Pending")
    assert pods["polite"].message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.")
    assert result.preemptions == ()


def test_pdb_is_respected_when_another_node_will_do(config: SchedulerConfiguration,
                                                    registry: PluginRegistry) -> None:
    """The node whose victim a PDB protects is avoided even though its victim has the lower priority."""
    nodes = [make_node("n1").capacity(cpu="1").obj(), make_node("n2").capacity(cpu="1").obj()]
    pods = [make_pod("db-0").node("n1").priority(LOW).req(cpu="1").label(app="db").obj(),
            make_pod("web-0").node("n2").priority(MID).req(cpu="1").label(app="web").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").obj()]
    guarded = run(config, registry, nodes, pods, (pdb("db", None, min_available=1, app="db"),))
    assert [(p.node, p.victims) for p in guarded.preemptions] == [("n2", ("default/web-0",))]
    unguarded = run(config, registry, nodes, pods)
    assert [(p.node, p.victims) for p in unguarded.preemptions] == [("n1", ("default/db-0",))]


def test_pdb_is_only_a_preference(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """When every candidate breaks a PDB, the scheduler still preempts: it never enforces budgets."""
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    pods = [make_pod("db-0").node("n1").priority(LOW).req(cpu="1").label(app="db").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").obj()]
    result = run(config, registry, nodes, pods, (pdb("db", 0, app="db"),))
    assert by_name(result)["p"].node == "n1"
    assert by_name(result)["db-0"].phase == "Evicted"


def test_same_seed_same_preemptions(config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """The random offset comes from the seeded RNG: equal seeds give equal runs, preemptions included."""
    nodes = [make_node(f"n{i}").capacity(cpu="1").obj() for i in range(6)]
    pods = [make_pod(f"v{i}").node(f"n{i}").priority(LOW).req(cpu="1").obj() for i in range(6)]
    pods += [make_pod(f"p{i}").priority(HIGH).req(cpu="1").obj() for i in range(3)]
    first = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), config, registry, seed=3)
    again = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), config, registry, seed=3)
    assert first.to_json() == again.to_json()
    assert len(first.preemptions) == 3
    assert all(p.phase == "Bound" for p in first.pods if p.name.startswith("p"))


MANIFESTS = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: critical}
value: 1000000
---
apiVersion: v1
kind: Node
metadata: {name: worker}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: jobs}
spec:
  nodeName: worker
  terminationGracePeriodSeconds: 10
  containers: [{name: main, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: prod}
spec:
  priorityClassName: critical
  containers: [{name: main, resources: {requests: {cpu: "1"}}}]
"""


def test_yaml_manifests(config: SchedulerConfiguration, registry: PluginRegistry, tmp_path: Path) -> None:
    """From YAML: a PriorityClass gives the pod its priority; it preempts the batch pod and binds 10s later."""
    cluster = load([write(tmp_path / "cluster.yaml", MANIFESTS)])
    result = simulate(cluster, config, registry)
    uid = {p.name: p.uid for p in result.pods}
    assert result.to_json()["preemptions"] == [{"time": 0.0, "preemptor": "prod/api", "preemptorUid": uid["api"],
                                                "node": "worker",
                                                "victims": ["jobs/batch"], "victimUids": [uid["batch"]],
                                                "victimsAlreadyTerminating": [False]}]
    assert [(e.time, e.reason, e.object) for e in result.events][-1] == (10.0, "Scheduled", "prod/api")


def test_profile_without_default_preemption_never_preempts(registry: PluginRegistry, tmp_path: Path) -> None:
    """Disabling DefaultPreemption leaves no PostFilter: the pod waits with the Filter message alone."""
    profile = write(tmp_path / "no-preemption.toml", '[[profiles]]\n[profiles.plugins.post-filter]\n'
                                                     'disabled = [{ name = "DefaultPreemption" }]\n')
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    pods = [make_pod("victim").node("n1").priority(LOW).req(cpu="1").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").obj()]
    result = run(load_config(str(profile), registry), registry, nodes, pods)
    assert result.preemptions == ()
    assert (by_name(result)["victim"].phase, by_name(result)["p"].phase) == ("Bound", "Pending")
    assert by_name(result)["p"].message == "0/1 nodes are available: 1 Insufficient cpu."


def test_required_anti_affinity_is_resolved_by_preempting_the_conflicting_pod(
        config: SchedulerConfiguration, registry: PluginRegistry) -> None:
    """A node with room but a lower-priority pod the preemptor must avoid: only that pod is preempted."""
    nodes = [make_node("n1").capacity(cpu="4").obj()]
    pods = [make_pod("noisy").node("n1").priority(LOW).req(cpu="1").label(app="noisy").obj(),
            make_pod("quiet").node("n1").priority(LOW).req(cpu="1").label(app="quiet").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").pod_affinity(HOSTNAME, anti=True, app="noisy").obj()]
    result = run(config, registry, nodes, pods)
    assert [(p.node, p.victims) for p in result.preemptions] == [("n1", ("default/noisy",))]
    assert (by_name(result)["p"].node, by_name(result)["quiet"].phase) == ("n1", "Bound")


def test_topology_spread_is_restored_with_the_fewest_victims(config: SchedulerConfiguration,
                                                             registry: PluginRegistry) -> None:
    """maxSkew 2 per node: of three web pods on n1 (n2 is full with a more important pod) two must go."""
    nodes = [make_node("n1").capacity(cpu="8").obj(), make_node("n2").capacity(cpu="1").obj()]
    pods = [make_pod(f"web-{i}").node("n1").priority(LOW).req(cpu="1").label(app="web")
            .start_time(T0 + timedelta(hours=i)).obj() for i in range(3)]
    pods += [make_pod("vip").node("n2").priority(HIGH).req(cpu="1").obj(),
             make_pod("p").priority(MID).req(cpu="1").label(app="web").spread(2, HOSTNAME, app="web").obj()]
    result = run(config, registry, nodes, pods)
    # web-0 started first, so it is the most important and is reprieved; web-1 and web-2 go.
    assert [(p.node, p.victims) for p in result.preemptions] == [("n1", ("default/web-1", "default/web-2"))]
    assert by_name(result)["p"].node == "n1"


class HoldForGang(Plugin):
    """A Permit plugin that holds pods labelled ``gang`` for a minute, as a gang waiting for members would."""

    name = "HoldForGang"

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return (Status.wait(), 60.0) if "gang" in pod.labels else (None, 0.0)


def test_victim_waiting_on_permit_is_rejected_not_evicted(registry: PluginRegistry, tmp_path: Path) -> None:
    """A victim still waiting on Permit is rejected: it goes back to the queue instead of being deleted."""
    with_gang = registry.with_plugins(HoldForGang)
    profile = write(tmp_path / "gang.toml", '[[profiles]]\n[profiles.plugins.permit]\n'
                                            'enabled = [{ name = "HoldForGang" }]\n')
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    member = make_pod("member").priority(LOW).req(cpu="2").label(gang="g1").obj()
    simulation = Simulation(ClusterInput(nodes=tuple(nodes), pods=(member,)), load_config(str(profile), with_gang),
                            with_gang)
    simulation.start()
    assert simulation.scheduler.schedule_one()  # member is reserved on n1 and waits on Permit
    simulation.clock.advance_to(5.0)
    simulation.cluster.add_pod(make_pod("p").priority(HIGH).req(cpu="2").obj())
    simulation.settle()
    result = simulation.result()
    assert [(p.preemptor, p.node, p.victims) for p in result.preemptions] == [("default/p", "n1", ("default/member",))]
    assert simulation.cluster.pods["default/p-uid"].spec.node_name == "n1"  # p came after the input: not in pods
    member_result = by_name(result)["member"]
    assert member_result.phase == "Pending"
    assert member_result.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert [(e.time, e.reason, e.message) for e in result.events if e.object == "default/member"][:2] == [
        (5.0, "Preempted", "Preempted by pod default/p-uid on node n1"),
        (5.0, "FailedScheduling", "0/1 nodes are available: 1 preempted.")]  # kube's FitError for a Permit reject
    assert "default/member" not in [f"{p.namespace}/{p.name}" for p in simulation.cluster.deleted.values()]

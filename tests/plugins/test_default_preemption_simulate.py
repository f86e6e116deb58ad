"""DefaultPreemption end to end: simulations with a profile that enables it at PostFilter."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget
from kubesched.framework.registry import PluginRegistry
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.sim.simulate import PodResult, SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write
from tests.framework.preemption_cluster import pdb

HIGH, MID, LOW = 1000, 100, 1
PREEMPTION_PROFILE = """
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugins.post-filter]
enabled = [{ name = "DefaultPreemption" }]
"""


@pytest.fixture(scope="module")
def with_preemption(registry: PluginRegistry) -> PluginRegistry:
    """The installed plugins plus DefaultPreemption (until it is registered as a built-in)."""
    from kubesched.plugins.default_preemption import DefaultPreemption

    return registry.with_plugins(DefaultPreemption)


@pytest.fixture(scope="module")
def config(with_preemption: PluginRegistry, tmp_path_factory: pytest.TempPathFactory) -> SchedulerConfiguration:
    """The default plugins with DefaultPreemption at PostFilter."""
    path = write(tmp_path_factory.mktemp("profiles") / "preemption.toml", PREEMPTION_PROFILE)
    return load_config(str(path), with_preemption)


def run(config: SchedulerConfiguration, registry: PluginRegistry, nodes: list[Node], pods: list[Pod],
        pdbs: tuple[PodDisruptionBudget, ...] = ()) -> SimulationResult:
    return simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods), pdbs=pdbs), config, registry)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    return {p.name: p for p in result.pods}


def test_preemptor_binds_once_its_victims_are_gone(config: SchedulerConfiguration,
                                                   with_preemption: PluginRegistry) -> None:
    """The victim keeps its room for its grace period; then the preemptor binds in the same run."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="2").grace_period(45).obj()
    preemptor = make_pod("preemptor").priority(HIGH).req(cpu="2").obj()
    result = run(config, with_preemption, nodes, [victim, preemptor])
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
        {"preemptor": "default/preemptor", "node": "n1", "victims": ["default/victim"]}]


def test_room_freed_for_the_preemptor_is_not_taken_by_a_lower_priority_pod(
        config: SchedulerConfiguration, with_preemption: PluginRegistry) -> None:
    """While its victims terminate the preemptor is nominated; a lower-priority pod cannot take its room."""
    nodes = [make_node("n1").capacity(cpu="2").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="2").obj()
    preemptor = make_pod("preemptor").priority(HIGH).req(cpu="2").obj()
    latecomer = make_pod("latecomer").priority(MID).req(cpu="2").obj()
    pods = by_name(run(config, with_preemption, nodes, [victim, preemptor, latecomer]))
    assert (pods["preemptor"].phase, pods["latecomer"].phase) == ("Bound", "Pending")
    assert pods["latecomer"].message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
        "victims found for incoming pod.")


def test_victims_are_the_fewest_lowest_priority_pods(config: SchedulerConfiguration,
                                                     with_preemption: PluginRegistry) -> None:
    """Of two nodes the one whose victims matter least is chosen; the victims are listed most important first."""
    nodes = [make_node("n1").capacity(cpu="4").obj(), make_node("n2").capacity(cpu="4").obj()]
    pods = [make_pod("n1-mid").node("n1").priority(MID).req(cpu="4").obj(),
            make_pod("n2-a").node("n2").priority(LOW + 1).req(cpu="2").obj(),
            make_pod("n2-b").node("n2").priority(LOW).req(cpu="2").obj(),
            make_pod("preemptor").priority(HIGH).req(cpu="4").obj()]
    result = run(config, with_preemption, nodes, pods)
    assert result.to_json()["preemptions"] == [
        {"preemptor": "default/preemptor", "node": "n2", "victims": ["default/n2-a", "default/n2-b"]}]
    assert by_name(result)["preemptor"].node == "n2"
    assert by_name(result)["n1-mid"].phase == "Bound"


def test_pod_that_cannot_preempt_stays_pending_with_both_messages(config: SchedulerConfiguration,
                                                                  with_preemption: PluginRegistry) -> None:
    """The FailedScheduling message carries the Filter histogram and then the preemption's own."""
    nodes = [make_node(f"n{i}").capacity(cpu="1").obj() for i in range(3)]
    pods = [make_pod(f"vip{i}").node(f"n{i}").priority(HIGH).req(cpu="1").obj() for i in range(3)]
    pods.append(make_pod("p").priority(MID).req(cpu="1").obj())
    result = by_name(run(config, with_preemption, nodes, pods))
    assert (result["p"].phase, result["p"].nominated_node) == ("Pending", None)
    assert result["p"].message == (
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption "
        "victims found for incoming pod.")


def test_preemption_policy_never(config: SchedulerConfiguration, with_preemption: PluginRegistry) -> None:
    """A pod with preemptionPolicy Never waits, however high its priority; nothing is evicted."""
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    victim = make_pod("victim").node("n1").priority(LOW).req(cpu="1").obj()
    polite = make_pod("polite").priority(HIGH).req(cpu="1").preemption_policy("Never").obj()
    result = run(config, with_preemption, nodes, [victim, polite])
    pods = by_name(result)
    assert (pods["victim"].phase, pods["polite"].phase) == ("Bound", "Pending")
    assert pods["polite"].message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.")
    assert result.preemptions == ()


def test_pdb_is_respected_when_another_node_will_do(config: SchedulerConfiguration,
                                                    with_preemption: PluginRegistry) -> None:
    """The node whose victim a PDB protects is avoided even though its victim has the lower priority."""
    nodes = [make_node("n1").capacity(cpu="1").obj(), make_node("n2").capacity(cpu="1").obj()]
    pods = [make_pod("db-0").node("n1").priority(LOW).req(cpu="1").label(app="db").obj(),
            make_pod("web-0").node("n2").priority(MID).req(cpu="1").label(app="web").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").obj()]
    guarded = run(config, with_preemption, nodes, pods, (pdb("db", None, min_available=1, app="db"),))
    assert [(p.node, p.victims) for p in guarded.preemptions] == [("n2", ("default/web-0",))]
    unguarded = run(config, with_preemption, nodes, pods)
    assert [(p.node, p.victims) for p in unguarded.preemptions] == [("n1", ("default/db-0",))]


def test_pdb_is_only_a_preference(config: SchedulerConfiguration, with_preemption: PluginRegistry) -> None:
    """When every candidate breaks a PDB, the scheduler still preempts: it never enforces budgets."""
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    pods = [make_pod("db-0").node("n1").priority(LOW).req(cpu="1").label(app="db").obj(),
            make_pod("p").priority(HIGH).req(cpu="1").obj()]
    result = run(config, with_preemption, nodes, pods, (pdb("db", 0, app="db"),))
    assert by_name(result)["p"].node == "n1"
    assert by_name(result)["db-0"].phase == "Evicted"


def test_same_seed_same_preemptions(config: SchedulerConfiguration, with_preemption: PluginRegistry) -> None:
    """The random offset comes from the seeded RNG: equal seeds give equal runs, preemptions included."""
    nodes = [make_node(f"n{i}").capacity(cpu="1").obj() for i in range(6)]
    pods = [make_pod(f"v{i}").node(f"n{i}").priority(LOW).req(cpu="1").obj() for i in range(6)]
    pods += [make_pod(f"p{i}").priority(HIGH).req(cpu="1").obj() for i in range(3)]
    first = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), config, with_preemption, seed=3)
    again = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), config, with_preemption, seed=3)
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


def test_yaml_manifests(config: SchedulerConfiguration, with_preemption: PluginRegistry, tmp_path: Path) -> None:
    """From YAML: a PriorityClass gives the pod its priority; it preempts the batch pod and binds 10s later."""
    cluster = load([write(tmp_path / "cluster.yaml", MANIFESTS)])
    result = simulate(cluster, config, with_preemption)
    assert result.to_json()["preemptions"] == [{"preemptor": "prod/api", "node": "worker",
                                                "victims": ["jobs/batch"]}]
    assert [(e.time, e.reason, e.object) for e in result.events][-1] == (10.0, "Scheduled", "prod/api")

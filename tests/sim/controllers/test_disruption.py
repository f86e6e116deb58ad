"""PodDisruptionBudget status from controller scale, and the eviction API honouring it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.controllers.statefulset import StatefulSetController
from tests.sim.controllers.helpers import live, node, run

STS = """kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 4
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
"""


def pdb(spec: str) -> str:
    return (f"kind: PodDisruptionBudget\nmetadata: {{name: db}}\n"
            f"spec: {{selector: {{matchLabels: {{app: db}}}}, {spec}}}\n")


def test_max_unavailable_counts_the_controllers_scale_not_the_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """With 4 replicas but only db-0 running and db-1 pending, maxUnavailable 2 expects 4 pods: 2 must stay
    healthy, only 1 is, so no disruption is allowed (counting the 2 pods would allow 1)."""
    sim = run(tmp_path, node("n1", cpu="1") + STS + pdb("maxUnavailable: 2"), registry)
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.desired_healthy, budget.status.current_healthy,
            budget.status.disruptions_allowed) == (4, 2, 1, 0)


def test_integer_min_available_counts_the_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """An integer minAvailable expects the matching pods, as the disruption controller does."""
    sim = run(tmp_path, node("n1", cpu="2") + STS + pdb("minAvailable: 1"), registry)
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.disruptions_allowed) == (3, 1)


def test_eviction_is_refused_when_the_budget_allows_none(tmp_path: Path, registry: PluginRegistry) -> None:
    """The eviction API refuses with the API server's message and leaves the pod running."""
    sim = run(tmp_path, node("n1", cpu="1") + STS + pdb("maxUnavailable: 2"), registry)
    assert sim.disruption is not None
    db0 = next(p for p in live(sim) if p.name == "db-0")
    assert sim.disruption.evict(db0) == "Cannot evict pod as it would violate the pod's disruption budget."
    assert sim.cluster.pods[db0.uid].metadata.deletion_timestamp is None


def test_eviction_within_the_budget_marks_the_pod_disrupted(tmp_path: Path, registry: PluginRegistry) -> None:
    """An allowed eviction deletes the pod with the DisruptionTarget condition, and uses up the budget."""
    sim = run(tmp_path, node("n1", cpu="4") + STS + pdb("maxUnavailable: 1"), registry)
    assert sim.disruption is not None
    first, second = live(sim)[:2]
    assert sim.disruption.evict(first) is None
    evicted = sim.cluster.pods[first.uid]
    assert evicted.metadata.deletion_timestamp is not None
    assert any(c.type == "DisruptionTarget" and c.reason == "EvictionByEvictionAPI"
               for c in evicted.status.conditions)
    assert sim.disruption.evict(second) is not None


def test_scaling_a_controller_updates_the_budget(tmp_path: Path, registry: PluginRegistry) -> None:
    """Scaled from 4 to 2 (two pods running), maxUnavailable 1 expects 2 pods: 1 disruption allowed, not 0."""
    sim = run(tmp_path, node("n1", cpu="2") + STS + pdb("maxUnavailable: 1"), registry)
    assert sim.cluster.list_pdbs()[0].status.expected_pods == 4
    assert sim.manager is not None
    controller = sim.manager.get("StatefulSet", "default", "db")
    assert isinstance(controller, StatefulSetController)
    controller.replicas = 2  # the scale alone, before the controller acts on it
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.disruptions_allowed) == (2, 1)


def _bare(name: str) -> str:
    return (f"kind: Pod\nmetadata: {{name: {name}, labels: {{app: db}}}}\n"
            "spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n---\n")


JOB = """kind: Job
metadata: {name: batch}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {labels: {app: db}}
    spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
"""


def test_pods_without_a_controller_are_not_expected(tmp_path: Path, registry: PluginRegistry) -> None:
    """getExpectedScale skips unmanaged pods: a maxUnavailable budget over bare pods expects none and allows
    no disruption, as in Kubernetes."""
    sim = run(tmp_path, node("n1") + _bare("a") + _bare("b") + JOB.replace("app: db", "app: other")
              + pdb("maxUnavailable: 1"), registry, until=1.0)
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.current_healthy, budget.status.disruptions_allowed) == (0, 2, 0)


def test_pods_of_a_controller_without_scale_fail_safe(tmp_path: Path, registry: PluginRegistry) -> None:
    """A Job's pods have no scale to read ("found no controllers"): the budget allows no disruption even though
    maxUnavailable 1 of 2 healthy pods would."""
    sim = run(tmp_path, node("n1") + JOB + pdb("maxUnavailable: 1"), registry, until=1.0)
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.current_healthy, budget.status.disruptions_allowed) == (2, 0)


@pytest.mark.parametrize(("spec", "desired"), [
    pytest.param("maxUnavailable: 50%", 1, id="max-unavailable-rounds-up"),
    pytest.param("minAvailable: 50%", 2, id="min-available-rounds-up"),
])
def test_percentages_of_the_scale_round_up(tmp_path: Path, registry: PluginRegistry, spec: str,
                                           desired: int) -> None:
    """Of 3 replicas, both maxUnavailable 50% and minAvailable 50% stand for 2 (GetScaledValueFromIntOrPercent
    rounding up), so 1 and 2 pods must stay healthy."""
    sim = run(tmp_path, node("n1") + STS.replace("replicas: 4", "replicas: 3") + pdb(spec), registry)
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.desired_healthy, budget.status.disruptions_allowed) == (
        3, desired, 3 - desired)


def test_deployment_pods_expect_the_deployments_scale(tmp_path: Path, registry: PluginRegistry) -> None:
    """Pods of a Deployment's ReplicaSet expect the Deployment's replicas (getPodDeployment), not the
    ReplicaSet's: scaled to 6 before its ReplicaSet follows, the budget expects 6."""
    deployment = STS.replace("StatefulSet", "Deployment").replace("name: db}", "name: web}")
    sim = run(tmp_path, node("n1") + deployment + pdb("maxUnavailable: 1"), registry)
    assert sim.manager is not None
    controller = sim.manager.get("Deployment", "default", "web")
    assert isinstance(controller, DeploymentController)
    controller.replicas = 6  # the scale alone, before the controller acts on it
    (budget,) = sim.cluster.list_pdbs()
    assert (budget.status.expected_pods, budget.status.desired_healthy, budget.status.disruptions_allowed) == (
        6, 5, 0)

"""The Deployment controller: its ReplicaSet's name, and rollouts within maxSurge/maxUnavailable or by Recreate."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from kubesched.api.apps import Deployment
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.base import is_active, is_available
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.simulate import Simulation
from tests.sim.controllers.helpers import events, live, node, run


def deployment(strategy: str = "{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}", replicas: int = 4,
               cpu: str = "100m") -> str:
    return f"""kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  strategy: {strategy}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, image: web:1, resources: {{requests: {{cpu: {cpu}}}}}}}]}}
"""


class Census:
    """Counts, after every pod change, the active and the available pods of each image."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.samples: list[tuple[int, int]] = []
        self.old_alive_when_new_created = False
        sim.cluster.subscribe(self)

    def _sample(self) -> None:
        pods = list(self.sim.cluster.pods.values())
        self.samples.append((sum(1 for p in pods if is_active(p)), sum(1 for p in pods if is_available(p))))

    def on_pod_add(self, pod: Pod) -> None:
        if pod.spec.containers[0].image == "web:2" and any(
                p.spec.containers[0].image == "web:1" for p in self.sim.cluster.pods.values()):
            self.old_alive_when_new_created = True
        self._sample()

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        self._sample()

    def on_pod_delete(self, pod: Pod) -> None:
        self._sample()

    def on_node_add(self, node: Node) -> None: ...
    def on_node_update(self, node: Node) -> None: ...
    def on_node_delete(self, name: str) -> None: ...


def roll_out(sim: Simulation) -> None:
    assert sim.manager is not None
    controller = sim.manager.get("Deployment", "default", "web")
    assert isinstance(controller, DeploymentController)
    template = controller.workload.template
    container = attrs.evolve(template.spec.containers[0], image="web:2")
    new = attrs.evolve(controller.workload, template=attrs.evolve(
        template, spec=attrs.evolve(template.spec, containers=(container,))))
    assert isinstance(new, Deployment)
    controller.update(new)


def test_replica_set_is_named_after_the_pod_template_hash(tmp_path: Path, registry: PluginRegistry) -> None:
    """The ReplicaSet is <deployment>-<pod-template-hash>; its pods carry the hash label and the RS's name."""
    pods = live(run(tmp_path, node("n1") + deployment(), registry))
    digest = pods[0].labels["pod-template-hash"]
    assert re.fullmatch(r"[bcdfghjklmnpqrstvwxz2456789]+", digest)
    for pod in pods:
        assert re.fullmatch(rf"web-{digest}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", pod.name)
        assert pod.metadata.owner_references[0].name == f"web-{digest}"


@pytest.mark.parametrize(("surge", "unavailable", "replicas"), [(1, 1, 4), (0, 1, 4), (2, 0, 4), ("50%", "25%", 4),
                                                                (1, 0, 3)])
def test_rolling_update_stays_within_surge_and_unavailability(tmp_path: Path, registry: PluginRegistry,
                                                              surge: object, unavailable: object,
                                                              replicas: int) -> None:
    """During a rollout, active pods never exceed replicas + maxSurge nor available pods drop below
    replicas - maxUnavailable; at the end every pod runs the new template."""
    strategy = f"{{rollingUpdate: {{maxSurge: {surge}, maxUnavailable: {unavailable}}}}}"
    sim = run(tmp_path, node("n1") + deployment(strategy, replicas), registry)
    census = Census(sim)
    roll_out(sim)
    sim.settle()
    max_surge = -(-int(str(surge).rstrip("%")) * replicas // 100) if "%" in str(surge) else int(str(surge))
    max_unavailable = (int(str(unavailable).rstrip("%")) * replicas // 100 if "%" in str(unavailable)
                       else int(str(unavailable)))
    assert max(active for active, _ in census.samples) <= replicas + max_surge
    assert min(available for _, available in census.samples) >= replicas - max_unavailable
    assert [p.spec.containers[0].image for p in live(sim)] == ["web:2"] * replicas
    assert all(p.spec.node_name for p in live(sim))


def test_recreate_removes_every_old_pod_before_creating_new_ones(tmp_path: Path, registry: PluginRegistry) -> None:
    """With strategy Recreate no new pod exists while an old one does."""
    sim = run(tmp_path, node("n1") + deployment("{type: Recreate}"), registry)
    census = Census(sim)
    roll_out(sim)
    sim.settle()
    assert not census.old_alive_when_new_created
    assert [p.spec.containers[0].image for p in live(sim)] == ["web:2"] * 4


def test_rollout_reports_scaling_events(tmp_path: Path, registry: PluginRegistry) -> None:
    """Each scaling of a ReplicaSet is a ScalingReplicaSet event of the Deployment."""
    sim = run(tmp_path, node("n1") + deployment(), registry)
    roll_out(sim)
    sim.settle()
    messages = [e.message for e in events(sim, "ScalingReplicaSet")]
    assert messages[0].startswith("Scaled up replica set web-")
    assert messages[0].endswith("from 0 to 4")
    assert any(m.startswith("Scaled down replica set") and m.endswith("to 0") for m in messages)


def trajectory(tmp_path: Path, registry: PluginRegistry, surge: str, unavailable: str, replicas: int,
               node_cpu: str = "4", cpu: str = "100m") -> list[str]:
    """The rollout's ScalingReplicaSet events, the ReplicaSets named OLD and NEW."""
    strategy = f"{{rollingUpdate: {{maxSurge: {surge}, maxUnavailable: {unavailable}}}}}"
    sim = run(tmp_path, node("n1", cpu=node_cpu) + deployment(strategy, replicas, cpu), registry)
    (old,) = {p.metadata.owner_references[0].name for p in live(sim)}
    before = len(events(sim, "ScalingReplicaSet"))
    roll_out(sim)
    sim.settle()
    messages = [e.message.replace(old, "OLD") for e in events(sim, "ScalingReplicaSet")[before:]]
    return [re.sub(r"web-[bcdfghjklmnpqrstvwxz2456789]+", "NEW", m).removeprefix("Scaled ") for m in messages]


UP, DOWN = "up replica set NEW from", "down replica set OLD from"


@pytest.mark.parametrize(("surge", "unavailable", "replicas", "node_cpu", "cpu", "expected"), [
    pytest.param("25%", "25%", 3, "4", "100m",
                 [f"{UP} 0 to 1", f"{DOWN} 3 to 2", f"{UP} 1 to 2", f"{DOWN} 2 to 1", f"{UP} 2 to 3",
                  f"{DOWN} 1 to 0"], id="surge-rounds-up-unavailable-down"),
    pytest.param("50%", "50%", 5, "4", "100m",
                 [f"{UP} 0 to 3", f"{DOWN} 5 to 3", f"{UP} 3 to 5", f"{DOWN} 3 to 0"], id="half-of-five"),
    pytest.param("0%", "10%", 3, "4", "100m",
                 [f"{DOWN} 3 to 2", f"{UP} 0 to 1", f"{DOWN} 2 to 1", f"{UP} 1 to 2", f"{DOWN} 1 to 0",
                  f"{UP} 2 to 3"], id="both-round-to-zero-so-unavailable-is-1"),
    pytest.param("0", "1", 4, "2", "1", [f"{DOWN} 4 to 3", f"{UP} 0 to 1"],
                 id="unhealthy-old-pods-cleaned-within-budget"),
])
def test_rollout_steps_are_the_deployment_controllers(tmp_path: Path, registry: PluginRegistry, surge: str,
                                                      unavailable: str, replicas: int, node_cpu: str, cpu: str,
                                                      expected: list[str]) -> None:
    """The exact scaling steps of reconcileNewReplicaSet and reconcileOldReplicaSets: maxSurge rounded up,
    maxUnavailable down (1 when both are 0), old unhealthy pods removed only within the availability budget (the
    last case stalls with 2 of 4 old pods pending, as kube's does)."""
    assert trajectory(tmp_path, registry, surge, unavailable, replicas, node_cpu, cpu) == expected

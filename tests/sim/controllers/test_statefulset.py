"""The StatefulSet controller: ordinal names, OrderedReady and Parallel."""

from __future__ import annotations

import itertools
from pathlib import Path

import attrs
import pytest

from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.statefulset import StatefulSetController
from tests.sim.controllers.helpers import created, live, node, run, scheduled


def sts(policy: str = "OrderedReady", replicas: int = 3) -> str:
    return f"""kind: StatefulSet
metadata: {{name: db}}
spec:
  replicas: {replicas}
  serviceName: db
  podManagementPolicy: {policy}
  selector: {{matchLabels: {{app: db}}}}
  template:
    metadata: {{labels: {{app: db}}}}
    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
"""


def test_pods_are_named_by_ordinal_with_their_labels(tmp_path: Path, registry: PluginRegistry) -> None:
    """Pods db-0, db-1, db-2, each labelled with its pod name and index."""
    pods = live(run(tmp_path, node("n1") + sts(), registry))
    assert [p.name for p in pods] == ["db-0", "db-1", "db-2"]
    assert [(p.labels["statefulset.kubernetes.io/pod-name"], p.labels["apps.kubernetes.io/pod-index"])
            for p in pods] == [("db-0", "0"), ("db-1", "1"), ("db-2", "2")]


def test_ordered_ready_creates_the_next_ordinal_once_the_previous_runs(tmp_path: Path,
                                                                       registry: PluginRegistry) -> None:
    """OrderedReady: db-(i+1) is created only after db-i is bound, one controller delay later."""
    sim = run(tmp_path, node("n1") + sts(), registry)
    made, bound = created(sim), scheduled(sim)
    assert [n for _, n in made] == ["db-0", "db-1", "db-2"]
    for (_, earlier), (later_time, _) in itertools.pairwise(made):
        assert bound[earlier][0] < later_time


def test_ordered_ready_waits_for_a_pod_that_cannot_run(tmp_path: Path, registry: PluginRegistry) -> None:
    """With room for one pod only, db-1 stays pending and db-2 is never created."""
    sim = run(tmp_path, node("n1", cpu="150m") + sts(), registry)
    assert [(p.name, p.spec.node_name) for p in live(sim)] == [("db-0", "n1"), ("db-1", "")]


def test_parallel_creates_every_ordinal_at_once(tmp_path: Path, registry: PluginRegistry) -> None:
    """Parallel: all three pods are created at time 0."""
    sim = run(tmp_path, node("n1") + sts("Parallel"), registry)
    assert created(sim) == [(0.0, "db-0"), (0.0, "db-1"), (0.0, "db-2")]


def test_scaling_down_removes_the_highest_ordinals(tmp_path: Path, registry: PluginRegistry) -> None:
    """Scaled from 3 to 1, db-2 then db-1 go; db-0 stays."""
    sim = run(tmp_path, node("n1") + sts(), registry)
    assert sim.manager is not None
    controller = sim.manager.get("StatefulSet", "default", "db")
    assert isinstance(controller, StatefulSetController)
    controller.scale(1)
    sim.settle()
    assert [p.name for p in live(sim)] == ["db-0"]
    deletions = [e.message for e in sim.cluster.events if e.reason == "SuccessfulDelete"]
    assert [m.split()[2] for m in deletions] == ["db-2", "db-1"]


def test_replacement_keeps_the_name_and_waits_for_the_old_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """A deleted db-1 is re-created as db-1 once its 30 s grace period is over (not while it terminates)."""
    sim = run(tmp_path, node("n1") + sts(), registry)
    sim.cluster.delete_pod(next(p for p in live(sim) if p.name == "db-1"))
    start = sim.clock.now()
    sim.settle()
    again = [t for t, n in created(sim) if n == "db-1"][1]
    assert again >= start + 30
    assert [p.name for p in live(sim)] == ["db-0", "db-1", "db-2"]


@pytest.mark.parametrize(("policy", "gaps"), [
    pytest.param("OrderedReady", [0.0, 31.0, 62.0], id="ordered-one-at-a-time"),
    pytest.param("Parallel", [0.0, 0.0, 0.0], id="parallel-at-once"),
])
def test_scale_down_pace_follows_the_pod_management_policy(tmp_path: Path, registry: PluginRegistry, policy: str,
                                                          gaps: list[float]) -> None:
    """Scaled from 4 to 1: OrderedReady deletes db-3, db-2, db-1 each once the one before is gone (its 30 s grace
    period, then the controller delay); Parallel deletes them together."""
    sim = run(tmp_path, node("n1") + sts(policy, replicas=4), registry)
    assert sim.manager is not None
    controller = sim.manager.get("StatefulSet", "default", "db")
    assert isinstance(controller, StatefulSetController)
    start = sim.clock.now()
    controller.scale(1)
    sim.settle()
    deletions = [(e.time - start, e.message.split()[2]) for e in sim.cluster.events if e.reason == "SuccessfulDelete"]
    assert deletions == list(zip(gaps, ["db-3", "db-2", "db-1"], strict=True))



def test_creations_are_worded_as_the_statefulset_controller_words_them(tmp_path: Path,
                                                                       registry: PluginRegistry) -> None:
    """recordPodEvent's words, not the ReplicaSet controller's: "create Pod db-0 in StatefulSet db successful"."""
    sim = run(tmp_path, node("n1") + sts(replicas=1), registry)
    assert [(e.type, e.reason, e.message) for e in sim.cluster.events if e.kind == "StatefulSet"] == [
        ("Normal", "SuccessfulCreate", "create Pod db-0 in StatefulSet db successful")]


def test_a_refused_creation_is_worded_as_the_statefulset_controller_words_it(tmp_path: Path,
                                                                            registry: PluginRegistry) -> None:
    """A pod the API server refuses (here: its priority class does not exist) gives FailedCreate "create Pod db-1
    in StatefulSet db failed error: <the refusal>"."""
    sim = run(tmp_path, node("n1") + sts(replicas=1), registry)
    assert sim.manager is not None
    controller = sim.manager.get("StatefulSet", "default", "db")
    assert isinstance(controller, StatefulSetController)
    pod = controller.make_pod("db-1", controller.workload.template)
    assert controller.create_pod(attrs.evolve(pod, spec=attrs.evolve(pod.spec, priority_class_name="gone"))) is None
    assert [(e.type, e.reason, e.message) for e in sim.cluster.events if e.reason == "FailedCreate"] == [
        ("Warning", "FailedCreate", 'create Pod db-1 in StatefulSet db failed error: pods "db-1" is forbidden: '
                                    "no PriorityClass with name gone was found")]

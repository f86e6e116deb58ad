"""Admission during a run: ResourceQuota on the pods the input and scenario steps create (a refused one ends
Rejected), every plugin on a controller's pods (a refused one is a FailedCreate, retried with the workqueue's
backoff), and what the mutating plugins change reaching the scheduler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.manager import RETRY_BASE
from kubesched.sim.simulate import simulate
from tests.sim.controllers.helpers import events, live, node, run
from tests.sim.scenario import helpers as scenario

QUOTA = "kind: ResourceQuota\nmetadata: {name: two}\nspec: {hard: {pods: '2'}}\n---\n"


def bare_pod(name: str, extra: str = "") -> str:
    """A pod manifest without spec.priority (the input creates it)."""
    return f"kind: Pod\nmetadata: {{name: {name}}}\nspec: {{{extra}containers: [{{name: c}}]}}\n---\n"


def test_input_pods_beyond_a_quota_end_rejected(tmp_path: Path, registry: PluginRegistry) -> None:
    """Created in creation order, the pods past the quota are refused with the API server's message; a pod a dump
    shows as admitted counts in the usage but is never refused."""
    dumped = "kind: Pod\nmetadata: {name: old}\nspec: {priority: 0, nodeName: n1, containers: [{name: c}]}\n---\n"
    sim = run(tmp_path, node("n1") + QUOTA + dumped + bare_pod("a") + bare_pod("b"), registry)
    result = sim.result()
    assert [(p.name, p.phase, p.node) for p in result.pods] == [("old", "Bound", "n1"), ("a", "Bound", "n1"),
                                                                 ("b", "Rejected", None)]
    assert result.pods[2].message == ('pods "b" is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, '
                                      "limited: pods=2")


def test_a_pods_end_releases_its_quota(tmp_path: Path, registry: PluginRegistry) -> None:
    """A Job's second pod, refused while the first runs, is created once the first succeeds and its Job syncs."""
    job = """kind: Job
metadata: {name: batch}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {annotations: {kubesched.io/duration: 1m}}
    spec: {restartPolicy: Never, containers: [{name: c}]}
---
"""
    sim = run(tmp_path, node("n1") + QUOTA.replace("'2'", "'1'") + job, registry)
    made = [e.time for e in events(sim, "SuccessfulCreate") if e.kind == "Job"]
    assert made == [0.0, 61.0]
    assert events(sim, "FailedCreate")[0].message.endswith("used: pods=1, limited: pods=1")


def test_a_refused_controller_retries_with_the_workqueues_backoff(tmp_path: Path, registry: PluginRegistry) -> None:
    """FailedCreate at each retry, 5 ms then doubling; past 10 within 10 minutes they are one combined event, and
    the run ends though the ReplicaSet still lacks pods."""
    rs = """kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}
---
"""
    sim = run(tmp_path, node("n1") + QUOTA + rs, registry)
    failed = events(sim, "FailedCreate")
    retries = [RETRY_BASE * (2 ** n - 1) for n in range(11)]
    assert [e.time for e in failed[:11]] == pytest.approx(retries)
    assert failed[0].message.startswith('Error creating: pods "web-')
    assert failed[0].message.endswith('" is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, '
                                      "limited: pods=2")
    assert [e.message.startswith("(combined from similar events): ") for e in failed[:11]] == [False] * 10 + [True]
    assert len(live(sim)) == 2


def test_a_statefulset_words_its_refusal_its_own_way(tmp_path: Path, registry: PluginRegistry) -> None:
    """The StatefulSet controller's FailedCreate names the pod and the set; a repeat of it is not recorded again."""
    sts = """kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}
---
"""
    sim = run(tmp_path, node("n1") + QUOTA.replace("'2'", "'0'") + sts, registry)
    assert [e.message for e in events(sim, "FailedCreate")] == [
        'create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: exceeded quota: two, requested: '
        "pods=1, used: pods=0, limited: pods=0"]


def test_a_controllers_pods_get_the_limit_ranges_defaults(tmp_path: Path, registry: PluginRegistry) -> None:
    """A ReplicaSet's pods are admitted when created: LimitRanger's defaults and the not-ready and unreachable
    tolerations are theirs."""
    limits = ("kind: LimitRange\nmetadata: {name: limits}\nspec: {limits: [{type: Container, default: {cpu: 500m}, "
              "defaultRequest: {cpu: 250m}}]}\n---\n")
    rs = ("kind: ReplicaSet\nmetadata: {name: web}\nspec: {replicas: 1, selector: {matchLabels: {app: web}}, "
          "template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}}\n---\n")
    [made] = live(run(tmp_path, node("n1") + limits + rs, registry))
    assert {n: q.text for n, q in made.spec.containers[0].requests.items()} == {"cpu": "250m"}
    assert [t.toleration_seconds for t in made.spec.tolerations] == [300, 300]


def test_the_default_tolerations_let_a_new_pod_onto_an_unreachable_node(tmp_path: Path,
                                                                        registry: PluginRegistry) -> None:
    """A pod the input creates tolerates node.kubernetes.io/unreachable:NoExecute for 300 s and schedules there; a
    dumped pod without that toleration does not."""
    unreachable = node("n1", taints="[{key: node.kubernetes.io/unreachable, effect: NoExecute}]")
    dumped = "kind: Pod\nmetadata: {name: old}\nspec: {priority: 0, containers: [{name: c}]}\n---\n"
    result = run(tmp_path, unreachable + bare_pod("new") + dumped, registry).result()
    assert [(p.name, p.phase) for p in result.pods] == [("new", "Bound"), ("old", "Pending")]


def test_a_runtime_class_places_its_pods_and_adds_their_overhead(tmp_path: Path, registry: PluginRegistry) -> None:
    """The class's node selector picks the sandbox node; its overhead counts in the node's requests."""
    classes = ("kind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\noverhead: {podFixed: {cpu: 250m}}\n"
               "scheduling: {nodeSelector: {sandbox: 'true'}}\n---\n")
    sim = run(tmp_path, node("n1") + node("n2", labels="{sandbox: 'true'}") + classes
              + bare_pod("p", "runtimeClassName: gvisor, "), registry)
    result = sim.result()
    assert [(p.name, p.node) for p in result.pods] == [("p", "n2")]
    assert [(n.name, n.cpu_requested) for n in result.nodes] == [("n1", 0), ("n2", 250)]


def test_a_scenario_steps_pods_meet_the_quota_its_steps_created(tmp_path: Path, registry: PluginRegistry) -> None:
    """A quota created by one step refuses the pods a later step creates beyond it."""
    steps = (f"  - create: {{objects: [{scenario.node('n1')}, {{kind: ResourceQuota, apiVersion: v1, metadata: "
             "{name: one}, spec: {hard: {pods: '1'}}}]}\n"
             "  - create: {objects: [{kind: Pod, apiVersion: v1, metadata: {name: a}, spec: {containers: [{name: c}]}},"
             " {kind: Pod, apiVersion: v1, metadata: {name: b}, spec: {containers: [{name: c}]}}]}\n")
    result = scenario.run(tmp_path, steps, registry)
    assert [(p.name, p.phase) for p in result.pods] == [("a", "Bound"), ("b", "Rejected")]


def test_rejections_are_deterministic(tmp_path: Path, registry: PluginRegistry) -> None:
    """The same input and seed give the same result, refusals and retries included."""
    path = tmp_path / "in.yaml"
    path.write_text(node("n1") + QUOTA + bare_pod("a") + bare_pod("b") + bare_pod("c"), encoding="utf-8")
    from kubesched.io.load import load

    config = load_config("default", registry)
    first, second = (json.dumps(simulate(load([path]), config, registry, seed=3).to_json()) for _ in range(2))
    assert first == second

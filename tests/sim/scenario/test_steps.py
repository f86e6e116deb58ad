"""Each scenario step type, run: what it does to the cluster, at its virtual time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario_run import ScenarioRunner
from tests.sim.scenario.helpers import node, placed, pods, run, scenario, times

WEB = ("  - create:\n      objects:\n      - {kind: Deployment, apiVersion: apps/v1, metadata: {name: web}, spec: "
       "{replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: "
       "{containers: [{name: c, image: IMAGE, resources: {requests: {cpu: '1'}}}]}}}}\n")
SSD_POD = ("  - create: {objects: [{kind: Pod, apiVersion: v1, metadata: {name: fast}, spec: {nodeSelector: "
           "{disk: ssd}, containers: [{name: c}]}}]}\n")


def test_create_at_a_time_schedules_then(tmp_path: Path, registry: PluginRegistry) -> None:
    """Objects created at 10m are scheduled at 600 s, and the step's time is in the scenario summary."""
    later = WEB.replace("  - create", "    create").replace("IMAGE", "web:1")
    result = run(tmp_path, f"  - create: {{objects: [{node('n1')}]}}\n  - at: 10m\n" + later, registry)
    assert times(result, "Scheduled") == [600.0, 600.0]
    assert result.scenario is not None
    assert result.scenario["steps"] == [{"index": 0, "action": "create", "at": None, "time": 0.0},
                                        {"index": 1, "action": "create", "at": 600.0, "time": 600.0}]


def test_apply_rolls_a_deployment_out(tmp_path: Path, registry: PluginRegistry) -> None:
    """apply with a new template replaces every pod with one of the new template."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + WEB.replace("IMAGE", "web:1") + "  - at: 1h\n"
             + WEB.replace("  - create", "    apply").replace("IMAGE", "web:2"))
    result = run(tmp_path, steps, registry)
    hashes = {p.name.rsplit("-", 2)[1] for p in pods(result, "web-") if p.phase == "Bound"}
    assert len(hashes) == 1
    assert len([p for p in pods(result, "web-") if p.phase == "Deleted"]) == 2
    assert min(times(result, "ScalingReplicaSet")[1:]) == 3600.0


def test_delete_removes_a_workload_and_its_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """Deleting a Deployment deletes its ReplicaSet's pods."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + WEB.replace("IMAGE", "web:1")
             + "  - {at: 1m, delete: [{kind: Deployment, name: web}]}\n")
    result = run(tmp_path, steps, registry)
    assert [p.phase for p in pods(result, "web-")] == ["Deleted", "Deleted"]
    assert times(result, "SuccessfulDelete") == [60.0, 60.0]


def test_delete_a_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """A pod named in delete goes after its grace period; the result says Deleted."""
    steps = f"  - create: {{objects: [{node('n1')}]}}\n" + SSD_POD.replace("{disk: ssd}", "{}") + \
        "  - {at: 1m, delete: {kind: Pod, name: fast}}\n"
    (fast,) = pods(run(tmp_path, steps, registry), "fast")
    assert (fast.phase, fast.message) == ("Deleted", "deleted")


def test_patch_node_labels_let_a_pending_pod_schedule(tmp_path: Path, registry: PluginRegistry) -> None:
    """A pod waiting for disk=ssd binds when the label is patched onto the node."""
    steps = f"  - create: {{objects: [{node('n1')}]}}\n" + SSD_POD + \
        "  - {at: 30m, patch-node: {name: n1, labels: {disk: ssd}}}\n"
    result = run(tmp_path, steps, registry)
    assert placed(result, "fast") == [("fast", "n1")]
    assert times(result, "Scheduled") == [1800.0]


def test_patch_node_cordon_keeps_new_pods_off(tmp_path: Path, registry: PluginRegistry) -> None:
    """unschedulable: true cordons the node (and adds the node.kubernetes.io/unschedulable taint)."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n  - patch-node: {{name: n1, unschedulable: true}}\n"
             + SSD_POD.replace("{disk: ssd}", "{}"))
    (fast,) = pods(run(tmp_path, steps, registry), "fast")
    assert fast.phase == "Pending"
    assert "node(s) were unschedulable" in fast.message


def test_patch_node_taints_replace_the_nodes_taints(tmp_path: Path, registry: PluginRegistry) -> None:
    """A NoSchedule taint patched on keeps an intolerant pod off."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n"
             "  - patch-node: {name: n1, taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}\n"
             + SSD_POD.replace("{disk: ssd}", "{}"))
    (fast,) = pods(run(tmp_path, steps, registry), "fast")
    assert "untolerated taint {dedicated: gpu}" in fast.message


def test_drain_evicts_pods_and_their_controller_replaces_them_elsewhere(tmp_path: Path,
                                                                         registry: PluginRegistry) -> None:
    """drain-node cordons n1 and evicts its pods; the ReplicaSet re-creates them on n2."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + WEB.replace("IMAGE", "web:1")
             + f"  - {{at: 1m, create: {{objects: [{node('n2')}]}}}}\n  - {{at: 2m, drain-node: {{name: n1}}}}\n")
    result = run(tmp_path, steps, registry)
    assert [p.phase for p in pods(result, "web-")[:2]] == ["Evicted", "Evicted"]
    assert [n for _, n in placed(result, "web-")] == ["n2", "n2"]
    assert times(result, "Drained") == [120.0]


def test_drain_honours_the_disruption_budget(tmp_path: Path, registry: PluginRegistry) -> None:
    """With maxUnavailable 1 the second eviction is refused until the first pod's replacement runs, then
    retried (every 5 s) and done."""
    pdb = ("  - create: {objects: [{kind: PodDisruptionBudget, apiVersion: policy/v1, metadata: {name: web}, spec: "
           "{maxUnavailable: 1, selector: {matchLabels: {app: web}}}}]}\n")
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + WEB.replace("IMAGE", "web:1") + pdb
             + f"  - {{at: 1m, create: {{objects: [{node('n2')}]}}}}\n  - {{at: 2m, drain-node: {{name: n1}}}}\n")
    result = run(tmp_path, steps, registry)
    assert times(result, "Evicted") == [120.0, 125.0]
    assert times(result, "EvictionRefused") == [120.0]
    assert [n for _, n in placed(result, "web-")] == ["n2", "n2"]


@pytest.mark.parametrize(("replicas", "room", "evicted"), [
    pytest.param(3, "n2", [120.0, 125.0, 130.0], id="slowed-down-finishes"),
    pytest.param(2, "", [120.0], id="blocked-for-good-ends-with-the-run"),
])
def test_drain_retries_keep_the_run_going_while_they_progress(tmp_path: Path, registry: PluginRegistry,
                                                              replicas: int, room: str, evicted: list[float]) -> None:
    """Pods of grace period 0 behind a maxUnavailable 1 budget: with room on n2 each replacement runs at once and
    the next retry evicts the next pod, though nothing else is due; without room the budget blocks the drain for
    good and the run ends instead of retrying forever."""
    pdb = ("  - create: {objects: [{kind: PodDisruptionBudget, apiVersion: policy/v1, metadata: {name: web}, spec: "
           "{maxUnavailable: 1, selector: {matchLabels: {app: web}}}}]}\n")
    web = WEB.replace("IMAGE", "web:1").replace("replicas: 2", f"replicas: {replicas}").replace(
        "spec: {containers", "spec: {terminationGracePeriodSeconds: 0, containers")
    later = f"  - {{at: 1m, create: {{objects: [{node(room)}]}}}}\n" if room else ""
    steps = (f"  - create: {{objects: [{node('n1', cpu='4')}]}}\n" + web + pdb + later
             + "  - {at: 2m, drain-node: {name: n1}}\n")
    result = run(tmp_path, steps, registry)
    assert times(result, "Evicted") == evicted
    assert times(result, "Drained") == ([evicted[-1]] if room else [])


def test_drain_leaves_daemonset_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """DaemonSet pods stay on a drained node, as kubectl drain --ignore-daemonsets leaves them."""
    ds = ("  - create:\n      objects:\n      - {kind: DaemonSet, apiVersion: apps/v1, metadata: {name: agent}, "
          "spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: "
          "{containers: [{name: c}]}}}}\n")
    steps = f"  - create: {{objects: [{node('n1')}]}}\n" + ds + "  - {at: 1m, drain-node: {name: n1}}\n"
    result = run(tmp_path, steps, registry)
    assert [(p.phase, p.node) for p in pods(result, "agent-")] == [("Bound", "n1")]


def test_delete_node_loses_its_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """Deleting a node loses its pods at once (phase Lost); a bare pod is not replaced."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + SSD_POD.replace("{disk: ssd}", "{}")
             + "  - {at: 1m, delete-node: {name: n1}}\n")
    result = run(tmp_path, steps, registry)
    (fast,) = pods(result, "fast")
    assert (fast.phase, fast.node) == ("Lost", "n1")
    assert times(result, "NodeDeleted") == [60.0]
    assert [n.name for n in result.nodes] == []


def test_scale_changes_replicas(tmp_path: Path, registry: PluginRegistry) -> None:
    """scale to 4 adds two replicas at the step's time."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + WEB.replace("IMAGE", "web:1")
             + "  - {at: 5m, scale: {kind: Deployment, name: web, replicas: 4}}\n")
    result = run(tmp_path, steps, registry)
    assert len(placed(result, "web-")) == 4
    assert times(result, "Scheduled") == [0.0, 0.0, 300.0, 300.0]


def test_run_until_a_time_stops_there(tmp_path: Path, registry: PluginRegistry) -> None:
    """run-until 1h ends the run at 3600 s even with a CronJob still due later."""
    cron = ("  - create:\n      objects:\n      - {kind: CronJob, apiVersion: batch/v1, metadata: {name: c}, spec: "
            "{schedule: '*/20 * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: "
            "[{name: c}]}}}}}}\n")
    result = run(tmp_path, f"  - create: {{objects: [{node('n1')}]}}\n" + cron + "  - run-until: 1h\n", registry)
    assert result.scenario is not None
    assert result.scenario["endTime"] == 3600.0
    assert times(result, "SuccessfulCreate", "CronJob") == [1200.0, 2400.0, 3600.0]


def test_run_until_quiescence_then_later_steps(tmp_path: Path, registry: PluginRegistry) -> None:
    """run-until quiescence waits out a Job (10 min, then its controller's sync 1 s later), and a following step
    without ``at`` runs then."""
    job = ("  - create:\n      objects:\n      - {kind: Job, apiVersion: batch/v1, metadata: {name: j}, spec: "
           "{template: {metadata: {annotations: {kubesched.io/duration: 10m}}, spec: {restartPolicy: Never, "
           "containers: [{name: c}]}}}}\n")
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n" + job + "  - run-until: quiescence\n"
             + "  - delete-node: {name: n1}\n")
    result = run(tmp_path, steps, registry)
    assert times(result, "Completed") == [600.0]
    assert times(result, "NodeDeleted") == [601.0]


def test_same_seed_gives_identical_output(tmp_path: Path, registry: PluginRegistry) -> None:
    """A scenario run is deterministic: same seed, byte-identical JSON; another seed, other names."""
    steps = f"  - create: {{objects: [{node('n1')}, {node('n2')}]}}\n" + WEB.replace("IMAGE", "web:1")
    first, again, other = (json.dumps(run(tmp_path, steps, registry, seed=s).to_json()) for s in (3, 3, 4))
    assert first == again
    assert first != other


def test_replacing_the_taints_of_a_cordoned_node_keeps_its_unschedulable_taint(tmp_path: Path,
                                                                              registry: PluginRegistry) -> None:
    """Taints patched on a cordoned node replace the others, but node.kubernetes.io/unschedulable stays while the
    node is cordoned, as the node lifecycle controller keeps it."""
    steps = (f"  - create: {{objects: [{node('n1')}]}}\n  - patch-node: {{name: n1, unschedulable: true}}\n"
             "  - patch-node: {name: n1, taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}\n")
    runner = ScenarioRunner(scenario(tmp_path, steps), load_config("default", registry), registry)
    runner.run()
    taints = runner.sim.cluster.nodes["n1"].spec.taints
    assert [(t.key, t.effect) for t in taints] == [("dedicated", "NoSchedule"),
                                                   ("node.kubernetes.io/unschedulable", "NoSchedule")]


def test_a_drain_evicts_only_the_pods_it_listed_when_it_started(tmp_path: Path, registry: PluginRegistry) -> None:
    """Blocked by the budget, the drain's retries go on after n1 is uncordoned: they evict the second listed pod
    once its budget allows, never the replacements scheduled onto n1 after the uncordon (kubectl drain evicts the
    pods it listed at its start)."""
    pdb = ("  - create: {objects: [{kind: PodDisruptionBudget, apiVersion: policy/v1, metadata: {name: web}, spec: "
           "{maxUnavailable: 1, selector: {matchLabels: {app: web}}}}]}\n")
    web = WEB.replace("IMAGE", "web:1").replace("spec: {containers", "spec: {terminationGracePeriodSeconds: 0, "
                                                                          "containers")
    steps = (f"  - create: {{objects: [{node('n1', cpu='4')}]}}\n" + web + pdb
             + "  - {at: 2m, drain-node: {name: n1}}\n  - {at: 3m, patch-node: {name: n1, unschedulable: false}}\n")
    result = run(tmp_path, steps, registry)
    evicted = [e.object for e in result.events if e.reason == "Evicted"]
    assert len(evicted) == 2
    assert len(set(evicted)) == 2
    assert len(placed(result, "web-")) == 2
    assert len(times(result, "Drained")) == 1

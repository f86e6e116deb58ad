"""The DaemonSet controller: a pod per eligible node, pinned by matchFields on metadata.name."""

from __future__ import annotations

import re
from pathlib import Path

from kubesched.api.node import Node
from kubesched.api.pod import NodeSelectorRequirement
from kubesched.runtime import PluginRegistry
from kubesched.testing import make_node
from tests.sim.controllers.helpers import live, node, run

DS = """kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {agent: "yes"}
      containers: [{name: c, resources: {requests: {cpu: 100m}}}]
"""
YES = "{agent: 'yes'}"


def test_one_pod_per_eligible_node_pinned_by_metadata_name(tmp_path: Path, registry: PluginRegistry) -> None:
    """Nodes matching the nodeSelector get one pod each, with required affinity matchFields metadata.name (and
    still one each after several controller delays: a pod per node, not a pod per sync)."""
    sim = run(tmp_path, node("n1", labels=YES) + node("n2", labels=YES) + node("n3") + DS, registry, until=10.0)
    pods = live(sim)
    assert sorted(p.spec.node_name for p in pods) == ["n1", "n2"]
    for pod in pods:
        assert re.fullmatch(r"agent-[bcdfghjklmnpqrstvwxz2456789]{5}", pod.name)
        affinity = pod.spec.affinity
        assert affinity is not None
        assert affinity.node_affinity is not None
        assert affinity.node_affinity.required
        (term,) = affinity.node_affinity.required.node_selector_terms
        assert term.match_fields == (NodeSelectorRequirement("metadata.name", "In", (pod.spec.node_name,)),)


def test_untolerated_taint_makes_a_node_ineligible(tmp_path: Path, registry: PluginRegistry) -> None:
    """A NoSchedule taint the template does not tolerate keeps the DaemonSet off the node."""
    sim = run(tmp_path, node("n1", labels=YES) + node("n2", labels=YES, taints="[{key: gpu, effect: NoSchedule}]")
              + DS, registry)
    assert [p.spec.node_name for p in live(sim)] == ["n1"]


def test_cordoned_node_still_runs_its_daemon_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """Daemon pods tolerate node.kubernetes.io/unschedulable, so a cordoned node still gets one."""
    text = ("kind: Node\nmetadata: {name: n1, labels: {agent: 'yes'}}\nspec: {unschedulable: true}\n"
            "status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\n" + DS)
    assert [p.spec.node_name for p in live(run(tmp_path, text, registry))] == ["n1"]


def test_new_node_gets_a_daemon_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """A node added later gets its pod after the controller delay."""
    sim = run(tmp_path, node("n1", labels=YES) + DS, registry)
    sim.cluster.add_node(make_node("n2").label(agent="yes").capacity(cpu="4", memory="8Gi", pods="110").obj())
    sim.settle()
    assert sorted(p.spec.node_name for p in live(sim)) == ["n1", "n2"]


def test_pod_of_a_node_no_longer_eligible_is_deleted(tmp_path: Path, registry: PluginRegistry) -> None:
    """Relabelled out of the nodeSelector, a node's daemon pod is deleted."""
    sim = run(tmp_path, node("n1", labels=YES) + DS, registry)
    sim.cluster.update_node(make_node("n1").capacity(cpu="4", memory="8Gi", pods="110").obj())
    sim.settle()
    assert live(sim) == []


def test_deleted_daemon_pod_is_replaced_once_gone(tmp_path: Path, registry: PluginRegistry) -> None:
    """A daemon pod deleted (as by preemption) is replaced on its node one controller delay after it is gone."""
    sim = run(tmp_path, node("n1", labels=YES) + DS, registry)
    (old,) = live(sim)
    sim.cluster.delete_pod(old)
    start = sim.clock.now()
    sim.settle()
    (new,) = live(sim)
    assert new.name != old.name
    assert new.spec.node_name == "n1"
    made = [e.time for e in sim.cluster.events if e.reason == "SuccessfulCreate"]
    assert made[-1] == start + old.spec.termination_grace_period_seconds + 1.0


def _tainted(effect: str) -> Node:
    """n1, still matching the nodeSelector, with an untolerated gpu taint of ``effect``."""
    return (make_node("n1").label(agent="yes").capacity(cpu="4", memory="8Gi", pods="110")
            .taint("gpu", "", effect).obj())


def test_noschedule_taint_added_later_keeps_the_running_daemon_pod(tmp_path: Path,
                                                                     registry: PluginRegistry) -> None:
    """An untolerated NoSchedule taint only keeps new daemon pods off: the running one stays
    (nodeShouldRunDaemonPod's shouldContinueRunning)."""
    sim = run(tmp_path, node("n1", labels=YES) + DS, registry)
    (before,) = live(sim)
    sim.cluster.update_node(_tainted("NoSchedule"))
    sim.settle()
    assert [(p.name, p.metadata.deletion_timestamp) for p in live(sim)] == [(before.name, None)]


def test_noexecute_taint_added_later_deletes_the_daemon_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """An untolerated NoExecute taint makes the node unfit to keep its daemon pod: the controller deletes it."""
    sim = run(tmp_path, node("n1", labels=YES) + DS, registry)
    sim.cluster.update_node(_tainted("NoExecute"))
    sim.settle()
    assert live(sim) == []


def test_template_required_terms_are_replaced_by_the_pinning_term(tmp_path: Path, registry: PluginRegistry) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the template's required matchExpressions terms give way to the
    single matchFields term on metadata.name (the controller already matched them against the node)."""
    text = DS.replace('nodeSelector: {agent: "yes"}',
                      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                      "[{matchExpressions: [{key: agent, operator: In, values: ['yes']}]}, "
                      "{matchExpressions: [{key: zone, operator: Exists}]}]}}}")
    (pod,) = live(run(tmp_path, node("n1", labels=YES) + text, registry))
    assert pod.spec.affinity is not None
    assert pod.spec.affinity.node_affinity is not None
    assert pod.spec.affinity.node_affinity.required is not None
    (term,) = pod.spec.affinity.node_affinity.required.node_selector_terms
    assert (term.match_expressions, term.match_fields) == (
        (), (NodeSelectorRequirement("metadata.name", "In", ("n1",)),))

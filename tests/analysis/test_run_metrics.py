"""Specification of the run metrics of a simulation (the ``analysis`` key), each checked against figures worked
out by hand on a small cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.analysis import RunAnalysis
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.cli.main import main
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing import make_node, make_pod

GI = 2**30


def analysis(registry: PluginRegistry, nodes: list[Node], pods: list[Pod],
             reference: dict[str, int] | None = None) -> RunAnalysis:
    result = simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), load_config("default", registry),
                      registry, reference_pod=reference)
    assert result.analysis is not None
    return result.analysis


def two_nodes(registry: PluginRegistry, reference: dict[str, int] | None = None) -> RunAnalysis:
    """n1 (4 cpu) holds 2 cpu, n2 (2 cpu) holds 1500m; both 8Gi of memory, none requested."""
    nodes = [make_node("n1").capacity(cpu="4", memory="8Gi").obj(),
             make_node("n2").capacity(cpu="2", memory="8Gi").obj()]
    pods = [make_pod("a").node("n1").req(cpu="2").obj(), make_pod("b").node("n2").req(cpu="1500m").obj()]
    return analysis(registry, nodes, pods, reference)


def test_cluster_allocation_ratio_is_requested_over_allocatable(registry: PluginRegistry) -> None:
    """cpu: 3500m of 6000m requested over the cluster."""
    cpu = two_nodes(registry).metrics.resources[0]
    assert (cpu.name, cpu.allocated, cpu.allocatable) == ("cpu", 3500, 6000)
    assert cpu.ratio == pytest.approx(3500 / 6000)


def test_allocation_spread_over_nodes_by_hand(registry: PluginRegistry) -> None:
    """Per-node cpu ratios 0.5 and 0.75: mean 0.625, max 0.75, CV 0.2, Jain 1.5625/1.625."""
    nodes = two_nodes(registry).metrics.resources[0].nodes
    assert (nodes.count, nodes.mean, nodes.max, nodes.p95) == (2, 0.625, 0.75, 0.75)
    assert nodes.cv == pytest.approx(0.2)
    assert nodes.jain == pytest.approx(1.5625 / 1.625)


def test_every_resource_the_nodes_carry_is_measured(registry: PluginRegistry) -> None:
    """cpu, memory and pods, in output order; the pods resource counts pods (2 of 220)."""
    resources = two_nodes(registry).metrics.resources
    assert [r.name for r in resources] == ["cpu", "memory", "pods"]
    assert (resources[2].allocated, resources[2].allocatable) == (2, 220)


def test_fragmentation_counts_copies_and_stranded_room(registry: PluginRegistry) -> None:
    """A 1-cpu, 1Gi reference pod: 2 copies fit on n1, none on n2, whose 500m, 8Gi and 109 pod slots are stranded."""
    fragmentation = two_nodes(registry, {"cpu": 1000, "memory": GI}).metrics.fragmentation
    assert (fragmentation.copies, fragmentation.nodes_without_room) == (2, 1)
    assert fragmentation.stranded == {"cpu": 500, "memory": 8 * GI, "pods": 109}


def test_fragmentation_reference_defaults_to_the_commonest_pod(registry: PluginRegistry) -> None:
    """Without a reference, the requests most pods share (ties: more cpu): here 2 cpu, so 1 copy (on n1)."""
    fragmentation = two_nodes(registry).metrics.fragmentation
    assert fragmentation.reference == {"cpu": 2000}
    assert fragmentation.copies == 1


def preemption_run(registry: PluginRegistry) -> RunAnalysis:
    """n1 (1 cpu) full with a priority-0 victim (grace 30 s); high (priority 100, 1 cpu) preempts it at 0 and binds
    at 30, when the victim is gone."""
    pods = [make_pod("victim").node("n1").req(cpu="1").grace_period(30).obj(),
            make_pod("high").priority(100).req(cpu="1").obj()]
    return analysis(registry, [make_node("n1").capacity(cpu="1").obj()], pods)


def test_pod_outcomes_count_preempted_pods_apart(registry: PluginRegistry) -> None:
    """One pod bound, its victim preempted, nothing else."""
    pods = preemption_run(registry).metrics.pods
    assert {k: v for k, v in pods.items() if v} == {"bound": 1, "preempted": 1}


def test_pending_time_runs_from_creation_to_binding(registry: PluginRegistry) -> None:
    """high waited 30 s; the victim, bound from the start, never waited; per priority too."""
    metrics = preemption_run(registry).metrics
    assert (metrics.pending_time.count, metrics.pending_time.p50, metrics.pending_time.max) == (1, 30.0, 30.0)
    assert list(metrics.pending_time_by_priority) == [100]


def test_preemption_figures_count_victims_and_their_lost_run_time(registry: PluginRegistry) -> None:
    """One preemption, one priority-0 victim that had run 30 s when it went."""
    preemptions = preemption_run(registry).metrics.preemptions
    assert (preemptions.count, preemptions.victims, dict(preemptions.victims_by_priority)) == (1, 1, {0: 1})
    assert (preemptions.lost_run_time.max, preemptions.lost_run_time_total) == (30.0, 30.0)


def test_series_samples_each_instant_a_metric_changed(registry: PluginRegistry) -> None:
    """At 0 one pod pends and the preemption is counted; at 30 the victim is gone and high is bound."""
    series = preemption_run(registry).series
    assert series.time == (0.0, 30.0)
    assert series.values["pods.pending"] == (1, 0)
    assert series.values["pods.preempted"] == (0, 1)
    assert series.values["preemptions.count"] == (1, 1)
    assert series.values["resources.cpu.allocated"] == (1000, 1000)


def test_attempts_are_the_scheduling_attempts(registry: PluginRegistry) -> None:
    """high is tried at 0 (it preempts) and again at 30 (it binds)."""
    assert preemption_run(registry).metrics.attempts == 2


QUOTA = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: two-pods, namespace: default}
spec: {hard: {pods: "1"}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: first, namespace: default}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: second, namespace: default}
spec: {containers: [{name: c, image: i}]}
"""


def test_pods_the_api_server_refused_count_as_failed(tmp_path: Path) -> None:
    """A ResourceQuota of one pod: the second pod is refused (Rejected), counted as failed, in the JSON too."""
    (tmp_path / "quota.yaml").write_text(QUOTA)
    outcome = CliRunner().invoke(main, ["simulate", str(tmp_path / "quota.yaml"), "-o", "json"])
    assert outcome.exit_code == 0, outcome.output
    pods = json.loads(outcome.output)["analysis"]["pods"]
    assert (pods["bound"], pods["failed"]) == (1, 1)

"""The stories issue 13 names: a preempted replica comes back elsewhere, a drained StatefulSet comes back in
order, a DaemonSet follows new nodes; and the day of a small cluster in examples/."""

from __future__ import annotations

from pathlib import Path

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import run_scenario
from tests.conftest import EXAMPLES
from tests.sim.scenario.helpers import node, placed, pods, run, times

POOL = "{pool: web}"


def pool_node(name: str) -> str:
    """A 2-cpu node of the web pool, with its hostname label."""
    return node(name, cpu="2", labels=f"{{pool: web, kubernetes.io/hostname: {name}}}")


def test_preempted_deployment_replica_is_recreated_and_lands_elsewhere(tmp_path: Path,
                                                                       registry: PluginRegistry) -> None:
    """A critical pod pinned to n1 preempts web's replica there; the ReplicaSet re-creates it one second after
    the preemption and the scheduler places it on n3, the only node with room."""
    steps = f"""\
  - create:
      objects:
      - {pool_node('n1')}
      - {pool_node('n2')}
      - {{kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, metadata: {{name: critical}}, value: 1000}}
      - kind: Deployment
        apiVersion: apps/v1
        metadata: {{name: web}}
        spec:
          replicas: 2
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              nodeSelector: {POOL}
              topologySpreadConstraints:
              - {{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
                 labelSelector: {{matchLabels: {{app: web}}}}}}
              containers: [{{name: c, resources: {{requests: {{cpu: 1500m}}}}}}]
  - {{at: 30s, create: {{objects: [{pool_node('n3')}]}}}}
  - at: 1m
    create:
      objects:
      - {{kind: Pod, apiVersion: v1, metadata: {{name: critical}}, spec: {{priorityClassName: critical,
          nodeSelector: {{kubernetes.io/hostname: n1}},
          containers: [{{name: c, resources: {{requests: {{cpu: 1500m}}}}}}]}}}}
"""
    result = run(tmp_path, steps, registry)
    (preemption,) = result.preemptions
    victim = preemption.victims[0].split("/")[1]
    assert (preemption.preemptor, preemption.node) == ("default/critical", "n1")
    assert next(p for p in result.pods if p.name == victim).phase == "Evicted"
    replacement = [p for p in pods(result, "web-") if p.phase == "Bound" and p.node == "n3"]
    assert len(replacement) == 1
    created = [e for e in result.events if e.reason == "SuccessfulCreate" and e.message.endswith(replacement[0].name)]
    assert created[0].time == times(result, "Preempted")[0] + 1.0
    assert placed(result, "critical") == [("critical", "n1")]


def test_drained_statefulset_pods_come_back_in_order(tmp_path: Path, registry: PluginRegistry) -> None:
    """Draining n1 evicts db-0..2 at once; once they are gone, db-0 is re-created first, db-1 only after db-0 runs
    on n2, then db-2."""
    steps = f"""\
  - create:
      objects:
      - {node('n1')}
      - kind: StatefulSet
        apiVersion: apps/v1
        metadata: {{name: db}}
        spec:
          replicas: 3
          serviceName: db
          selector: {{matchLabels: {{app: db}}}}
          template:
            metadata: {{labels: {{app: db}}}}
            spec: {{containers: [{{name: c, resources: {{requests: {{cpu: 500m}}}}}}]}}
  - {{at: 1m, create: {{objects: [{node('n2')}]}}}}
  - {{at: 2m, drain-node: {{name: n1}}}}
"""
    result = run(tmp_path, steps, registry)
    assert times(result, "Evicted") == [120.0, 120.0, 120.0]
    after = [(e.time, e.message.split()[2]) for e in result.events
             if e.reason == "SuccessfulCreate" and e.time > 120]
    assert [name for _, name in after] == ["db-0", "db-1", "db-2"]
    bound = {e.object.split("/")[1]: e.time for e in result.events if e.reason == "Scheduled" and e.time > 120}
    assert bound["db-0"] < after[1][0]
    assert bound["db-1"] < after[2][0]
    assert placed(result, "db-") == [("db-0", "n2"), ("db-1", "n2"), ("db-2", "n2")]


def test_daemonset_pod_per_new_node(tmp_path: Path, registry: PluginRegistry) -> None:
    """Each node added by a later step gets its DaemonSet pod one controller delay later."""
    steps = f"""\
  - create:
      objects:
      - {node('n1')}
      - {{kind: DaemonSet, apiVersion: apps/v1, metadata: {{name: agent}},
          spec: {{selector: {{matchLabels: {{app: a}}}},
                 template: {{metadata: {{labels: {{app: a}}}}, spec: {{containers: [{{name: c}}]}}}}}}}}
  - {{at: 1m, create: {{objects: [{node('n2')}]}}}}
  - {{at: 2m, create: {{objects: [{node('n3')}, {node('n4')}]}}}}
"""
    result = run(tmp_path, steps, registry)
    assert sorted(str(n) for _, n in placed(result, "agent-")) == ["n1", "n2", "n3", "n4"]
    assert times(result, "SuccessfulCreate", "DaemonSet") == [0.0, 61.0, 121.0, 121.0]


def test_day_of_a_small_cluster(registry: PluginRegistry) -> None:
    """examples/scenarios/day.yaml: the rollout, the drain, the nightly burst that preempts crawlers, the new
    node's agent, as the README tells it."""
    scenario = load_scenario(EXAMPLES / "scenarios" / "day.yaml")
    result = run_scenario(scenario, load_config("default", registry), registry)
    assert result.scenario is not None
    assert result.scenario["endTime"] == 30 * 3600.0
    rollout = [(e.time, e.message) for e in result.events if e.reason == "ScalingReplicaSet"
               and e.object == "default/web"]
    old_rs, new_rs = rollout[0][1].split()[4], rollout[1][1].split()[4]
    assert rollout[0] == (0.0, f"Scaled up replica set {old_rs} from 0 to 4")
    assert [t for t, _ in rollout[1:]] == [9 * 3600.0 + s for s in (0, 0, 1, 1, 2, 2, 3, 3)]
    assert [m.split()[1] for _, m in rollout[1:]] == ["up", "down"] * 4  # one pod at a time (maxSurge 1)
    assert {p.name.rsplit("-", 1)[0] for p in pods(result, "web-") if p.phase == "Bound"} == {new_rs} != {old_rs}
    assert times(result, "EvictionRefused") == [14 * 3600.0]  # cordoned, the PDB holds one eviction ...
    assert times(result, "Drained") == [14 * 3600 + 5.0]  # ... until the 5 s retry
    assert not [e for e in result.events if e.reason == "Scheduled" and e.message.endswith(" worker-b")
                and 14 * 3600 <= e.time < 15 * 3600]
    assert [e.time for e in result.events if e.message.startswith("Created job")] == [26 * 3600.0]
    burst = [v for p in result.preemptions if p.preemptor.startswith("default/nightly-report-") for v in p.victims]
    assert burst
    assert all(v.startswith("default/crawler-") for v in burst)
    assert len([t for t in times(result, "Preempted") if t >= 26 * 3600]) == len(burst)  # at 02:00 and after
    assert [p.phase for p in pods(result, "nightly-report-")] == ["Succeeded"] * 8
    agent = [(e.time, e.message.split()[-1]) for e in result.events
             if e.reason == "Scheduled" and e.object.startswith("default/node-agent-")]
    assert (22 * 3600 + 1.0, "worker-d") in agent

"""Issue 12 A: kube-scheduler v1.32 scores a best-effort pod with NodeResourcesBalancedAllocation.

The expected numbers were read from the real kube-scheduler v1.32 binary (run with ``-v=10``) scheduling the
same cluster: its "Plugin scored node for pod" and "Calculated node's final score for pod" log lines.
"""

from __future__ import annotations

from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import CycleRecord, PluginRegistry, ScoreTable
from kubesched.sim.simulate import Simulation
from kubesched.testing.builders import make_node, make_pod

#: Per-plugin weighted scores the real kube-scheduler v1.32 logged for the pending pod.
REAL_PLUGIN_SCORES = {
    "n1": {"TaintToleration": 300, "NodeResourcesFit": 66, "NodeResourcesBalancedAllocation": 68,
           "ImageLocality": 0},
    "n2": {"TaintToleration": 300, "NodeResourcesFit": 47, "NodeResourcesBalancedAllocation": 100,
           "ImageLocality": 0},
}
#: The final scores it logged; it bound the pod to n2.
REAL_TOTALS = {"n1": 434, "n2": 447}


def reproducer() -> ClusterInput:
    """n1 (4 cpu, 16Gi) runs a cpu-heavy pod, n2 (4 cpu, 8Gi) a balanced one; one pod without requests pends."""
    return ClusterInput(
        nodes=(make_node("n1").capacity(cpu="4", memory="16Gi").obj(),
               make_node("n2").capacity(cpu="4", memory="8Gi").obj()),
        pods=(make_pod("cpu-heavy").req(cpu="2500m").node("n1").obj(),
              make_pod("balanced").req(cpu="2", memory="4Gi").node("n2").obj(),
              make_pod("pending").obj()))


def schedule_pending() -> tuple[str | None, ScoreTable]:
    """Simulate the reproducer with the default profile: the pending pod's node and its score table."""
    registry = PluginRegistry.discover()
    simulation = Simulation(reproducer(), load_config("default", registry), registry)
    records: list[CycleRecord] = []
    simulation.scheduler.cycle_observer = records.append
    result = simulation.run()
    [pending] = [p for p in result.pods if p.name == "pending"]
    [table] = [r.scores for r in records if r.pod.name == "pending" and r.scores is not None]
    return pending.node, table


def test_best_effort_pod_lands_where_v132_puts_it() -> None:
    """The pod with no requests binds to n2, whose resources stay balanced, as v1.32 binds it."""
    node, _ = schedule_pending()
    assert node == "n2"


def test_best_effort_pod_gets_v132_plugin_scores() -> None:
    """Every plugin's weighted score per node is the one the real v1.32 logged (BalancedAllocation 68 / 100)."""
    _, table = schedule_pending()
    scored = {entry.name: {s.name: s.score for s in entry.scores} for entry in table.node_scores()}
    assert scored == REAL_PLUGIN_SCORES


def test_best_effort_pod_gets_v132_final_scores() -> None:
    """The final per-node totals are the real v1.32's: n1=434, n2=447."""
    _, table = schedule_pending()
    assert dict(zip(table.nodes, table.totals, strict=True)) == REAL_TOTALS

"""Time NodeCost per node and with its batch forms: the same synthetic cluster simulated with the fast path off
and on (``SchedulerSettings.fast_path``), reporting pods scheduled per second (the scheduling only, not the
cluster's creation) and checking both placed every pod alike.

    python benchmarks/node_cost.py [--nodes 5000] [--pods 500] [--repeat 3]

The profile runs NodeCost alone at PreFilter, Filter and Score (the default plugins disabled there), so the
figures are the plugin's: 20 distinct prices over the nodes, one in ten nodes unpriced, half the pods with a
budget that rules out the dearer nodes.
"""

from __future__ import annotations

import argparse
import time
import tomllib

import attrs
from kubesched import ClusterInput, Pod
from kubesched.profiles import SchedulerConfiguration, parse_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation, SimulationResult
from kubesched.testing import make_node, make_pod

from kubesched_examples.node_cost import MAX_COST_ANNOTATION

PROFILE = """
[[profiles]]
[profiles.plugins.pre-filter]
enabled = [{ name = "NodeCost" }]
disabled = [{ name = "*" }]
[profiles.plugins.filter]
enabled = [{ name = "NodeCost" }]
disabled = [{ name = "*" }]
[profiles.plugins.pre-score]
disabled = [{ name = "*" }]
[profiles.plugins.score]
enabled = [{ name = "NodeCost" }]
disabled = [{ name = "*" }]
[profiles.plugins.post-filter]
disabled = [{ name = "*" }]
"""


def cluster(nodes: int, pods: int) -> ClusterInput:
    """``nodes`` nodes priced 10, 20, ... 200 in turn (every tenth unpriced) and ``pods`` pods, half budgeted."""
    node_list = []
    for i in range(nodes):
        builder = make_node(f"node-{i:05d}").capacity(cpu="64", memory="256Gi", pods="110")
        if i % 10:
            builder = builder.labels({"example.com/hourly-cost": str(10 * (1 + i % 20))})
        node_list.append(builder.obj())
    pod_list: list[Pod] = []
    for i in range(pods):
        pod = make_pod(f"pod-{i:05d}").req(cpu="100m", memory="128Mi").obj()
        if i % 2:
            annotations = {MAX_COST_ANNOTATION: "120"}
            pod = attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, annotations=annotations))
        pod_list.append(pod)
    return ClusterInput(nodes=tuple(node_list), pods=tuple(pod_list))


def timed(cluster_input: ClusterInput, config: SchedulerConfiguration, registry: PluginRegistry,
          fast_path: bool) -> tuple[float, SimulationResult]:
    """Seconds to schedule every pod with the fast path on or off (creating the nodes and queueing the pods is
    not timed: it is the same on both paths), and the result."""
    settings = attrs.evolve(config.settings, fast_path=fast_path)
    simulation = Simulation(cluster_input, attrs.evolve(config, settings=settings), registry, seed=1)
    simulation.start()
    start = time.perf_counter()
    simulation.settle()
    seconds = time.perf_counter() - start
    return seconds, simulation.result()


def main() -> None:
    """Run both paths ``--repeat`` times each and print the best pods/s of each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    registry = PluginRegistry.discover()
    config = parse_config(tomllib.loads(PROFILE), registry, "benchmark profile")
    cluster_input = cluster(options.nodes, options.pods)
    best: dict[bool, float] = {}
    results: dict[bool, SimulationResult] = {}
    for _ in range(options.repeat):
        for fast_path in (False, True):
            seconds, results[fast_path] = timed(cluster_input, config, registry, fast_path)
            best[fast_path] = min(best.get(fast_path, seconds), seconds)
    assert results[True].pods == results[False].pods, "the two paths placed pods differently"
    print(f"{options.nodes} nodes, {options.pods} pods")
    for fast_path, label in ((False, "per node (fast_path = false)"), (True, "batch forms (fast_path = true)")):
        print(f"  {label:32} {options.pods / best[fast_path]:8.1f} pods/s  ({best[fast_path]:.2f} s)")
    print(f"  speed-up {best[False] / best[True]:.1f}x")


if __name__ == "__main__":
    main()

"""Benchmark: end-to-end scheduling throughput of the default profile on a synthetic cluster.

Nodes spread over three zones, a tenth of them tainted; pods with mixed requests, some with node
selectors and tolerations. With ``--workloads`` the pods also belong to 50 Services (so PodTopologySpread's
system default constraints score them), every 10th has required anti-affinity to its own app per node and
every 8th a DoNotSchedule zone spread constraint. Reports pods per second and the time per attempt.

    python benchmarks/schedule.py [--nodes 1000] [--pods 3000] [--seed 0] [--workloads]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from kubesched.api.meta import ObjectMeta
from kubesched.api.workload import Service
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod

APPS = 50


def synthetic_cluster(nodes: int, pods: int, seed: int, workloads: bool = False) -> ClusterInput:
    """A deterministic cluster: ``nodes`` nodes over three zones and ``pods`` pending pods."""
    rng = random.Random(seed)
    node_objs = []
    for i in range(nodes):
        builder = make_node(f"node-{i:05d}").zone(f"zone-{i % 3}").capacity(cpu="16", memory="64Gi", pods=110)
        if i % 10 == 0:
            builder = builder.taint("dedicated", "batch")
        if i % 4 == 0:
            builder = builder.label(disk="ssd")
        node_objs.append(builder.obj())
    pod_objs = []
    for i in range(pods):
        pod = make_pod(f"pod-{i:05d}").req(cpu=f"{rng.choice((100, 250, 500, 1000))}m",
                                              memory=f"{rng.choice((128, 256, 512, 1024))}Mi")
        if i % 7 == 0:
            pod = pod.node_selector(disk="ssd")
        if i % 5 == 0:
            pod = pod.toleration("dedicated", "batch", "NoSchedule")
        if workloads:
            app = f"app-{i % APPS}"
            pod = pod.label(app=app)
            if i % 10 == 0:
                pod = pod.pod_affinity("kubernetes.io/hostname", anti=True, app=app)
            if i % 8 == 0:
                pod = pod.spread(1, "topology.kubernetes.io/zone", app=app)
        pod_objs.append(pod.priority(rng.choice((0, 100, 1000))).obj())
    services = tuple(Service(ObjectMeta(f"app-{k}", "default"), {"app": f"app-{k}"}) for k in range(APPS))
    return ClusterInput(nodes=tuple(node_objs), pods=tuple(pod_objs), services=services if workloads else ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workloads", action="store_true", help="add Services, anti-affinity and spreading")
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    options = parser.parse_args()

    registry = PluginRegistry.discover()
    config = load_config("default", registry)
    cluster = synthetic_cluster(options.nodes, options.pods, options.seed, options.workloads)
    simulation = Simulation(cluster, config, registry, seed=options.seed)
    profiler = cProfile.Profile() if options.profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    result = simulation.run()
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - start
    bound = sum(1 for p in result.pods if p.phase == "Bound")
    attempts = sum(1 for e in result.events if e.reason in ("Scheduled", "FailedScheduling"))
    mix = ", workloads" if options.workloads else ""
    print(f"{options.nodes} nodes, {options.pods} pods (default profile{mix}, seed {options.seed}):")
    print(f"  bound {bound}, attempts {attempts}, {elapsed:.2f} s")
    print(f"  {options.pods / elapsed:,.0f} pods/s, {1000 * elapsed / max(attempts, 1):.2f} ms per attempt")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()

"""Benchmark: ``kubesched compare`` of two profiles against one ``simulate`` at cluster scale.

Writes a cluster of ``--nodes`` nodes (4 CPU / 32Gi / 110 pods, zone labels) and ``--pods`` pending pods (100m to
1 CPU) as one JSON file, then, in this process, times the load, one simulation under the default profile and a
comparison of the default and bin-packing profiles, in CPU seconds (other work may share the cores):

    python benchmarks/compare_large.py [--nodes 5000] [--pods 10000] [--repeat 3] [--out DIR]

The claim checked (docs/performance.md) is that a comparison of two profiles costs at most two simulations plus
one load. Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kubesched.io.load import load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.compare import compare
from kubesched.sim.simulate import simulate


def write_cluster(path: Path, nodes: int, pods: int) -> None:
    """The benchmark's cluster as a JSON List."""
    items: list[dict[str, object]] = [{
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}",
                                                      "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
        "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}} for i in range(nodes)]
    sizes = ("100m", "250m", "500m", "1")
    items += [{
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i}", "namespace": "default",
                                                         "labels": {"app": f"app-{i % 20}"}},
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {
            "requests": {"cpu": sizes[i % len(sizes)], "memory": "500Mi"}}}]}} for i in range(pods)]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def main() -> None:
    """Write the cluster, then time the load, one simulate and one compare of two profiles."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the least time of each step is reported")
    parser.add_argument("--out", default=None, help="where to write the cluster (default: a temporary directory)")
    args = parser.parse_args()
    directory = Path(args.out or tempfile.mkdtemp())
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "cluster.json"
    write_cluster(path, args.nodes, args.pods)
    registry = PluginRegistry.discover()
    profiles = [("default", load_config("default", registry)), ("bin-packing", load_config("bin-packing", registry))]

    loads: list[float] = []
    runs: list[list[float]] = [[], []]
    compares: list[float] = []
    for _ in range(args.repeat):  # interleaved, and the least of each kept: other work only ever adds time
        start = time.process_time()
        cluster = load([path])
        loads.append(time.process_time() - start)
        for index, (_, config) in enumerate(profiles):
            start = time.process_time()
            simulate(cluster, config, registry)
            runs[index].append(time.process_time() - start)
        del cluster
        start = time.process_time()
        compare(load([path]), profiles, registry)
        compares.append(time.process_time() - start)
    load_s, compare_s, best = min(loads), min(compares), [min(r) for r in runs]

    print(f"{args.nodes} nodes, {args.pods} pods, least CPU seconds of {args.repeat}: load {load_s:.2f}, simulate "
          f"default {best[0]:.2f}, simulate bin-packing {best[1]:.2f}, compare of the two (its load included) "
          f"{compare_s:.2f} = {compare_s / (load_s + sum(best)):.2f} x (load + both simulations)")


if __name__ == "__main__":
    main()

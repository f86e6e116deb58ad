"""Benchmark: one sweep cell at scale, timed as ``kubesched bench`` times a run (the one docs/performance.md shows).

Writes a Sweep file of one cell, a ``kubesched bench`` workload (SchedulingBasic at its default 5000 nodes, 1000
init pods and 10000 measured pods unless told otherwise), checks it as ``kubesched sweep`` does, then runs the
cell in this process: the simulation, its run metrics and its row. Reports the cell's wall and CPU seconds, the
pods it scheduled per second of wall time, the peak RSS, and how long the row's metrics took (the analysis of the
run's log at its end), as JSON.

    python benchmarks/sweep_cell.py [--workload SchedulingBasic] [--nodes 5000] [--init-pods 1000]
                                    [--measure-pods 10000] [--profile default]

Timings are this machine's (CPU seconds beside wall-clock ones, as other work may share the cores); nothing here
is asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kubesched.bench.harness import peak_rss_bytes
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.sweep.cell import run_cell
from kubesched.sweep.matrix import plan


def main() -> None:
    """Write the one-cell Sweep, run its cell, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="SchedulingBasic")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--init-pods", type=int, default=1000)
    parser.add_argument("--measure-pods", type=int, default=10000)
    parser.add_argument("--profile", default="default")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cell.yaml"
        path.write_text(f"""apiVersion: kubesched.io/v1alpha1
kind: Sweep
spec:
  inputs:
  - bench: {{workload: {options.workload}, nodes: {options.nodes}, initPods: {options.init_pods},
             measurePods: {options.measure_pods}}}
  profiles: [{options.profile}]
""")
        (cell,) = plan(path, PluginRegistry.discover()).cells
    analysis_seconds = 0.0
    result = Simulation.result

    def timed_result(self: Simulation) -> object:
        nonlocal analysis_seconds
        start = time.perf_counter()
        try:
            return result(self)
        finally:
            analysis_seconds += time.perf_counter() - start

    Simulation.result = timed_result  # type: ignore[assignment,method-assign]
    wall, cpu = time.perf_counter(), time.process_time()
    outcome = run_cell(cell)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    pods = options.init_pods + options.measure_pods
    print(json.dumps({"cell": outcome.row["input"], "profile": outcome.row["profile"], "nodes": options.nodes,
                      "pods": pods, "wallSeconds": round(wall, 2), "cpuSeconds": round(cpu, 2),
                      "podsPerSecond": round(pods / wall, 1), "resultAndMetricsSeconds": round(analysis_seconds, 2),
                      "peakRssBytes": peak_rss_bytes(), "podsBound": outcome.row["pods.bound"],
                      "error": outcome.row["error"]}, indent=2))


if __name__ == "__main__":
    main()

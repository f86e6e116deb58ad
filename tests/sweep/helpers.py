"""Sweep files and a small cluster for the sweep's tests."""

from __future__ import annotations

from pathlib import Path

# Two equal nodes, n1 half full: LeastAllocated puts the pod on n2, MostAllocated on n1.
CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
"""

HEADER = "apiVersion: kubesched.io/v1alpha1\nkind: Sweep\n"

# The small matrix the executors' tests run: 2 inputs x 3 profiles x 2 seeds x 2 repetitions = 24 cells.
SMALL = HEADER + """\
metadata: {name: small}
spec:
  inputs:
  - {name: two-nodes, path: cluster.yaml}
  - {name: basic, bench: {workload: SchedulingBasic, nodes: 6, initPods: 4, measurePods: 20}}
  profiles:
  - default
  - name: fit
    pluginArgs:
      NodeResourcesFit:
        scoringStrategy.type: [LeastAllocated, MostAllocated]
  seeds: [0, 7]
  repetitions: 2
"""


def sweep_folder(folder: Path, sweep: str = SMALL, name: str = "sweep.yaml") -> Path:
    """``folder`` with the cluster and the Sweep file ``sweep`` written in it; the Sweep file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cluster.yaml").write_text(CLUSTER, encoding="utf-8")
    path = folder / name
    path.write_text(sweep, encoding="utf-8")
    return path

# A smaller matrix for the runs in this process: 2 inputs x 3 profiles x 1 seed x 2 repetitions = 12 cells.
TINY = SMALL.replace("nodes: 6, initPods: 4, measurePods: 20", "nodes: 3, initPods: 0, measurePods: 6").replace(
    "seeds: [0, 7]", "seeds: [0]")

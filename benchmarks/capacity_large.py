"""Write the 5000-node cluster docs/performance.md times ``kubesched capacity`` on. The files are generated, not kept
in the repository.

    python benchmarks/capacity_large.py [--nodes 5000] [--out DIR]
    kubesched capacity DIR/web.yaml DIR/cluster.yaml -o json > /dev/null
    kubesched capacity DIR/web.yaml DIR/cluster.yaml --preempt -o json > /dev/null
    kubesched capacity DIR/web.yaml DIR/cluster.yaml --add-nodes DIR/worker.yaml --target 10100 -o json > /dev/null

The cluster: ``--nodes`` nodes of ``kubesched bench``'s shape (4 CPU, 32Gi, 110 pods) over three zones, each running
two batch pods of 1 CPU and 4Gi at priority 10 (so half of each node is free), started at various times as a dump
shows them. web.yaml: a Deployment whose pods
ask for 1 CPU and 2Gi at priority 1000 (two fit a node's free half; four once the batch pods are preempted).
worker.yaml: a node of the same shape.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ZONES = ("zone1", "zone2", "zone3")
CLASSES = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: web}
value: 1000
"""
WEB = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: web
      containers: [{name: web, image: nginx, resources: {requests: {cpu: '1', memory: 2Gi}}}]
"""


def node(name: str, zone: str) -> str:
    """One node's manifest."""
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
            f"topology.kubernetes.io/zone: {zone}}}}}\n"
            "status: {allocatable: {cpu: '4', memory: 32Gi, pods: '110'}}\n")


def batch_pod(name: str, node_name: str, started: str) -> str:
    """A running batch pod (started then, as a dump shows it): 1 CPU, 4Gi, priority 10, gone at once when
    preempted."""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: batch}}}}\n"
            f"spec: {{nodeName: {node_name}, priorityClassName: batch, terminationGracePeriodSeconds: 0, "
            "containers: [{name: b, resources: {requests: {cpu: '1', memory: 4Gi}}}]}\n"
            f"status: {{phase: Running, startTime: '{started}'}}\n")


def main() -> None:
    """Write DIR/cluster.yaml, DIR/web.yaml and DIR/worker.yaml."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/capacity-large"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    documents = [CLASSES]
    for i in range(args.nodes):
        name = f"node-{i}"
        documents.append(node(name, ZONES[i % len(ZONES)]))
        documents.extend(batch_pod(f"batch-{i}-{j}", name, f"2026-11-01T{j:02}:{i % 60:02}:00Z") for j in range(2))
    (args.out / "cluster.yaml").write_text("---\n".join(documents), encoding="utf-8")
    (args.out / "web.yaml").write_text(WEB, encoding="utf-8")
    (args.out / "worker.yaml").write_text(node("worker", ZONES[0]), encoding="utf-8")
    print(f"wrote {args.out}/cluster.yaml ({args.nodes} nodes, {2 * args.nodes} pods), web.yaml, worker.yaml")


if __name__ == "__main__":
    main()

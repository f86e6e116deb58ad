"""Write a large scenario: a 5000-node cluster through a working day, some 10,000 pods (the one docs/performance.md
times). The files are generated, not kept in the repository.

    python benchmarks/scenario_large.py [--nodes 5000] [--out DIR]
    kubesched simulate DIR/large.yaml -o json > /dev/null

The cluster: ``--nodes`` nodes of 8 CPU over three zones; a DaemonSet (a pod per node); 10 Deployments of 400
replicas; a 50-replica StatefulSet; a PDB per Deployment. The day: a rollout of two Deployments at 1h, 20 nodes
drained at 2h, 10 deleted at 3h, a scale-up at 4h, a burst of high-priority Jobs at 5h, 50 nodes added at 6h, run
until 8h.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ZONES = ("zone-a", "zone-b", "zone-c")


def node(name: str, zone: str) -> str:
    """One node's manifest."""
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
            f"topology.kubernetes.io/zone: {zone}}}}}\nstatus: {{capacity: {{cpu: '8', memory: 32Gi, pods: '110'}}}}\n")


def deployment(name: str, replicas: int, image: str) -> str:
    """A Deployment of ``replicas`` 500m pods, spread over the zones."""
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  strategy: {{rollingUpdate: {{maxSurge: 25%, maxUnavailable: 25%}}}}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      topologySpreadConstraints:
      - {{maxSkew: 5, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
         labelSelector: {{matchLabels: {{app: {name}}}}}}}
      containers: [{{name: app, image: '{image}', resources: {{requests: {{cpu: 500m, memory: 512Mi}}}}}}]
"""


def cluster(nodes: int) -> str:
    """The manifests created at time 0."""
    docs = [node(f"node-{i:05d}", ZONES[i % 3]) for i in range(nodes)]
    docs.append("""apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-high}
value: 10000
""")
    docs.append("""apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}
""")
    for i in range(10):
        docs.append(deployment(f"svc-{i}", 400, "app:1"))
        docs.append(f"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: svc-{i}}}\n"
                    f"spec: {{maxUnavailable: 10%, selector: {{matchLabels: {{app: svc-{i}}}}}}}\n")
    docs.append("""apiVersion: apps/v1
kind: StatefulSet
metadata: {name: store}
spec:
  replicas: 50
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: store}}
  template:
    metadata: {labels: {app: store}}
    spec: {containers: [{name: store, resources: {requests: {cpu: "1", memory: 4Gi}}}]}
""")
    return "---\n".join(docs)


def scenario(nodes: int) -> str:
    """The scenario's steps."""
    rollout = "\n".join("      - " + line if i == 0 else "        " + line
                        for i, line in enumerate(deployment("svc-0", 400, "app:2").splitlines()))
    rollout2 = "\n".join("      - " + line if i == 0 else "        " + line
                         for i, line in enumerate(deployment("svc-1", 400, "app:2").splitlines()))
    drains = "\n".join(f"  - {{at: 2h, drain-node: {{name: node-{i:05d}}}}}" for i in range(0, 200, 10))
    deletes = "\n".join(f"  - {{at: 3h, delete-node: {{name: node-{i:05d}}}}}" for i in range(1, 100, 10))
    added = "\n".join(f"      - {{apiVersion: v1, kind: Node, metadata: {{name: extra-{i:03d}}}, status: {{capacity: "
                      f"{{cpu: '8', memory: 32Gi, pods: '110'}}}}}}" for i in range(50))
    return f"""apiVersion: kubesched.io/v1alpha1
kind: Scenario
metadata: {{name: large}}
spec:
  steps:
  - create: {{from: [large-cluster.yaml]}}
  - at: 1h
    apply:
      objects:
{rollout}
{rollout2}
{drains}
{deletes}
  - {{at: 4h, scale: {{kind: Deployment, name: svc-2, replicas: 800}}}}
  - at: 5h
    create:
      objects:
      - apiVersion: batch/v1
        kind: Job
        metadata: {{name: burst}}
        spec:
          parallelism: 500
          completions: 1000
          template:
            metadata: {{annotations: {{kubesched.io/duration: 20m}}}}
            spec:
              restartPolicy: Never
              priorityClassName: batch-high
              containers: [{{name: work, resources: {{requests: {{cpu: "2", memory: 2Gi}}}}}}]
  - at: 6h
    create:
      objects:
{added}
  - run-until: 8h
"""


def main() -> None:
    """Write large-cluster.yaml and large.yaml into --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "large-cluster.yaml").write_text(cluster(args.nodes), encoding="utf-8")
    (args.out / "large.yaml").write_text(scenario(args.nodes), encoding="utf-8")
    print(f"wrote {args.out / 'large.yaml'} and {args.out / 'large-cluster.yaml'} ({args.nodes} nodes)")


if __name__ == "__main__":
    main()

"""`kubesched simulate` on the storage examples of issue 22: pods wait for their volumes as kube-scheduler makes them
wait (the messages are the v1.32 binaries'), and the simulated provisioners and PV controller bind them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main

NODES = "".join(
    f"kind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
    f"topology.kubernetes.io/zone: {zone}}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n---\n"
    for name, zone in (("n1", "z1"), ("n2", "z1"), ("n3", "z2")))
CASSANDRA = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: k8s.io/minikube-hostpath
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cassandra}
spec:
  serviceName: cassandra
  replicas: 3
  selector: {matchLabels: {app: cassandra}}
  template:
    metadata: {labels: {app: cassandra}}
    spec: {containers: [{name: cassandra, image: cassandra, resources: {requests: {cpu: 500m}}}]}
  volumeClaimTemplates:
  - metadata: {name: cassandra-data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
"""
UNBOUND_IMMEDIATE = ("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 "
                     "nodes are available: 3 Preemption is not helpful for scheduling.")


def simulate(tmp_path: Path, text: str, *args: str) -> Any:
    """``kubesched simulate`` of ``text`` with ``args``, as JSON."""
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path), "-o", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def placements(document: Any) -> list[tuple[str, str | None, str]]:
    return [(p["name"], p["node"], p["message"]) for p in document["pods"]]


@pytest.mark.parametrize("seed", ["0", "1", "2"])
def test_cassandra_without_a_provisioner_waits_for_its_claims(tmp_path: Path, seed: str) -> None:
    """Nothing shows the StorageClass's provisioner running: the first pod's claim stays unbound, and the pod waits
    with the real scheduler's message (so the OrderedReady set creates no other pod)."""
    document = simulate(tmp_path, NODES + CASSANDRA, "--seed", seed)
    assert placements(document) == [("cassandra-0", None, UNBOUND_IMMEDIATE)]


def test_cassandra_with_its_provisioner_runs(tmp_path: Path) -> None:
    """With the provisioner running (--provisioner), each claim is provisioned at creation and its pod follows
    its volume's zone; the set comes up pod after pod."""
    document = simulate(tmp_path, NODES + CASSANDRA, "--provisioner", "k8s.io/minikube-hostpath",
                        "--provisioning-delay", "2")
    assert [p["phase"] for p in document["pods"]] == ["Bound", "Bound", "Bound"]
    provisioned = [e["time"] for e in document["events"] if e["reason"] == "ProvisioningSucceeded"]
    assert provisioned == [2.0, 5.0, 8.0]


def missing_pv_set(replicas: int) -> str:
    """A StatefulSet whose claims (as a dump holds them: bound) name PVs the input does not have."""
    claims = "".join(
        f"kind: PersistentVolumeClaim\nmetadata: {{name: data-web-{i}, namespace: default, annotations: "
        f"{{pv.kubernetes.io/bind-completed: 'yes'}}}}\nspec: {{accessModes: [ReadWriteOnce], storageClassName: "
        f"standard, volumeName: pvc-0000-{i}, resources: {{requests: {{storage: 1Gi}}}}}}\n"
        f"status: {{phase: Bound}}\n---\n" for i in range(replicas))
    return claims + f"""apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: web}}
spec:
  serviceName: web
  replicas: {replicas}
  podManagementPolicy: Parallel
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: web, image: nginx}}]}}
  volumeClaimTemplates:
  - metadata: {{name: data}}
    spec: {{accessModes: [ReadWriteOnce], storageClassName: standard, resources: {{requests: {{storage: 1Gi}}}}}}
"""


# VolumeBinding and the plugins every profile needs; the other volume plugins (VolumeZone rejects such a pod in
# PreFilter with `persistentvolume "pvc-0000-0" not found`, as the kube-scheduler did) are not involved.
VOLUME_BINDING_ONLY = """[[profiles]]
[profiles.plugins.multi-point]
disabled = [{ name = "*" }]
enabled = [{ name = "PrioritySort" }, { name = "VolumeBinding" }, { name = "DefaultBinder" }]
"""


def test_claims_naming_missing_pvs_keep_their_pods_pending(tmp_path: Path) -> None:
    """Every pod of the set waits: VolumeBinding finds its bound claim's PV missing on every node."""
    profile = tmp_path / "volume-binding.toml"
    profile.write_text(VOLUME_BINDING_ONLY, encoding="utf-8")
    document = simulate(tmp_path, NODES + missing_pv_set(4), "--profile", str(profile))
    message = ("0/3 nodes are available: 3 node(s) unavailable due to one or more pvc(s) bound to non-existent "
               "pv(s).")
    assert placements(document) == [(f"web-{i}", None, message) for i in range(4)]


ZONE_Z2_CLAIM = """kind: PersistentVolume
metadata: {name: pv-z2}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: static
  claimRef: {namespace: default, name: data}
  csi: {driver: csi.example.com, volumeHandle: pv-z2}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]}]
status: {phase: Bound}
---
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: 'yes'}}
spec: {accessModes: [ReadWriteOnce], storageClassName: static, volumeName: pv-z2, resources: {requests: {storage: 1Gi}}}
status: {phase: Bound}
---
kind: Pod
metadata: {name: db, namespace: default}
spec:
  containers: [{name: db, image: postgres}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


@pytest.mark.parametrize("seed", [str(s) for s in range(8)])
def test_a_pod_follows_its_bound_volume_to_its_zone(tmp_path: Path, seed: str) -> None:
    """The claim's PV requires zone z2: the pod lands on n3, the only z2 node, on every seed."""
    document = simulate(tmp_path, NODES + ZONE_Z2_CLAIM, "--seed", seed)
    assert placements(document) == [("db", "n3", "")]


def test_a_full_zone_is_a_volume_node_affinity_conflict(tmp_path: Path) -> None:
    """With n3 full, the other nodes conflict with the volume's node affinity."""
    full = NODES.replace(
        "topology.kubernetes.io/zone: z2}}\nstatus: {allocatable: {cpu: '4'",
        "topology.kubernetes.io/zone: z2}}\nstatus: {allocatable: {cpu: '0'")
    text = full + ZONE_Z2_CLAIM.replace("containers: [{name: db, image: postgres}]",
                                        "containers: [{name: db, image: postgres, resources: {requests: {cpu: '1'}}}]")
    document = simulate(tmp_path, text)
    assert placements(document)[0][2].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had volume node affinity conflict.")


def test_the_same_seed_gives_the_same_run(tmp_path: Path) -> None:
    """Provisioning zones, binding times and placements repeat exactly with the seed."""
    args = ("--provisioner", "*", "--seed", "7")
    first = simulate(tmp_path, NODES + CASSANDRA, *args)
    assert simulate(tmp_path, NODES + CASSANDRA, *args) == first


NOTHING_PROVISIONS = NODES + """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: wffc}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: later}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: wffc}
---
apiVersion: v1
kind: Pod
metadata: {name: waits}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: later, persistentVolumeClaim: {claimName: later}}]
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: port{i}}}
spec: {{containers: [{{name: c, image: x, ports: [{{containerPort: 80, hostPort: 80}}]}}]}}
""" for i in range(4))


def test_a_claim_nothing_provisions_leaves_its_pod_pending_and_the_run_settles(tmp_path: Path) -> None:
    """PreBind waits for a provisioner that does not run, times out as kube-scheduler's does, and is retried until
    the settling policy gives up on the repeating error; the clock its waits move does not keep retrying the pods
    refused meanwhile (a host port taken on every node), so the run ends instead of cycling."""
    result = simulate(tmp_path, NOTHING_PROVISIONS)
    phases = {p["name"]: (p["phase"], p["message"]) for p in result["pods"]}
    assert phases["waits"] == ("Pending",
                               'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded')
    assert sorted(phase for name, (phase, _) in phases.items() if name.startswith("port")) == [
        "Bound", "Bound", "Bound", "Pending"]


SHARED_CLAIM = NODES + """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: wffc}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: wffc}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: user{i}, labels: {{app: users}}}}
spec:
  containers: [{{name: c, image: x}}]
  volumes: [{{name: d, persistentVolumeClaim: {{claimName: shared}}}}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {{topologyKey: kubernetes.io/hostname, labelSelector: {{matchLabels: {{app: users}}}}}}
""" for i in range(3))


def test_pods_sharing_a_claim_nothing_provisions_do_not_take_turns_for_ever(tmp_path: Path) -> None:
    """Each pod's PreBind timeout drops a reservation the others were refused for, so they take turns waiting;
    rejections in between do not restart a pod's run of errors, so each is given up on and the run ends."""
    result = simulate(tmp_path, SHARED_CLAIM)
    assert {p["phase"] for p in result["pods"]} == {"Pending"}

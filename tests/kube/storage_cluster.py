"""Random small clusters with storage for the storage fidelity test (tests/kube/test_fidelity_storage_random.py).

A cluster: 2 to 4 nodes over two zones, CSINodes with random per-driver attach limits (or none), StorageClasses
(Immediate or WaitForFirstConsumer, with or without allowedTopologies, ``kubernetes.io/no-provisioner`` or the CSI
provisioner the test plays), static PVs (a CSI or local source, a zone or hostname node affinity or none, sizes
distinct within the cluster so that the PV controller's smallest match is unique), claims bound, unbound,
pre-bound by their PV, or naming a PV that does not exist, pods already bound that use claims or inline GCE PD and
EBS disks, and pending pods using the same. Every name starts with the case's prefix.
"""

from __future__ import annotations

import random
from typing import Any

import attrs

Obj = dict[str, Any]

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
ZONES = ("z1", "z2")
#: The CSI provisioner the test plays (it creates the PVs of the claims annotated with it).
PROVISIONER = "fidelity.csi.example.com"
#: Another CSI driver, of static PVs only: nothing provisions for it.
STATIC_DRIVER = "static.csi.example.com"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
EBS_DRIVER = "ebs.csi.aws.com"
PD_DRIVER = "pd.csi.storage.gke.io"
MIGRATED_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
PV_MODES = (("ReadWriteOnce",), ("ReadWriteMany",), ("ReadWriteOnce", "ReadOnlyMany"), ("ReadWriteOncePod",))
CLAIM_MODES = (("ReadWriteOnce",), ("ReadWriteOnce",), ("ReadWriteOncePod",), ("ReadWriteMany",),
               ("ReadOnlyMany",))


@attrs.define
class StorageCluster:
    """One random cluster: the objects in the order the test creates them, and the pods to schedule."""

    prefix: str
    nodes: list[Obj]
    csi_nodes: list[Obj]
    classes: list[Obj]
    volumes: list[Obj]
    claims: list[Obj]
    bound: list[Obj]
    pending: list[Obj]

    def zone_of(self, node_name: str) -> str:
        """The zone label of node ``node_name``."""
        return str(next(n for n in self.nodes if n["metadata"]["name"] == node_name)["metadata"]["labels"][ZONE])


def _node(name: str, zone: str, cpu: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {HOSTNAME: name, ZONE: zone}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def _csi_node(rng: random.Random, name: str) -> Obj:
    drivers = rng.sample([PROVISIONER, STATIC_DRIVER, EBS_DRIVER, PD_DRIVER], rng.randint(1, 3))
    entries = []
    for driver in drivers:
        count = rng.choice([0, 1, 1, 2, 2, 3, None])
        entries.append({"name": driver, "nodeID": name, **({"allocatable": {"count": count}} if count is not None
                                                            else {})})
    migrated = {MIGRATED_ANNOTATION: "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"} if rng.random() < 0.5 else {}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name, "annotations": migrated},
            "spec": {"drivers": entries}}


def _storage_class(rng: random.Random, name: str) -> Obj:
    obj: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
                "provisioner": rng.choice([PROVISIONER, NO_PROVISIONER]),
                "volumeBindingMode": rng.choice(["Immediate", "WaitForFirstConsumer"])}
    if rng.random() < 0.3:
        obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": [rng.choice(ZONES)]}]}]
    return obj


def _volume(rng: random.Random, name: str, size: str, storage_class: str, nodes: list[Obj]) -> Obj:
    """A static PV: CSI (or local, with a hostname affinity) with a random node affinity and zone label."""
    spec: Obj = {"capacity": {"storage": size}, "accessModes": list(rng.choice(PV_MODES)),
                 "storageClassName": storage_class, "persistentVolumeReclaimPolicy": "Retain"}
    labels = {}
    where = rng.choice(["none", "zone", "zone", "hostname"])
    if where == "zone":
        zone = rng.choice(ZONES)
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": ZONE, "operator": "In", "values": [zone]}]}]}}
    elif where == "hostname":
        host = rng.choice(nodes)["metadata"]["name"]
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": HOSTNAME, "operator": "In", "values": [host]}]}]}}
    if where == "hostname" and rng.random() < 0.3:
        spec["local"] = {"path": f"/mnt/{name}"}
    else:
        spec["csi"] = {"driver": rng.choice([PROVISIONER, STATIC_DRIVER]), "volumeHandle": name}
    if rng.random() < 0.15:
        labels[ZONE] = rng.choice(ZONES)
    if rng.random() < 0.3:
        labels["tier"] = rng.choice(["fast", "slow"])
    if rng.random() < 0.1:
        spec["volumeMode"] = "Block"
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels},
            "spec": spec}


def _claim(rng: random.Random, name: str, storage_class: str | None) -> Obj:
    """A claim of ``storage_class`` (None: without storageClassName) with random modes, size, volume mode and
    label selector."""
    spec: Obj = {"accessModes": list(rng.choice(CLAIM_MODES)),
                 "resources": {"requests": {"storage": rng.choice(["1Gi", "2Gi", "3Gi"])}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if rng.random() < 0.1:
        spec["volumeMode"] = "Block"
    if rng.random() < 0.15:
        spec["selector"] = {"matchLabels": {"tier": rng.choice(["fast", "slow"])}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def _inline_disk(rng: random.Random) -> Obj:
    if rng.random() < 0.5:
        return {"name": "disk", "gcePersistentDisk": {"pdName": rng.choice(["pd-1", "pd-2"]),
                                                      "readOnly": rng.random() < 0.5}}
    return {"name": "disk", "awsElasticBlockStore": {"volumeID": rng.choice(["vol-1", "vol-2", "aws://z1/vol-1"])}}


def _pod(rng: random.Random, name: str, claims: list[str], node_name: str | None) -> Obj:
    volumes: list[Obj] = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": claim}}
                          for i, claim in enumerate(claims)]
    if rng.random() < 0.3:
        volumes.append(_inline_disk(rng))
    spec: Obj = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {
        "requests": {"cpu": rng.choice(["100m", "250m", "500m", "1"]), "memory": "256Mi"}}}]}
    if volumes:
        spec["volumes"] = volumes
    if node_name is not None:
        spec["nodeName"] = node_name
    elif rng.random() < 0.2:
        spec["nodeSelector"] = {ZONE: rng.choice(ZONES)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def random_storage_cluster(rng: random.Random, case: int) -> StorageCluster:
    """Cluster number ``case``, drawn from ``rng`` (every name starts with ``s<case>-``)."""
    prefix = f"s{case}"
    nodes = [_node(f"{prefix}-n{j}", ZONES[j % 2] if j < 2 else rng.choice(ZONES), rng.choice(["2", "4"]))
             for j in range(rng.randint(2, 4))]
    csi_nodes = [_csi_node(rng, n["metadata"]["name"]) for n in nodes if rng.random() < 0.75]
    classes = [_storage_class(rng, f"{prefix}-sc{k}") for k in range(rng.randint(1, 3))]
    class_names = [c["metadata"]["name"] for c in classes]
    sizes = iter(rng.sample(["1Gi", "2Gi", "3Gi", "4Gi", "5Gi", "8Gi", "10Gi", "16Gi"], 8))
    volumes = [_volume(rng, f"{prefix}-pv{k}", next(sizes), rng.choice([*class_names, *class_names, ""]), nodes)
               for k in range(rng.randint(0, 4))]
    claims: list[Obj] = []
    for k in range(rng.randint(1, 4)):
        name = f"{prefix}-c{k}"
        claim = _claim(rng, name, rng.choices([*class_names, "", None, f"{prefix}-nosuch"],
                                              [*(8,) * len(class_names), 2, 1, 1])[0])
        kind = rng.choices(["unbound", "bound", "pv-prebound", "claim-prebound", "missing-pv"],
                           [50, 20, 10, 10, 10])[0]
        free = [v for v in volumes if "claimRef" not in v["spec"] and
                all(v["metadata"]["name"] != c["spec"].get("volumeName") for c in claims)]
        if kind == "bound":  # pre-bound both ways: the PV controller completes the binding
            volume = _volume(rng, f"{prefix}-bpv{k}", next(sizes), rng.choice([*class_names, ""]), nodes)
            volume["spec"]["claimRef"] = {"namespace": "default", "name": name}
            claim["spec"]["storageClassName"] = volume["spec"]["storageClassName"]
            claim["spec"].pop("selector", None)
            claim["spec"]["volumeName"] = volume["metadata"]["name"]
            volumes.append(volume)
        elif kind == "pv-prebound" and free:  # the PV names the claim: binds if it fits the claim
            rng.choice(free)["spec"]["claimRef"] = {"namespace": "default", "name": name}
        elif kind == "claim-prebound" and free:  # the claim names a free PV: binds if the PV fits the claim
            claim["spec"]["volumeName"] = rng.choice(free)["metadata"]["name"]
        elif kind == "missing-pv":
            claim["spec"]["volumeName"] = f"{prefix}-gone{k}"
        claims.append(claim)
    claim_names = [c["metadata"]["name"] for c in claims]

    def some_claims() -> list[str]:
        chosen = rng.sample(claim_names, min(len(claim_names), rng.choice([0, 1, 1, 1, 2])))
        if rng.random() < 0.08:
            chosen.append(f"{prefix}-nope")
        return chosen

    bound = [_pod(rng, f"{prefix}-b{j}", some_claims(), rng.choice(nodes)["metadata"]["name"])
             for j in range(rng.randint(0, 2))]
    pending = [_pod(rng, f"{prefix}-p{j}", some_claims(), None) for j in range(rng.randint(1, 3))]
    for obj in bound:  # a pod created on its node uses no missing claim (the kubelet would not run it)
        obj["spec"]["volumes"] = [v for v in obj["spec"].get("volumes", [])
                                  if v.get("persistentVolumeClaim", {}).get("claimName") != f"{prefix}-nope"]
    return StorageCluster(prefix, nodes, csi_nodes, classes, volumes, claims, bound, pending)

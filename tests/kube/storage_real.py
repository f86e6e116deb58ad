"""The real side of the storage fidelity test: a random cluster's objects on a real API server where
kube-controller-manager's PV controller runs, the CSI provisioner the test plays, bounded waits until the PV
controller has done what it will, the state as kube-scheduler sees it, and the cleanup between clusters."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.testing.kube import log_tail
from tests.kube.helpers import WAIT, create, get_pod
from tests.kube.storage_cluster import PROVISIONER, ZONE, Obj, StorageCluster

SELECTED_NODE = "volume.kubernetes.io/selected-node"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
VOLUMES = "/api/v1/persistentvolumes"
#: What the state holds, by kind: (list path, apiVersion).
KINDS = {"Node": ("/api/v1/nodes", "v1"), "CSINode": ("/apis/storage.k8s.io/v1/csinodes", "storage.k8s.io/v1"),
         "StorageClass": ("/apis/storage.k8s.io/v1/storageclasses", "storage.k8s.io/v1"),
         "PersistentVolume": (VOLUMES, "v1"), "PersistentVolumeClaim": (CLAIMS, "v1"),
         "Pod": ("/api/v1/namespaces/default/pods", "v1")}


def _items(api: KubeApi, path: str) -> list[Obj]:
    return list(api.get(path).get("items") or [])


def _mine(cluster: StorageCluster, obj: Obj) -> bool:
    """Whether ``obj`` belongs to the cluster: its name has the prefix, or it is a PV provisioned for its claim."""
    name = str(obj["metadata"]["name"])
    ref = (obj.get("spec") or {}).get("claimRef") or {}
    return name.startswith(f"{cluster.prefix}-") or str(ref.get("name", "")).startswith(f"{cluster.prefix}-")


def wait(what: str, probe: Callable[[], Any], log: Path, step: Callable[[], None] | None = None) -> Any:
    """Poll ``probe`` (after ``step``, when given) until it returns something truthy; fail after WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if step is not None:
            step()
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {WAIT:g} s waiting for {what}:\n{log_tail(log, 30)}")


class RealStorage:
    """One cluster's objects on the real control plane, and the CSI provisioner the test plays for them."""

    def __init__(self, api: KubeApi, cluster: StorageCluster, rng: random.Random, log: Path) -> None:
        self.api = api
        self.cluster = cluster
        self.rng = rng
        self.log = log
        self.classes = {c["metadata"]["name"]: c for c in cluster.classes}
        self.provisioned: set[str] = set()

    def create(self) -> None:
        """The nodes, CSINodes, classes and PVs, then (once the PV controller saw every PV) the claims and, once
        the PV controller settled them, the pods already bound."""
        c = self.cluster
        for obj in [*c.nodes, *c.csi_nodes, *c.classes, *c.volumes]:
            create(self.api, obj)
        wait("the PV controller to see every PV", self._volumes_synced, self.log)
        for obj in c.claims:
            create(self.api, obj)
        self.settle()
        for obj in c.bound:
            create(self.api, obj)
        time.sleep(0.5)  # kube-scheduler's informers see the storage and the bound pods before the first pod

    # -- the provisioner -----------------------------------------------------------------------------
    def provision(self) -> None:
        """Create the PV of every claim handed to the test's provisioner (Immediate, or with a selected node), in
        the selected node's zone or in one the class allows, pre-bound to the claim, as a CSI
        external-provisioner does (which refuses claims with a selector: "claim Selector is not supported")."""
        for claim in _items(self.api, CLAIMS):
            meta, spec = claim["metadata"], claim["spec"]
            annotations = meta.get("annotations") or {}
            if spec.get("volumeName") or annotations.get(STORAGE_PROVISIONER) != PROVISIONER or \
                    meta["uid"] in self.provisioned or not _mine(self.cluster, claim) or spec.get("selector"):
                continue
            storage_class = self.classes.get(spec.get("storageClassName", ""))
            if storage_class is None:
                continue
            selected = annotations.get(SELECTED_NODE)
            if storage_class["volumeBindingMode"] == "WaitForFirstConsumer":
                if not selected:
                    continue
                zone = self.cluster.zone_of(selected)
            else:
                allowed = [v for term in storage_class.get("allowedTopologies", [])
                           for e in term["matchLabelExpressions"] for v in e["values"]]
                zone = self.rng.choice(allowed or sorted({n["metadata"]["labels"][ZONE] for n in self.cluster.nodes}))
            self.provisioned.add(meta["uid"])
            name = f"pvc-{meta['uid']}"
            create(self.api, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {
                "name": name, "annotations": {"pv.kubernetes.io/provisioned-by": PROVISIONER}}, "spec": {
                "capacity": {"storage": spec["resources"]["requests"]["storage"]},
                "accessModes": spec["accessModes"], "storageClassName": spec["storageClassName"],
                "volumeMode": spec.get("volumeMode", "Filesystem"), "persistentVolumeReclaimPolicy": "Delete",
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": "default",
                             "name": meta["name"], "uid": meta["uid"]},
                "csi": {"driver": PROVISIONER, "volumeHandle": name},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": ZONE, "operator": "In", "values": [zone]}]}]}}}})

    # -- settling ------------------------------------------------------------------------------------
    def _volumes_synced(self) -> bool:
        return all((v.get("status") or {}).get("phase", "Pending") != "Pending"
                   for v in _items(self.api, VOLUMES) if _mine(self.cluster, v))

    def _settled(self) -> bool:
        """Every claim is bound, names a PV that does not exist, or has the PV controller's event (and is not
        waiting for the test's provisioner); every PV has its phase."""
        volumes = {v["metadata"]["name"] for v in _items(self.api, VOLUMES)}
        noticed = {e["involvedObject"]["name"] for e in _items(self.api, "/api/v1/namespaces/default/events")
                   if e["involvedObject"].get("kind") == "PersistentVolumeClaim"}
        for claim in _items(self.api, CLAIMS):
            if not _mine(self.cluster, claim) or (claim.get("status") or {}).get("phase") == "Bound":
                continue
            name, spec = claim["metadata"]["name"], claim["spec"]
            if spec.get("volumeName") and spec["volumeName"] not in volumes:
                continue
            storage_class = self.classes.get(spec.get("storageClassName", ""))
            provisioned_now = storage_class is not None and storage_class["provisioner"] == PROVISIONER and \
                storage_class["volumeBindingMode"] == "Immediate" and not spec.get("selector") and \
                not spec.get("volumeName")
            if name not in noticed or provisioned_now:
                return False
        return self._volumes_synced()

    def settle(self) -> None:
        """Wait (playing the provisioner) until the PV controller did all it will with the cluster's claims."""
        wait(f"the PV controller to settle the claims of {self.cluster.prefix}", self._settled, self.log,
             self.provision)

    # -- state ---------------------------------------------------------------------------------------
    def state(self) -> list[Obj]:
        """The cluster's objects as they are now (a dump, as `kubectl get -o json` gives it)."""
        objects = []
        for kind, (path, api_version) in KINDS.items():
            for obj in _items(self.api, path):
                if _mine(self.cluster, obj):
                    obj["metadata"].pop("managedFields", None)
                    objects.append({"apiVersion": api_version, "kind": kind, **obj})
        return objects

    def first_claim_events(self) -> dict[str, tuple[str, str]]:
        """The first event the PV controller recorded about each of the cluster's claims: claim -> (reason,
        message). An event's name ends in the hexadecimal UnixNano of its creation, which orders them."""
        found = sorted((int(e["metadata"]["name"].rsplit(".", 1)[1], 16), e["involvedObject"]["name"], e["reason"],
                        e["message"]) for e in _items(self.api, "/api/v1/namespaces/default/events")
                       if e["involvedObject"].get("kind") == "PersistentVolumeClaim" and
                       str(e["involvedObject"]["name"]).startswith(f"{self.cluster.prefix}-") and
                       (e.get("source") or {}).get("component") == "persistentvolume-controller")
        first: dict[str, tuple[str, str]] = {}
        for _, claim, reason, message in found:
            first.setdefault(claim, (reason, message))
        return first

    def delete_pod(self, name: str) -> None:
        try:
            self.api.request("DELETE", pod_path("default", name), body={"gracePeriodSeconds": 0})
        except ApiError as error:
            if error.status != 404:
                raise

    def cleanup(self) -> None:
        """Delete every object of the cluster (claims and PVs without waiting for their protection finalizers)
        and wait until they are gone."""
        for obj in self.state():
            kind = obj["kind"]
            path = f"{KINDS[kind][0]}/{obj['metadata']['name']}"
            try:
                self.api.request("DELETE", path, body={"gracePeriodSeconds": 0} if kind == "Pod" else None)
                if kind in ("PersistentVolume", "PersistentVolumeClaim"):
                    self.api.request("PATCH", path, body={"metadata": {"finalizers": None}},
                                     content_type="application/merge-patch+json")
            except ApiError as error:
                if error.status != 404:
                    raise
        wait(f"the objects of {self.cluster.prefix} to be gone", lambda: not self.state(), self.log)


def outcome(api: KubeApi, name: str, nodes: int) -> tuple[str, str] | None:
    """What kube-scheduler decided about pod ``name``: ("bound", node), ("unschedulable", message) once it
    decided about all ``nodes``, ("error", message); None while it decided nothing."""
    found = get_pod(api, name) or {}
    if found.get("spec", {}).get("nodeName"):
        return "bound", str(found["spec"]["nodeName"])
    for condition in found.get("status", {}).get("conditions") or []:
        if condition["type"] != "PodScheduled" or not condition.get("message"):
            continue
        message = str(condition["message"])
        if condition.get("reason") != "Unschedulable":
            return "error", message
        if message.startswith(f"0/{nodes} nodes are available"):
            return "unschedulable", message
    return None

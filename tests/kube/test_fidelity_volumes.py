"""Fidelity of the volume plugins against the real kube-scheduler v1.32: VolumeRestrictions, NodeVolumeLimits and
VolumeZone, case by case.

Each case is a small cluster (nodes, storage objects, pods already bound) and one pending pod. The real
kube-scheduler (from KUBEBUILDER_ASSETS) decides about the pod on a real API server without controllers (claims are
created bound, as the PV controller would have left them); ``simulate`` gets the same objects and must decide the
same: the same node, the same nominated node and victims, or the same message (a FitError's, or a plugin Error's).
The cases keep VolumeBinding out of the way (bound claims of volumes without node affinity; an unbound claim only
where the pod fits nowhere), so they hold with or without kubesched's VolumeBinding.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from kubesched.io.load import load
from kubesched.kube.rest import ApiError, KubeApi
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing.kube import ControlPlane, log_tail
from tests.kube.helpers import WAIT, get_pod, node
from tests.kube.test_fidelity import real_scheduler

pytestmark = [pytest.mark.kube, pytest.mark.slow]
__all__ = ["real_scheduler"]  # the fixture, shared with the other fidelity tests

PLURALS = {"Node": ("/api/v1", "nodes"), "Pod": ("/api/v1", "pods"), "PriorityClass": ("/apis/scheduling.k8s.io/v1",
                                                                                       "priorityclasses"),
           "PersistentVolume": ("/api/v1", "persistentvolumes"),
           "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims"),
           "StorageClass": ("/apis/storage.k8s.io/v1", "storageclasses"),
           "CSINode": ("/apis/storage.k8s.io/v1", "csinodes")}
NAMESPACED = ("Pod", "PersistentVolumeClaim")
ZONE = "topology.kubernetes.io/zone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def path_of(obj: dict[str, Any], name: str | None = None) -> str:
    base, plural = PLURALS[obj["kind"]]
    namespace = f"/namespaces/{obj['metadata'].get('namespace', 'default')}" if obj["kind"] in NAMESPACED else ""
    return f"{base}{namespace}/{plural}" + (f"/{name}" if name else "")


def hosts(*names: str, labels: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Nodes with their hostname label (and ``labels``)."""
    return [node(n, labels={"kubernetes.io/hostname": n, **(labels or {})}) for n in names]


def pod(name: str, volumes: list[dict[str, Any]], *, node_name: str | None = None, priority: str | None = None,
        cpu: str = "100m") -> dict[str, Any]:
    """A pod with one container requesting ``cpu`` and these volumes (bound to ``node_name`` when given)."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": {"cpu": cpu}}}], "volumes": volumes}
    if node_name:
        spec["nodeName"] = node_name
    if priority:
        spec["priorityClassName"] = priority
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def claim_volume(claim: str) -> dict[str, Any]:
    return {"name": claim.replace(".", "-"), "persistentVolumeClaim": {"claimName": claim}}


def bound_claim(name: str, *, driver: str = "csi.example.com", mode: str = "ReadWriteOnce",
                labels: dict[str, str] | None = None, source: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A PV (CSI unless ``source`` gives an in-tree one) and claim ``name`` bound to each other, as the PV
    controller leaves them (claimRef; volumeName and bind-completed)."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels or {}},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": [mode], "storageClassName": "",
                   "claimRef": {"namespace": "default", "name": name},
                   **(source or {"csi": {"driver": driver, "volumeHandle": name}})}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": "default",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
           "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "",
                    "volumeName": name}}
    return [pv, pvc]


def csi_node(name: str, drivers: dict[str, int | None], migrated: str = "") -> dict[str, Any]:
    annotations = {"storage.alpha.kubernetes.io/migrated-plugins": migrated} if migrated else {}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": {"name": name, "annotations": annotations},
            "spec": {"drivers": [{"name": d, "nodeID": name, **({"allocatable": {"count": c}} if c is not None else {})}
                                 for d, c in drivers.items()]}}


def wffc_class(name: str, provisioner: str) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": "WaitForFirstConsumer"}


def unbound_claim(name: str, class_name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                     "storageClassName": class_name}}


def disk(kind: str, **spec: Any) -> dict[str, Any]:
    return {"name": "disk", kind: spec}


PRIORITY_CLASSES: list[dict[str, Any]] = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}
    for name, value in (("vol-high", 1000), ("vol-low", 10))]

# (objects created first, in order; the pending pod)
CASES = [
    pytest.param([*hosts("rw1"), *bound_claim("rw-data", mode="ReadWriteOncePod"),
                  pod("rw-holder", [claim_volume("rw-data")], node_name="rw1")],
                 pod("rw-pod", [claim_volume("rw-data")]), id="read-write-once-pod-claim-in-use"),
    pytest.param([*hosts("rp1", "rp2"), *bound_claim("rp-data", mode="ReadWriteOncePod"),
                  pod("rp-holder", [claim_volume("rp-data")], node_name="rp1", priority="vol-low")],
                 pod("rp-pod", [claim_volume("rp-data")], priority="vol-high"),
                 id="read-write-once-pod-claim-preempted"),
    pytest.param([*hosts("gd1", "gd2"), pod("gd-holder", [disk("gcePersistentDisk", pdName="pd-1")], node_name="gd1")],
                 pod("gd-pod", [disk("gcePersistentDisk", pdName="pd-1")]), id="gce-disk-on-the-other-node"),
    pytest.param([*hosts("gr1"), pod("gr-holder", [disk("gcePersistentDisk", pdName="pd-2", readOnly=True)],
                                     node_name="gr1")],
                 pod("gr-pod", [disk("gcePersistentDisk", pdName="pd-2", readOnly=True)]),
                 id="gce-disk-both-read-only"),
    pytest.param([*hosts("rb1"), pod("rb-holder", [disk("rbd", monitors=["m1", "m2"], image="img")], node_name="rb1")],
                 pod("rb-pod", [disk("rbd", monitors=["m2", "m3"], image="img", pool="rbd")]),
                 id="rbd-image-sharing-a-monitor"),
    pytest.param([*hosts("ae1"), csi_node("ae1", {"ebs.csi.aws.com": 2}),
                  pod("ae-a", [disk("awsElasticBlockStore", volumeID="aws://us-east-1a/vol-1")], node_name="ae1"),
                  pod("ae-b", [disk("awsElasticBlockStore", volumeID="vol-1")], node_name="ae1")],
                 pod("ae-pod", [disk("awsElasticBlockStore", volumeID="vol-2")]),
                 id="ebs-volume-id-forms-count-once"),
    pytest.param([*hosts("ax1"), csi_node("ax1", {"ebs.csi.aws.com": 2}),
                  pod("ax-a", [disk("awsElasticBlockStore", volumeID="vol-1")], node_name="ax1"),
                  pod("ax-b", [disk("awsElasticBlockStore", volumeID="vol-2")], node_name="ax1")],
                 pod("ax-pod", [disk("awsElasticBlockStore", volumeID="vol-3")]), id="ebs-volumes-exceed-the-count"),
    pytest.param([*hosts("ai1"), csi_node("ai1", {"ebs.csi.aws.com": 2})],
                 pod("ai-pod", [disk("awsElasticBlockStore", volumeID="aws://x/y/vol-3")]),
                 id="ebs-volume-id-not-translated"),
    pytest.param([*hosts("az1"), csi_node("az1", {"disk.csi.azure.com": 1})],
                 pod("az-pod", [disk("azureDisk", diskName="x", diskURI="https://a.blob.core.windows.net/c/x.vhd")]),
                 id="azure-disk-of-kind-shared"),
    pytest.param([*hosts("cs1"), csi_node("cs1", {"csi.example.com": 1}), *bound_claim("cs-a"), *bound_claim("cs-b"),
                  pod("cs-holder", [claim_volume("cs-a")], node_name="cs1")],
                 pod("cs-pod", [claim_volume("cs-b")]), id="csi-claims-exceed-the-count"),
    pytest.param([*hosts("cp1", "cp2"), csi_node("cp1", {"csi.example.com": 1}), *bound_claim("cp-a"),
                  *bound_claim("cp-b"), pod("cp-holder", [claim_volume("cp-a")], node_name="cp1", priority="vol-low"),
                  pod("cp-filler", [], node_name="cp2", cpu="4", priority="vol-high")],
                 pod("cp-pod", [claim_volume("cp-b")], priority="vol-high"), id="attach-slot-preempted"),
    pytest.param([*hosts("un1"), csi_node("un1", {"un.csi.io": 0}), wffc_class("un-class", "un.csi.io"),
                  unbound_claim("un-data", "un-class")],
                 pod("un-pod", [claim_volume("un-data")]), id="unbound-claim-counts-by-provisioner"),
    pytest.param([*hosts("px1"), csi_node("px1", {"pxd.portworx.com": 0}, "kubernetes.io/portworx-volume"),
                  wffc_class("px-class", "kubernetes.io/portworx-volume"), unbound_claim("px-data", "px-class")],
                 pod("px-pod", [claim_volume("px-data")]), id="portworx-claim-through-migration"),
    pytest.param([*hosts("ic1"), csi_node("ic1", {"ic.csi.io": 0})],
                 pod("ic-pod", [{"name": "inline", "csi": {"driver": "ic.csi.io"}}]), id="inline-csi-never-counts"),
    pytest.param([{**node("na1", labels={"kubernetes.io/hostname": "na1"}),
                   "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110",
                                           "attachable-volumes-csi-csi.example.com": "1"}}},
                  *bound_claim("na-a"), *bound_claim("na-b")],
                 pod("na-pod", [claim_volume("na-a"), claim_volume("na-b")]),
                 id="node-attachable-volumes-not-read-without-csinode"),
    pytest.param([*hosts("za1", labels={ZONE: "za"}), *hosts("zb1", labels={BETA_ZONE: "zb"}),
                  *bound_claim("zo-data", labels={BETA_ZONE: "zc__za"})],
                 pod("zo-pod", [claim_volume("zo-data")]), id="beta-multi-zone-volume"),
    pytest.param([*hosts("zx1", labels={ZONE: "za"}), *hosts("zx2", labels={ZONE: "zb"}),
                  *bound_claim("zx-data", labels={ZONE: "zq"})],
                 pod("zx-pod", [claim_volume("zx-data")], priority="vol-high"), id="no-node-in-the-volume-zone"),
    pytest.param([*hosts("mc1")], pod("mc-pod", [claim_volume("mc-missing")]), id="missing-claim"),
]


def _create(api: KubeApi, obj: dict[str, Any]) -> None:
    api.request("POST", path_of(obj), body=obj)


def _delete(api: KubeApi, obj: dict[str, Any]) -> None:
    body = {"gracePeriodSeconds": 0} if obj["kind"] == "Pod" else None
    try:
        api.request("DELETE", path_of(obj, obj["metadata"]["name"]), body=body)
    except ApiError as error:
        if error.status != 404:
            raise


def _real(api: KubeApi, name: str) -> tuple[str, ...] | None:
    """What kube-scheduler decided about pod ``name``: ("bound", node), ("nominated", node, victims...),
    ("unschedulable", message), ("error", message); None while it decided nothing."""
    found = get_pod(api, name) or {}
    if found.get("spec", {}).get("nodeName"):
        return "bound", str(found["spec"]["nodeName"])
    nominated = found.get("status", {}).get("nominatedNodeName")
    if nominated:
        return "nominated", str(nominated)
    for condition in found.get("status", {}).get("conditions") or []:
        if condition["type"] == "PodScheduled" and condition.get("message"):
            kind = "unschedulable" if condition.get("reason") == "Unschedulable" else "error"
            return kind, str(condition["message"])
    return None


def _simulated(tmp_path: Path, objects: list[dict[str, Any]], name: str) -> tuple[str, ...]:
    """What ``simulate`` decides about pod ``name`` at its first decision, in the shape of :func:`_real`."""
    manifest = tmp_path / "cluster.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    registry = PluginRegistry.discover()
    result = simulate(load([manifest]), load_config("default", registry), registry)
    mine = next(p for p in result.pods if p.name == name)
    preemptions = [p for p in result.preemptions if p.preemptor == f"default/{name}"]
    if preemptions:
        return ("nominated", preemptions[0].node, *sorted(v.split("/")[1] for v in preemptions[0].victims))
    if mine.phase == "Bound":
        return "bound", mine.node or ""
    errors = [f for f in result.plugin_errors if f.pod == f"default/{name}"]
    return ("error" if errors else "unschedulable"), mine.message


@pytest.mark.parametrize(("objects", "pending"), CASES)
def test_volume_plugins_decide_as_the_real_kube_scheduler(kube_control_plane: ControlPlane, real_scheduler: Path,
                                                          tmp_path: Path, objects: list[dict[str, Any]],
                                                          pending: dict[str, Any]) -> None:
    """The pod's node, nomination and victims, or message, are the real kube-scheduler's."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    created: list[dict[str, Any]] = []
    try:
        for obj in PRIORITY_CLASSES:
            if get_priority_class(admin, obj["metadata"]["name"]) is None:
                _create(admin, obj)
        for obj in [o for o in objects if o["kind"] != "Pod"]:
            _create(admin, obj)
            created.append(obj)
        time.sleep(0.5)  # the scheduler's storage informers see the objects before the pods arrive
        for obj in [*(o for o in objects if o["kind"] == "Pod"), pending]:
            _create(admin, obj)
            created.append(obj)
        name = pending["metadata"]["name"]
        deadline = time.monotonic() + WAIT
        real = None
        while real is None and time.monotonic() < deadline:
            real = _real(admin, name)
            time.sleep(0.05)
        assert real is not None, f"kube-scheduler decided nothing about {name}:\n{log_tail(real_scheduler)}"
        if real[0] == "nominated":
            victims = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Pod" and (
                get_pod(admin, o["metadata"]["name"]) or {}).get("metadata", {}).get("deletionTimestamp"))
            real = (*real, *victims)
        assert _simulated(tmp_path, [*PRIORITY_CLASSES, *objects, pending], name) == real
    finally:
        for obj in reversed(created):
            _delete(admin, obj)


def get_priority_class(api: KubeApi, name: str) -> dict[str, Any] | None:
    """The PriorityClass, or None before the first case creates it."""
    try:
        return api.get(f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}")
    except ApiError as error:
        if error.status == 404:
            return None
        raise


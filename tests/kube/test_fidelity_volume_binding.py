"""Fidelity of VolumeBinding and the simulated storage control loop against the real kube-scheduler and
kube-controller-manager (PV controller) from KUBEBUILDER_ASSETS: for each case, the real cluster binds the pod to
a node or leaves it unschedulable, and ``simulate`` on the same objects must decide the same (the same node, or
the same message)."""

from __future__ import annotations

import functools
import json
import subprocess
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.io.load import load
from kubesched.kube.rest import ApiError, KubeApi
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing.kube import ControlPlane, free_port, log_tail
from tests.kube.helpers import WAIT, create, get_pod, node, pod

pytestmark = [pytest.mark.kube, pytest.mark.slow]

ZONE = "topology.kubernetes.io/zone"
NODES = [node(name, labels={"kubernetes.io/hostname": name, ZONE: zone})
         for name, zone in (("n1", "z1"), ("n2", "z1"), ("n3", "z2"))]
Obj = dict[str, Any]


@pytest.fixture(scope="module")
def cluster(kube_control_plane: ControlPlane) -> Iterator[KubeApi]:
    """The control plane with kube-controller-manager and the real kube-scheduler, and three nodes in two zones."""
    plane = kube_control_plane
    plane.start_controller_manager()
    kubeconfig = plane.kubeconfig("scheduler")
    log = plane.folder / "kube-scheduler.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(plane.assets / "kube-scheduler"), f"--kubeconfig={kubeconfig}",
             f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
             "--leader-elect=false", "--bind-address=127.0.0.1", f"--secure-port={free_port()}",
             f"--cert-dir={plane.folder / 'scheduler-certs'}", "-v=2"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    api = KubeApi.connect(str(plane.kubeconfig("admin")))
    for obj in NODES:
        create(api, obj)
    try:
        yield api
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def storage_class(name: str, provisioner: str, mode: str = "Immediate", **extra: Any) -> Obj:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": mode, **extra}


def claim(name: str, cls: str, size: str = "1Gi") -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                     "resources": {"requests": {"storage": size}}}}


def volume(name: str, cls: str, key: str, value: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                     "csi": {"driver": "csi.example.com", "volumeHandle": name},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": key, "operator": "In", "values": [value]}]}]}}}}


def using(name: str, *claims: str, node_selector: dict[str, str] | None = None) -> Obj:
    obj = pod(name)
    obj["spec"]["volumes"] = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                              for i, c in enumerate(claims)]
    if node_selector:
        obj["spec"]["nodeSelector"] = node_selector
    return obj


# (case, the storage objects, the pod; whether the claims must be bound before the pod is created)
CASES: list[Any] = [
    pytest.param([storage_class("imm-none", "none.example.com"), claim("c1", "imm-none")], using("p1", "c1"), False,
                 id="immediate-claim-nothing-provisions"),
    pytest.param([], using("p2", "no-such-claim"), False, id="missing-claim"),
    pytest.param([storage_class("static-z2", "kubernetes.io/no-provisioner"), volume("pv-z2", "static-z2", ZONE, "z2"),
                  claim("c3", "static-z2")], using("p3", "c3"), True, id="bound-pv-in-zone-z2"),
    pytest.param([storage_class("static-z9", "kubernetes.io/no-provisioner"), volume("pv-z9", "static-z9", ZONE, "z9"),
                  claim("c4", "static-z9")], using("p4", "c4"), True, id="volume-node-affinity-conflict"),
    pytest.param([storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"),
                  volume("local-n2", "local", "kubernetes.io/hostname", "n2"), claim("c5", "local")],
                 using("p5", "c5"), False, id="wait-for-first-consumer-local-pv"),
    pytest.param([storage_class("local-none", "kubernetes.io/no-provisioner", "WaitForFirstConsumer"),
                  claim("c6", "local-none")], using("p6", "c6"), False, id="no-pv-and-no-provisioner"),
    pytest.param([storage_class("topo", "topo.example.com", "WaitForFirstConsumer", allowedTopologies=[
        {"matchLabelExpressions": [{"key": ZONE, "values": ["z2"]}]}]), claim("c7", "topo")],
        using("p7", "c7", node_selector={ZONE: "z1"}), False, id="allowed-topologies-exclude-the-zone"),
    pytest.param([storage_class("cap", "cap.example.com", "WaitForFirstConsumer"),
                  {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "cap.example.com"},
                   "spec": {"storageCapacity": True, "attachRequired": False}},
                  {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                   "metadata": {"name": "cap-z1", "namespace": "default"}, "storageClassName": "cap",
                   "nodeTopology": {"matchLabels": {ZONE: "z1"}}, "capacity": "10Gi", "maximumVolumeSize": "2Gi"},
                  claim("c8", "cap", "5Gi")], using("p8", "c8"), False, id="not-enough-free-storage"),
]


def _outcome(api: KubeApi, name: str, created_claims: Collection[str] = ()) -> tuple[str, str] | None:
    """The real scheduler's decision about pod ``name``, or None while it has none. A "not found" about a claim
    the test created is no decision: the scheduler's informer had not heard of the claim yet (a race under load),
    and the claim's add event sends the pod back to be tried again."""
    found = get_pod(api, name) or {}
    node_name = found.get("spec", {}).get("nodeName")
    if node_name:
        return "bound", str(node_name)
    for condition in found.get("status", {}).get("conditions") or []:
        if condition["type"] == "PodScheduled" and condition.get("reason") == "Unschedulable":
            message = str(condition["message"])
            if any(f'persistentvolumeclaim "{claim}" not found' in message for claim in created_claims):
                return None
            return "unschedulable", message
    return None


def _wait(what: str, probe: Callable[[], Any], log: Path) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}:\n{log_tail(log, 30)}")


def _claim_bound(api: KubeApi, name: str) -> bool:
    try:
        found = api.get(f"/api/v1/namespaces/default/persistentvolumeclaims/{name}")
    except ApiError:
        return False
    return bool(found.get("status", {}).get("phase") == "Bound")


def _create(api: KubeApi, obj: Obj) -> None:
    kind = obj["kind"]
    if kind in ("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "Pod", "Node"):
        create(api, obj)
        return
    plural = {"CSIDriver": "csidrivers", "CSIStorageCapacity": "csistoragecapacities"}[kind]
    namespace = obj["metadata"].get("namespace")
    base = "/apis/storage.k8s.io/v1"
    api.request("POST", f"{base}/namespaces/{namespace}/{plural}" if namespace else f"{base}/{plural}", body=obj)


def _simulated(tmp_path: Path, objects: list[Obj], name: str) -> tuple[str, str]:
    manifest = tmp_path / "cluster.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    registry = PluginRegistry.discover()
    result = simulate(load([manifest]), load_config("default", registry), registry)
    mine = next(p for p in result.pods if p.name == name)
    return ("bound", mine.node or "") if mine.phase == "Bound" else ("unschedulable", mine.message)


@pytest.mark.parametrize(("storage", "pending", "bind_first"), CASES)
def test_simulate_decides_as_the_real_cluster(cluster: KubeApi, kube_control_plane: ControlPlane, tmp_path: Path,
                                              storage: list[Obj], pending: Obj, bind_first: bool) -> None:
    """The same node, or the same message, as kube-scheduler with kube-controller-manager's PV controller."""
    log = kube_control_plane.folder / "kube-scheduler.log"
    for obj in storage:
        _create(cluster, obj)
    claims = [str(o["metadata"]["name"]) for o in storage if o["kind"] == "PersistentVolumeClaim"] if bind_first else []
    for claim_name in claims:  # the PV controller binds them first, as the simulated one does at time 0
        _wait(f"claim {claim_name} to be bound", functools.partial(_claim_bound, cluster, claim_name),
              kube_control_plane.folder / "kube-controller-manager.log")
    name = pending["metadata"]["name"]
    _create(cluster, pending)
    created = [str(o["metadata"]["name"]) for o in storage if o["kind"] == "PersistentVolumeClaim"]
    real = _wait(f"kube-scheduler to decide about {name}", lambda: _outcome(cluster, name, created), log)
    assert _simulated(tmp_path, [*NODES, *storage, pending], name) == real

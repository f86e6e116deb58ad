"""`kubesched run` binds pods with PersistentVolumeClaims against a real API server: VolumeBinding's PreBind
pre-binds the PV (or annotates the claim with the selected node), then waits, bounded, for the cluster's own PV
controller (kube-controller-manager from KUBEBUILDER_ASSETS) to bind the claim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.rest import ApiError, KubeApi, Obj
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import create, get_pod, grant_deploy_role, kubesched_run, node, node_of, pod, wait_for

pytestmark = [pytest.mark.kube, pytest.mark.slow]

LOCAL = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
         "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}
NOBODY = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "nobody"},
          "provisioner": "nobody.example.com", "volumeBindingMode": "WaitForFirstConsumer"}


@pytest.fixture(scope="module")
def admin(kube_control_plane: ControlPlane) -> KubeApi:
    """An admin connection to a control plane with kube-controller-manager, two nodes and deploy/'s role bound to
    the user kubesched."""
    kube_control_plane.start_controller_manager()
    api = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(api)
    for name in ("n1", "n2"):
        create(api, node(name, labels={"kubernetes.io/hostname": name}))
    create(api, LOCAL)
    create(api, NOBODY)
    return api


def claim(name: str, storage_class: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "resources": {"requests": {"storage": "1Gi"}}}}


def local_volume(name: str, on_node: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                     "local": {"path": f"/mnt/{name}"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In", "values": [on_node]}]}]}}}}


def using(name: str, claim_name: str, scheduler: str | None = None) -> Obj:
    obj = pod(name, scheduler=scheduler)
    obj["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}]
    return obj


def read(api: KubeApi, path: str) -> dict[str, Any]:
    try:
        return api.get(path)
    except ApiError as error:
        if error.status == 404:
            return {}
        raise


def test_a_wait_for_first_consumer_claim_is_bound_to_its_static_pv(admin: KubeApi, kube_control_plane: ControlPlane,
                                                                   tmp_path: Path) -> None:
    """PreBind pre-binds the only PV that fits (on n2); the real PV controller binds the claim; the pod is bound to
    n2 once it has, and the claim and PV carry the PV controller's marks."""
    create(admin, local_volume("local-n2", "n2"))
    create(admin, claim("data", "local"))
    create(admin, using("web", "data"))
    with kubesched_run(kube_control_plane, tmp_path) as process:
        bound = wait_for("web to be bound", lambda: node_of(admin, "web"), timeout=60, log=process.log)
    assert bound == "n2"
    pvc = read(admin, "/api/v1/namespaces/default/persistentvolumeclaims/data")
    pv = read(admin, "/api/v1/persistentvolumes/local-n2")
    assert (pvc["spec"]["volumeName"], pvc["status"]["phase"]) == ("local-n2", "Bound")
    assert pvc["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    assert (pv["spec"]["claimRef"]["name"], pv["spec"]["claimRef"]["uid"], pv["status"]["phase"]) == \
        ("data", pvc["metadata"]["uid"], "Bound")


def test_a_claim_nothing_provisions_fails_pre_bind_after_the_bind_timeout(admin: KubeApi,
                                                                           kube_control_plane: ControlPlane,
                                                                           tmp_path: Path) -> None:
    """With nobody running the class's provisioner, PreBind annotates the claim with the selected node, waits
    bind-timeout-seconds, then fails with kube-scheduler's message; the pod stays pending."""
    profile = tmp_path / "short.toml"
    profile.write_text('[[profiles]]\nscheduler-name = "short-timeout"\n'
                       "[profiles.plugin-config.VolumeBinding]\nbind-timeout-seconds = 2\n", encoding="utf-8")
    create(admin, claim("scratch", "nobody"))
    create(admin, using("batch", "scratch", scheduler="short-timeout"))

    def failed() -> str:
        found = get_pod(admin, "batch") or {}
        for condition in found.get("status", {}).get("conditions") or []:
            if condition["type"] == "PodScheduled" and "PreBind" in condition.get("message", ""):
                return str(condition["message"])
        return ""

    with kubesched_run(kube_control_plane, tmp_path, "--profile", str(profile), name="short") as process:
        message = wait_for("PreBind to time out", failed, timeout=60, log=process.log)
    assert message == 'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded'
    pvc = read(admin, "/api/v1/namespaces/default/persistentvolumeclaims/scratch")
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] in ("n1", "n2")
    assert node_of(admin, "batch") == ""

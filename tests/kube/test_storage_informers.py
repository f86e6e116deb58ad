"""kubesched run's view of storage on a real API server: the informers' lists fill the storage store the volume
plugins read, and VolumeBinding's two writes (a claim's selected node, a PV's claimRef) go through, all under the
ClusterRole deploy/kubesched.yaml ships."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api.storage import SELECTED_NODE_ANNOTATION, ClaimRef, PersistentVolume, PersistentVolumeClaim
from kubesched.kube.cluster import KubeCluster
from kubesched.kube.informer import RESOURCES, Replace
from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import create, grant_deploy_role

pytestmark = [pytest.mark.kube, pytest.mark.slow]

STORAGE_KINDS = ("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
                 "CSIStorageCapacity")

OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
     "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
     "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
              "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
              "resources": {"requests": {"storage": "1Gi"}}}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
     "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25}}]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "ebs.csi.aws.com"},
     "spec": {"storageCapacity": True}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
     "metadata": {"name": "cap1", "namespace": "default"}, "storageClassName": "fast", "capacity": "100Gi"},
]


def _listed(api: KubeApi, kind: str) -> Replace:
    """What a reflector's list of ``kind`` hands the scheduling loop."""
    resource = next(r for r in RESOURCES if r.kind == kind)
    items = api.get(resource.path).get("items") or []
    return Replace(kind, [{**item, "kind": kind} for item in items])


@pytest.fixture(scope="module")
def kubesched_api(kube_control_plane: ControlPlane) -> KubeApi:
    """The storage objects created by the admin; a connection as user kubesched, bound to deploy/'s role."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    for obj in OBJECTS:
        create(admin, obj)
    return KubeApi.connect(str(kube_control_plane.kubeconfig("kubesched")))


def _cluster(api: KubeApi) -> KubeCluster:
    cluster = KubeCluster(api, None)
    for kind in STORAGE_KINDS:
        cluster.apply(_listed(api, kind))
    return cluster


def test_the_storage_informers_fill_the_store_the_plugins_read(kubesched_api: KubeApi) -> None:
    """Every storage kind is listed under the shipped role and decoded into the store."""
    store = _cluster(kubesched_api).storage
    claim = store.claim("default", "data")
    assert claim is not None
    assert claim.class_name == "fast"
    volume = store.volume("pv1")
    assert volume is not None
    assert (volume.driver, volume.handle) == ("ebs.csi.aws.com", "vol-1")
    storage_class = store.storage_class("fast")
    assert storage_class is not None
    assert storage_class.volume_binding_mode == "WaitForFirstConsumer"
    csi_node = store.csi_node("n1")
    assert csi_node is not None
    assert csi_node.drivers[0].allocatable_count == 25
    driver = store.csi_driver("ebs.csi.aws.com")
    assert driver is not None
    assert driver.storage_capacity
    assert [c.name for c in store.capacities()] == ["cap1"]


def test_volume_bindings_two_writes_reach_the_api_server(kubesched_api: KubeApi) -> None:
    """The selected-node annotation on a claim and a PV's claimRef, patched as VolumeBinding's PreBind does."""
    cluster = _cluster(kubesched_api)
    claim = cluster.storage.claim("default", "data")
    volume = cluster.storage.volume("pv1")
    assert isinstance(claim, PersistentVolumeClaim)
    assert isinstance(volume, PersistentVolume)
    annotations = {**claim.metadata.annotations, SELECTED_NODE_ANNOTATION: "n1"}
    cluster.update_claim(attrs.evolve(claim, metadata=attrs.evolve(claim.metadata, annotations=annotations)))
    cluster.update_volume(attrs.evolve(volume, claim_ref=ClaimRef("default", "data", claim.metadata.uid)))
    fresh = _cluster(kubesched_api).storage
    seen_claim = fresh.claim("default", "data")
    seen_volume = fresh.volume("pv1")
    assert seen_claim is not None
    assert seen_claim.metadata.annotations[SELECTED_NODE_ANNOTATION] == "n1"
    assert seen_volume is not None
    assert seen_volume.claim_ref == ClaimRef("default", "data", claim.metadata.uid)

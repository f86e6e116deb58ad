"""NodeVolumeLimits beyond kube's tables: in-tree volumes counted as the CSI volumes CSI migration makes of them, what
never counts, and the errors of translation. Rows marked "binary" are what the v1.32 kube-scheduler answered for the
same objects (tests/kube/test_fidelity_volumes.py replays them)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.api import Volume
from kubesched.framework import CycleState, Status
from kubesched.plugins.nodevolumelimits.translation import CSIVolume, TranslationError, translate_pv
from kubesched.testing import (
    like,
    make_csi_node,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
    plugin_framework,
)

NAME = "NodeVolumeLimits"
EXCEEDED = like(Status.unschedulable("node(s) exceed max volume count"))
SKIP = like(Status.skip())
FITS = like(None)
EBS, GCE, AZURE, PORTWORX = "ebs.csi.aws.com", "pd.csi.storage.gke.io", "disk.csi.azure.com", "pxd.portworx.com"
ZONE = "topology.kubernetes.io/zone"


def hook(framework: Any, name: str) -> Any:
    """The plugin's implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def inline(source: str, handle: str, kind: str = "") -> Volume:
    return Volume(name="v", source=source, handle=handle, disk_kind=kind)


def pod(*volumes: Volume, claims: tuple[str, ...] = ()) -> Any:
    builder = make_pod("pod")
    for i, volume in enumerate(volumes):
        builder.volume(attrs.evolve(volume, name=f"v{i}"))
    for claim in claims:
        builder.pvc(claim)
    return builder


def verdicts(new: Any, existing: list[Any], objects: list[Any]) -> tuple[Any, Any]:
    """(PreFilter's status, Filter's status on node n1 holding ``existing``; None after a Skip)."""
    pods = [p.obj().with_node_name("n1") for p in existing]
    pods = [attrs.evolve(p, metadata=attrs.evolve(p.metadata, name=f"e{i}", uid=f"e{i}")) for i, p in enumerate(pods)]
    framework = plugin_framework(NAME, nodes=[make_node("n1").capacity(**{"attachable-volumes-csi-" + EBS: 1})],
                                 pods=pods, storage=objects)
    (node_info,) = framework.handle.snapshot.list()
    state = CycleState()
    pre_filter = hook(framework, "pre_filter")(state, new.obj())
    if pre_filter is not None:
        return pre_filter, None
    return pre_filter, hook(framework, "filter")(state, new.obj(), node_info)


def limit(driver: str, count: int, *migrated: str) -> Any:
    return make_csi_node("n1").driver(driver, count).migrated(*migrated)


def pv(name: str, source: str, handle: str, labels: dict[str, str] | None = None, kind: str = "") -> list[Any]:
    """In-tree volume ``name`` and claim ``name`` bound to it."""
    volume = make_pv(name).source(source, handle).labels(labels or {}).obj()
    return [attrs.evolve(volume, disk_kind=kind), make_pvc(name).bound(name)]


def csi_pv(name: str, driver: str = EBS) -> list[Any]:
    """CSI volume ``name`` of ``driver`` and claim ``name`` bound to it."""
    return [make_pv(name).csi(driver), make_pvc(name).bound(name)]


AWS = "awsElasticBlockStore"
CASES = [
    pytest.param(pod(inline(AWS, "vol-2")), [pod(inline(AWS, "aws://us-east-1a/vol-1")), pod(inline(AWS, "vol-1"))],
                 [limit(EBS, 2)], FITS, FITS, id="binary: an aws:// volume ID and the bare one count once"),
    pytest.param(pod(inline(AWS, "vol-3")), [pod(inline(AWS, "aws://us-east-1a/vol-1")), pod(inline(AWS, "vol-2"))],
                 [limit(EBS, 2)], FITS, EXCEEDED, id="binary: a third EBS volume exceeds a count of 2"),
    pytest.param(pod(inline(AWS, "aws://x/y/vol-3")), [], [limit(EBS, 2)], FITS,
                 like(Status.as_error("converting volume(v0) from inline to csi: failed to translate Kubernetes ID to "
                                      "EBS Volume ID Invalid format for AWS volume (aws://x/y/vol-3)")),
                 id="binary: an EBS volume ID of another form is an Error"),
    pytest.param(pod(inline("azureDisk", "https://a.blob.core.windows.net/c/x.vhd", "Shared")), [],
                 [limit(AZURE, 1)], FITS,
                 like(Status.as_error("converting volume(v0) from inline to csi: kind(Shared) is not supported in csi "
                                      "migration")), id="binary: an inline azureDisk of kind Shared is an Error"),
    pytest.param(pod(inline("azureDisk", "https://a.blob.core.windows.net/c/x.vhd", "Shared")), [], [], FITS, FITS,
                 id="an inline azureDisk is not translated without a CSINode"),
    pytest.param(pod(inline("azureDisk", "/subscriptions/s/disks/b", "Managed")),
                 [pod(inline("azureDisk", "/subscriptions/s/disks/a", "Managed"))], [limit(AZURE, 1)], FITS, EXCEEDED,
                 id="managed azureDisks count against disk.csi.azure.com"),
    pytest.param(pod(inline("azureDisk", "/subscriptions/s/disks/b", "Managed")), [pod(claims=("az",))],
                 [limit(AZURE, 1), *pv("az", "azureDisk", "https://a.blob.core.windows.net/c/a.vhd", kind="Shared")],
                 FITS, FITS, id="an azureDisk volume of kind Shared does not count"),
    pytest.param(pod(claims=("px",)), [], [limit(PORTWORX, 0, "kubernetes.io/portworx-volume"),
                                          make_storage_class("px", "kubernetes.io/portworx-volume"),
                                          make_pvc("px").storage_class("px")],
                 FITS, EXCEEDED, id="binary: an unbound Portworx claim counts where the CSINode lists the plugin"),
    pytest.param(pod(claims=("px",)), [],
                 [limit(PORTWORX, 0), make_storage_class("px", "kubernetes.io/portworx-volume"),
                  make_pvc("px").storage_class("px")],
                 FITS, FITS, id="an unbound Portworx claim does not count where the CSINode does not list it"),
    pytest.param(pod(inline("portworxVolume", "px-1")), [], [limit(PORTWORX, 0, "kubernetes.io/portworx-volume")],
                 FITS, EXCEEDED, id="an inline Portworx volume counts where the CSINode lists the plugin"),
    pytest.param(pod(claims=("c",)), [], [limit("x.csi.io", 0), make_storage_class("xsc", "x.csi.io"),
                                         make_pvc("c").storage_class("xsc")],
                 FITS, EXCEEDED, id="binary: an unbound claim counts against its class's provisioner"),
    pytest.param(pod(Volume(name="v", source="csi", driver="x.csi.io")), [], [limit("x.csi.io", 0)], SKIP, None,
                 id="binary: an inline CSI volume never counts"),
    pytest.param(pod(claims=("a", "b")), [], [*csi_pv("a"), *csi_pv("b")], FITS, FITS,
                 id="binary: without a CSINode the node's allocatable attachable-volumes count is not read"),
    pytest.param(pod(inline("gcePersistentDisk", "pd-1")), [pod(claims=("g",))],
                 [limit(GCE, 1), *pv("g", "gcePersistentDisk", "pd-1", {ZONE: "us-central1-a"})], FITS, EXCEEDED,
                 id="a zonal GCE PD volume and the same disk inline count twice"),
    pytest.param(pod(inline("gcePersistentDisk", "pd-1")), [pod(claims=("g",))],
                 [limit(GCE, 1), *pv("g", "gcePersistentDisk", "pd-1")], FITS, FITS,
                 id="a GCE PD volume without a zone and the same disk inline count once"),
    pytest.param(pod(inline("cinder", "c-2")), [pod(inline("cinder", "c-1"))], [limit("cinder.csi.openstack.org", 1)],
                 FITS, EXCEEDED, id="cinder volumes count against cinder.csi.openstack.org"),
    pytest.param(pod(claims=(f"csi-{EBS}",)), [pod(claims=("gone",)), pod(inline(AWS, "vol-1"))],
                 [limit(EBS, 2), *csi_pv(f"csi-{EBS}")], FITS, FITS,
                 id="a missing claim of a pod on the node does not count"),
    pytest.param(pod(claims=(f"csi-{EBS}",)), [pod(inline("azureDisk", "https://a.blob.core.windows.net/c/x.vhd",
                                                         "Shared"))],
                 [limit(EBS, 2), *csi_pv(f"csi-{EBS}")], FITS,
                 like(Status.as_error("converting volume(v0) from inline to csi: kind(Shared) is not supported in csi "
                                      "migration")), id="an untranslatable volume of a pod on the node is an Error"),
]


@pytest.mark.parametrize(("new", "existing", "objects", "pre_filter", "want"), CASES)
def test_migrated_volumes(new: Any, existing: list[Any], objects: list[Any], pre_filter: Any, want: Any) -> None:
    """In-tree volumes count as the CSI volumes they migrated to, by the handle csi-translation-lib gives them."""
    assert verdicts(new, existing, objects) == (pre_filter, want)


@pytest.mark.parametrize(("labels", "want"), [
    pytest.param({}, CSIVolume(GCE, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd"), id="no-zone"),
    pytest.param({ZONE: "us-central1-a"}, CSIVolume(GCE, "projects/UNSPECIFIED/zones/us-central1-a/disks/pd"),
                 id="zonal"),
    pytest.param({"failure-domain.beta.kubernetes.io/zone": "us-central1-b", ZONE: "us-central1-a"},
                 CSIVolume(GCE, "projects/UNSPECIFIED/zones/us-central1-b/disks/pd"), id="beta-zone-first"),
    pytest.param({ZONE: "us-central1-a__us-central1-b"},
                 CSIVolume(GCE, "projects/UNSPECIFIED/regions/us-central1/disks/pd"), id="regional"),
])
def test_gce_volume_handles(labels: dict[str, str], want: CSIVolume) -> None:
    """A GCE PD volume's CSI handle names its zone, or its region when its zone label lists several."""
    assert translate_pv(make_pv("v").source("gcePersistentDisk", "pd").labels(labels).obj()) == want


@pytest.mark.parametrize("zones", [
    pytest.param("us-central1-a__europe-west1-b", id="two-regions"),
    pytest.param("us-central1-a__zone", id="malformed-zone"),
])
def test_gce_volume_across_regions_is_not_translated(zones: str) -> None:
    """Zones of several regions, or a zone not named locale-region-zone, make no regional handle."""
    with pytest.raises(TranslationError):
        translate_pv(make_pv("v").source("gcePersistentDisk", "pd").labels({ZONE: zones}).obj())

"""The simulated storage control loop: the PV controller's binding (kube's pv controller syncUnboundClaim and its
findBestMatchForClaim), the provisioners that run and where they put volumes, the ephemeral volume controller and
the storage garbage collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.storage import PersistentVolume, PersistentVolumeClaim
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.simulate import Simulation
from tests.sim.controllers.helpers import events, node, run

ZONE = "topology.kubernetes.io/zone"


def zoned(name: str, zone: str) -> str:
    return node(name, labels=f"{{{ZONE}: {zone}, kubernetes.io/hostname: {name}}}")


def storage_class(name: str, provisioner: str = "csi.example.com", mode: str = "Immediate",
                  extra: str = "") -> str:
    return (f"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\n"
            f"provisioner: {provisioner}\nvolumeBindingMode: {mode}\n{extra}---\n")


def pv(name: str, size: str = "5Gi", cls: str = "static", modes: str = "[ReadWriteOnce]", labels: str = "{}",
       zone: str | None = None, claim: str | None = None) -> str:
    affinity = (f"  nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: {ZONE}, "
                f"operator: In, values: [{zone}]}}]}}]}}}}\n") if zone else ""
    ref = f"  claimRef: {{namespace: default, name: {claim}}}\n" if claim else ""
    return (f"kind: PersistentVolume\nmetadata: {{name: {name}, labels: {labels}}}\nspec:\n"
            f"  capacity: {{storage: {size}}}\n  accessModes: {modes}\n  storageClassName: {cls}\n"
            f"  csi: {{driver: csi.example.com, volumeHandle: {name}}}\n{affinity}{ref}---\n")


def pvc(name: str, cls: str | None = "static", size: str = "1Gi", extra: str = "") -> str:
    class_line = f"  storageClassName: {cls}\n" if cls is not None else ""
    return (f"kind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: default}}\nspec:\n"
            f"  accessModes: [ReadWriteOnce]\n{class_line}  resources: {{requests: {{storage: {size}}}}}\n"
            f"{extra}---\n")


def pod(name: str, claim: str) -> str:
    return (f"kind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n"
            f"  containers: [{{name: c, image: nginx}}]\n"
            f"  volumes: [{{name: d, persistentVolumeClaim: {{claimName: {claim}}}}}]\n---\n")


CSI_DRIVER = "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: csi.example.com}\nspec: {}\n---\n"
STATIC = storage_class("static", "kubernetes.io/no-provisioner")


def claim_of(sim: Simulation, name: str) -> PersistentVolumeClaim:
    found = sim.cluster.storage.claim("default", name)
    assert found is not None
    return found


def volume_of(sim: Simulation, name: str) -> PersistentVolume:
    found = sim.cluster.storage.volume(name)
    assert found is not None
    return found


# -- the PV controller ------------------------------------------------------------------------------------------
def test_an_immediate_claim_is_bound_to_the_smallest_matching_pv(tmp_path: Path, registry: PluginRegistry) -> None:
    """The PV controller binds the claim to the smallest PV of its class holding the request, as kube does: the
    PV gets the claimRef and phase Bound, the claim the volume, phase Bound and its two annotations."""
    sim = run(tmp_path, STATIC + pv("big", "10Gi") + pv("small", "2Gi") + pv("tiny", "500Mi") + pvc("data"),
              registry)
    claim, volume = claim_of(sim, "data"), volume_of(sim, "small")
    assert (claim.volume_name, claim.phase) == ("small", "Bound")
    assert dict(claim.metadata.annotations) == {"pv.kubernetes.io/bind-completed": "yes",
                                                "pv.kubernetes.io/bound-by-controller": "yes"}
    assert volume.claim_ref is not None
    assert (volume.claim_ref.key, volume.claim_ref.uid, volume.phase) == ("default/data", claim.metadata.uid, "Bound")
    assert volume_of(sim, "big").claim_ref is None


@pytest.mark.parametrize(("volumes", "bound"), [
    pytest.param(pv("many-modes", "5Gi", modes="[ReadWriteOnce, ReadOnlyMany]") + pv("rwo", "10Gi"), "rwo",
                 id="the-fewest-access-modes-first"),
    pytest.param(pv("ssd", "10Gi", labels="{disk: ssd}") + pv("hdd", "5Gi", labels="{disk: hdd}"), "ssd",
                 id="the-claims-selector"),
    pytest.param(pv("other-class", "5Gi", cls="other") + pv("mine", "10Gi"), "mine", id="the-claims-class"),
])
def test_the_pv_controller_matches_as_kube_does(tmp_path: Path, registry: PluginRegistry, volumes: str,
                                                bound: str) -> None:
    """Access modes index the PVs (the smallest set of modes holding the claim's first), then class, selector and
    size decide."""
    selector = "  selector: {matchLabels: {disk: ssd}}\n" if "ssd" in volumes else ""
    sim = run(tmp_path, STATIC + volumes + pvc("data", extra=selector), registry)
    assert claim_of(sim, "data").volume_name == bound


def test_a_pre_bound_claim_is_bound_to_the_pv_it_names(tmp_path: Path, registry: PluginRegistry) -> None:
    """A claim naming its PV (spec.volumeName) gets it, even when a smaller one would match."""
    sim = run(tmp_path, STATIC + pv("small", "2Gi") + pv("chosen", "10Gi")
              + pvc("data", extra="  volumeName: chosen\n"), registry)
    assert (claim_of(sim, "data").volume_name, claim_of(sim, "data").phase) == ("chosen", "Bound")
    assert "pv.kubernetes.io/bound-by-controller" not in claim_of(sim, "data").metadata.annotations


def test_a_claim_naming_a_missing_pv_stays_pending(tmp_path: Path, registry: PluginRegistry) -> None:
    """A claim whose spec.volumeName names no PV waits, Pending; its pod cannot be scheduled."""
    sim = run(tmp_path, zoned("n1", "z1") + STATIC + pvc("data", extra="  volumeName: gone\n") + pod("web", "data"),
              registry)
    assert (claim_of(sim, "data").phase, claim_of(sim, "data").volume_name) == ("Pending", "gone")
    assert sim.result().pods[0].message.startswith(
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.")


@pytest.mark.parametrize(("volume", "extra", "problem"), [
    pytest.param(pv("named", "500Mi"), "", "requested PV is too small", id="too-small"),
    pytest.param(pv("named", cls="other"), "", "storageClassName does not match", id="another-class"),
    pytest.param(pv("named"), "  volumeMode: Block\n", "incompatible volumeMode", id="another-volume-mode"),
    pytest.param(pv("named", modes="[ReadWriteOncePod]"), "", "incompatible accessMode", id="other-access-modes"),
])
def test_a_claim_naming_a_pv_that_does_not_fit_it_stays_pending(tmp_path: Path, registry: PluginRegistry,
                                                                volume: str, extra: str, problem: str) -> None:
    """A claim naming a free PV that does not satisfy it (checkVolumeSatisfyClaim) is not bound: VolumeMismatch,
    as kube-controller-manager v1.32 reports it (seen in tests/kube/test_fidelity_storage_random.py)."""
    sim = run(tmp_path, STATIC + volume + pvc("data", extra=f"  volumeName: named\n{extra}"), registry)
    assert (claim_of(sim, "data").phase, volume_of(sim, "named").claim_ref) == ("Pending", None)
    assert [(e.type, e.message) for e in events(sim, "VolumeMismatch")] == [
        ("Warning", f'Cannot bind to requested volume "named": {problem}')]


def test_claims_are_synced_in_their_order_not_their_pvs(tmp_path: Path, registry: PluginRegistry) -> None:
    """A PV pre-bound to a claim not created yet queues nothing: the claims are synced in their own order, so the
    first claim, naming a PV of another class, is refused it (VolumeMismatch) before the second claim (too big for
    the PV pre-bound to it) takes that PV, as kube-controller-manager did (the random storage fidelity test)."""
    sim = run(tmp_path, STATIC + pv("big", "10Gi") + pv("small", "1Gi", claim="second")
              + pvc("first", "other", extra="  volumeName: big\n") + pvc("second", size="3Gi"), registry)
    assert (claim_of(sim, "first").phase, claim_of(sim, "second").volume_name) == ("Pending", "big")
    assert [(e.name, e.reason) for e in sim.cluster.events if e.kind == "PersistentVolumeClaim"] == [
        ("first", "VolumeMismatch")]


def test_a_pv_bound_to_another_claim_is_refused(tmp_path: Path, registry: PluginRegistry) -> None:
    """A claim naming a PV whose claimRef names another claim: FailedBinding, as the PV controller reports it."""
    sim = run(tmp_path, STATIC + pv("taken", claim="other") + pvc("data", extra="  volumeName: taken\n"), registry)
    assert [e.message for e in events(sim, "FailedBinding")] == ['volume "taken" already bound to a different claim.']


def test_a_wait_for_first_consumer_claim_waits_for_its_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """A WaitForFirstConsumer claim is not bound by the PV controller alone: it waits for the scheduler."""
    sim = run(tmp_path, storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")
              + pv("local-1", cls="local") + pvc("data", "local"), registry)
    assert claim_of(sim, "data").phase == "Pending"
    assert [e.message for e in events(sim, "WaitForFirstConsumer")] == [
        "waiting for first consumer to be created before binding"]


LOCAL = storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer")


@pytest.mark.parametrize(("objects", "reason", "message"), [
    pytest.param(pvc("data", "local"), "WaitForFirstConsumer",
                 "waiting for first consumer to be created before binding", id="no-pod-uses-it"),
    pytest.param(pvc("data", "local") + pod("web", "data"), "WaitForPodScheduled",
                 "waiting for pod web to be scheduled", id="one-unscheduled-pod"),
    pytest.param(pvc("data", "local") + pod("b", "data") + pod("a", "data"), "WaitForPodScheduled",
                 "waiting for pods a,b to be scheduled", id="several-unscheduled-pods"),
])
def test_a_waiting_claim_names_its_unscheduled_pods(tmp_path: Path, registry: PluginRegistry, objects: str,
                                                    reason: str, message: str) -> None:
    """emitEventForUnboundDelayBindingClaim: a WaitForFirstConsumer claim that pods not yet scheduled use (no node
    here) waits for them by name (WaitForPodScheduled), as kube's PV controller says; else for a first consumer."""
    sim = run(tmp_path, LOCAL + pv("local-1", cls="local") + objects, registry)
    assert [(e.kind, e.name, e.reason, e.message) for e in sim.cluster.events if e.kind == "PersistentVolumeClaim"] \
        == [("PersistentVolumeClaim", "data", reason, message)]


def test_a_wait_for_first_consumer_claim_is_bound_through_its_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """The scheduler pre-binds the PV in PreBind; the PV controller completes the binding; the pod binds at the
    scheduler's next poll, one second later."""
    sim = run(tmp_path, zoned("n1", "z1") + zoned("n2", "z2") + storage_class(
        "local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer") + pv("local-z2", cls="local", zone="z2")
        + pvc("data", "local") + pod("web", "data"), registry)
    assert claim_of(sim, "data").volume_name == "local-z2"
    assert [(e.time, e.message) for e in events(sim, "Scheduled")] == [
        (1.0, "Successfully assigned default/web to n2")]


def test_a_claim_without_a_class_gets_the_default_class(tmp_path: Path, registry: PluginRegistry) -> None:
    """The PV controller gives an unbound claim without storageClassName the default class (retroactively)."""
    default = storage_class("standard", "kubernetes.io/no-provisioner").replace(
        "metadata: {name: standard}", "metadata: {name: standard, annotations: "
                                      "{storageclass.kubernetes.io/is-default-class: 'true'}}")
    sim = run(tmp_path, default + pv("pv-1", cls="standard") + pvc("data", None), registry)
    assert (claim_of(sim, "data").spec.storage_class_name, claim_of(sim, "data").volume_name) == ("standard", "pv-1")


def test_a_bound_claim_whose_pv_is_missing_is_left_as_it_is(tmp_path: Path, registry: PluginRegistry) -> None:
    """The input's bound claim stays Bound without its PV (kube-controller-manager would mark it Lost); its pod is
    told the PV does not exist, in VolumeZone's PreFilter words, as the real scheduler told the issue's StatefulSet."""
    bound = pvc("data", extra="  volumeName: pvc-1234\n").replace(
        "metadata: {name: data, namespace: default}",
        "metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: 'yes'}}")
    sim = run(tmp_path, zoned("n1", "z1") + STATIC + bound + pod("web", "data"), registry)
    assert claim_of(sim, "data").phase == "Pending"  # as the input wrote it (no status)
    assert sim.result().pods[0].message.startswith('0/1 nodes are available: persistentvolume "pvc-1234" not found.')


# -- provisioning -----------------------------------------------------------------------------------------------
def test_a_provisioner_not_shown_running_does_not_provision(tmp_path: Path, registry: PluginRegistry) -> None:
    """Without a CSIDriver, CSINode driver or PV of the provisioner, nothing provisions: the claim waits, with the
    PV controller's ExternalProvisioning event, as in a cluster without that provisioner."""
    sim = run(tmp_path, zoned("n1", "z1") + storage_class("fast") + pvc("data", "fast"), registry)
    claim = claim_of(sim, "data")
    assert (claim.phase, claim.metadata.annotations["volume.kubernetes.io/storage-provisioner"]) == \
        ("Pending", "csi.example.com")
    assert [e.reason for e in events(sim, "ExternalProvisioning")] == ["ExternalProvisioning"]
    assert list(sim.cluster.storage.volumes()) == []


@pytest.mark.parametrize(("provisioner", "reason", "message"), [
    pytest.param("kubernetes.io/no-provisioner", "ProvisioningFailed",
                 "no volume plugin matched name: kubernetes.io/no-provisioner", id="in-tree-name-without-a-plugin"),
    pytest.param("kubernetes.io/aws-ebs", "ExternalProvisioning",
                 "Waiting for a volume to be created either by the external provisioner 'kubernetes.io/aws-ebs' or "
                 "manually by the system administrator. If volume creation is delayed, please verify that the "
                 "provisioner is running and correctly registered.", id="in-tree-name-migrated-to-csi"),
])
def test_an_in_tree_provisioner_name_is_looked_up_among_the_plugins(tmp_path: Path, registry: PluginRegistry,
                                                                    provisioner: str, reason: str,
                                                                    message: str) -> None:
    """A kubernetes.io/ provisioner not migrated to CSI is an in-tree plugin the v1.32 PV controller does not have:
    ProvisioningFailed and no provisioner annotation (seen on kube-controller-manager); a migrated one is left to
    its CSI driver, as an external provisioner."""
    sim = run(tmp_path, storage_class("fast", provisioner) + pvc("data", "fast"), registry)
    annotated = claim_of(sim, "data").metadata.annotations.get("volume.kubernetes.io/storage-provisioner")
    assert (annotated, [(e.reason, e.message) for e in sim.cluster.events]) == (
        provisioner if reason == "ExternalProvisioning" else None, [(reason, message)])


@pytest.mark.parametrize(("extra", "settings"), [
    pytest.param(CSI_DRIVER, None, id="csidriver-in-the-input"),
    pytest.param("", StorageSettings(provisioners=("csi.example.com",)), id="named"),
    pytest.param("", StorageSettings(provisioners=("*",)), id="every-provisioner"),
])
def test_a_running_provisioner_provisions_after_the_delay(tmp_path: Path, registry: PluginRegistry, extra: str,
                                                          settings: StorageSettings | None) -> None:
    """A provisioner that runs creates pvc-<claim uid> after the provisioning delay (5 s by default), with the
    claim's size and modes, pre-bound to it; the PV controller then binds the claim."""
    sim = run(tmp_path, zoned("n1", "z1") + storage_class("fast") + extra + pvc("data", "fast", "3Gi"), registry,
              storage=settings)
    claim = claim_of(sim, "data")
    volume = volume_of(sim, claim.volume_name)
    assert (volume.name, str(volume.capacity), volume.access_modes, volume.storage_class_name) == \
        (f"pvc-{claim.metadata.uid}", "3Gi", ("ReadWriteOnce",), "fast")
    assert volume.metadata.annotations["pv.kubernetes.io/provisioned-by"] == "csi.example.com"
    assert [e.time for e in events(sim, "ProvisioningSucceeded")] == [5.0]


def test_a_provisioner_refuses_a_claim_with_a_selector(tmp_path: Path, registry: PluginRegistry) -> None:
    """A CSI external-provisioner does not provision a claim with a label selector: ProvisioningFailed, and the
    claim stays pending (the real one's answer is final: ProvisioningFinished)."""
    sim = run(tmp_path, zoned("n1", "z1") + storage_class("fast") + CSI_DRIVER
              + pvc("data", "fast", extra="  selector: {matchLabels: {disk: ssd}}\n"), registry)
    assert claim_of(sim, "data").phase == "Pending"
    assert list(sim.cluster.storage.volumes()) == []
    assert [(e.type, e.message) for e in events(sim, "ProvisioningFailed")] == [
        ("Warning", 'failed to provision volume with StorageClass "fast": claim Selector is not supported')]


def test_the_provisioning_delay_is_a_setting(tmp_path: Path, registry: PluginRegistry) -> None:
    """provisioning_delay sets when the PV appears."""
    sim = run(tmp_path, storage_class("fast") + CSI_DRIVER + pvc("data", "fast"), registry,
              storage=StorageSettings(provisioning_delay=42.0))
    assert [e.time for e in events(sim, "ProvisioningSucceeded")] == [42.0]


def _zone_of(volume: PersistentVolume) -> str:
    assert volume.node_affinity is not None
    (term,) = volume.node_affinity.node_selector_terms
    (requirement,) = term.match_expressions
    assert requirement.key == ZONE
    (value,) = requirement.values
    return value


def test_an_immediate_volume_goes_to_a_seeded_zone_of_the_nodes(tmp_path: Path, registry: PluginRegistry) -> None:
    """Without allowedTopologies, an Immediate volume lands in one of the nodes' zones, picked with the run's seed:
    the same seed picks the same zone, and the seeds between them pick every zone."""
    text = zoned("n1", "z1") + zoned("n2", "z2") + zoned("n3", "z3") + storage_class("fast") + CSI_DRIVER \
        + pvc("data", "fast")
    zones = {}
    for seed in range(12):
        sim = run(tmp_path, text, registry, seed=seed)
        zones[seed] = _zone_of(volume_of(sim, claim_of(sim, "data").volume_name))
    again = run(tmp_path, text, registry, seed=3)
    assert _zone_of(volume_of(again, claim_of(again, "data").volume_name)) == zones[3]
    assert set(zones.values()) == {"z1", "z2", "z3"}


def test_an_immediate_volume_goes_where_allowed_topologies_say(tmp_path: Path, registry: PluginRegistry) -> None:
    """allowedTopologies limits where an Immediate volume goes, whatever the seed."""
    text = zoned("n1", "z1") + zoned("n2", "z2") + storage_class(
        "fast", extra=f"allowedTopologies: [{{matchLabelExpressions: [{{key: {ZONE}, values: [z2]}}]}}]\n") \
        + CSI_DRIVER + pvc("data", "fast")
    for seed in range(5):
        sim = run(tmp_path, text, registry, seed=seed)
        assert _zone_of(volume_of(sim, claim_of(sim, "data").volume_name)) == "z2"


def test_a_wait_for_first_consumer_volume_goes_to_the_selected_node_zone(tmp_path: Path,
                                                                           registry: PluginRegistry) -> None:
    """The scheduler picks the node; the volume is provisioned in its zone and the pod binds once it is bound."""
    sim = run(tmp_path, zoned("n1", "z1") + zoned("n2", "z2") + storage_class("fast", mode="WaitForFirstConsumer")
              + CSI_DRIVER + pvc("data", "fast") + pod("web", "data"), registry)
    (result,) = sim.result().pods
    claim = claim_of(sim, "data")
    assert claim.metadata.annotations["volume.kubernetes.io/selected-node"] == result.node
    assert _zone_of(volume_of(sim, claim.volume_name)) == {"n1": "z1", "n2": "z2"}[str(result.node)]
    assert [e.time for e in events(sim, "Scheduled")] == [5.0]


def test_csi_node_topology_keys_place_the_volume(tmp_path: Path, registry: PluginRegistry) -> None:
    """When the node's CSINode lists the driver with topology keys, the volume's node affinity uses them."""
    csi_node = ("apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\nspec:\n  drivers: "
                "[{name: csi.example.com, nodeID: n1, topologyKeys: [topology.example.com/rack]}]\n---\n")
    rack = node("n1", labels="{topology.example.com/rack: r7}")
    sim = run(tmp_path, rack + csi_node + storage_class("fast", mode="WaitForFirstConsumer") + pvc("data", "fast")
              + pod("web", "data"), registry)
    volume = volume_of(sim, claim_of(sim, "data").volume_name)
    assert volume.node_affinity is not None
    (term,) = volume.node_affinity.node_selector_terms
    assert [(r.key, r.values) for r in term.match_expressions] == [("topology.example.com/rack", ("r7",))]


def test_a_pod_waits_in_pre_bind_while_its_volume_is_provisioned(tmp_path: Path, registry: PluginRegistry) -> None:
    """Stopped before the provisioner is done, the pod is pending and says what it waits for."""
    sim = run(tmp_path, zoned("n1", "z1") + storage_class("fast", mode="WaitForFirstConsumer") + CSI_DRIVER
              + pvc("data", "fast") + pod("web", "data"), registry, until=3.0)
    (result,) = sim.result().pods
    assert (result.phase, result.message) == (
        "Pending", 'waiting in PreBind ("VolumeBinding" polls every second): waiting for the PV controller to bind '
                   "default/data")


# -- the ephemeral volume controller and garbage collection ------------------------------------------------------
EPHEMERAL_POD = ("kind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers: [{name: c}]\n"
                 "  terminationGracePeriodSeconds: 0\n"
                 "  volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
                 "resources: {requests: {storage: 1Gi}}}}}}]\n---\n")


def test_an_ephemeral_volume_gets_a_claim_owned_by_its_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """The pod's <pod>-<volume> claim is created from the template, with the default class, controlled by the pod;
    the pod binds once it is bound."""
    default = storage_class("standard", mode="WaitForFirstConsumer").replace(
        "metadata: {name: standard}", "metadata: {name: standard, annotations: "
                                      "{storageclass.kubernetes.io/is-default-class: 'true'}}")
    sim = run(tmp_path, zoned("n1", "z1") + default + CSI_DRIVER + EPHEMERAL_POD, registry)
    claim = claim_of(sim, "web-scratch")
    (owner,) = claim.metadata.owner_references
    web = sim.cluster.get_pod("default", "web")
    assert web is not None
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("Pod", "web", web.uid, True)
    assert (claim.spec.storage_class_name, claim.phase, web.spec.node_name) == ("standard", "Bound", "n1")


def test_an_ephemeral_claim_carries_its_templates_labels(tmp_path: Path, registry: PluginRegistry) -> None:
    """The claim has the labels of the volume template's metadata, as the ephemeral volume controller copies them."""
    labelled = EPHEMERAL_POD.replace("volumeClaimTemplate: {spec:", "volumeClaimTemplate: {metadata: {labels: "
                                                                     "{tier: scratch}}, spec:")
    sim = run(tmp_path, STATIC + labelled.replace("resources:", "storageClassName: static, resources:"), registry)
    assert dict(claim_of(sim, "web-scratch").metadata.labels) == {"tier": "scratch"}


def test_a_pods_ephemeral_claim_goes_with_it(tmp_path: Path, registry: PluginRegistry) -> None:
    """Deleting the pod deletes its claim, and the claim's provisioned PV (reclaim policy Delete)."""
    sim = run(tmp_path, zoned("n1", "z1") + storage_class("standard", mode="WaitForFirstConsumer") + CSI_DRIVER
              + EPHEMERAL_POD.replace("resources:", "storageClassName: standard, resources:"), registry)
    web = sim.cluster.get_pod("default", "web")
    assert web is not None
    sim.cluster.delete_pod(web)
    sim.settle()
    assert (list(sim.cluster.storage.claims()), list(sim.cluster.storage.volumes())) == ([], [])


def test_a_deleted_claims_static_pv_is_released(tmp_path: Path, registry: PluginRegistry) -> None:
    """A static PV is kept when its claim goes (reclaim policy Retain): phase Released, claimRef kept."""
    sim = run(tmp_path, STATIC + pv("pv-1") + pvc("data"), registry)
    sim.cluster.storage.delete(claim_of(sim, "data"))
    sim.settle()
    volume = volume_of(sim, "pv-1")
    assert (volume.phase, volume.claim_ref is not None) == ("Released", True)

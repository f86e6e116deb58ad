"""A StatefulSet's volumeClaimTemplates: claims ``<template>-<set>-<ordinal>`` created before each pod, used by its
volumes, and kept (v1.32's default retention policy, Retain/Retain) when pods are re-created or the set scales
down."""

from __future__ import annotations

from pathlib import Path

from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.controllers.statefulset import StatefulSetController
from tests.sim.controllers.helpers import events, live, node, run

CLASS = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: csi.example.com\n"
         "volumeBindingMode: WaitForFirstConsumer\n---\n")
SET = """kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, resources: {requests: {cpu: 100m}}}]
      volumes: [{name: data, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data, labels: {tier: storage}}
    spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 2Gi}}}
  - metadata: {name: logs}
    spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
"""
RUNNING = StorageSettings(provisioners=("*",))


def test_each_pod_gets_its_claims_named_by_template_set_and_ordinal(tmp_path: Path,
                                                                    registry: PluginRegistry) -> None:
    """data-db-0, logs-db-0, data-db-1, logs-db-1: the template's spec, its labels plus the set's selector, and no
    owner (Retain/Retain)."""
    sim = run(tmp_path, node("n1") + CLASS + SET, registry, storage=RUNNING)
    claims = sorted(sim.cluster.storage.claims(), key=lambda c: c.name)
    assert [c.name for c in claims] == ["data-db-0", "data-db-1", "logs-db-0", "logs-db-1"]
    data = claims[0]
    assert (dict(data.metadata.labels), str(data.spec.storage), data.metadata.owner_references) == \
        ({"tier": "storage", "app": "db"}, "2Gi", ())
    assert all(c.phase == "Bound" for c in claims)


def test_the_claims_are_created_before_their_pod_with_kubes_event(tmp_path: Path, registry: PluginRegistry) -> None:
    """The controller's SuccessfulCreate events: each claim, then its pod."""
    sim = run(tmp_path, node("n1") + CLASS + SET, registry, storage=RUNNING)
    messages = [e.message for e in events(sim, "SuccessfulCreate")]
    assert messages[:3] == ["create Claim data-db-0 Pod db-0 in StatefulSet db success",
                            "create Claim logs-db-0 Pod db-0 in StatefulSet db success",
                            "create Pod db-0 in StatefulSet db successful"]


def test_the_pv_controller_sees_the_claims_before_their_pod(tmp_path: Path, registry: PluginRegistry) -> None:
    """The pod comes in a sync of its own after its claims (kube's controller creates it by a later request), so
    each claim first waits for a first consumer, as kube-controller-manager's PV controller usually records, not
    for the pod by name; at the same virtual time."""
    sim = run(tmp_path, node("n1") + CLASS + SET, registry, storage=RUNNING)
    waits = [(e.time, e.name, e.reason) for e in sim.cluster.events if e.reason.startswith("WaitFor")]
    assert waits[:2] == [(0.0, "data-db-0", "WaitForFirstConsumer"), (0.0, "logs-db-0", "WaitForFirstConsumer")]
    assert [e.time for e in events(sim, "SuccessfulCreate")][:3] == [0.0, 0.0, 0.0]


def test_the_pods_volumes_use_the_claims(tmp_path: Path, registry: PluginRegistry) -> None:
    """A volume per template, named as it, using the pod's claim; it replaces the template's volume of that name."""
    sim = run(tmp_path, node("n1") + CLASS + SET, registry, storage=RUNNING)
    pod = live(sim)[0]
    assert [(v.name, v.source, v.claim_name) for v in pod.spec.volumes] == [
        ("data", "persistentVolumeClaim", "data-db-0"), ("logs", "persistentVolumeClaim", "logs-db-0")]


def test_a_re_created_pod_finds_its_claims(tmp_path: Path, registry: PluginRegistry) -> None:
    """A deleted pod's replacement uses the same claims (none is created again) and lands where its volume is."""
    zones = (node("n1", labels="{topology.kubernetes.io/zone: z1}")
             + node("n2", labels="{topology.kubernetes.io/zone: z2}"))
    sim = run(tmp_path, zones + CLASS + SET, registry, storage=RUNNING)
    first = {p.name: p.spec.node_name for p in live(sim)}
    db0 = sim.cluster.get_pod("default", "db-0")
    assert db0 is not None
    sim.cluster.delete_pod(db0)
    sim.settle()
    assert len(list(sim.cluster.storage.claims())) == 4
    assert sum(1 for e in events(sim, "SuccessfulCreate") if e.message.startswith("create Claim")) == 4
    assert {p.name: p.spec.node_name for p in live(sim)} == first


def test_scaling_down_keeps_the_claims(tmp_path: Path, registry: PluginRegistry) -> None:
    """Scaled to 1, db-1 goes but its claims stay bound."""
    sim = run(tmp_path, node("n1") + CLASS + SET, registry, storage=RUNNING)
    assert sim.manager is not None
    controller = sim.manager.get("StatefulSet", "default", "db")
    assert isinstance(controller, StatefulSetController)
    controller.scale(1)
    sim.settle()
    assert [p.name for p in live(sim)] == ["db-0"]
    assert sorted(c.name for c in sim.cluster.storage.claims() if c.phase == "Bound") == [
        "data-db-0", "data-db-1", "logs-db-0", "logs-db-1"]

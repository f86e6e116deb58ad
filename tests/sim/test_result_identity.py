"""Specification of how the result identifies pods: each pod record's ``uid`` and ``owner``, and the uids in
events and preemptions, deterministic for one input and seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.api.meta import OwnerReference
from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.sim.controllers.helpers import live, node, run

REPLICA_SET = """kind: ReplicaSet
apiVersion: apps/v1
metadata: {name: web-7d9f8}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
"""

STATEFUL_SET = """kind: StatefulSet
apiVersion: apps/v1
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
"""


def document(result: SimulationResult) -> Any:
    """The result's JSON document, as ``-o json`` prints it."""
    return json.loads(json.dumps(result.to_json()))


def owned_pod(refs: tuple[OwnerReference, ...]) -> Pod:
    """Pod ``p`` (uid ``p-1``) with these ownerReferences."""
    pod = make_pod("p").uid("p-1").req(cpu="100m").obj()
    return attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, owner_references=refs))


@pytest.mark.parametrize(("refs", "owner"), [
    pytest.param((), None, id="no-owner"),
    pytest.param((OwnerReference("apps/v1", "ReplicaSet", "web-7d9f8", "rs-uid", controller=True),),
                 {"kind": "ReplicaSet", "name": "web-7d9f8"}, id="controller"),
    pytest.param((OwnerReference("v1", "ConfigMap", "holder", "cm-uid"),
                  OwnerReference("apps/v1", "StatefulSet", "db", "sts-uid", controller=True)),
                 {"kind": "StatefulSet", "name": "db"}, id="the-controller-among-owners"),
    pytest.param((OwnerReference("v1", "ConfigMap", "holder", "cm-uid"),), None, id="owners-but-no-controller"),
])
def test_input_pod_record_has_its_uid_and_controller(refs: tuple[OwnerReference, ...], owner: object,
                                                     registry: PluginRegistry) -> None:
    """``uid`` is the manifest's; ``owner`` is the ownerReference with controller: true, or null."""
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(owned_pod(refs),))
    (record,) = document(simulate(cluster, load_config("default", registry), registry))["pods"]
    assert (record["uid"], record["owner"]) == ("p-1", owner)


def test_controller_pods_name_their_controller(tmp_path: Path, registry: PluginRegistry) -> None:
    """A ReplicaSet's pods are owned by it, each with its own uid, the one the pod carries in the cluster."""
    sim = run(tmp_path, node("n1") + REPLICA_SET, registry)
    records = document(sim.result())["pods"]
    assert [r["owner"] for r in records] == [{"kind": "ReplicaSet", "name": "web-7d9f8"}] * 2
    assert sorted(r["uid"] for r in records) == sorted(p.uid for p in live(sim))


def test_controller_pod_uids_repeat_with_the_seed(tmp_path: Path, registry: PluginRegistry) -> None:
    """Two runs with one seed give the same uids; another seed, others."""
    def uids(seed: int) -> list[str]:
        return [p.uid for p in run(tmp_path, node("n1") + REPLICA_SET, registry, seed=seed).result().pods]

    assert uids(3) == uids(3)
    assert uids(3) != uids(4)


def test_a_recreated_stateful_pod_appears_twice_told_apart_by_uid(tmp_path: Path, registry: PluginRegistry) -> None:
    """db-1 deleted and created again: two records named db-1, with different uids, the same owner."""
    sim = run(tmp_path, node("n1") + STATEFUL_SET, registry)
    sim.cluster.delete_pod(next(p for p in live(sim) if p.name == "db-1"))
    sim.settle()
    records = [r for r in document(sim.result())["pods"] if r["name"] == "db-1"]
    assert len(records) == 2
    assert records[0]["uid"] != records[1]["uid"]
    assert records[0]["owner"] == records[1]["owner"] == {"kind": "StatefulSet", "name": "db"}


def test_events_name_their_object_by_uid(tmp_path: Path, registry: PluginRegistry) -> None:
    """A pod's events carry the pod's uid, a controller's events its controller's uid."""
    sim = run(tmp_path, node("n1") + REPLICA_SET, registry)
    uid_of = {p.key: p.uid for p in live(sim)}
    controller = sim.manager.get("ReplicaSet", "default", "web-7d9f8") if sim.manager else None
    assert controller is not None
    regarding = {(e["regarding"]["kind"], e["object"]): e["regarding"]["uid"]
                 for e in document(sim.result())["events"]}
    assert regarding == {("ReplicaSet", "default/web-7d9f8"): controller.metadata.uid,
                         **{("Pod", key): uid for key, uid in uid_of.items()}}

"""The cases of tests/kube/test_controllers_fidelity.py: workloads and the steps done to them (create, apply a new
template, scale, drain), fed alike to the real control plane and to a ``kubesched simulate`` scenario.

Each case has its own namespace (its name) and nodes (``<case>-<node>``, labelled ``kubesched.io/case: <case>``);
every pod template is given a nodeSelector on that label, on both sides, so a case's pods never land on another
case's nodes.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]
#: The label that keeps a case's pods on its nodes.
CASE_LABEL = "kubesched.io/case"
PAUSE = "registry.k8s.io/pause:3.10"
#: Kinds without a namespace, besides Node.
CLUSTER_SCOPED = frozenset({"PersistentVolume", "StorageClass"})
#: The image a rollout moves to.
PAUSE_NEXT = "registry.k8s.io/pause:3.11"


@dataclass(frozen=True)
class Step:
    """One step: ``create`` or ``apply`` objects, ``scale`` a workload, ``delete`` a pod (its controller re-creates
    it), ``drain`` a node (cordon, then evict through the eviction API, retrying what a PodDisruptionBudget
    refuses, as ``kubectl drain`` does)."""

    action: str
    objects: tuple[Obj, ...] = ()
    kind: str = ""
    name: str = ""
    replicas: int = 0


@dataclass(frozen=True)
class Case:
    """Steps, and what the comparison may rely on: ``exact_nodes`` when each pod's node is deterministic (else
    only how many pods each node holds, sorted, is compared); ``ordered`` the kinds whose events must come in
    the same order (a StatefulSet's OrderedReady creations and deletions, a Deployment's scaling steps where they
    do not depend on when pods become ready)."""

    name: str
    steps: tuple[Step, ...]
    exact_nodes: bool = False
    ordered: tuple[str, ...] = ()
    #: The differences docs/fidelity.md lists: state key -> (kube's value, or None where it varies from run to run,
    #: kubesched's value).
    differences: dict[str, tuple[object, object]] = field(default_factory=dict)
    #: The scenario's spec.settings beyond jobDuration (the provisioners that run, for a case whose provisioner
    #: the real side plays).
    settings: dict[str, object] = field(default_factory=dict)

    def node(self, short: str) -> str:
        """A node's full name in this case."""
        return f"{self.name}-{short}"

    def prepared(self, obj: Obj) -> Obj:
        """``obj`` as both sides get it: in the case's namespace (or, a node, named and labelled for the case; a
        PersistentVolume or StorageClass, cluster-wide, as written: the case names them ``<case>-...``), a pod or
        its template selecting the case's nodes."""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        if obj["kind"] == "Node":
            meta["name"] = self.node(meta["name"])
            meta.setdefault("labels", {})[CASE_LABEL] = self.name
            meta["labels"]["kubernetes.io/hostname"] = meta["name"]
            return obj
        if obj["kind"] in CLUSTER_SCOPED:
            return obj
        meta["namespace"] = self.name
        spec = obj.get("spec", {})
        template = obj if obj["kind"] == "Pod" else spec.get("jobTemplate", {}).get("spec", spec).get("template")
        if template is not None:
            template["spec"].setdefault("nodeSelector", {})[CASE_LABEL] = self.name
        return obj


def node(name: str, cpu: str = "4", *, labels: dict[str, str] | None = None, taints: list[Obj] | None = None,
         unschedulable: bool = False) -> Obj:
    """A Node with that capacity (allocatable defaults to it)."""
    spec: Obj = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": spec, "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def template(app: str, cpu: str = "100m", *, image: str = PAUSE, env: str = "", **spec: Any) -> Obj:
    """A pod template labelled ``app``, one container of ``image`` requesting ``cpu`` (and an environment variable
    ``VERSION=env`` when given)."""
    container: Obj = {"name": "c", "image": image, "resources": {"requests": {"cpu": cpu}}}
    if env:
        container["env"] = [{"name": "VERSION", "value": env}]
    return {"metadata": {"labels": {"app": app}},
            "spec": {"terminationGracePeriodSeconds": 0, "containers": [container], **spec}}


def workload(kind: str, name: str, spec: Obj) -> Obj:
    """A workload of ``kind`` (its apiVersion known) named ``name``."""
    api = {"ReplicationController": "v1", "Job": "batch/v1", "PodDisruptionBudget": "policy/v1"}.get(kind, "apps/v1")
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name}, "spec": spec}


def deployment(name: str, replicas: int, *, image: str = PAUSE, env: str = "", strategy: Obj | None = None) -> Obj:
    """A Deployment of ``replicas`` pods labelled ``app: name``."""
    spec: Obj = {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": template(name, image=image, env=env)}
    if strategy is not None:
        spec["strategy"] = strategy
    return workload("Deployment", name, spec)


def statefulset(name: str, replicas: int, policy: str) -> Obj:
    """A StatefulSet with that podManagementPolicy."""
    return workload("StatefulSet", name, {"replicas": replicas, "serviceName": name, "podManagementPolicy": policy,
                                          "selector": {"matchLabels": {"app": name}}, "template": template(name)})


def rolling(surge: int | str, unavailable: int | str) -> Obj:
    """A RollingUpdate strategy."""
    return {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}


def create(*objects: Obj) -> Step:
    """A create step."""
    return Step("create", objects)


def scale(kind: str, name: str, replicas: int) -> Step:
    """A scale step."""
    return Step("scale", kind=kind, name=name, replicas=replicas)


def scaled(way: str, revision: int, old: int, new: int) -> tuple[str, str, str, str]:
    """A web Deployment's ScalingReplicaSet event, normalised."""
    return "Deployment", "web", "ScalingReplicaSet", f"Scaled {way} replica set web#{revision} from {old} to {new}"


def pods_event(verb: str, revision: int, count: int) -> tuple[tuple[str, str, str, str], int]:
    """A web ReplicaSet's SuccessfulCreate or SuccessfulDelete events, normalised, with their count."""
    return ("ReplicaSet", f"web#{revision}", f"Successful{verb}", f"{verb}d pod: web#{revision}-*"), count


GPU_TAINT = {"key": "gpu", "value": "true", "effect": "NoSchedule"}
BATCH_TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
SSD = {"disk": "ssd"}

CASES = (
    Case("deployment-create", (create(node("n1"), node("n2"), deployment("web", 3)),), ordered=("Deployment",)),
    Case("deployment-scale", (create(node("n1"), node("n2"), deployment("web", 2)),
                              scale("Deployment", "web", 5), scale("Deployment", "web", 1)), ordered=("Deployment",)),
    Case("deployment-rollout", (create(node("n1"), node("n2"), deployment("web", 4, strategy=rolling(1, 1))),
                                Step("apply", (deployment("web", 4, image=PAUSE_NEXT, strategy=rolling(1, 1)),)))),
    Case("deployment-rollout-surge", (
        create(node("n1"), node("n2"), deployment("web", 4, strategy=rolling("50%", 0))),
        Step("apply", (deployment("web", 4, image=PAUSE_NEXT, strategy=rolling("50%", 0)),))),
         ordered=("Deployment",), differences={"event order": (None, [
             scaled("up", 1, 0, 4), scaled("up", 2, 0, 2), scaled("down", 1, 4, 2), scaled("up", 2, 2, 4),
             scaled("down", 1, 2, 0)])}),
    Case("deployment-rollout-env-only", (
        create(node("n1"), deployment("web", 1, env="v1")), Step("apply", (deployment("web", 1, env="v2"),))),
         differences={
             "pods": ([("Deployment web#2", "", "", "Running")], [("Deployment web#1", "", "", "Running")]),
             "pods per node": ({"Deployment web#2": [1]}, {"Deployment web#1": [1]}),
             "replica sets": ([("web#1", 0), ("web#2", 1)], [("web#1", 1)]),
             "scaling": ({"web#1": "0 → 1 → 0", "web#2": "0 → 1"}, {"web#1": "0 → 1"}),
             "events": ([pods_event("Create", 1, 1), pods_event("Delete", 1, 1), pods_event("Create", 2, 1)],
                        [pods_event("Create", 1, 1)])}),
    Case("deployment-recreate", (
        create(node("n1"), node("n2"), deployment("web", 3, strategy={"type": "Recreate"})),
        Step("apply", (deployment("web", 3, image=PAUSE_NEXT, strategy={"type": "Recreate"}),))),
         ordered=("Deployment",)),
    Case("statefulset-ordered", (create(node("n1"), statefulset("db", 3, "OrderedReady")),
                                 scale("StatefulSet", "db", 1)), exact_nodes=True, ordered=("StatefulSet",)),
    Case("statefulset-parallel", (create(node("n1"), statefulset("db", 3, "Parallel")),
                                  scale("StatefulSet", "db", 1)), exact_nodes=True),
    Case("daemonset-taints-selectors", (create(
        node("ssd", labels=SSD), node("hdd", labels={"disk": "hdd"}), node("gpu", labels=SSD, taints=[GPU_TAINT]),
        node("batch", labels=SSD, taints=[BATCH_TAINT]), node("cordoned", labels=SSD, unschedulable=True),
        workload("DaemonSet", "agent", {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": template("agent", nodeSelector={"disk": "ssd"},
                                 tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])})),
        create(node("late", labels=SSD))), exact_nodes=True),
    Case("job-parallelism", (create(node("n1"), workload("Job", "batch", {
        "completions": 4, "parallelism": 2,
        "template": template("batch", restartPolicy="Never")})),), exact_nodes=True),
    Case("replicationcontroller", (create(node("n1"), workload("ReplicationController", "rc", {
        "replicas": 3, "selector": {"app": "rc"}, "template": template("rc")})),
        scale("ReplicationController", "rc", 2)), exact_nodes=True),
    Case("drain-pdb", (
        create(node("n1"), deployment("web", 3)),
        create(node("n2"), workload("PodDisruptionBudget", "web", {
            "maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}})),
        Step("drain", name="n1")), exact_nodes=True),
)

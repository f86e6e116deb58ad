"""The real side of the controllers' fidelity test: a stand-in kubelet, a case's steps done through the API of a
control plane running kube-scheduler and kube-controller-manager, a bounded wait for the namespace to settle after
each step, and the namespace's end state as :class:`~tests.kube.controllers_state.Views`.

Every wait is bounded (:data:`SETTLE_TIMEOUT`, :data:`DRAIN_TIMEOUT`); the kubelet's thread stops when asked.
"""

from __future__ import annotations

import datetime
import json
import threading
import time
from collections.abc import Iterator
from types import TracebackType

from kubesched.kube.rest import ApiError, KubeApi, Obj, pod_path
from tests.kube.controllers_cases import Case, Step
from tests.kube.controllers_state import NOT_CONTROLLERS, EventView, PodView, Views, claim_view, owner_of

#: Where each kind lives: API prefix, resource, namespaced. The storage kinds are for the storage controllers'
#: cases (a StatefulSet's volumeClaimTemplates make claims ``<template>-<set>-<ordinal>``).
RESOURCES = {
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "ReplicationController": ("/api/v1", "replicationcontrollers", True),
    "Deployment": ("/apis/apps/v1", "deployments", True),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", True),
    "DaemonSet": ("/apis/apps/v1", "daemonsets", True),
    "Job": ("/apis/batch/v1", "jobs", True),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "PersistentVolume": ("/api/v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims", True),
    "StorageClass": ("/apis/storage.k8s.io/v1", "storageclasses", False),
}
#: The stand-in kubelet's period, and how long a Job's pod runs before it succeeds.
KUBELET_PERIOD = 0.2
JOB_RUN = 1.0
#: A namespace is settled once nothing changed for QUIET seconds and every workload reached its spec, or nothing
#: changed for LONG_QUIET seconds; the wait fails after SETTLE_TIMEOUT.
QUIET = 2.0
LONG_QUIET = 8.0
SETTLE_TIMEOUT = 120.0
#: The drain's pause between refused evictions (kubectl's is 5 s) and its bound.
DRAIN_RETRY = 0.5
DRAIN_TIMEOUT = 90.0
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
STRATEGIC = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"


def path(kind: str, namespace: str = "", name: str = "") -> str:
    """The collection of ``kind`` (in ``namespace``), or the object ``name``."""
    prefix, plural, namespaced = RESOURCES[kind]
    base = f"{prefix}/namespaces/{namespace}/{plural}" if namespaced else f"{prefix}/{plural}"
    return f"{base}/{name}" if name else base


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _controller(obj: Obj) -> tuple[str, str] | None:
    """The (kind, name) of the object's controller reference, if any."""
    return next(((r["kind"], r["name"]) for r in obj["metadata"].get("ownerReferences") or []
                 if r.get("controller")), None)


class Kubelet:
    """Plays every node's kubelet: a bound pod becomes Running and Ready, a Job's pod then succeeds after
    :data:`JOB_RUN` seconds, and a pod with a deletionTimestamp is deleted with grace period 0."""

    def __init__(self, api: KubeApi) -> None:
        self.api = api
        self.errors: list[str] = []
        self._running: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="kubelet", daemon=True)

    def __enter__(self) -> Kubelet:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(10)

    def _loop(self) -> None:
        while not self._stop.wait(KUBELET_PERIOD):
            try:
                self._tick()
            except ApiError as error:  # a transient failure: the next tick tries again
                self.errors.append(str(error))

    def _tick(self) -> None:
        for pod in self.api.get("/api/v1/pods").get("items") or []:
            meta, status = pod["metadata"], pod.get("status", {})
            namespace, name, uid = meta["namespace"], meta["name"], meta["uid"]
            try:
                if meta.get("deletionTimestamp"):
                    self.api.request("DELETE", pod_path(namespace, name), body={"gracePeriodSeconds": 0})
                elif pod["spec"].get("nodeName") and status.get("phase") == "Pending":
                    self._set(pod, "Running", ready=True)
                    self._running[uid] = time.monotonic()
                elif status.get("phase") == "Running" and (_controller(pod) or ("", ""))[0] == "Job" and \
                        time.monotonic() - self._running.get(uid, time.monotonic()) >= JOB_RUN:
                    self._set(pod, "Succeeded", ready=False)
            except ApiError as error:
                if error.status not in (404, 409):  # gone, or changed meanwhile: seen again next tick
                    raise

    def _set(self, pod: Obj, phase: str, *, ready: bool) -> None:
        now, flag = _now(), "True" if ready else "False"
        conditions = [{"type": kind, "status": value, "lastTransitionTime": now}
                      for kind, value in (("Initialized", "True"), ("ContainersReady", flag), ("Ready", flag))]
        status: Obj = {"phase": phase, "conditions": conditions}
        if phase == "Running":
            status["startTime"] = now
        meta = pod["metadata"]
        self.api.request("PATCH", pod_path(meta["namespace"], meta["name"], "status"), body={"status": status},
                         content_type=STRATEGIC)


class RealCase:
    """One case on the real control plane, in its own namespace."""

    def __init__(self, kubelet: Kubelet, case: Case) -> None:
        self.kubelet = kubelet
        self.api = kubelet.api
        self.case = case
        self.namespace = case.name
        self.refused: set[str] = set()

    def run(self) -> Views:
        """Every step, each followed by a settle; then the end state."""
        self.api.request("POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace",
                                                             "metadata": {"name": self.namespace}})
        for index, step in enumerate(self.case.steps):
            self.step(step)
            self.settle(f"step {index} ({step.action})")
        return self.views()

    def cleanup(self) -> None:
        """Delete the namespace (the namespace controller and the kubelet finish it), the case's nodes, and its
        volumes and classes (``<case>-...``, or bound to its claims)."""
        self.api.request("DELETE", f"/api/v1/namespaces/{self.namespace}")
        for node in self._items("Node"):
            if node["metadata"].get("labels", {}).get("kubesched.io/case") == self.case.name:
                self.api.request("DELETE", path("Node", name=node["metadata"]["name"]))
        mine = f"{self.case.name}-"
        for kind in ("PersistentVolume", "StorageClass"):
            for obj in self._items(kind):
                name = obj["metadata"]["name"]
                if name.startswith(mine) or (obj.get("spec", {}).get("claimRef") or {}).get("namespace") == \
                        self.namespace:
                    self.api.request("DELETE", path(kind, name=name))

    # -- steps -----------------------------------------------------------------------------------------------------
    def step(self, step: Step) -> None:
        """Do ``step`` through the API."""
        if step.action in ("create", "apply"):
            for raw in step.objects:
                obj = self.case.prepared(raw)
                kind, name = obj["kind"], obj["metadata"]["name"]
                if step.action == "apply":
                    current = self.api.get(path(kind, self.namespace, name))
                    self.api.request("PUT", path(kind, self.namespace, name), body={**current, "spec": obj["spec"]})
                else:
                    self.api.request("POST", path(kind, obj["metadata"].get("namespace", "")), body=obj)
        elif step.action == "scale":
            self.api.request("PATCH", path(step.kind, self.namespace, step.name),
                             body={"spec": {"replicas": step.replicas}}, content_type=MERGE)
        elif step.action == "delete":
            self.api.request("DELETE", path(step.kind, self.namespace, step.name))
        else:
            assert step.action == "drain", step.action
            self.drain(self.case.node(step.name))

    def drain(self, node: str) -> None:
        """Cordon (spec.unschedulable and, as the node lifecycle controller would, its taint), then evict every
        pod but DaemonSets' until none is left, retrying refused evictions every :data:`DRAIN_RETRY` seconds."""
        current = self.api.get(path("Node", name=node))
        taints = [*(current["spec"].get("taints") or []), UNSCHEDULABLE_TAINT]
        self.api.request("PATCH", path("Node", name=node), body={"spec": {"unschedulable": True, "taints": taints}},
                         content_type=MERGE)
        deadline = time.monotonic() + DRAIN_TIMEOUT
        while True:
            left = [p for p in self._items("Pod", fieldSelector=f"spec.nodeName={node}")
                    if (_controller(p) or ("", ""))[0] != "DaemonSet"]
            if not left:
                return
            for pod in left:
                if pod["metadata"].get("deletionTimestamp"):
                    continue
                name = pod["metadata"]["name"]
                try:
                    self.api.request("POST", pod_path(self.namespace, name, "eviction"), body={
                        "apiVersion": "policy/v1", "kind": "Eviction",
                        "metadata": {"name": name, "namespace": self.namespace}})
                except ApiError as error:
                    if error.status == 429:
                        self.refused.add(name)
                    elif error.status != 404:
                        raise
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.case.name}: drain of {node} still has {len(left)} pod(s) after "
                                     f"{DRAIN_TIMEOUT:g} s: {[p['metadata']['name'] for p in left]}")
            time.sleep(DRAIN_RETRY)

    # -- settling --------------------------------------------------------------------------------------------------
    def _items(self, kind: str, **params: object) -> list[Obj]:
        namespace = self.namespace if kind == "Pod" or RESOURCES.get(kind, ("", "", True))[2] else ""
        where = f"/api/v1/namespaces/{namespace}/pods" if kind == "Pod" else path(kind, namespace)
        return list(self.api.get(where, **params).get("items") or [])

    def _fingerprint(self) -> tuple[str, bool]:
        """The namespace's pods and workloads' statuses as text, and whether every workload reached its spec."""
        pods = self._items("Pod")
        converged = not any(p["metadata"].get("deletionTimestamp") or
                            (p["spec"].get("nodeName") and p["status"].get("phase") == "Pending") for p in pods)
        parts: list[object] = [sorted((p["metadata"]["name"], p["spec"].get("nodeName", ""), p["status"].get("phase"),
                                       bool(p["metadata"].get("deletionTimestamp"))) for p in pods)]
        claims = self._items("PersistentVolumeClaim")
        # A claim still Pending may yet be bound (the PV controller is slow under load): only a long quiet settles it.
        converged = converged and not any(c["metadata"].get("deletionTimestamp") or
                                          c.get("status", {}).get("phase") == "Pending" for c in claims)
        parts.append(sorted((c["metadata"]["name"], c.get("status", {}).get("phase"), c["spec"].get("volumeName"),
                             bool(c["metadata"].get("deletionTimestamp"))) for c in claims))
        for kind in ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Job",
                     "PodDisruptionBudget"):
            for obj in self._items(kind):
                status, spec = obj.get("status", {}), obj.get("spec", {})
                parts.append((kind, obj["metadata"]["name"], spec.get("replicas"), status))
                converged = converged and _converged(kind, obj)
        return json.dumps(parts, sort_keys=True, default=str), converged

    def settle(self, what: str) -> None:
        """Wait until the namespace is settled (see :data:`QUIET`); fail naming ``what`` after the timeout."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        last, since = "", time.monotonic()
        while True:
            text, converged = self._fingerprint()
            now = time.monotonic()
            if text != last:
                last, since = text, now
            elif now - since >= (QUIET if converged else LONG_QUIET):
                return
            if now > deadline:
                raise AssertionError(f"{self.case.name}: {what} did not settle in {SETTLE_TIMEOUT:g} s:\n{last}\n"
                                     f"the kubelet's last errors: {self.kubelet.errors[-5:]}")
            time.sleep(0.25)

    # -- the end state ------------------------------------------------------------------------------------------
    def views(self) -> Views:
        """Live pods, ReplicaSets by revision, controller events in order, PDB statuses, claims."""
        views = Views(refused=len(self.refused))
        for rs in self._items("ReplicaSet"):
            owner = _controller(rs)
            if owner is not None and owner[0] == "Deployment":
                revision = rs["metadata"].get("annotations", {}).get("deployment.kubernetes.io/revision", "?")
                views.replica_sets[rs["metadata"]["name"]] = (f"{owner[1]}#{revision}", rs["spec"]["replicas"])
        for pod in self._items("Pod"):
            node, phase = pod["spec"].get("nodeName", ""), pod["status"].get("phase", "")
            views.pods.append(PodView(owner_of(_controller(pod), views.replica_sets), pod["metadata"]["name"], node,
                                      "Running" if node and phase in ("Pending", "Running") else phase))
        views.events = list(self._events())
        for pdb in self._items("PodDisruptionBudget"):
            status = pdb.get("status", {})
            views.pdbs[pdb["metadata"]["name"]] = (status.get("disruptionsAllowed", 0), status.get("currentHealthy", 0),
                                                   status.get("desiredHealthy", 0), status.get("expectedPods", 0))
        for claim in self._items("PersistentVolumeClaim"):
            meta, spec = claim["metadata"], claim["spec"]
            owned_by = owner_of(next(((r["kind"], r["name"]) for r in meta.get("ownerReferences") or []), None))
            views.claims.append(claim_view(meta["name"], meta["uid"], owned_by, meta.get("labels") or {},
                                           spec.get("storageClassName"), claim.get("status", {}).get("phase", ""),
                                           spec.get("volumeName", "")))
        return views

    def _events(self) -> Iterator[EventView]:
        """The controllers' core/v1 events in the order they were first recorded (an event's name ends in its
        time in hex nanoseconds), each as many times as it was counted."""
        items = self.api.get(f"/api/v1/namespaces/{self.namespace}/events").get("items") or []
        items.sort(key=lambda e: int(e["metadata"]["name"].rsplit(".", 1)[-1], 16))
        for event in items:
            regarding = event["involvedObject"]
            if regarding.get("kind") in ("Pod", "Node") or event.get("reason") in NOT_CONTROLLERS:
                continue
            for _ in range(event.get("count") or 1):
                yield EventView(regarding["kind"], regarding["name"], event["reason"], event["message"])


def _converged(kind: str, obj: Obj) -> bool:
    """Whether the workload's status says it reached its spec."""
    spec, status = obj.get("spec", {}), obj.get("status", {})
    if kind != "PodDisruptionBudget" and status.get("observedGeneration", 0) < obj["metadata"].get("generation", 0):
        return False
    if kind == "Deployment":
        want = spec.get("replicas", 1)
        return all(status.get(k, 0) == want for k in ("replicas", "updatedReplicas", "availableReplicas"))
    if kind in ("ReplicaSet", "ReplicationController", "StatefulSet"):
        want = spec.get("replicas", 1)
        return bool(status.get("replicas", 0) == want and status.get("readyReplicas", 0) == want)
    if kind == "DaemonSet":
        want = status.get("desiredNumberScheduled", 0)
        return bool(status.get("currentNumberScheduled") == want and status.get("numberReady", 0) == want
                    and not status.get("numberMisscheduled"))
    if kind == "Job":
        return any(c["type"] in ("Complete", "Failed") and c["status"] == "True"
                   for c in status.get("conditions") or [])
    return True

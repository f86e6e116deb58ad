"""Helpers for tests against a real API server: objects as JSON dicts, a bounded wait, a `kubesched run` process."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import yaml

from kubesched.kube.rest import ApiError, KubeApi, Obj, pod_path
from kubesched.testing.kube import ControlPlane, free_port, log_tail

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy" / "kubesched.yaml"
T = TypeVar("T")
#: Every wait in these tests gives up after this long.
WAIT = 30.0


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = WAIT, log: Path | None = None) -> T:
    """Poll ``probe`` until it returns something truthy; fail naming ``what`` (and the scheduler's log tail)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            tail = f"\nkubesched's log:\n{log_tail(log, 30)}" if log is not None else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{tail}")
        time.sleep(0.1)


def node(name: str, cpu: str = "4", memory: str = "8Gi", labels: dict[str, str] | None = None) -> Obj:
    """A ready-looking Node with that capacity."""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"}}}


def pod(name: str, *, namespace: str = "default", cpu: str = "100m", scheduler: str | None = None,
        priority_class: str | None = None, labels: dict[str, str] | None = None, grace: int | None = None) -> Obj:
    """A pending Pod with one container requesting ``cpu``."""
    spec: Obj = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": cpu}}}]}
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace,
                                                            "labels": labels or {}}, "spec": spec}


def create(api: KubeApi, obj: Obj) -> Obj:
    """Create ``obj`` (a Node, Pod, PriorityClass, Namespace, ClusterRole...) through the API."""
    group_version, kind = obj["apiVersion"], obj["kind"]
    plural = {"Node": "nodes", "Pod": "pods", "Namespace": "namespaces", "PriorityClass": "priorityclasses",
              "ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings",
              "PodDisruptionBudget": "poddisruptionbudgets", "Lease": "leases",
              "PersistentVolume": "persistentvolumes", "PersistentVolumeClaim": "persistentvolumeclaims",
              "StorageClass": "storageclasses", "CSINode": "csinodes", "CSIDriver": "csidrivers",
              "CSIStorageCapacity": "csistoragecapacities"}[kind]
    base = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
    namespace = obj["metadata"].get("namespace")
    if kind in ("Pod", "PodDisruptionBudget", "Lease", "PersistentVolumeClaim", "CSIStorageCapacity"):
        namespace = namespace or "default"
    path = f"{base}/namespaces/{namespace}/{plural}" if namespace else f"{base}/{plural}"
    return api.request("POST", path, body=obj)


def get_pod(api: KubeApi, name: str, namespace: str = "default") -> Obj | None:
    """The pod, or None when it is gone."""
    try:
        return api.get(pod_path(namespace, name))
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def node_of(api: KubeApi, name: str, namespace: str = "default") -> str:
    """The pod's spec.nodeName ("" while unbound or gone)."""
    found = get_pod(api, name, namespace)
    return str((found or {}).get("spec", {}).get("nodeName", ""))


def bound_to(api: KubeApi, name: str, namespace: str = "default") -> Callable[[], str]:
    """A probe for :func:`wait_for`: the pod's node ("" while unbound)."""
    return lambda: node_of(api, name, namespace)


def events(api: KubeApi, namespace: str = "default", reason: str | None = None) -> list[Obj]:
    """The events.k8s.io/v1 events of a namespace (with ``reason`` only, when given)."""
    items = api.get(f"/apis/events.k8s.io/v1/namespaces/{namespace}/events").get("items") or []
    return [e for e in items if reason is None or e.get("reason") == reason]


def deploy_objects() -> list[Obj]:
    """The objects of deploy/kubesched.yaml."""
    return [doc for doc in yaml.safe_load_all(DEPLOY.read_text()) if doc]


def grant_deploy_role(api: KubeApi, user: str = "kubesched") -> None:
    """Create deploy/'s ClusterRole and bind it to ``user`` (a token-file identity), as the ServiceAccount is."""
    role = next(o for o in deploy_objects() if o["kind"] == "ClusterRole")
    try:
        create(api, role)
    except ApiError as error:
        if error.status != 409:  # granted to another user already
            raise
    try:
        create(api, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                     "metadata": {"name": f"kubesched-{user}"},
                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "kubesched"},
                     "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]})
    except ApiError as error:
        if error.status != 409:  # granted by an earlier test of the module
            raise


class Kubesched:
    """A `kubesched run` process; its log is a file, its metrics port a free one."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, port: int) -> None:
        self.process = process
        self.log = log
        self.port = port

    def log_text(self) -> str:
        """Everything it logged so far."""
        return self.log.read_text(errors="replace")

    def attempts(self) -> float:
        """Its scheduling attempts so far, from /metrics (scheduler_schedule_attempts_total, every label)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as response:
            text = response.read().decode()
        return sum(float(line.split()[-1]) for line in text.splitlines()
                   if line.startswith("scheduler_schedule_attempts_total{"))

    def stop(self) -> int:
        """SIGTERM, wait, then SIGKILL if needed; the exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
        return self.process.returncode


@contextmanager
def kubesched_run(plane: ControlPlane, folder: Path, *args: str, identity: str = "kubesched",
                  name: str = "kubesched", kubeconfig: Path | None = None,
                  site: Path | None = None) -> Iterator[Kubesched]:
    """Run `kubesched run --kubeconfig <identity's>` (or ``kubeconfig``) with ``args``, with ``site`` (plugins'
    distributions) on the path; stopped by PID when the block ends."""
    port = free_port()
    log = folder / f"{name}.log"
    paths = [str(REPO), str(site) if site else None, os.environ.get("PYTHONPATH")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "kubesched", "run", "--kubeconfig", str(kubeconfig or plane.kubeconfig(identity)),
             "--metrics-bind-address", f"127.0.0.1:{port}", *args],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=REPO)
    runner = Kubesched(process, log, port)
    try:
        yield runner
    finally:
        runner.stop()


def _etcd(plane: ControlPlane, call: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(f"http://127.0.0.1:{plane.etcd_port}/v3/{call}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        document: dict[str, object] = json.loads(response.read())
        return document


def compact_etcd(plane: ControlPlane) -> None:
    """Compact etcd's history up to now, as the API server does every five minutes: a watch resuming from before
    gets 410 Gone."""
    header = _etcd(plane, "kv/range", {"key": base64.b64encode(b"/").decode()})["header"]
    assert isinstance(header, dict)
    _etcd(plane, "kv/compaction", {"revision": header["revision"], "physical": True})

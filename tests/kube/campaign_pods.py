"""The fault campaign's workload and its invariants: a seeded mix of pods whose bound count follows from capacity,
created over time through outages; a watch that sees a pod's node change; the final checks from the API server."""

from __future__ import annotations

import queue
import random
import threading
import time
from collections import Counter
from datetime import datetime
from itertools import pairwise

import attrs

from kubesched.api.quantity import parse_quantity
from kubesched.kube.informer import Delta, Reflector, Replace, Resource
from kubesched.kube.rest import ApiError, KubeApi, Obj
from tests.kube.helpers import create

NAMESPACE = "default"
#: Every node: 4 CPU, 8 GiB, 110 pods. A small pod asks 100m and 128Mi, so 40 fit a node (cpu is the limit);
#: a huge pod asks 5 CPU and fits none.
NODE_CPU, NODE_MEMORY, NODE_PODS = "4", "8Gi", "110"
SMALL_CPU, SMALL_MEMORY, HUGE_CPU = "100m", "128Mi", "5"
SMALL_PER_NODE = min(parse_quantity(NODE_CPU).milli_value() // parse_quantity(SMALL_CPU).milli_value(),
                     parse_quantity(NODE_MEMORY).value() // parse_quantity(SMALL_MEMORY).value(), int(NODE_PODS))
#: How long one pod's creation is retried through an outage before the campaign gives up on it.
CREATE_TIMEOUT = 60.0


@attrs.frozen
class Workload:
    """``pods`` pods named ``p-0000``...: one in eight huge (never fits), the rest small, in a seeded order."""

    pods: int
    nodes: int
    seed: int

    def huge(self) -> frozenset[str]:
        """The names of the huge pods."""
        names = [self.name(i) for i in range(self.pods)]
        return frozenset(random.Random(self.seed).sample(names, self.pods // 8))

    @staticmethod
    def name(index: int) -> str:
        """The name of pod ``index``."""
        return f"p-{index:04d}"

    def expected_bound(self) -> int:
        """How many pods end bound: every small pod while the nodes have room, none of the huge."""
        return min(self.pods - self.pods // 8, self.nodes * SMALL_PER_NODE)

    def node(self, index: int) -> Obj:
        """Node ``index``, ready-looking, with the fixed capacity."""
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{index:02d}"},
                "status": {"capacity": {"cpu": NODE_CPU, "memory": NODE_MEMORY, "pods": NODE_PODS}}}

    def pod(self, name: str, huge: bool) -> Obj:
        """A pending pod, small or huge."""
        requests = {"cpu": HUGE_CPU, "memory": SMALL_MEMORY} if huge else {"cpu": SMALL_CPU, "memory": SMALL_MEMORY}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE},
                "spec": {"terminationGracePeriodSeconds": 0,
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                         "resources": {"requests": requests}}]}}


class Creator(threading.Thread):
    """Creates the workload's pods at ``rate`` per second, as many as :meth:`allow` let so far, retrying each
    through outages (a 409 means an earlier try was created and its answer lost)."""

    def __init__(self, admin: KubeApi, workload: Workload, rate: float) -> None:
        super().__init__(name="creator", daemon=True)
        self.admin = admin
        self.workload = workload
        self.rate = rate
        self.created: list[str] = []
        self.failed: list[str] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._allowed = threading.Condition()
        self._count = 0

    def allow(self, count: int) -> None:
        """Let the first ``count`` pods be created."""
        with self._allowed:
            self._count = max(self._count, count)
            self._allowed.notify_all()

    def stop(self) -> None:
        """Stop creating."""
        self.stopping.set()
        self.allow(self.workload.pods)

    def run(self) -> None:
        huge = self.workload.huge()
        for index in range(self.workload.pods):
            with self._allowed:
                self._allowed.wait_for(lambda i=index: i < self._count)  # type: ignore[misc]
            self.stopping.wait(1 / self.rate)
            if self.stopping.is_set():
                return
            name = self.workload.name(index)
            deadline = time.monotonic() + CREATE_TIMEOUT
            while True:
                try:
                    create(self.admin, self.workload.pod(name, name in huge))
                    break
                except ApiError as error:
                    if error.status == 409:
                        break
                    if time.monotonic() > deadline or self.stopping.is_set():
                        with self.lock:
                            self.failed.append(f"{name}: {error}")
                        break
                    time.sleep(0.3)
            with self.lock:
                self.created.append(name)


class BindingWatch(threading.Thread):
    """Watches every pod (relisting through outages and 410s) and records any pod whose node changed once set."""

    def __init__(self, admin: KubeApi) -> None:
        super().__init__(name="binding-watch", daemon=True)
        self.stopping = threading.Event()
        self.inbox: queue.Queue[Replace | Delta] = queue.Queue()
        self.reflector = Reflector(admin, Resource("Pod", "/api/v1/pods"), self.inbox, self.stopping)
        self.nodes: dict[str, tuple[str, str]] = {}
        self.rebound: list[str] = []

    def run(self) -> None:
        self.reflector.start()
        while not self.stopping.is_set():
            try:
                item = self.inbox.get(timeout=0.5)
            except queue.Empty:
                continue
            for obj in item.items if isinstance(item, Replace) else [item.obj]:
                self._see(obj)

    def _see(self, obj: Obj) -> None:
        meta, node = obj.get("metadata") or {}, str((obj.get("spec") or {}).get("nodeName") or "")
        uid, key = str(meta.get("uid")), f"{meta.get('namespace')}/{meta.get('name')}"
        if not node:
            return
        seen = self.nodes.setdefault(uid, (key, node))
        if seen[1] != node:
            self.rebound.append(f"{key} was bound to {seen[1]}, then to {node}")

    def stop(self) -> None:
        """Stop watching."""
        self.stopping.set()
        self.join(5)


def bound_pods(admin: KubeApi) -> dict[str, Obj]:
    """The campaign namespace's pods that have a node, by name."""
    items = admin.get(f"/api/v1/namespaces/{NAMESPACE}/pods").get("items") or []
    return {item["metadata"]["name"]: item for item in items if (item.get("spec") or {}).get("nodeName")}


def overcommitted(admin: KubeApi, bound: dict[str, Obj]) -> list[str]:
    """Each node whose bound pods ask for more cpu, memory or pods than it can allocate, with the sums."""
    asked: dict[str, Counter[str]] = {}
    for pod in bound.values():
        total = asked.setdefault(pod["spec"]["nodeName"], Counter())
        total["pods"] += 1
        for container in pod["spec"]["containers"]:
            requests = (container.get("resources") or {}).get("requests") or {}
            total["cpu"] += parse_quantity(requests.get("cpu", "0")).milli_value()
            total["memory"] += parse_quantity(requests.get("memory", "0")).value()
    problems = []
    for node in admin.get("/api/v1/nodes").get("items") or []:
        status = node.get("status") or {}
        allocatable = status.get("allocatable") or status.get("capacity") or {}
        limits = {"cpu": parse_quantity(allocatable["cpu"]).milli_value(),
                  "memory": parse_quantity(allocatable["memory"]).value(), "pods": int(allocatable["pods"])}
        total = asked.get(node["metadata"]["name"], Counter())
        for resource, limit in limits.items():
            if total[resource] > limit:
                problems.append(f"node {node['metadata']['name']}: {resource} requested {total[resource]} > "
                                f"allocatable {limit}")
    return problems


def scheduled_lines(logs: list[str]) -> Counter[str]:
    """How often each pod was logged ``Scheduled`` across every replica's logs (a bind the server accepted)."""
    counts: Counter[str] = Counter()
    for text in logs:
        for line in text.splitlines():
            if f"Scheduled {NAMESPACE}/" in line:
                counts[line.split(f"Scheduled {NAMESPACE}/", 1)[1].split(":", 1)[0]] += 1
    return counts


def _logged_at(line: str) -> datetime:
    """A log line's time (the replicas' asctime)."""
    return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")


def overlapping_binds(logs: dict[str, str]) -> list[str]:
    """Binds logged by a replica that never led, or after the next leader acquired the Lease: two replicas binding
    at once. (A process leads at most once: one that loses the Lease exits.)"""
    problems: list[str] = []
    reigns: list[tuple[datetime, str, datetime | None]] = []
    for name, text in logs.items():
        lines = text.splitlines()
        acquired = next((_logged_at(line) for line in lines if "successfully acquired lease" in line), None)
        binds = [_logged_at(line) for line in lines if f"Scheduled {NAMESPACE}/" in line]
        if acquired is None:
            problems += [f"{name} logged {len(binds)} bind(s) without leading"] if binds else []
            continue
        reigns.append((acquired, name, max(binds, default=None)))
    reigns.sort()
    for (_, name, last_bind), (next_acquired, successor, _) in pairwise(reigns):
        if last_bind is not None and last_bind >= next_acquired:
            problems.append(f"{name} logged a bind at {last_bind:%H:%M:%S.%f}, after {successor} acquired the Lease "
                            f"at {next_acquired:%H:%M:%S.%f}")
    return problems

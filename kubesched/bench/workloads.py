"""The workloads of ``kubesched bench``: scheduler_perf's shapes and object sizes, built in memory.

Every node has 4 CPU, 32Gi of memory and room for 110 pods; an ordinary pod requests 100m CPU and 500Mi.
Zone-aware workloads label the nodes round-robin over three zones (``topology.kubernetes.io/zone``: zone1,
zone2, zone3). Init pods are scheduled first and not measured; the measured pods come after them.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.errors import KubeschedError
from kubesched.testing.builders import PodBuilder, make_node, make_pod

ZONE_KEY = "topology.kubernetes.io/zone"
HOSTNAME_KEY = "kubernetes.io/hostname"
ZONES = ("zone1", "zone2", "zone3")
#: The namespaces of init and measured pods (as scheduler_perf creates sched-0 and sched-1 for some workloads).
INIT_NAMESPACE = "sched-0"
MEASURE_NAMESPACE = "sched-1"


class BenchError(KubeschedError):
    """A benchmark could not be set up or did not do what its workload promises."""


def _sized(name: str, namespace: str, cpu: str = "100m", memory: str = "500Mi") -> PodBuilder:
    """A pod of one container whose limits equal its requests, as scheduler_perf's templates write them."""
    sizes: dict[str, str | int | float] = {"cpu": cpu, "memory": memory}
    return make_pod(name, namespace).container(sizes, limits=sizes)


def default_pod(name: str, namespace: str) -> Pod:
    """scheduler_perf's default pod: 100m CPU, 500Mi."""
    return _sized(name, namespace).obj()


def spreading_pod(name: str, namespace: str) -> Pod:
    """A default-sized pod spread over zones with maxSkew 1 among pods labelled color=blue (DoNotSchedule)."""
    return _sized(name, namespace).label(color="blue").spread(1, ZONE_KEY, "DoNotSchedule", color="blue").obj()


def anti_affinity_pod(name: str, namespace: str) -> Pod:
    """A default-sized pod labelled color=green that refuses a node holding another color=green pod of its
    namespace (required anti-affinity on the hostname)."""
    return _sized(name, namespace).label(color="green").pod_affinity(HOSTNAME_KEY, anti=True, color="green").obj()


def affinity_pod(name: str, namespace: str) -> Pod:
    """A default-sized pod labelled color=blue that requires a zone holding a color=blue pod of its namespace
    (the first such pod may go anywhere: it matches its own term)."""
    return _sized(name, namespace).label(color="blue").pod_affinity(ZONE_KEY, color="blue").obj()


def node_affinity_pod(name: str, namespace: str) -> Pod:
    """A default-sized pod requiring a node in zone1 or zone2 (two thirds of the nodes)."""
    return _sized(name, namespace).node_affinity_in(ZONE_KEY, "zone1", "zone2").obj()


def low_priority_pod(name: str, namespace: str) -> Pod:
    """A 900m/500Mi pod of priority 0 that stops at once when deleted (grace period 0)."""
    return _sized(name, namespace, cpu="900m").grace_period(0).obj()


def high_priority_pod(name: str, namespace: str) -> Pod:
    """A 3000m/500Mi pod of priority 10: on nodes full of low-priority pods it must preempt three of them."""
    return _sized(name, namespace, cpu="3000m").priority(10).grace_period(0).obj()


def large_cpu_pod(name: str, namespace: str) -> Pod:
    """A pod requesting 9 CPU: more than any 4-CPU node has, so it stays pending."""
    return make_pod(name, namespace).container({"cpu": "9", "memory": "500Mi"}).obj()


@attrs.frozen
class Workload:
    """One benchmark: its default counts, whether its nodes carry zones, and how its init and measured pods look."""

    name: str
    summary: str
    nodes: int
    init_pods: int
    measure_pods: int
    init_pod: Callable[[str, str], Pod]
    measure_pod: Callable[[str, str], Pod]
    zoned: bool = False
    #: The init pods fit nowhere and must stay pending (Unschedulable); otherwise every init pod is scheduled.
    init_pods_pending: bool = False
    #: scheduler_perf's recreate-mode churn of a node, a 9-CPU pod and a Service runs beside the measured pods
    #: (kubesched/bench/churn.py).
    churn: bool = False

    def build_nodes(self, count: int) -> list[Node]:
        """``count`` nodes of 4 CPU / 32Gi / 110 pods, zoned round-robin when the workload uses zones."""
        nodes = []
        width = len(str(max(count - 1, 0)))
        for i in range(count):
            builder = make_node(f"node-{i:0{width}d}").capacity(cpu="4", memory="32Gi", pods=110)
            if self.zoned:
                builder = builder.zone(ZONES[i % len(ZONES)])
            nodes.append(builder.obj())
        return nodes

    def build_init_pods(self, count: int) -> list[Pod]:
        """The init pods, in creation order (namespace sched-0)."""
        width = len(str(max(count - 1, 0)))
        return [self.init_pod(f"init-{i:0{width}d}", INIT_NAMESPACE) for i in range(count)]

    def build_measure_pods(self, count: int) -> list[Pod]:
        """The measured pods, in creation order (namespace sched-1)."""
        width = len(str(max(count - 1, 0)))
        return [self.measure_pod(f"pod-{i:0{width}d}", MEASURE_NAMESPACE) for i in range(count)]


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("SchedulingBasic", "default pods on plain nodes", 5000, 1000, 10000, default_pod, default_pod),
    Workload("TopologySpreading", "default init pods, then pods spread over 3 zones with maxSkew 1",
             5000, 5000, 5000, default_pod, spreading_pod, zoned=True),
    Workload("SchedulingPodAntiAffinity", "required pod anti-affinity on the hostname among same-label pods",
             5000, 1000, 2000, anti_affinity_pod, anti_affinity_pod),
    Workload("SchedulingPodAffinity", "required pod affinity on the zone among same-label pods, 3 zones",
             5000, 5000, 5000, affinity_pod, affinity_pod, zoned=True),
    Workload("SchedulingNodeAffinity", "required node affinity on 2 of 3 zones",
             5000, 5000, 10000, node_affinity_pod, node_affinity_pod, zoned=True),
    Workload("PreemptionBasic", "nodes filled with 900m low-priority pods, then 3000m pods of priority 10 preempt",
             5000, 20000, 5000, low_priority_pod, high_priority_pod),
    Workload("Unschedulable", "9-CPU pods stay pending while default pods are measured",
             5000, 200, 5000, large_cpu_pod, default_pod, init_pods_pending=True),
    Workload("SchedulingWithMixedChurn", "default pods while a node, a 9-CPU pod and a Service are created and "
             "deleted in turn every 100 bindings", 5000, 0, 10000, default_pod, default_pod, churn=True),
)}


def workload(name: str) -> Workload:
    """The workload called ``name``; a BenchError listing the valid names otherwise."""
    found = WORKLOADS.get(name)
    if found is None:
        raise BenchError(f"unknown workload {json.dumps(name, ensure_ascii=False)}: valid workloads are "
                         f"{', '.join(WORKLOADS)}")
    return found

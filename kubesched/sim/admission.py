"""The simulated API server's admission of the pods created during a run: the objects admission reads as they are
at that moment (the input's, then those scenario steps create) and every ResourceQuota's usage, kept as the quota
controller recomputes it from the pods that exist.

A pod the loader admitted (the input's, a scenario step's) still meets ResourceQuota when the run creates it; a
pod a controller creates meets every plugin. A quota's usage counts each live pod it matches, from creation until
the pod is gone (deleted, lost with its node, or succeeded); the quota's ``status.used`` in the input is not read.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.admission import resource_quota
from kubesched.admission.amounts import ZERO, ResourceAmounts, add, subtract
from kubesched.admission.chain import AdmissionObjects, admit, admit_claim
from kubesched.api.admission_objects import LimitRange, ResourceQuota, RuntimeClass
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PriorityClass
from kubesched.api.storage import PersistentVolumeClaim
from kubesched.sim.cluster import InMemoryCluster

_Key = tuple[str, str]


class QuotaUsage:
    """Every ResourceQuota with the usage of the live pods it matches; a cluster listener."""

    def __init__(self, cluster: InMemoryCluster) -> None:
        self.cluster = cluster
        self.quotas: dict[_Key, ResourceQuota] = {}
        self.used: dict[_Key, ResourceAmounts] = {}
        # Per pod uid: the quotas it is counted in, with what it counts.
        self._charged: dict[str, list[tuple[_Key, ResourceAmounts]]] = {}
        cluster.subscribe(self)

    def add(self, quota: ResourceQuota) -> None:
        """Create (or replace) a quota: its usage is recomputed from the namespace's live pods."""
        key = (quota.namespace, quota.name)
        for uid, charges in self._charged.items():
            self._charged[uid] = [c for c in charges if c[0] != key]
        self.quotas[key] = quota
        self.used[key] = dict.fromkeys(quota.hard, ZERO)
        for pod in self.cluster.list_pods_in_namespace(quota.namespace):
            self._charge(pod, key, quota)

    def _charge(self, pod: Pod, key: _Key, quota: ResourceQuota) -> None:
        if not resource_quota.matches(quota, pod):
            return
        counted = {name: q for name, q in resource_quota.usage(pod).items() if name in quota.hard}
        used = self.used[key]
        for name, quantity in counted.items():
            used[name] = add(used.get(name), quantity)
        self._charged.setdefault(pod.uid, []).append((key, counted))

    def admit(self, pod: Pod) -> None:
        """ResourceQuota's verdict on creating ``pod`` now (AdmissionError when a quota refuses it)."""
        quotas = [(quota, self.used[key]) for key, quota in self.quotas.items() if key[0] == pod.namespace]
        if quotas:
            resource_quota.admit(pod, quotas)

    def on_pod_add(self, pod: Pod) -> None:
        """A new pod counts in every quota of its namespace that matches it."""
        for key, quota in self.quotas.items():
            if key[0] == pod.namespace:
                self._charge(pod, key, quota)

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod gone is no longer counted."""
        for key, counted in self._charged.pop(pod.uid, ()):
            used = self.used[key]
            for name, quantity in counted.items():
                used[name] = subtract(used[name], quantity)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """What a pod counts does not change while it lives."""

    def on_node_add(self, node: Node) -> None:
        """Nodes do not count."""

    def on_node_update(self, node: Node) -> None:
        """Nodes do not count."""

    def on_node_delete(self, name: str) -> None:
        """Nodes do not count (their pods' deletions do)."""


class ApiAdmission:
    """What the simulated API server's admission reads, as it changes during a run, and its verdicts."""

    def __init__(self, cluster: InMemoryCluster) -> None:
        self._limit_ranges: dict[_Key, LimitRange] = {}
        self._runtime_classes: dict[str, RuntimeClass] = {}
        self._priority_classes: dict[str, PriorityClass] = {}
        self._objects: AdmissionObjects | None = None
        self.quotas = QuotaUsage(cluster)
        self._cluster = cluster

    def add(self, limit_ranges: Iterable[LimitRange] = (), runtime_classes: Iterable[RuntimeClass] = (),
            priority_classes: Iterable[PriorityClass] = (), quotas: Iterable[ResourceQuota] = ()) -> None:
        """Objects created (or replaced) now: admission reads them from now on."""
        self._limit_ranges.update(((lr.namespace, lr.name), lr) for lr in limit_ranges)
        self._runtime_classes.update((rc.name, rc) for rc in runtime_classes)
        self._priority_classes.update((pc.name, pc) for pc in priority_classes)
        for quota in quotas:
            self.quotas.add(quota)
        self._objects = None

    def objects(self) -> AdmissionObjects:
        """The objects the plugins before ResourceQuota read now."""
        if self._objects is None:
            self._objects = AdmissionObjects.of(self._limit_ranges.values(), self._runtime_classes.values(),
                                                list(self._priority_classes.values()))
        return self._objects

    def admit_claim(self, claim: PersistentVolumeClaim) -> PersistentVolumeClaim:
        """A claim created now (a StatefulSet's, a generic ephemeral volume's), as admission stores it."""
        return admit_claim(claim, self._cluster.storage.storage_classes())

    def admit(self, pod: Pod) -> Pod:
        """Every plugin's verdict on creating ``pod`` now: the admitted pod, or AdmissionError."""
        admitted = admit(pod, self.objects())
        self.quotas.admit(admitted)
        return admitted

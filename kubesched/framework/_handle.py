"""Handle: what the framework offers plugins (including listers that read the cluster), and the WaitingPod
that Permit creates."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

from kubesched.api.pod import Pod
from kubesched.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from kubesched.api.workload import Namespace
from kubesched.backend import Clock, ClusterClient, ClusterListener
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._snapshot import Snapshot
from kubesched.framework._status import Status
from kubesched.framework._types import NominatingInfo

if TYPE_CHECKING:
    from kubesched.framework.preemption import CandidateChoice, PreemptionAccelerator

# framework.maxTimeout: Permit waits are capped at 15 minutes.
MAX_PERMIT_TIMEOUT = 15 * 60.0


def go_duration(seconds: float) -> str:
    """Format a duration as Go's time.Duration.String does (``10s``, ``1m30s``, ``1.5s``)."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.9f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{sign}{int(hours)}h{int(minutes)}m{text}"
    if minutes:
        return f"{sign}{int(minutes)}m{text}"
    return sign + text


class WaitingPod:
    """A pod that Permit asked to wait: each waiting plugin must allow it before its deadline."""

    def __init__(self, pod: Pod, deadlines: dict[str, float], started: float) -> None:
        self.pod = pod
        self._deadlines = dict(deadlines)
        self._started = started
        self.outcome: Status | None = None

    def get_pending_plugins(self) -> list[str]:
        """Plugins that have not allowed the pod yet."""
        return sorted(self._deadlines)

    def allow(self, plugin: str) -> None:
        """``plugin`` lets the pod through; with no plugin left waiting, the pod proceeds to binding."""
        self._deadlines.pop(plugin, None)
        if not self._deadlines and self.outcome is None:
            self.outcome = Status.success()

    def reject(self, plugin: str, message: str) -> None:
        """``plugin`` rejects the pod: it is unreserved and goes back to the queue as unschedulable."""
        if self.outcome is None:
            self.outcome = Status.unschedulable(message).with_plugin(plugin)

    def next_deadline(self) -> float | None:
        """When the earliest waiting plugin times out."""
        return min(self._deadlines.values()) if self._deadlines and self.outcome is None else None

    def expire(self, now: float) -> None:
        """Reject on behalf of the first plugin whose deadline has passed."""
        for plugin, deadline in sorted(self._deadlines.items(), key=lambda kv: (kv[1], kv[0])):
            if deadline <= now:
                waited = go_duration(deadline - self._started)
                self.reject(plugin, f"rejected due to timeout after waiting {waited} at plugin {plugin}")
                return


class PodNominator(Protocol):
    """Pods nominated to nodes (status.nominatedNodeName), as the scheduler tracks them."""

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        """Record a nomination: the Override node, else the pod's own status.nominatedNodeName."""

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        """Forget ``pod``'s nomination, if any."""

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        """Carry a nomination over to a new version of the pod."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name``, in nomination order (a copy: changing it changes nothing)."""

    def nominated_node_of(self, pod: Pod) -> str:
        """The node ``pod`` is nominated to, or ``""``."""

    def has_nominations(self) -> bool:
        """Whether any pod is nominated anywhere."""


class PodLister(Protocol):
    """Reads pods from the cluster, as kube-scheduler plugins use the pod informer's lister.

    It reads the cluster through the backend, so it answers the same inside and outside a scheduling cycle
    (Permit, Reserve, PostBind, a plugin's own bookkeeping). It shows the cluster, not the scheduler's view:
    a pod the scheduler assumed on a node but has not bound yet is still pending here (it has no
    spec.nodeName), and nominated pods are where the cluster has them. For the current cycle's view, with
    assumed pods on their nodes, read ``handle.snapshot`` (kube-scheduler's SharedLister) instead.

    The collections are read-only and may be live views (no copy per call): iterate them right away, and
    copy them (``list(...)``) before changing the cluster or keeping them.
    """

    def list(self) -> Collection[Pod]:
        """Every pod in the cluster: pending, bound and terminating."""

    def on_node(self, node_name: str) -> Collection[Pod]:
        """The pods bound to ``node_name`` (empty for an unknown node)."""

    def in_namespace(self, namespace: str) -> Collection[Pod]:
        """The pods of ``namespace`` (empty for an unknown namespace)."""

    def get(self, namespace: str, name: str) -> Pod | None:
        """The current version of pod ``namespace/name``, or None when it does not exist."""


class NamespaceLister(Protocol):
    """Reads Namespace objects from the cluster (through the backend, inside and outside a cycle)."""

    def list(self) -> Collection[Namespace]:
        """Every Namespace object the cluster holds."""

    def get(self, name: str) -> Namespace | None:
        """The Namespace ``name``, or None when the cluster holds no such object."""


class StorageLister(Protocol):
    """Reads the storage objects the volume plugins need (through the backend, inside and outside a cycle)."""

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """PersistentVolumeClaim ``namespace/name``, or None."""

    def claims(self) -> Collection[PersistentVolumeClaim]:
        """Every claim."""

    def volume(self, name: str) -> PersistentVolume | None:
        """PersistentVolume ``name``, or None."""

    def volumes(self) -> Collection[PersistentVolume]:
        """Every PersistentVolume."""

    def storage_class(self, name: str) -> StorageClass | None:
        """StorageClass ``name``, or None."""

    def storage_classes(self) -> Collection[StorageClass]:
        """Every StorageClass."""

    def csi_node(self, name: str) -> CSINode | None:
        """The CSINode of node ``name``, or None."""

    def csi_driver(self, name: str) -> CSIDriver | None:
        """CSIDriver ``name``, or None."""

    def capacities(self) -> Collection[CSIStorageCapacity]:
        """Every CSIStorageCapacity."""


class Handle(Protocol):
    """The services a plugin may use; passed to every plugin's constructor."""

    @property
    def profile_name(self) -> str:
        """The scheduler name of the profile the plugin runs in."""

    @property
    def snapshot(self) -> Snapshot:
        """The current cycle's snapshot of every node (read-only for plugins)."""

    @property
    def client(self) -> ClusterClient:
        """The cluster backend: bind, delete, patch nominations, record events."""

    @property
    def pod_lister(self) -> PodLister:
        """Pods as the cluster holds them (all, by node, by namespace); usable outside a cycle too."""

    @property
    def namespace_lister(self) -> NamespaceLister:
        """Namespaces as the cluster holds them."""

    @property
    def storage_lister(self) -> StorageLister:
        """PersistentVolumes, claims, StorageClasses and CSI objects as the cluster holds them."""

    @property
    def nominator(self) -> PodNominator:
        """Pods nominated to nodes."""

    @property
    def rng(self) -> random.Random:
        """The run's seeded random generator; use it for every random choice."""

    @property
    def clock(self) -> Clock:
        """The scheduler's clock (virtual in simulations)."""

    @property
    def preemption_accelerator(self) -> PreemptionAccelerator | None:
        """What the runtime offers the preemption Evaluator to reach the reference dry run's answers without Filter
        runs on node copies; None on the reference path. Plugins never need it: they express speed through batch
        hooks and ``filter_reads`` declarations, never by asking which path runs."""

    def record_candidate_choice(self, choice: CandidateChoice) -> None:
        """Tell the runtime which candidates a preemption weighed and which it chose (``--explain`` shows it)."""

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """Run the profile's Filter plugins twice, with and without higher-priority nominated pods."""

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's AddPod extension."""

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's RemovePod extension."""

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """The waiting pod with this uid, if Permit is holding it."""

    def waiting_pods(self) -> list[WaitingPod]:
        """Every pod Permit is holding, oldest first."""

    def subscribe(self, listener: ClusterListener) -> None:
        """Have ``listener`` told of every pod and node change (its ``on_pod_add``, ``on_node_update``... methods,
        as :class:`~kubesched.backend.ClusterListener` defines them), as a kube-scheduler plugin registers informer
        event handlers: called in order of the changes, after the scheduler's cache and queue handled each, so a
        plugin can keep its own ledger. Subscribe in the constructor to see every change from the start."""

"""The backend contract: what the scheduler asks of a cluster, and what a cluster tells the scheduler.

Nothing in ``framework/`` or ``plugins/`` knows which backend runs; the simulator implements this with
a virtual clock, and a Kubernetes backend can implement it with API calls.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Protocol

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.storage import PersistentVolume, PersistentVolumeClaim
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.storage import StorageStore


class Clock(Protocol):
    """A source of time in seconds. The simulator's clock is virtual."""

    def now(self) -> float:
        """Seconds since the clock's epoch."""

    def timestamp(self) -> datetime:
        """The current time as a wall-clock instant (compared with pods' start times by preemption)."""


class BindingError(RuntimeError):
    """The backend refused a binding (the pod is gone, already bound, or the node vanished)."""


class DeletionError(RuntimeError):
    """The backend refused a pod's deletion, or the status write that goes before it; the message is the
    cluster's answer."""


class ClusterClient(Protocol):
    """Writes and reads the scheduler performs against the cluster."""

    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind ``pod`` to ``node_name`` (POST pods/binding); raise :class:`BindingError` on refusal."""

    def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
        """Gracefully delete ``pod``, after adding ``condition`` (DisruptionTarget) to its status. A pod already
        gone counts as deleted; a refused status write (then nothing is deleted) or deletion raises
        :class:`DeletionError`, which fails the preemption with an Error that nominates nothing."""

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch status.nominatedNodeName (``""`` clears it)."""

    def set_scheduling_failure(self, pod: Pod, reason: str, message: str,
                               nominated_node_name: str | None = None) -> None:
        """Patch the PodScheduled=False condition with ``reason`` and ``message`` and, unless
        ``nominated_node_name`` is None, status.nominatedNodeName, in one write (kube-scheduler's updatePod)."""

    def record_event(self, regarding: Pod, event_type: str, reason: str, message: str) -> None:
        """Record an event about ``regarding`` (Normal/Warning, reason, message)."""

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The current version of a pod, or None when it no longer exists."""

    def list_pods(self) -> Collection[Pod]:
        """Every pod the cluster holds (pending, bound, terminating), as a pod informer does; pods the scheduler
        only assumed are still pending here. A read-only collection; it may be a live view, so do not keep it
        across changes to the cluster."""

    def list_pods_on_node(self, node_name: str) -> Collection[Pod]:
        """The pods bound to ``node_name`` (spec.nodeName), like :meth:`list_pods`; empty for an unknown node."""

    def list_pods_in_namespace(self, namespace: str) -> Collection[Pod]:
        """The pods of ``namespace``, like :meth:`list_pods`; empty for an unknown namespace."""

    def list_namespaces(self) -> Collection[Namespace]:
        """Every Namespace object the cluster holds."""

    def get_namespace(self, name: str) -> Namespace | None:
        """The Namespace ``name``, or None when the cluster holds no such object."""

    def list_pdbs(self) -> list[PodDisruptionBudget]:
        """Every PodDisruptionBudget."""

    def record_preemption(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """Note that ``preemptor`` preempted ``victims`` (in kube-scheduler's order) on ``node_name``.

        Informational: called after the victims were deleted; the simulator reports it, a real-cluster
        backend may log it.
        """

    def get_namespace_labels(self, name: str) -> Mapping[str, str]:
        """The labels of namespace ``name`` (what a namespaceSelector is matched against)."""

    def list_services(self, namespace: str) -> list[Service]:
        """The Services in ``namespace``."""

    def get_controller(self, kind: str, namespace: str, name: str) -> WorkloadController | None:
        """The ReplicaSet, StatefulSet or ReplicationController of that kind and name, or None."""

    @property
    def storage(self) -> StorageStore:
        """The storage objects (PersistentVolumes, claims, StorageClasses, CSI objects); it tells its subscribers
        of every change."""

    def update_claim(self, claim: PersistentVolumeClaim) -> None:
        """Write a claim's new version (VolumeBinding's PreBind: the selected-node annotation)."""

    def update_volume(self, volume: PersistentVolume) -> None:
        """Write a PersistentVolume's new version (VolumeBinding's PreBind: the claimRef binding it to a claim)."""


class ClusterListener(Protocol):
    """Receives cluster changes as an informer delivers them (the scheduler's event handlers).

    A backend calls these synchronously for every change it makes or observes, so that the scheduler's
    cache, queue and nominator stay consistent with the cluster.
    """

    def on_node_add(self, node: Node) -> None:
        """A node appeared."""

    def on_node_update(self, node: Node) -> None:
        """A node changed (labels, taints, allocatable, unschedulable)."""

    def on_node_delete(self, name: str) -> None:
        """A node is gone."""

    def on_pod_add(self, pod: Pod) -> None:
        """A pod appeared (pending or already bound)."""

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod changed: bound, nominated, given a deletionTimestamp, relabelled."""

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod is gone."""

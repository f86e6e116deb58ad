"""An in-memory cluster with a virtual clock: the embedded backend behind ``kubesched simulate``.

It holds the objects, applies the scheduler's writes (bind, delete, status patches), records events,
and tells its listener (the scheduler's event handlers) about every change, synchronously.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import attrs

from kubesched.api.meta import ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.replace import replaced
from kubesched.api.storage import PersistentVolume, PersistentVolumeClaim
from kubesched.api.workload import (
    NAMESPACE_NAME_LABEL,
    Namespace,
    Service,
    WorkloadController,
    namespace_labels,
)
from kubesched.backend import BindingError, ClusterListener
from kubesched.sim.agenda import EPOCH as EPOCH
from kubesched.sim.agenda import MAX_TIMESTAMP as MAX_TIMESTAMP
from kubesched.sim.agenda import Agenda, as_utc
from kubesched.sim.agenda import VirtualClock as VirtualClock
from kubesched.storage import StorageStore

#: The events.k8s.io/v1 ``action`` of the events kube-scheduler writes, by reason.
SCHEDULER_ACTIONS = {"Scheduled": "Binding", "FailedScheduling": "Scheduling", "Preempted": "Preempting"}


@attrs.frozen
class Event:
    """A recorded event: when (simulated seconds), Normal/Warning, reason, the object (``ns/name``, or ``name`` for
    a cluster-scoped one) and the message; then the object's kind, namespace and name, the action taken, and the
    object's uid ("" for one without, such as a scenario)."""

    time: float
    type: str
    reason: str
    object: str
    message: str
    kind: str = "Pod"
    namespace: str = ""
    name: str = ""
    action: str = ""
    uid: str = ""

    def to_json(self) -> dict[str, Any]:
        """The event as the ``events`` entries of the JSON output (docs/simulate.md)."""
        return {"time": self.time, "type": self.type, "reason": self.reason, "object": self.object,
                "message": self.message, "action": self.action,
                "regarding": {"kind": self.kind, "namespace": self.namespace, "name": self.name, "uid": self.uid}}


@attrs.frozen
class RecordedPreemption:
    """One preemption: the preemptor and node, the victims (``ns/name``) in kube-scheduler's order, and for each
    victim whether it was already terminating (an earlier preemption or a user's delete) when it was chosen; then
    the uids of the preemptor and of each victim, and when it happened."""

    preemptor: str
    node: str
    victims: tuple[str, ...]
    already_terminating: tuple[bool, ...]
    preemptor_uid: str = ""
    victim_uids: tuple[str, ...] = ()
    #: When the preemption happened, in simulated seconds.
    time: float = 0.0


class InMemoryCluster:
    """Nodes, pods and PDBs in memory, implementing :class:`~kubesched.backend.ClusterClient`."""

    def __init__(self, clock: VirtualClock, agenda: Agenda | None = None) -> None:
        self.clock = clock
        #: Where the cluster's timers (grace periods, and those of the controllers and scenarios) wait: the
        #: simulation's agenda, or one of the cluster's own.
        self.agenda = agenda if agenda is not None else Agenda(clock)
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.pdbs: list[PodDisruptionBudget] = []
        self.namespaces: dict[str, Namespace] = {}
        self.services: list[Service] = []
        self.controllers: dict[tuple[str, str, str], WorkloadController] = {}
        #: PersistentVolumes, claims, StorageClasses and CSI objects.
        self.storage = StorageStore()
        self.events: list[Event] = []
        #: Every preemption, in the order they happened.
        self.preemptions: list[RecordedPreemption] = []
        self.deleted: dict[str, Pod] = {}
        self._by_key: dict[str, str] = {}
        # Indexes for the pod listers: node name / namespace -> uid -> pod (only non-empty entries).
        self._by_node: dict[str, dict[str, Pod]] = {}
        self._by_namespace: dict[str, dict[str, Pod]] = {}
        self._implied: dict[str, Namespace] = {}
        self._listeners: list[ClusterListener] = []
        #: How each removed pod ended when it was not deleted by the scheduler or a user: pod uid -> phase
        #: (Succeeded, or Lost with its node).
        self.ended: dict[str, str] = {}
        #: Called before the PDBs are read, so a disruption controller can bring their status up to date.
        self.pdb_refresher: Callable[[], None] | None = None

    def subscribe(self, listener: ClusterListener) -> None:
        """Send every later change to ``listener``."""
        self._listeners.append(listener)

    # -- object lifecycle ----------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        """Create a node."""
        self.nodes[node.name] = node
        for listener in self._listeners:
            listener.on_node_add(node)

    def update_node(self, node: Node) -> None:
        """Replace a node (labels, taints, unschedulable changed)."""
        self.nodes[node.name] = node
        for listener in self._listeners:
            listener.on_node_update(node)

    def delete_node(self, name: str) -> list[Pod]:
        """Delete a node: the pods bound to it are lost at once (phase Lost), then the node goes; returns them."""
        lost = sorted(self._by_node.get(name, {}).values(), key=lambda p: p.key)
        for pod in lost:
            self.ended[pod.uid] = "Lost"
            self._remove_pod(pod.uid)
        del self.nodes[name]
        for listener in self._listeners:
            listener.on_node_delete(name)
        return lost

    def complete_pod(self, pod: Pod) -> None:
        """A bound pod's containers finished: it reaches phase Succeeded and frees its node. kube-scheduler's pod
        informer drops finished pods, so the listeners see it deleted (with phase Succeeded)."""
        current = self.pods.get(pod.uid)
        if current is None:
            return
        self.pods[pod.uid] = current.with_status(phase="Succeeded")
        self.ended[pod.uid] = "Succeeded"
        self._remove_pod(pod.uid)

    def add_pod(self, pod: Pod) -> None:
        """Create a pod. One that is already terminating (a deletionTimestamp, as a dump can show) is removed
        when its deletionTimestamp comes, or at once if it has passed, as its kubelet would finish it."""
        self.pods[pod.uid] = pod
        self._by_key[pod.key] = pod.uid
        self._index(pod)
        for listener in self._listeners:
            listener.on_pod_add(pod)
        deadline = pod.metadata.deletion_timestamp
        if deadline is not None:
            remaining = (as_utc(deadline) - self.clock.timestamp()).total_seconds()
            if remaining > 0:
                self.after(remaining, lambda: self._remove_pod(pod.uid))
            else:
                self._remove_pod(pod.uid)

    def _update_pod(self, new: Pod) -> None:
        old = self.pods[new.uid]
        self.pods[new.uid] = new
        self._unindex(old)
        self._index(new)
        for listener in self._listeners:
            listener.on_pod_update(old, new)

    def _remove_pod(self, uid: str) -> None:
        pod = self.pods.pop(uid, None)
        if pod is None:
            return
        self._by_key.pop(pod.key, None)
        self._unindex(pod)
        self.deleted[uid] = pod
        for listener in self._listeners:
            listener.on_pod_delete(pod)

    def _index(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self._by_node.setdefault(pod.spec.node_name, {})[pod.uid] = pod
        self._by_namespace.setdefault(pod.namespace, {})[pod.uid] = pod

    def _unindex(self, pod: Pod) -> None:
        for index, key in ((self._by_node, pod.spec.node_name), (self._by_namespace, pod.namespace)):
            entry = index.get(key)
            if entry is not None:
                entry.pop(pod.uid, None)
                if not entry:
                    del index[key]

    # -- timers --------------------------------------------------------------------------------------
    def after(self, delay: float, action: Callable[[], None], *, background: bool = False) -> None:
        """Run ``action`` when the clock reaches now + ``delay`` (a timer on the agenda). A ``background`` timer (a
        recurring schedule) fires in order like any other but does not by itself keep a run from ending."""
        self.agenda.after(delay, action, background=background)

    def next_timer(self, *, background: bool = True) -> float | None:
        """When the next entry of the agenda is due; with ``background=False``, the next one that keeps a run
        going."""
        return self.agenda.next_time(background=background)

    def fire_due_timers(self) -> int:
        """Run every entry of the agenda due at the current time, in order; returns how many ran."""
        return self.agenda.dispatch_due()

    # -- ClusterClient -------------------------------------------------------------------------------
    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind a pod: it must still exist, be unassigned, and the node must exist."""
        current = self.pods.get(pod.uid)
        if current is None:
            raise BindingError(f'pods "{pod.name}" not found')
        if current.spec.node_name:
            raise BindingError(f'pod {pod.key} is already assigned to node "{current.spec.node_name}"')
        if node_name not in self.nodes:
            raise BindingError(f'nodes "{node_name}" not found')
        # One copy of the pod with its new spec and status (binding is on every placement's path).
        status = current.status
        self._update_pod(replaced(current, spec=replaced(current.spec, node_name=str(node_name)), status=replaced(
            status, nominated_node_name="", conditions=_set_condition(status.conditions, _SCHEDULED),
            start_time=status.start_time or self.clock.timestamp())))

    def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
        """Gracefully delete: mark it terminating now, remove it after its grace period. Its deletionTimestamp is
        when the grace period ends, as the API server sets it. With a grace period of 0 the API server deletes the
        pod within the request (watchers see the deletionTimestamp, then the delete): it is gone before the next
        scheduling cycle, not once the queue drains.

        ``condition`` is patched in first when the pod lacks it. Deleting a pod that is already terminating only
        does that patch: its deletionTimestamp and removal stay, as the API server keeps them.
        """
        current = self.pods.get(pod.uid)
        if current is None:
            return
        conditions = current.status.conditions
        if condition is not None and condition not in conditions:
            conditions = _set_condition(conditions, condition)
        if current.metadata.deletion_timestamp is not None:
            if conditions is not current.status.conditions:
                self._update_pod(current.with_status(conditions=conditions))
            return
        grace = float(current.spec.termination_grace_period_seconds)
        meta = attrs.evolve(current.metadata, deletion_timestamp=self.clock.at(self.clock.now() + grace))
        self._update_pod(attrs.evolve(current, metadata=meta).with_status(conditions=conditions))
        if grace <= 0:
            self.agenda.at_request_end(lambda: self._remove_pod(current.uid))
        else:
            self.agenda.after(grace, lambda: self._remove_pod(current.uid))

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch status.nominatedNodeName."""
        current = self.pods.get(pod.uid)
        if current is not None and current.status.nominated_node_name != node_name:
            self._update_pod(current.with_status(nominated_node_name=node_name))

    def set_scheduling_failure(self, pod: Pod, reason: str, message: str,
                               nominated_node_name: str | None = None) -> None:
        """Patch the PodScheduled=False condition and, unless ``nominated_node_name`` is None, the nominated node,
        in one write; a pod that already has both unchanged is not written again, as kube-scheduler's updatePod
        skips a write that changes nothing (so watchers see no update)."""
        current = self.pods.get(pod.uid)
        if current is None:
            return
        status = current.status
        condition = PodCondition("PodScheduled", "False", reason, message)
        changes: dict[str, object] = {}
        if condition not in status.conditions:
            changes["conditions"] = _set_condition(status.conditions, condition)
        if nominated_node_name is not None and nominated_node_name != status.nominated_node_name:
            changes["nominated_node_name"] = nominated_node_name
        if changes:
            self._update_pod(current.with_status(**changes))

    def record_event(self, regarding: Pod, event_type: str, reason: str, message: str) -> None:
        """Append an event about a pod at the current simulated time (the scheduler's events, with their action as
        kube-scheduler writes it)."""
        self.events.append(Event(self.clock.now(), event_type, reason, regarding.key, message, "Pod",
                                 regarding.namespace, regarding.name, SCHEDULER_ACTIONS.get(reason, ""),
                                 regarding.uid))

    def record_object_event(self, kind: str, namespace: str, name: str, event_type: str, reason: str, message: str,
                            *, action: str = "", uid: str = "") -> None:
        """Append an event about any object at the current simulated time: the simulation's own events (a node
        deleted, a pod created by a controller or evicted, a scenario step). ``namespace`` is "" for a
        cluster-scoped object such as a Node; ``uid`` is the object's ("" for one without, such as a scenario)."""
        key = f"{namespace}/{name}" if namespace else name
        self.events.append(Event(self.clock.now(), event_type, reason, key, message, kind, namespace, name, action,
                                 uid))

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The live pod ``namespace/name``."""
        uid = self._by_key.get(f"{namespace}/{name}")
        return self.pods.get(uid) if uid is not None else None

    def list_pods(self) -> Collection[Pod]:
        """Every live pod: a read-only live view, no copy."""
        return self.pods.values()

    def list_pods_on_node(self, node_name: str) -> Collection[Pod]:
        """The live pods bound to ``node_name``: a read-only live view of the node's index entry."""
        entry = self._by_node.get(node_name)
        return entry.values() if entry is not None else ()

    def list_pods_in_namespace(self, namespace: str) -> Collection[Pod]:
        """The live pods of ``namespace``: a read-only live view of the namespace's index entry."""
        entry = self._by_namespace.get(namespace)
        return entry.values() if entry is not None else ()

    def list_namespaces(self) -> Collection[Namespace]:
        """The input's Namespace objects, then (by name) every other namespace a live pod is in: the API server
        admits a pod only into an existing namespace, so a dump without Namespace objects still implies them."""
        implied = sorted(name for name in self._by_namespace if name not in self.namespaces)
        if not implied:
            return self.namespaces.values()
        return [*self.namespaces.values(), *(self._implied_namespace(name) for name in implied)]

    def get_namespace(self, name: str) -> Namespace | None:
        """The Namespace ``name``: from the input, or implied by a live pod in it (see :meth:`list_namespaces`)."""
        found = self.namespaces.get(name)
        if found is None and name in self._by_namespace:
            return self._implied_namespace(name)
        return found

    def _implied_namespace(self, name: str) -> Namespace:
        """A namespace the input implies, labelled as the API server labels every namespace (built once)."""
        namespace = self._implied.get(name)
        if namespace is None:
            namespace = self._implied[name] = Namespace(ObjectMeta(name=name, labels={NAMESPACE_NAME_LABEL: name}))
        return namespace

    def list_pdbs(self) -> list[PodDisruptionBudget]:
        """Every PDB (brought up to date first when a disruption controller runs)."""
        if self.pdb_refresher is not None:
            self.pdb_refresher()
        return list(self.pdbs)

    def record_preemption(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """Remember a preemption for the simulation result; ``victims`` are the pods as the preemption chose them,
        so a deletion timestamp on one means it was already terminating."""
        self.preemptions.append(RecordedPreemption(
            preemptor.key, node_name, tuple(v.key for v in victims),
            tuple(v.metadata.deletion_timestamp is not None for v in victims), preemptor.uid,
            tuple(v.uid for v in victims), self.clock.now()))

    def get_namespace_labels(self, name: str) -> Mapping[str, str]:
        """A namespace's labels; namespaces absent from the input carry only their name label."""
        return namespace_labels(name, self.namespaces)

    def list_services(self, namespace: str) -> list[Service]:
        """The Services of a namespace, in input order."""
        return [s for s in self.services if s.metadata.namespace == namespace]

    def get_controller(self, kind: str, namespace: str, name: str) -> WorkloadController | None:
        """The ReplicaSet, StatefulSet or ReplicationController ``namespace/name`` of that kind, if known."""
        return self.controllers.get((kind, namespace, name))

    def update_claim(self, claim: PersistentVolumeClaim) -> None:
        """Store a claim's new version (its subscribers, the storage controller among them, are told)."""
        self.storage.put(claim)

    def update_volume(self, volume: PersistentVolume) -> None:
        """Store a PersistentVolume's new version."""
        self.storage.put(volume)

    def add_workloads(self, namespaces: Iterable[Namespace], services: Iterable[Service],
                      controllers: Iterable[WorkloadController]) -> None:
        """Hold the namespaces and workload objects plugins look up (they never change during a run)."""
        self.namespaces.update((n.name, n) for n in namespaces)
        self.services.extend(services)
        self.controllers.update(((c.kind, c.metadata.namespace, c.metadata.name), c) for c in controllers)


_SCHEDULED = PodCondition("PodScheduled", "True")


def _set_condition(conditions: tuple[PodCondition, ...], condition: PodCondition) -> tuple[PodCondition, ...]:
    kept = tuple(c for c in conditions if c.type != condition.type)
    return (*kept, condition)


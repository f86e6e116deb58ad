"""The backend contract over a real API server: reads from the informers' stores, writes through the API.

:class:`KubeCluster` implements :class:`~kubesched.backend.ClusterClient` and :class:`~kubesched.backend.Clock`.
The scheduling loop feeds it the reflectors' output (:meth:`apply`); it decodes each object with kubesched's
manifest decoders, keeps the stores and indexes the listers need, and tells its listener (the scheduler's event
handlers) what changed, as the in-memory cluster does for ``simulate``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.storage import PersistentVolume, PersistentVolumeClaim
from kubesched.api.workload import Namespace, Service, WorkloadController, namespace_labels
from kubesched.backend import BindingError, ClusterListener, DeletionError
from kubesched.errors import InputError
from kubesched.io import decode, decode_storage
from kubesched.io.decode_pod import pod as decode_pod
from kubesched.io.fields import collecting
from kubesched.kube.binder import BindConflictError, Binder
from kubesched.kube.events import EventRecorder
from kubesched.kube.informer import Delta, Replace
from kubesched.kube.rest import MERGE_PATCH, STRATEGIC_MERGE_PATCH, ApiError, KubeApi, Obj, pod_path
from kubesched.kube.writes import WriteGuard, retry_on_error
from kubesched.storage import StorageStore

log = logging.getLogger(__name__)

DECODERS: Mapping[str, Callable[[Obj], Any]] = {
    "Node": decode.node, "Namespace": decode.namespace, "PriorityClass": decode.priority_class,
    "PodDisruptionBudget": decode.pod_disruption_budget, "Service": decode.service,
    "ReplicaSet": decode.workload_controller, "StatefulSet": decode.workload_controller,
    "ReplicationController": decode.workload_controller, "Pod": decode_pod,
    "PersistentVolume": decode_storage.persistent_volume,
    "PersistentVolumeClaim": decode_storage.persistent_volume_claim,
    "StorageClass": decode_storage.storage_class, "CSINode": decode_storage.csi_node,
    "CSIDriver": decode_storage.csi_driver, "CSIStorageCapacity": decode_storage.csi_storage_capacity,
}
#: The kinds kept in the storage store the volume plugins read.
STORAGE_KINDS = frozenset(("PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
                           "CSIStorageCapacity"))


def decode_object(obj: Obj) -> Any | None:
    """An API object as kubesched's model, or None (logged) when kubesched's validation rejects it."""
    errors: list[InputError] = []
    with collecting() as problems:
        try:
            value = DECODERS[obj["kind"]](obj)
        except InputError as error:
            errors.append(error)
    errors.extend(problems.errors)
    if errors:
        meta = obj.get("metadata") or {}
        log.warning("ignoring %s %s/%s: %s", obj["kind"], meta.get("namespace", ""), meta.get("name", ""),
                    "; ".join(str(e) for e in errors))
        return None
    return value


def _name_key(value: Any) -> str:
    """"namespace/name" of a decoded object ("/name" when cluster-scoped)."""
    return f"{value.metadata.namespace or ''}/{value.metadata.name}"


def _uid(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("uid", ""))


def _version(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion", ""))


class KubeCluster:
    """Stores fed by the reflectors, plus the scheduler's writes to the API server."""

    def __init__(self, api: KubeApi, recorder: EventRecorder | None) -> None:
        self.api = api
        self.recorder = recorder
        self.listener: ClusterListener | None = None
        #: kind -> uid -> (resourceVersion, decoded object)
        self.stores: dict[str, dict[str, tuple[str, Any]]] = {kind: {} for kind in DECODERS}
        self._by_key: dict[str, str] = {}
        #: kind -> "namespace/name" -> object, for the kinds other than Pod (looked up by name per cycle).
        self._named: dict[str, dict[str, Any]] = {kind: {} for kind in DECODERS if kind != "Pod"}
        self._by_node: dict[str, dict[str, Pod]] = {}
        self._by_namespace: dict[str, dict[str, Pod]] = {}
        #: Pods this scheduler bound and the informer has not yet shown bound: uid -> (node, monotonic time).
        self.bound: dict[str, tuple[str, float]] = {}
        #: Fresher versions of pods learned from direct reads (a 409 on bind), until the watch catches up.
        self.fresher: dict[str, Pod] = {}
        self.binder = Binder(api, decode_object)
        #: PersistentVolumes, claims, StorageClasses and CSI objects, as the informers show them.
        self.storage = StorageStore()
        #: Bounds every write by the leader's Lease (the runner sets it under leader election).
        self.guard = WriteGuard()

    # -- Clock ---------------------------------------------------------------------------------------
    def now(self) -> float:
        """Monotonic seconds: backoff and Permit timeouts never jump with the wall clock."""
        return time.monotonic()

    def timestamp(self) -> datetime:
        """The wall-clock instant, compared with pods' start times by preemption."""
        return datetime.now(UTC)

    # -- informer input ------------------------------------------------------------------------------
    def apply(self, item: Replace | Delta) -> None:
        """Bring a store up to date with a reflector's output and tell the listener what changed."""
        store = self.stores[item.kind]
        if isinstance(item, Delta):
            uid = _uid(item.obj)
            if item.type == "DELETED":
                self._delete(item.kind, uid)
            else:
                self._upsert(item.kind, uid, item.obj)
            return
        listed = {_uid(obj): obj for obj in item.items}
        for uid in [uid for uid in store if uid not in listed]:
            self._delete(item.kind, uid)
        for uid, obj in listed.items():
            known = store.get(uid)
            if known is None or known[0] != _version(obj):
                self._upsert(item.kind, uid, obj)

    def _upsert(self, kind: str, uid: str, obj: Obj) -> None:
        store = self.stores[kind]
        value = decode_object(obj)
        if value is None:
            self._delete(kind, uid)
            return
        old = store.get(uid)
        store[uid] = (_version(obj), value)
        if kind != "Pod":
            if old is not None:
                self._named[kind].pop(_name_key(old[1]), None)
            self._named[kind][_name_key(value)] = value
        if kind == "Pod":
            self.fresher.pop(uid, None)
            if value.spec.node_name:
                self.bound.pop(uid, None)
            if old is not None:
                self._unindex(old[1])
            self._index(value)
            if self.listener is not None:
                if old is None:
                    self.listener.on_pod_add(value)
                else:
                    self.listener.on_pod_update(old[1], value)
        elif kind in STORAGE_KINDS:
            self.storage.put(value)
        elif kind == "Node" and self.listener is not None:
            if old is None:
                self.listener.on_node_add(value)
            elif old[1] != value:  # a heartbeat changes nothing the scheduler reads: no retry storm
                self.listener.on_node_update(value)

    def _delete(self, kind: str, uid: str) -> None:
        old = self.stores[kind].pop(uid, None)
        if old is None:
            return
        value = old[1]
        if kind != "Pod" and self._named[kind].get(_name_key(value)) is value:
            del self._named[kind][_name_key(value)]
        if kind == "Pod":
            self.fresher.pop(uid, None)
            self._unindex(value)
            bound = self.bound.pop(uid, None)
            if bound is not None and not value.spec.node_name:
                value = value.with_node_name(bound[0])  # bound by us, deleted before the watch showed it
            if self.listener is not None:
                self.listener.on_pod_delete(value)
        elif kind in STORAGE_KINDS:
            self.storage.delete(value)
        elif kind == "Node" and self.listener is not None:
            self.listener.on_node_delete(value.name)

    def _index(self, pod: Pod) -> None:
        self._by_key[pod.key] = pod.uid
        if pod.spec.node_name:
            self._by_node.setdefault(pod.spec.node_name, {})[pod.uid] = pod
        self._by_namespace.setdefault(pod.namespace, {})[pod.uid] = pod

    def _unindex(self, pod: Pod) -> None:
        if self._by_key.get(pod.key) == pod.uid:
            del self._by_key[pod.key]
        for index, key in ((self._by_node, pod.spec.node_name), (self._by_namespace, pod.namespace)):
            entry = index.get(key)
            if entry is not None:
                entry.pop(pod.uid, None)
                if not entry:
                    del index[key]

    def objects(self, kind: str) -> list[Any]:
        """The decoded objects of a kind."""
        return [value for _, value in self.stores[kind].values()]

    # -- ClusterClient: writes -----------------------------------------------------------------------
    def bind(self, pod: Pod, node_name: str) -> None:
        """Bind through :class:`~kubesched.kube.binder.Binder`. After a 409 the pod read back is what get_pod
        answers until the watch catches up, so the failure handling sees it bound and forgets it."""
        try:
            timeout = self.guard.timeout()
        except ApiError as lapsed:
            log.warning("not binding pod %s: %s", pod.key, lapsed)
            raise BindingError(lapsed.message) from None
        try:
            self.binder.bind(pod, node_name, timeout)
        except BindConflictError as conflict:
            if conflict.current is not None:
                self.fresher[pod.uid] = conflict.current
            raise
        self.bound[pod.uid] = (node_name, time.monotonic())

    def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
        """Add ``condition`` (DisruptionTarget) to the pod's status, then delete it with its grace period, as
        kube-scheduler v1.32 preempts: a refused patch raises DeletionError before any DELETE, as does a refused
        DELETE, except 404 or 409 (the uid precondition: that pod is gone, maybe replaced under its name)."""
        if condition is not None:
            try:
                self._patch_condition(pod, condition)
            except ApiError as error:
                log.warning("could not add the %s condition to pod %s: %s", condition.type, pod.key, error)
                raise DeletionError(error.message or str(error)) from None
        try:
            self.api.request("DELETE", pod_path(pod.namespace, pod.name),
                             body={"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": pod.uid}},
                             timeout=self.guard.timeout())
        except ApiError as error:
            if error.status in (404, 409):
                log.info("pod %s was already deleted", pod.key)
                return
            log.warning("could not delete pod %s: %s", pod.key, error)
            raise DeletionError(error.message or str(error)) from None

    def _patch_condition(self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None) -> None:
        body: Obj = {"type": condition.type, "status": condition.status,
                     "lastTransitionTime": self.timestamp().strftime("%Y-%m-%dT%H:%M:%SZ")}
        if condition.reason:
            body["reason"] = condition.reason
        if condition.message:
            body["message"] = condition.message
        status: Obj = {"conditions": [body]}
        if nominated_node_name is not None:
            status["nominatedNodeName"] = nominated_node_name or None  # null clears it
        self.api.request("PATCH", pod_path(pod.namespace, pod.name, "status"),
                         body={"status": status}, content_type=STRATEGIC_MERGE_PATCH, timeout=self.guard.timeout())

    def update_claim(self, claim: PersistentVolumeClaim) -> None:
        """Patch the claim's annotations (VolumeBinding's PreBind sets the selected node); the informer brings the
        new version back."""
        self.api.request("PATCH", f"/api/v1/namespaces/{quote(claim.namespace)}/persistentvolumeclaims/"
                                  f"{quote(claim.name)}",
                         body={"metadata": {"annotations": dict(claim.metadata.annotations)}},
                         content_type=MERGE_PATCH, timeout=self.guard.timeout())

    def update_volume(self, volume: PersistentVolume) -> None:
        """Patch the PersistentVolume's claimRef and annotations (VolumeBinding's PreBind pre-binds it to the claim,
        marked bound by the controller, as kube-scheduler's update does); the PV controller completes the
        binding."""
        ref = volume.claim_ref
        claim_ref = None if ref is None else {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                              "namespace": ref.namespace, "name": ref.name, "uid": ref.uid or None}
        self.api.request("PATCH", f"/api/v1/persistentvolumes/{quote(volume.name)}",
                         body={"metadata": {"annotations": dict(volume.metadata.annotations)},
                               "spec": {"claimRef": claim_ref}}, content_type=MERGE_PATCH,
                         timeout=self.guard.timeout())

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Patch status.nominatedNodeName (``""`` clears it), retried as kube-scheduler's PatchPodStatus is."""
        try:
            retry_on_error(lambda: self.api.request(
                "PATCH", pod_path(pod.namespace, pod.name, "status"),
                body={"status": {"nominatedNodeName": node_name or None}}, content_type=MERGE_PATCH,
                timeout=self.guard.timeout()))
        except ApiError as error:
            log.warning("could not set the nominated node of pod %s: %s", pod.key, error)

    def set_scheduling_failure(self, pod: Pod, reason: str, message: str,
                               nominated_node_name: str | None = None) -> None:
        """Patch the PodScheduled=False condition and, unless ``nominated_node_name`` is None, the nominated node,
        in one PATCH (kube-scheduler's updatePod), retried as its PatchPodStatus is (a 500, a 503 or a refused
        connection: 4 tries within about 0.35 s)."""
        condition = PodCondition("PodScheduled", "False", reason, message)
        try:
            retry_on_error(lambda: self._patch_condition(pod, condition, nominated_node_name))
        except ApiError as error:
            log.warning("could not update the PodScheduled condition of pod %s: %s", pod.key, error)

    def record_event(self, regarding: Pod, event_type: str, reason: str, message: str) -> None:
        """Record an events.k8s.io/v1 Event (in the background)."""
        log.info("%s %s: %s", reason, regarding.key, message)
        if self.recorder is not None:
            self.recorder.record(regarding, event_type, reason, message)

    def record_preemption(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """Log the preemption (the events and deletions already happened)."""
        log.info("pod %s preempted %s on node %s", preemptor.key, ", ".join(v.key for v in victims), node_name)

    # -- ClusterClient: reads ------------------------------------------------------------------------
    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The informer's version of the pod, with what this process knows newer: the node of a bind the server
        accepted (read your own writes: the runtime checks that a successful Bind bound the pod), or the pod read
        back after a 409."""
        uid = self._by_key.get(f"{namespace}/{name}")
        if uid is None:
            return None
        fresher = self.fresher.get(uid)
        if fresher is not None:
            return fresher
        pod: Pod = self.stores["Pod"][uid][1]
        bound = self.bound.get(uid)
        return pod.with_node_name(bound[0]) if bound is not None and not pod.spec.node_name else pod

    def list_pods(self) -> Collection[Pod]:
        """Every non-terminated pod the informer holds."""
        return [value for _, value in self.stores["Pod"].values()]

    def list_pods_on_node(self, node_name: str) -> Collection[Pod]:
        """The pods bound to ``node_name``."""
        entry = self._by_node.get(node_name)
        return entry.values() if entry is not None else ()

    def list_pods_in_namespace(self, namespace: str) -> Collection[Pod]:
        """The pods of ``namespace``."""
        entry = self._by_namespace.get(namespace)
        return entry.values() if entry is not None else ()

    def list_namespaces(self) -> Collection[Namespace]:
        """Every Namespace."""
        return self.objects("Namespace")

    def get_namespace(self, name: str) -> Namespace | None:
        """The Namespace ``name``."""
        found: Namespace | None = self._named["Namespace"].get(f"/{name}")
        return found

    def get_namespace_labels(self, name: str) -> Mapping[str, str]:
        """The labels of namespace ``name``."""
        found = self.get_namespace(name)
        return namespace_labels(name, {name: found} if found is not None else {})

    def list_pdbs(self) -> list[PodDisruptionBudget]:
        """Every PodDisruptionBudget."""
        return self.objects("PodDisruptionBudget")

    def list_services(self, namespace: str) -> list[Service]:
        """The Services in ``namespace``."""
        return [s for s in self.objects("Service") if s.metadata.namespace == namespace]

    def get_controller(self, kind: str, namespace: str, name: str) -> WorkloadController | None:
        """The ReplicaSet, StatefulSet or ReplicationController of that kind and name."""
        if kind not in self._named or kind in ("Pod", "Node", "Namespace"):
            return None
        found: WorkloadController | None = self._named[kind].get(f"{namespace}/{name}")
        return found

    def node(self, name: str) -> Node | None:
        """The informer's Node ``name``."""
        found: Node | None = self._named["Node"].get(f"/{name}")
        return found

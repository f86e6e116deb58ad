"""What every controller shares: its owner identity, the pods it owns, and pods made from its template."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from kubesched.api.apps import PodTemplate
from kubesched.api.meta import ObjectMeta, OwnerReference
from kubesched.api.pod import Pod

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

#: The characters of generated name suffixes (k8s.io/apimachinery/pkg/util/rand: no vowels, no confusable digits).
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
#: The most pods one sync creates (kube's ReplicaSet burstReplicas and the Job controller's
#: MaxPodCreateDeletePerSync): the rest at the next sync, so spec.replicas 2147483647 is many cheap syncs, not one
#: list of two billion pods.
BURST_PODS = 500


#: Where a controller's own resource name appears in events and messages.
def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each character mapped into :data:`ALPHANUMS` (no vowels, so no words)."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


#: Fields the object model gained after pod-template-hashes were first printed: left out of a template's canonical
#: form while they hold their default, so a template that does not set them keeps the hash it always had.
_LATER_FIELDS = frozenset({"volumes", "runtime_class_name", "active_deadline_seconds"})


def _canonical(value: object) -> str:
    """``value``'s repr, without the later fields (:data:`_LATER_FIELDS`) of attrs classes that hold their
    default."""
    kind = type(value)
    if attrs.has(kind):
        parts = []
        for field in attrs.fields(kind):
            item = getattr(value, field.name)
            if field.name in _LATER_FIELDS and item == field.default:
                continue
            parts.append(f"{field.name}={_canonical(item)}")
        return f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, tuple):
        inner = ", ".join(_canonical(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def template_hash(value: object) -> str:
    """A pod-template-hash for ``value``: a 32-bit hash of its canonical form, safe-encoded as the Deployment
    controller encodes its FNV hash (the value differs from kube's, which hashes Go's dump of the template)."""
    return safe_encode(str(zlib.crc32(_canonical(value).encode("utf-8"))))


def is_active(pod: Pod) -> bool:
    """controller.IsPodActive: not finished and not terminating."""
    return pod.metadata.deletion_timestamp is None and pod.status.phase not in ("Succeeded", "Failed")


def is_available(pod: Pod) -> bool:
    """Available (and Ready), as kubesched models readiness: active and bound to a node."""
    return is_active(pod) and bool(pod.spec.node_name)


class Controller:
    """A workload's controller: ``sync`` brings the cluster towards the workload's spec; the manager calls it
    (after the controller delay) when the workload or one of its pods changes."""

    kind = ""
    api_version = "apps/v1"

    def __init__(self, manager: ControllerHost, metadata: ObjectMeta) -> None:
        self.manager = manager
        self.metadata = metadata
        self.deleted = False

    @property
    def regarding(self) -> tuple[str, str, str]:
        """The controller's object in events: kind, namespace, name."""
        return self.kind, self.metadata.namespace, self.metadata.name

    def record_event(self, event_type: str, reason: str, message: str) -> None:
        """Record an event about the controller's object (its kind, namespace, name and uid) now."""
        self.manager.cluster.record_object_event(*self.regarding, event_type, reason, message,
                                                 uid=self.metadata.uid)

    def queue_owner(self) -> None:
        """Have the controller of this workload sync after the controller delay (a CronJob hears of its Job
        finishing or going, as its Job informer tells kube's)."""
        for ref in self.metadata.owner_references:
            owner = self.manager.controllers.get(ref.uid) if ref.controller else None
            if owner is not None and not owner.deleted:
                self.manager.queue(owner)

    def owner_reference(self) -> OwnerReference:
        """The ownerReference the controller's pods (or ReplicaSets, Jobs) carry: controller true."""
        return OwnerReference(self.api_version, self.kind, self.metadata.name, self.metadata.uid, controller=True)

    def pods(self) -> list[Pod]:
        """The live pods this controller owns, by creation (then name)."""
        return self.manager.owned_pods(self.metadata.uid)

    def sync(self) -> None:
        """Reconcile; subclasses do the work."""

    def on_owned_pod_change(self, old: Pod | None, new: Pod | None) -> None:
        """One of its pods appeared, changed or went (``new`` None); by default, sync after the controller delay."""
        self.manager.queue(self)

    def delete(self) -> None:
        """The workload is deleted: its pods (and owned objects) go with it, as the garbage collector deletes
        dependents in the background."""
        self.deleted = True
        for pod in self.pods():
            self.manager.delete_pod(pod, f"Deleted pod: {pod.name}", self)

    def make_pod(self, name: str, template: PodTemplate, labels: Mapping[str, str] | None = None) -> Pod:
        """A pod from ``template``, named ``name``, owned by this controller, with extra ``labels``."""
        merged = {**template.metadata.labels, **(labels or {})}
        meta = ObjectMeta(name=name, namespace=self.metadata.namespace, uid=self.manager.new_uid(), labels=merged,
                          annotations=template.metadata.annotations,
                          creation_timestamp=self.manager.clock.timestamp(),
                          owner_references=(self.owner_reference(),))
        return attrs.evolve(Pod(metadata=meta, spec=template.spec))

    def created_message(self, pod: Pod) -> str:
        """The message of the SuccessfulCreate event for ``pod`` (the ReplicaSet controller's words)."""
        return f"Created pod: {pod.name}"

    def failed_create_message(self, pod: Pod, error: str) -> str:
        """The message of the FailedCreate event when ``pod`` could not be created."""
        return f"Error creating: {error}"

    def create_pod(self, pod: Pod) -> Pod | None:
        """Create ``pod`` in the cluster through the API server's admission: a SuccessfulCreate event, or a
        FailedCreate one and None when admission refuses it."""
        return self.manager.create_pod(pod, self)

    def create_in_batches(self, makers: Sequence[Callable[[], Pod]]) -> int:
        """slowStartBatch: create a pod with each maker, in batches of 1, 2, 4...; after a batch in which a pod was
        refused, the rest are skipped (the sync is retried after the backoff). Returns how many were created."""
        created, start, size = 0, 0, min(len(makers), 1)
        while size > 0:
            refused = False
            for make in makers[start:start + size]:
                if self.create_pod(make()) is None:
                    refused = True
                else:
                    created += 1
            if refused:
                break
            start += size
            size = min(2 * size, len(makers) - start)
        return created


class ScaledController(Controller):
    """A controller with spec.replicas (the scale subresource): a scenario's ``scale`` step, a Deployment (for its
    ReplicaSets) and the disruption controller read or set it."""

    def __init__(self, manager: ControllerHost, metadata: ObjectMeta, replicas: int) -> None:
        super().__init__(manager, metadata)
        self.replicas = replicas

    def scale(self, replicas: int) -> None:
        """Set spec.replicas; the pods follow at the next sync, at once."""
        if replicas != self.replicas:
            self.replicas = replicas
            self.manager.queue(self, 0.0)

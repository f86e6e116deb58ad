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
#: Where a controller's own resource name appears in events and messages.
def safe_encode(text: str) -> str:
    """rand.SafeEncodeString: each character mapped into :data:`ALPHANUMS` (no vowels, so no words)."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in text)


#: The pod spec fields added after the hash was fixed, as their repr shows them unset: left out of the canonical
#: form while unset, so that a template keeps its hash (and its ReplicaSet its name) across versions.
_LATER_FIELDS_UNSET = ", runtime_class_name='', active_deadline_seconds=None)"


def template_hash(value: object) -> str:
    """A pod-template-hash for ``value``: a 32-bit hash of its canonical form, safe-encoded as the Deployment
    controller encodes its FNV hash (the value differs from kube's, which hashes Go's dump of the template)."""
    text = repr(value).replace(_LATER_FIELDS_UNSET, ")")
    return safe_encode(str(zlib.crc32(text.encode("utf-8"))))


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

    def failed_create_message(self, pod: Pod, error: str) -> str:
        """The FailedCreate event's message, as controller.RealPodControl words it."""
        return f"Error creating: {error}"


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

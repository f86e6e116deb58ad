"""What ``kubesched capacity`` answers, and its JSON shape (``CapacityResult``, docs/capacity.md)."""

from __future__ import annotations

import attrs

#: Why the copies stopped: a copy the scheduler could not place, one the API server's admission refused (a
#: ResourceQuota), ``--max`` copies placed, ``--target`` copies placed, every node holding its pods allocatable
#: (a profile without NodeResourcesFit lets more in than the kubelet would admit).
UNSCHEDULABLE = "Unschedulable"
ADMISSION_REFUSED = "AdmissionRefused"
MAX_REACHED = "MaxReached"
TARGET_REACHED = "TargetReached"
PODS_ALLOCATABLE_REACHED = "PodsAllocatableReached"


@attrs.frozen
class Stop:
    """Why no more copies were added: ``reason`` (one of the constants above), the copy that did not fit
    (``namespace/name``; "" when a limit stopped them) and the message: the copy's FitError as ``simulate`` prints
    a pending pod's, the API server's refusal, or the limit reached."""

    reason: str
    copy: str
    message: str

    def to_json(self) -> dict[str, object]:
        """The result's ``stop`` key."""
        return {"reason": self.reason, "copy": self.copy or None, "message": self.message}


@attrs.frozen
class Victim:
    """A pod a copy preempted (``--preempt``): who, where, its priority, and the copy (``namespace/name``)."""

    namespace: str
    name: str
    node: str
    priority: int
    preemptor: str

    def to_json(self) -> dict[str, object]:
        """An entry of the result's ``victims`` key."""
        return {"namespace": self.namespace, "name": self.name, "node": self.node, "priority": self.priority,
                "preemptor": self.preemptor}


@attrs.frozen
class AddedNodes:
    """What ``--add-nodes`` did: the node template (``nodes/<name>``), the nodes added in order, the target
    (None: every pending pod of the input), whether it was reached, why not (else "") and the input's pods still
    pending (``namespace/name``, first ones)."""

    template: str
    names: tuple[str, ...]
    target: int | None
    reached: bool
    message: str = ""
    pending: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The result's ``addedNodes`` key."""
        return {"template": self.template, "count": len(self.names), "names": list(self.names),
                "target": self.target, "reached": self.reached, "message": self.message or None,
                "pending": list(self.pending)}


@attrs.frozen
class CapacityResult:
    """How many copies of the pod fit the settled cluster, where, and why the next one did not."""

    seed: int
    #: The object POD.yaml holds: its kind, namespace and name, and its location (``deployments/default/web``).
    kind: str
    namespace: str
    name: str
    template: str
    preempt: bool
    #: Copies bound at the end, and per node (by node name).
    copies: int
    per_node: tuple[tuple[str, int], ...]
    stop: Stop
    victims: tuple[Victim, ...] = ()
    added: AddedNodes | None = None
    #: Warnings about the input (what kubesched left out or does not enforce), one line each.
    warnings: tuple[str, ...] = ()
    #: One line per failing plugin and extension point, as ``simulate`` prints them.
    plugin_errors: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The documented JSON shape (``CapacityResult``)."""
        document: dict[str, object] = {
            "kind": "CapacityResult",
            "seed": self.seed,
            "pod": {"kind": self.kind, "namespace": self.namespace, "name": self.name},
            "preempt": self.preempt,
            "copies": self.copies,
            "nodes": [{"node": node, "copies": count} for node, count in self.per_node],
            "stop": self.stop.to_json(),
            "victims": [v.to_json() for v in self.victims],
        }
        if self.added is not None:
            document["addedNodes"] = self.added.to_json()
        return document

"""What a scenario says, once read: its steps (create, delete, patch-node, drain-node, delete-node, scale,
run-until) at virtual times, and the schema's constants. :mod:`kubesched.sim.scenario` reads and checks a file
into these; :mod:`kubesched.sim.scenario_run` runs them."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.api.node import Taint
from kubesched.io.load import ClusterInput
from kubesched.sim.controllers import ControllerSettings, StorageSettings

API_VERSION = "kubesched.io/v1alpha1"
KIND = "Scenario"
ACTIONS = ("create", "apply", "delete", "patch-node", "drain-node", "delete-node", "scale", "run-until")
#: What ``delete`` and ``scale`` may name.
DELETABLE = ("Pod", "Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Job", "CronJob",
             "PodDisruptionBudget", "Service")
SCALABLE = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet")
QUIESCENCE = "quiescence"
#: kubectl drain's pause between refused evictions.
DRAIN_RETRY = 5.0


@attrs.frozen
class ObjectRef:
    """A namespaced object by kind and name."""

    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@attrs.frozen
class Create:
    """``create`` (and ``apply``, which may also update Deployments and Nodes): the objects of a step."""

    objects: ClusterInput
    update: bool = False


@attrs.frozen
class Delete:
    """``delete``: objects by kind, namespace and name (a workload takes its pods with it)."""

    targets: tuple[ObjectRef, ...]


@attrs.frozen
class PatchNode:
    """``patch-node``: labels merged (a null value removes the label), taints replaced, cordon flag set."""

    name: str
    labels: Mapping[str, str | None] = attrs.field(factory=dict)
    taints: tuple[Taint, ...] | None = None
    unschedulable: bool | None = None


@attrs.frozen
class DrainNode:
    """``drain-node``: cordon, then evict every pod but DaemonSet pods, through the eviction API (PDBs honoured;
    refused evictions retried every 5 s until ``timeout`` seconds, or forever when None)."""

    name: str
    timeout: float | None = None


@attrs.frozen
class DeleteNode:
    """``delete-node``: the node and, at once, the pods on it."""

    name: str


@attrs.frozen
class Scale:
    """``scale``: set a Deployment's, ReplicaSet's or StatefulSet's replicas."""

    target: ObjectRef
    replicas: int


@attrs.frozen
class RunUntil:
    """``run-until``: run to a virtual time (seconds), or to quiescence when None."""

    time: float | None


Action = Create | Delete | PatchNode | DrainNode | DeleteNode | Scale | RunUntil


@attrs.frozen
class Step:
    """One step: its index in ``spec.steps``, its ``at`` time (None: right after the previous step) and action."""

    index: int
    at: float | None
    name: str
    action: Action


@attrs.frozen
class Scenario:
    """A validated scenario."""

    file: str
    name: str
    settings: ControllerSettings
    steps: tuple[Step, ...]
    #: The storage control loop's settings (``provisioningDelay``, ``provisioners`` in spec.settings).
    storage: StorageSettings = attrs.field(factory=StorageSettings)

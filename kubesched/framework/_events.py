"""Cluster events and queueing hints: how a plugin says which changes may make a pod it rejected schedulable.

kube-scheduler v1.32's EnqueueExtensions with queueing hints on. A plugin implements the
:func:`~kubesched.framework._hookspecs.events_to_register` hook and returns :class:`ClusterEventWithHint` values: an
event (a resource and action flags) and, optionally, a hint function ``hint(pod, old_obj, new_obj)`` that answers
for one rejected pod and one event whether the pod may now fit (:attr:`QueueingHint.QUEUE`) or not
(:attr:`QueueingHint.QUEUE_SKIP`). The scheduling queue moves a rejected pod only on an event that a plugin which
rejected it registered and whose hint says Queue (see docs/queue.md).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.resources import pod_requests


class EventResource(enum.Enum):
    """The kind of object an event is about (kube-scheduler's ``EventResource``)."""

    #: Any pod: registering Pod matches events of assigned pods and of unscheduled pods.
    POD = "Pod"
    #: A pod bound to a node (the runtime's incoming events; kube-scheduler v1.32 keeps it internal).
    ASSIGNED_POD = "AssignedPod"
    #: A pod not bound yet, in the queue (the runtime's incoming events; internal in kube-scheduler v1.32).
    UNSCHEDULED_POD = "UnschedulablePod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "StorageClass"
    CSI_NODE = "CSINode"
    CSI_DRIVER = "CSIDriver"
    CSI_STORAGE_CAPACITY = "CSIStorageCapacity"
    #: Every resource; with :attr:`ActionType.ALL`, a wildcard event that matches everything.
    WILDCARD = "*"


class ActionType(enum.IntFlag):
    """What happened to the object, as flags (kube-scheduler's ``ActionType``); combine them with ``|``."""

    ADD = 1
    DELETE = 1 << 1
    #: A node's status.allocatable changed.
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    #: A node's taints changed, or it was uncordoned (spec.unschedulable turned false).
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    #: A pod's resource requests went down (or one was removed).
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATIONS = 1 << 9
    #: A pod's last scheduling gate was removed.
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    #: A pod update none of the above describes (status writes, annotations...): matched only by UPDATE.
    UPDATE_POD_OTHER = 1 << 11
    UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
              | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATIONS
              | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_OTHER)
    ALL = ADD | DELETE | UPDATE


#: kube-scheduler's names of the single action flags (labels of events such as ``NodeUpdateNodeLabel``).
_ACTION_NAMES = {
    ActionType.ADD: "Add", ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable", ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint", ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation", ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown", ActionType.UPDATE_POD_TOLERATIONS: "UpdatePodTolerations",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_OTHER: "Update", ActionType.UPDATE: "Update", ActionType.ALL: "All",
}


@attrs.frozen
class ClusterEvent:
    """A change in the cluster: a resource and the actions (flags). As a registration, it matches every incoming
    event of the same resource (Pod also matches AssignedPod and UnschedulablePod) sharing an action flag."""

    resource: EventResource
    action_type: ActionType
    #: A name for the event in metrics and logs; empty: the resource then the action (``NodeAdd``).
    custom_label: str = ""

    @property
    def label(self) -> str:
        """The event's name, as kube-scheduler labels it in metrics (``NodeAdd``, ``AssignedPodDelete``...)."""
        if self.custom_label:
            return self.custom_label
        action = _ACTION_NAMES.get(self.action_type, str(int(self.action_type)))
        return f"{self.resource.value}{action}"

    def is_wildcard(self) -> bool:
        """Whether this is the wildcard event (every resource, every action), which matches everything."""
        return self.resource is EventResource.WILDCARD and self.action_type == ActionType.ALL

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registration covers ``incoming``."""
        if self.is_wildcard():
            return True
        resource = self.resource
        same = (resource is EventResource.WILDCARD or resource is incoming.resource
                or (resource is EventResource.POD
                    and incoming.resource in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD)))
        return same and bool(self.action_type & incoming.action_type)


class QueueingHint(enum.IntEnum):
    """A hint's answer for one rejected pod and one event."""

    #: The event cannot make the pod schedulable: it stays where it is.
    QUEUE_SKIP = 0
    #: The event may make the pod schedulable: retry it (after its backoff).
    QUEUE = 1


#: ``hint(pod, old_obj, new_obj)``: ``pod`` is the rejected pod; ``old_obj``/``new_obj`` are the object before and
#: after the event (a Pod or a Node; ``old_obj`` is None for Add, ``new_obj`` None for Delete). Raising counts as
#: Queue (and is reported as a plugin error).
QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]


@attrs.frozen
class ClusterEventWithHint:
    """One registration: an event and the hint that decides per pod (None: always Queue)."""

    event: ClusterEvent
    hint: QueueingHintFn | None = None


# -- the events the runtime fires (kube-scheduler's framework.Event* values) --------------------------------------

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)
NODE_TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
#: Pods unschedulable for longer than podMaxInUnschedulablePodsDuration (5 minutes): always retried.
UNSCHEDULABLE_TIMEOUT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout")
#: A pod activated (moved to activeQ) by a plugin through the framework.
FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")
#: The registration of a plugin without ``events_to_register``: every event.
WILDCARD_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)


# -- which events a change makes (kube-scheduler's NodeSchedulingPropertiesChange / PodSchedulingPropertiesChange) --

def node_events(new: Node, old: Node) -> list[ClusterEvent]:
    """The Node update events for a change from ``old`` to ``new``, one per kind of change that can matter to
    scheduling, in kube-scheduler's order; none when nothing relevant changed."""
    actions: list[ActionType] = []
    if new.spec.unschedulable != old.spec.unschedulable and not new.spec.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)  # uncordoned (kube-scheduler reports it as a taint change)
    if new.status.allocatable != old.status.allocatable:
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if new.spec.taints != old.spec.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if new.metadata.annotations != old.metadata.annotations:
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


def _scaled_down(new: Pod, old: Pod) -> bool:
    """Whether some resource request of ``old`` is gone or lower in ``new``."""
    spec, before = new.spec, old.spec
    if spec.containers is before.containers and spec.init_containers is before.init_containers and \
            spec.overhead is before.overhead:
        return False  # the same containers: a status or metadata write
    after = pod_requests(new)
    return any(name not in after or after[name] < value for name, value in pod_requests(old).items())


def pod_events(new: Pod, old: Pod) -> list[ClusterEvent]:
    """The Pod update events for a change from ``old`` to ``new``, on AssignedPod when ``new`` is bound and on
    UnschedulablePod otherwise; UPDATE_POD_OTHER when no specific kind of change applies."""
    resource = EventResource.ASSIGNED_POD if new.spec.node_name else EventResource.UNSCHEDULED_POD
    actions: list[ActionType] = []
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_POD_LABEL)
    if _scaled_down(new, old):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if not new.spec.scheduling_gates and old.spec.scheduling_gates:
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if new.spec.tolerations != old.spec.tolerations:
        actions.append(ActionType.UPDATE_POD_TOLERATIONS)
    if not actions:
        actions.append(ActionType.UPDATE_POD_OTHER)
    return [ClusterEvent(resource, action) for action in actions]


def storage_event(old: object, new: object) -> ClusterEvent:
    """The event of a storage object's change: Add (``old`` None), Delete (``new`` None) or Update, on the
    object's kind (PersistentVolumeClaim, StorageClass, CSINode...)."""
    obj = new if new is not None else old
    resource = EventResource(type(obj).__name__)
    if old is None:
        return ClusterEvent(resource, ActionType.ADD)
    if new is None:
        return ClusterEvent(resource, ActionType.DELETE)
    return ClusterEvent(resource, ActionType.UPDATE)

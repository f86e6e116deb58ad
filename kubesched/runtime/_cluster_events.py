"""The cluster events an object update amounts to, labelled as kube-scheduler v1.32 labels them (ClusterEvent.Label:
resource then action, e.g. ``NodeUpdateNodeLabel``, ``UnschedulablePodUpdatePodSchedulingGatesEliminated``). They
name the ``event`` of scheduler_queue_incoming_pods_total; kube-scheduler moves pods once per event."""

from __future__ import annotations

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.resources import pod_requests

NODE = "Node"
UNSCHEDULED_POD = "UnschedulablePod"
#: The action of an update that changes none of the properties kube-scheduler tells apart (its updatePodOther).
UPDATE = "Update"


def node_update_events(old: Node, new: Node) -> list[str]:
    """kube-scheduler's NodeSchedulingPropertiesChange, in its order: uncordon (as a taint change), allocatable,
    labels, taints, annotations. Empty when nothing it watches changed: such an update moves no pod."""
    actions = []
    if old.spec.unschedulable and not new.spec.unschedulable:
        actions.append("UpdateNodeTaint")  # cordoning never helps a pod, so only uncordoning is an event
    if old.status.allocatable != new.status.allocatable:
        actions.append("UpdateNodeAllocatable")
    if old.metadata.labels != new.metadata.labels:
        actions.append("UpdateNodeLabel")
    if old.spec.taints != new.spec.taints:
        actions.append("UpdateNodeTaint")
    if old.metadata.annotations != new.metadata.annotations:
        actions.append("UpdateNodeAnnotation")
    return [NODE + action for action in actions]


def _scaled_down(old: Pod, new: Pod) -> bool:
    """Whether some resource request went down or away (kube-scheduler's extractPodScaleDown)."""
    before, after = pod_requests(old), pod_requests(new)
    return any(name not in after or after[name] < amount for name, amount in before.items())


def unscheduled_pod_update_events(old: Pod, new: Pod) -> list[str]:
    """kube-scheduler's PodSchedulingPropertiesChange for a pod without a node, in its order: labels, scale down,
    scheduling gates removed, tolerations added; ``UnschedulablePodUpdate`` when none of these changed."""
    actions = []
    if old.metadata.labels != new.metadata.labels:
        actions.append("UpdatePodLabel")
    if _scaled_down(old, new):
        actions.append("UpdatePodScaleDown")
    if old.spec.scheduling_gates and not new.spec.scheduling_gates:
        actions.append("UpdatePodSchedulingGatesEliminated")
    if len(old.spec.tolerations) != len(new.spec.tolerations):  # the API only lets tolerations be added
        actions.append("UpdatePodTolerations")
    return [UNSCHEDULED_POD + action for action in actions or [UPDATE]]

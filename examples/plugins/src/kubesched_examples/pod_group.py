"""Pod groups (gangs): which group a pod belongs to, the group's minimum size, and who is in it right now.

A pod joins a group with two labels: ``scheduling.x-k8s.io/pod-group: <name>`` and
``scheduling.x-k8s.io/min-available: "<n>"`` (a positive integer). Groups are namespaced: pods with the same
group name in different namespaces are different groups.
"""

from __future__ import annotations

import attrs
from kubesched import Handle, Pod

POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
MIN_AVAILABLE_LABEL = "scheduling.x-k8s.io/min-available"


class InvalidPodGroupError(ValueError):
    """A pod names a group but its min-available label is missing or not a positive integer."""


@attrs.frozen
class PodGroup:
    """A pod's group as the pod declares it. Immutable, so CycleState clones may share it."""

    namespace: str
    name: str
    min_available: int

    @property
    def key(self) -> str:
        """``<namespace>/<name>``: how messages name the group and how the plugin keys its state."""
        return f"{self.namespace}/{self.name}"

    def contains(self, pod: Pod) -> bool:
        """Whether ``pod`` carries this group's label in this group's namespace."""
        return pod.namespace == self.namespace and pod.labels.get(POD_GROUP_LABEL) == self.name


def pod_group_of(pod: Pod) -> PodGroup | None:
    """The group ``pod`` declares, or None for a pod outside any group; raise on a bad min-available."""
    name = pod.labels.get(POD_GROUP_LABEL)
    if not name:
        return None
    raw = pod.labels.get(MIN_AVAILABLE_LABEL, "")
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise InvalidPodGroupError(f"label {MIN_AVAILABLE_LABEL}={raw!r} is not a positive integer")
    return PodGroup(pod.namespace, name, int(raw))


def current_members(handle: Handle, group: PodGroup) -> set[str]:
    """The uids of the group's pods that hold a place: assumed or bound on a node, or waiting on Permit.

    Waiting pods already rejected (their binding cycle has not run yet) are not counted. Costs one pass over
    the snapshot's pods, once per Permit call.
    """
    members = {pod_info.pod.uid for node_info in handle.snapshot.list() for pod_info in node_info.pods
               if group.contains(pod_info.pod)}
    for waiting in handle.waiting_pods():
        if not group.contains(waiting.pod):
            continue
        if waiting.outcome is None or waiting.outcome.is_success():
            members.add(waiting.pod.uid)
        else:
            members.discard(waiting.pod.uid)
    return members

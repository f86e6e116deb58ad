"""PrioritySort (QueueSort): higher priority first, then the pod that entered the queue earlier."""

from __future__ import annotations

from kubesched.framework import Plugin, QueuedPodInfo, hookimpl


class PrioritySort(Plugin):
    """Orders the active queue by pod priority, then by queue timestamp."""

    name = "PrioritySort"

    @hookimpl
    def queue_sort_less(self, pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
        """a before b when a has higher priority, or equal priority and an earlier queue timestamp."""
        p1, p2 = pod_info_a.pod.priority, pod_info_b.pod.priority
        return p1 > p2 or (p1 == p2 and pod_info_a.timestamp < pod_info_b.timestamp)

"""The scheduler's event handlers (kube-scheduler's eventhandlers.go): each cluster change reaches the cache, the
queue and the nominator as kube-scheduler's informers deliver it, becomes its cluster events (the queue then moves
only the pods that the hints of the plugins which rejected them say the event may help, see docs/queue.md), and is
passed on to the plugins that subscribed through their Handle."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.storage import StorageObject
from kubesched.backend import ClusterListener
from kubesched.framework._events import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    NODE_ADD,
    NODE_DELETE,
    node_events,
    pod_events,
    storage_event,
)
from kubesched.runtime._cache import Cache
from kubesched.runtime._framework import Framework
from kubesched.runtime._queue import SchedulingQueue


class EventHandlers:
    """The scheduler as a :class:`~kubesched.backend.ClusterListener`: what a backend tells it, change by change."""

    def __init__(self, cache: Cache, queue: SchedulingQueue, frameworks: Mapping[str, Framework],
                 forget_failure: Callable[[str], None]) -> None:
        self._cache = cache
        self._queue = queue
        self._frameworks = frameworks
        self._forget_failure = forget_failure
        #: Unassigned pods whose schedulerName matches no profile: left alone, as kube-scheduler does.
        self.ignored: dict[str, Pod] = {}

    def _listeners(self) -> list[ClusterListener]:
        """The plugins' subscribed listeners, profile by profile."""
        return [listener for framework in self._frameworks.values() for listener in framework.handle.listeners]

    def on_node_add(self, node: Node) -> None:
        """A node joined: the NodeAdd event."""
        self._cache.add_node(node)
        self._queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
        for listener in self._listeners():
            listener.on_node_add(node)

    def on_node_update(self, node: Node) -> None:
        """A node changed: one Node update event per kind of change (labels, taints, allocatable...)."""
        info = self._cache.node_info(node.name)
        old = info.node if info is not None else None
        self._cache.update_node(node)
        if old is None:
            self._queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
        else:
            for event in node_events(node, old):
                self._queue.move_all_to_active_or_backoff(event, old, node)
        for listener in self._listeners():
            listener.on_node_update(node)

    def on_node_delete(self, name: str) -> None:
        """A node left: the NodeDelete event (PodTopologySpread's domains may shrink), then the cache forgets it."""
        info = self._cache.node_info(name)
        if info is not None and info.node is not None:
            self._queue.move_all_to_active_or_backoff(NODE_DELETE, info.node, None)
        self._cache.remove_node(name)
        for listener in self._listeners():
            listener.on_node_delete(name)

    def on_storage_change(self, old: StorageObject | None, new: StorageObject | None) -> None:
        """A PersistentVolume, claim, StorageClass or CSI object was added, changed or deleted: its event (the
        volume plugins register them to retry the pods they rejected)."""
        if old is not None and new is not None and old == new:
            return
        self._queue.move_all_to_active_or_backoff(storage_event(old, new), old, new)

    def on_pod_add(self, pod: Pod) -> None:
        """A pod appeared: assigned pods go to the cache (the AssignedPodAdd event), unassigned ones to the queue."""
        self._pod_added(pod)
        for listener in self._listeners():
            listener.on_pod_add(pod)

    def _pod_added(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self._cache.add_pod(pod)
            self._forget_failure(pod.uid)
            self._queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, pod)
        elif pod.spec.scheduler_name in self._frameworks:
            self._queue.add(pod)
        else:
            self.ignored[pod.uid] = pod

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod changed (bound, nominated, relabelled, marked for deletion...). A write that changed nothing is no
        event (the API server keeps the resourceVersion and sends no watch event)."""
        if new.spec.node_name == old.spec.node_name and new == old:  # a binding always differs: no full compare
            return
        if new.spec.node_name:
            if not old.spec.node_name:
                self._queue.delete(old)
                self._pod_added(new)
            else:
                self._cache.update_pod(new)
                for event in pod_events(new, old):
                    self._queue.move_all_to_active_or_backoff(event, old, new)
        elif new.spec.scheduler_name in self._frameworks and not self._cache.is_assumed_pod(new):
            # As kube-scheduler's updatePodInSchedulingQueue, an assumed pod (being bound) is left alone: the queue
            # would take a pod it does not hold for a new one.
            self._queue.update(old, new)
        for listener in self._listeners():
            listener.on_pod_update(old, new)

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod is gone: an assigned pod is the AssignedPodDelete event; a pod Permit held is rejected."""
        self.ignored.pop(pod.uid, None)
        self._forget_failure(pod.uid)
        if pod.spec.node_name:
            self._cache.remove_pod(pod)
            self._queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)
        else:
            self._queue.delete(pod)
            framework = self._frameworks.get(pod.spec.scheduler_name)
            waiting = framework.handle.get_waiting_pod(pod.uid) if framework is not None else None
            if waiting is not None:
                waiting.reject("", "pod was deleted")
        for listener in self._listeners():
            listener.on_pod_delete(pod)

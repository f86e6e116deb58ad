"""A scheduling queue for tests: built from plugins as the scheduler wires it, filled pod by pod into a named
sub-queue through the queue's own public methods, and read back as queue names and pod names.

``place(queue, pod, "unschedulable", rejected_by=("NodeAffinity",))`` gets a pod where kube-scheduler's tests put
one: it adds the pod, pops it and ends its attempt as those plugins' rejection, exactly as the scheduler would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.framework._events import WILDCARD_EVENT
from kubesched.framework._plugin import extension_points
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import Framework, PluginEntry, PluginRegistry, Profile, SchedulingQueue
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing.cluster import PodLike, built
from kubesched.testing.frameworks import DEFAULT_SCHEDULER, plugin_args, plugin_class

#: The sub-queues :func:`place` fills and :func:`where` names ("gated": unschedulable, held by PreEnqueue).
QUEUES = ("active", "backoff", "unschedulable", "gated", "in flight")


def queue_framework(*plugins: type[Any] | str, args: Mapping[str, Any] | None = None) -> Framework:
    """A Framework running ``plugins`` (classes, or names of built-in or installed plugins) each at every extension
    point it implements, with PrioritySort and DefaultBinder where none of them sorts or binds; ``args`` maps a
    plugin's name to its args (an Args instance or a kebab-case mapping)."""
    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort

    classes = [plugin_class(p) for p in plugins]
    entries: dict[str, list[PluginEntry]] = {}
    configs: dict[str, Any] = {}
    for cls in classes:
        for point in extension_points(cls):
            entries.setdefault(point.key, []).append(PluginEntry(cls.name, 1 if point.key == "score" else None))
        configured = plugin_args(cls, (args or {}).get(cls.name))
        if configured is not None:
            configs[cls.name] = configured
    points = {key: tuple(found) for key, found in entries.items()}
    points.setdefault("queue-sort", (PluginEntry(PrioritySort.name),))
    points.setdefault("bind", (PluginEntry(DefaultBinder.name),))
    extra = [c for c in (PrioritySort, DefaultBinder) if c.name not in {cls.name for cls in classes}]
    cluster = InMemoryCluster(VirtualClock())
    return Framework(Profile(DEFAULT_SCHEDULER, points, configs), PluginRegistry.of(*extra, *classes), client=cluster,
                     clock=cluster.clock)


def new_queue(*plugins: type[Any] | str, args: Mapping[str, Any] | None = None, clock: VirtualClock | None = None,
              initial_backoff: float = 1.0, max_backoff: float = 10.0) -> SchedulingQueue:
    """A SchedulingQueue wired to a profile of ``plugins`` (see :func:`queue_framework`) as the scheduler wires
    it: the profile's QueueSort order, its PreEnqueue plugins gating, the plugins' events and hints deciding which
    event moves which rejected pod. It runs on ``clock`` (pass a VirtualClock to move time; a new one at 0 by
    default)."""
    framework = queue_framework(*plugins, args=args)
    return SchedulingQueue(framework.queue_sort_less, clock=clock if clock is not None else VirtualClock(),
                           pre_enqueue=framework.run_pre_enqueue_plugins, hints=framework.queueing_hint_strategy,
                           interested=framework.plugins_interested_in, initial_backoff=initial_backoff,
                           max_backoff=max_backoff)


def place(queue: SchedulingQueue, pod: PodLike, where: str, *, rejected_by: Sequence[str] = (),
          pending: Sequence[str] = (), attempts: int = 1) -> QueuedPodInfo:
    """Put a new ``pod`` (a Pod or a builder) into the sub-queue ``where`` of :data:`QUEUES` through the queue's
    public methods, as the scheduler would get it there:

    - ``active``: added (no PreEnqueue plugin may gate it); ``gated``: added, and a PreEnqueue plugin gates it.
    - ``in flight``: added and popped ``attempts`` times (each earlier attempt failed with an error and the pod
      was activated again). The QueuedPodInfo the queue popped is returned: end the attempt with it.
    - ``unschedulable``: in flight, then its attempt ends rejected by ``rejected_by`` (Unschedulable) and
      ``pending`` (Pending) plugins, one of which is needed.
    - ``backoff``: in flight, then its attempt ends as an error (no rejecting plugin) or, given rejecting
      plugins, as their rejection followed by an UnschedulableTimeout-like wildcard event for this pod alone.

    Place pods in activeQ last (a pod is popped only from the head of activeQ), and pods in backoffQ before
    pods in flight (the wildcard event would be replayed for them). Except for a pod in flight, the result is
    a copy of the queued pod. A pod that does not end where asked is a ValueError naming where it went.
    """
    pod = built([pod])[0]
    if where not in QUEUES:
        raise ValueError(f"place: {where!r} is not a queue; one of: {', '.join(QUEUES)}")
    if where in ("active", "gated"):
        queue.add(pod)
        return _placed(queue, pod, where)
    if where == "unschedulable" and not rejected_by and not pending:
        raise ValueError(f"place: pod {pod.key} needs rejected_by or pending plugins to be unschedulable")
    if where == "backoff" and (rejected_by or pending) and queue.in_flight():
        raise ValueError(f"place: pod {pod.key} goes to backoffQ through an event, which the pods in flight would "
                         "see too; place pods in flight last")
    info = _popped(queue, pod, attempts)
    if where == "in flight":
        return info
    info.unschedulable_plugins, info.pending_plugins = set(rejected_by), set(pending)
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    if where == "backoff" and (rejected_by or pending):
        queue.move_all_to_active_or_backoff(WILDCARD_EVENT, pre_check=lambda other: other.pod.uid == pod.uid)
    return _placed(queue, pod, where)


def _popped(queue: SchedulingQueue, pod: Pod, attempts: int) -> QueuedPodInfo:
    """Add ``pod`` and pop it ``attempts`` times; the last popped QueuedPodInfo."""
    if attempts < 1:
        raise ValueError(f"place: attempts must be at least 1, got {attempts}")
    queue.add(pod)
    while True:
        head = queue.active_pods()[:1]
        if not head or head[0].pod.uid != pod.uid:
            ahead = f"pod {head[0].pod.key} is ahead of it in activeQ" if head else f"it is {where(queue, pod)}"
            raise ValueError(f"place: cannot pop pod {pod.key}: {ahead}; place pods in activeQ last")
        info = queue.pop()
        assert info is not None
        if info.attempts == attempts:
            return info
        info.unschedulable_plugins, info.pending_plugins = set(), set()
        queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
        queue.activate([pod])


def _placed(queue: SchedulingQueue, pod: Pod, wanted: str) -> QueuedPodInfo:
    """A copy of the queued ``pod``, checked to be in the ``wanted`` queue."""
    found = where(queue, pod)
    info = queue.get(pod.namespace, pod.name)
    if found != wanted or info is None:
        gate = f" (PreEnqueue plugin {info.gating_plugin} gates it)" if info is not None and info.gating_plugin else ""
        raise ValueError(f"place: pod {pod.key} went to {found}{gate}, not {wanted}")
    return info


def where(queue: SchedulingQueue, pod: PodLike) -> str:
    """The sub-queue of :data:`QUEUES` holding ``pod`` (a Pod or a builder), or ``none``."""
    pod = built([pod])[0]
    found = queue.location(pod.uid)
    if found is None:
        return "none"
    if found == "unschedulable":
        info = queue.get(pod.namespace, pod.name)
        if info is not None and info.gating_plugin:
            return "gated"
    return found


def contents(queue: SchedulingQueue) -> dict[str, list[str]]:
    """The pods' names in each non-empty sub-queue of :data:`QUEUES`: activeQ in pop order, backoffQ by expiry,
    the unschedulable and gated pods in the order they came, the pods in flight in the order they were popped."""
    found: dict[str, list[str]] = {
        "active": [info.pod.name for info in queue.active_pods()],
        "backoff": [info.pod.name for info in queue.backoff_pods()],
        "unschedulable": [info.pod.name for info in queue.unschedulable_pods() if not info.gating_plugin],
        "gated": [info.pod.name for info in queue.unschedulable_pods() if info.gating_plugin],
        "in flight": [info.pod.name for info in queue.in_flight()],
    }
    return {name: pods for name, pods in found.items() if pods}

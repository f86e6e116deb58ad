"""The run log: every change that moves a run metric, recorded in virtual time as the cluster makes it, so that
the metrics and their time series are computed exactly afterwards (for any reference pod shape)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.resources import CPU, EPHEMERAL_STORAGE, FIRST_RESOURCES, MEMORY, PODS, is_scalar_resource_name
from kubesched.backend import Clock
from kubesched.framework._node_info import PodInfo
from kubesched.framework._resource import Resource


@attrs.frozen
class NodeChange:
    """A node's room changed: its allocatable per resource from ``time`` on, or None when it is gone."""

    time: float
    node: str
    allocatable: Mapping[str, int] | None


@attrs.frozen
class PodChange:
    """A node's load changed: a pod with these requests was bound there (``sign`` +1) or went away (-1)."""

    time: float
    node: str
    requests: Mapping[str, int]
    sign: int


def requested_amounts(resource: Resource) -> dict[str, int]:
    """A pod's requests per resource name in the scheduler's units (cpu in millicores), one ``pods`` slot included;
    resources it does not request are left out."""
    amounts = {CPU: resource.milli_cpu, MEMORY: resource.memory, EPHEMERAL_STORAGE: resource.ephemeral_storage,
               **resource.scalar_resources}
    return {**{name: value for name, value in amounts.items() if value}, PODS: 1}


def allocatable_amounts(node: Node) -> dict[str, int]:
    """What the node offers per resource the scheduler accounts (cpu in millicores), as its NodeInfo counts it."""
    carried = [n for n in node.status.allocatable if n in FIRST_RESOURCES or is_scalar_resource_name(n)]
    resource = Resource.from_amounts(node.status.allocatable)
    return {name: resource.get(name) for name in carried}


@attrs.define
class PodLife:
    """One pod's life in the run: when it appeared, was bound and went away (None when it did not), its priority,
    and whether it was bound when it appeared (bound by the input or by ``spec.nodeName``: it never waited)."""

    key: str
    priority: int
    created: float
    #: Its requests per resource (:func:`requested_amounts`).
    requests: Mapping[str, int]
    bound: float | None = None
    ended: float | None = None
    born_bound: bool = False


@attrs.define
class RunLog:
    """Everything the run metrics are computed from, in the order it happened."""

    #: Node and pod changes, in the order they happened.
    changes: list[NodeChange | PodChange] = attrs.Factory(list)
    pods: dict[str, PodLife] = attrs.Factory(dict)
    #: Pods the API server's admission refused, with when (they never existed in the cluster).
    rejected: dict[str, float] = attrs.Factory(dict)


class RunRecorder:
    """A cluster listener that writes the :class:`RunLog` of a run; it never changes what the run does."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.log = RunLog()
        self._last: PodInfo | None = None

    def _pod_requests(self, pod: Pod) -> dict[str, int]:
        last = self._last
        info = last.for_pod(pod) if last is not None else PodInfo.of(pod)
        self._last = info
        return requested_amounts(info.requests)

    def _placed(self, life: PodLife, node: str, now: float) -> None:
        self.log.changes.append(PodChange(now, node, life.requests, 1))

    def on_node_add(self, node: Node) -> None:
        """A node's room appears."""
        self.log.changes.append(NodeChange(self._clock.now(), node.name, allocatable_amounts(node)))

    def on_node_update(self, node: Node) -> None:
        """A node's room may have changed (its allocatable)."""
        self.on_node_add(node)

    def on_node_delete(self, name: str) -> None:
        """A node's room is gone."""
        self.log.changes.append(NodeChange(self._clock.now(), name, None))

    def on_pod_add(self, pod: Pod) -> None:
        """A pod appears, pending or bound."""
        now = self._clock.now()
        life = self.log.pods.get(pod.uid)
        if life is None:
            life = self.log.pods[pod.uid] = PodLife(pod.key, pod.priority, now, self._pod_requests(pod),
                                                    born_bound=bool(pod.spec.node_name))
        if pod.spec.node_name:
            life.bound = now if life.bound is None else life.bound
            self._placed(life, pod.spec.node_name, now)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod is bound (the only change that moves a metric)."""
        if new.spec.node_name and not old.spec.node_name:
            now = self._clock.now()
            life = self.log.pods.get(new.uid)
            if life is None:  # bound before this recorder listened: its creation is unknown
                life = self.log.pods[new.uid] = PodLife(new.key, new.priority, now, self._pod_requests(new),
                                                        born_bound=True)
            if life.bound is None:
                life.bound = now
            self._placed(life, new.spec.node_name, now)

    def on_pod_delete(self, pod: Pod) -> None:
        """A pod is gone: a bound one frees its node's room."""
        now = self._clock.now()
        life = self.log.pods.get(pod.uid)
        if life is None:
            return
        life.ended = now
        if pod.spec.node_name and life.bound is not None:
            self.log.changes.append(PodChange(now, pod.spec.node_name, life.requests, -1))

    def rejected(self, pod: Pod) -> None:
        """The API server refused to create ``pod``."""
        self.log.rejected[pod.uid] = self._clock.now()

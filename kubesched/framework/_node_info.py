"""PodInfo and NodeInfo: a pod with its precomputed requests, and a node with the sums of its pods."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.resources import NON_ZERO_DEFAULTS, pod_requests
from kubesched.framework._resource import Resource

_generation = itertools.count(1)
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


def next_generation() -> int:
    """A process-wide increasing counter; every NodeInfo change takes a new value."""
    return next(_generation)


HostPort = tuple[str, str, int]  # (host IP, protocol, port)
_NO_PORTS: frozenset[tuple[str, int]] = frozenset()


def pod_host_ports(pod: Pod) -> tuple[HostPort, ...]:
    """The host ports kube-scheduler v1.32 counts for a pod: ports with hostPort > 0 of its containers, with the
    host IP defaulted to 0.0.0.0 and the protocol to TCP. Its init containers' ports are not counted, not even a
    sidecar's (restart policy Always), neither as wanted nor as used."""
    return tuple(
        (port.host_ip or DEFAULT_BIND_ALL_HOST_IP, port.protocol or "TCP", port.host_port)
        for container in pod.spec.containers
        for port in container.ports
        if port.host_port > 0
    )


def pod_has_affinity(pod: Pod) -> bool:
    """Whether the pod has pod affinity or anti-affinity terms (NodeInfo.PodsWithAffinity)."""
    affinity = pod.spec.affinity
    return affinity is not None and (affinity.pod_affinity is not None or affinity.pod_anti_affinity is not None)


@attrs.define(slots=True, eq=False)
class PodInfo:
    """A pod plus what the scheduler derives from it once: requests, non-zero requests, host ports."""

    pod: Pod
    requests: Resource
    non_zero_requests: Resource
    host_ports: tuple[HostPort, ...]

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        """Derive the PodInfo of a pod."""
        non_zero = Resource.from_amounts(pod_requests(pod, non_missing=NON_ZERO_DEFAULTS))
        return cls(pod, Resource.from_amounts(pod_requests(pod)),
                   Resource(milli_cpu=non_zero.milli_cpu, memory=non_zero.memory), pod_host_ports(pod))

    def for_pod(self, pod: Pod) -> PodInfo:
        """The PodInfo of ``pod``, a version of this pod (bound, nominated...): the derived requests and ports are
        reused when its containers, init containers and overhead are the very same objects, else recomputed."""
        spec, mine = pod.spec, self.pod.spec
        if (spec.containers is mine.containers and spec.init_containers is mine.init_containers
                and spec.overhead is mine.overhead):
            return PodInfo(pod, self.requests, self.non_zero_requests, self.host_ports)
        return PodInfo.of(pod)

    @property
    def has_affinity(self) -> bool:
        """Whether the pod has pod affinity or anti-affinity (NodeInfo.PodsWithAffinity)."""
        return pod_has_affinity(self.pod)

    @property
    def has_required_anti_affinity(self) -> bool:
        """Whether the pod has required anti-affinity terms (NodeInfo.PodsWithRequiredAntiAffinity)."""
        affinity = self.pod.spec.affinity
        return bool(affinity and affinity.pod_anti_affinity and affinity.pod_anti_affinity.required)


@attrs.define(slots=True, eq=False)
class HostPortInfo:
    """Host ports in use on a node: IP -> set of (protocol, port), as kube-scheduler v1.32 keeps them.

    A set, not a count: two pods holding one port (both placed by nodeName) record it once, and removing either
    frees it, as in v1.32 (its preemption dry run relies on that)."""

    ports: dict[str, set[tuple[str, int]]] = attrs.field(factory=dict)

    def add(self, ip: str, protocol: str, port: int) -> None:
        """Mark a host port used (ports <= 0 are no host port and are ignored)."""
        if port <= 0:
            return
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        by_ip = self.ports.get(ip)
        if by_ip is None:
            by_ip = self.ports[ip] = set()
        by_ip.add((protocol or "TCP", port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        """Mark a host port free, whichever other pods on the node also asked for it."""
        if port <= 0:
            return
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        by_ip = self.ports.get(ip)
        if by_ip is None:
            return
        by_ip.discard((protocol or "TCP", port))
        if not by_ip:
            del self.ports[ip]

    def conflicts(self, ip: str, protocol: str, port: int) -> bool:
        """Whether using this host port would clash; 0.0.0.0 clashes with every IP and vice versa."""
        if port <= 0:
            return False
        ip = ip or DEFAULT_BIND_ALL_HOST_IP
        key = (protocol or "TCP", port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(key in used for used in self.ports.values())
        return key in self.ports.get(ip, _NO_PORTS) or key in self.ports.get(DEFAULT_BIND_ALL_HOST_IP, _NO_PORTS)

    def __len__(self) -> int:
        return sum(len(v) for v in self.ports.values())

    def clone(self) -> HostPortInfo:
        """An independent copy."""
        return HostPortInfo({ip: set(used) for ip, used in self.ports.items()})


@attrs.define(slots=True, eq=False)
class ImageStateSummary:
    """An image's size and the nodes that have it; shared by every NodeInfo listing the image."""

    size: int
    nodes: set[str] = attrs.field(factory=set)

    @property
    def num_nodes(self) -> int:
        """How many nodes have the image."""
        return len(self.nodes)


@attrs.define(slots=True, eq=False)
class NodeInfo:
    """A node and the aggregate of the pods on it. ``generation`` changes on every update."""

    node: Node | None = None
    #: The node's name, kept as a plain attribute because the per-node loops read it constantly.
    name: str = ""
    pods: list[PodInfo] = attrs.field(factory=list)
    pods_with_affinity: list[PodInfo] = attrs.field(factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = attrs.field(factory=list)
    used_ports: HostPortInfo = attrs.field(factory=HostPortInfo)
    requested: Resource = attrs.field(factory=Resource)
    non_zero_requested: Resource = attrs.field(factory=Resource)
    allocatable: Resource = attrs.field(factory=Resource)
    image_states: Mapping[str, ImageStateSummary] = attrs.field(factory=dict)
    generation: int = attrs.field(factory=next_generation)

    @classmethod
    def of(cls, node: Node, pods: Iterable[PodInfo] = ()) -> NodeInfo:
        """A NodeInfo for ``node`` holding ``pods``."""
        info = cls()
        info.set_node(node)
        for pod_info in pods:
            info.add_pod(pod_info)
        return info

    def set_node(self, node: Node) -> None:
        """Set or replace the node object; allocatable is recomputed."""
        self.node = node
        self.name = node.name
        self.allocatable = Resource.from_amounts(node.status.allocatable)
        self.generation = next_generation()

    def remove_node(self) -> None:
        """Drop the node object but keep the pods (a "ghost" until they are removed too)."""
        self.node = None
        self.generation = next_generation()

    def add_pod(self, pod_info: PodInfo) -> None:
        """Account a pod on this node."""
        self.pods.append(pod_info)
        if pod_info.has_affinity:
            self.pods_with_affinity.append(pod_info)
        if pod_info.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pod_info)
        self.requested.add(pod_info.requests)
        self.non_zero_requested.add(pod_info.non_zero_requests)
        for ip, protocol, port in pod_info.host_ports:
            self.used_ports.add(ip, protocol, port)
        self.generation = next_generation()

    def remove_pod(self, pod: Pod) -> bool:
        """Stop accounting the pod with this uid; return whether it was here."""
        uid = pod.uid
        for i, pod_info in enumerate(self.pods):
            if pod_info.pod.uid == uid:
                del self.pods[i]
                break
        else:
            return False
        self.pods_with_affinity = [p for p in self.pods_with_affinity if p.pod.uid != uid]
        self.pods_with_required_anti_affinity = [p for p in self.pods_with_required_anti_affinity
                                                 if p.pod.uid != uid]
        self.requested.subtract(pod_info.requests)
        self.non_zero_requested.subtract(pod_info.non_zero_requests)
        for ip, protocol, port in pod_info.host_ports:
            self.used_ports.remove(ip, protocol, port)
        self.generation = next_generation()
        return True

    def assign_from(self, other: NodeInfo) -> None:
        """Overwrite this NodeInfo with ``other``'s fields, keeping this object's identity."""
        for field in attrs.fields(NodeInfo):
            setattr(self, field.name, getattr(other, field.name))

    def copy_from(self, other: NodeInfo) -> None:
        """Become a copy of ``other`` (as ``assign_from(other.clone())``) keeping this object's identity, without
        building the intermediate clone: the cache refreshes a snapshot's changed NodeInfo this way every cycle."""
        self.node = other.node
        self.name = other.name
        self.pods = list(other.pods)
        self.pods_with_affinity = list(other.pods_with_affinity)
        self.pods_with_required_anti_affinity = list(other.pods_with_required_anti_affinity)
        self.used_ports = other.used_ports.clone()
        self.requested = other.requested.clone()
        self.non_zero_requested = other.non_zero_requested.clone()
        self.allocatable = other.allocatable.clone()
        self.image_states = dict(other.image_states)
        self.generation = other.generation

    def clone(self) -> NodeInfo:
        """A copy whose pod lists and sums can change independently (pods themselves are immutable)."""
        return NodeInfo(
            node=self.node,
            name=self.name,
            pods=list(self.pods),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            used_ports=self.used_ports.clone(),
            requested=self.requested.clone(),
            non_zero_requested=self.non_zero_requested.clone(),
            allocatable=self.allocatable.clone(),
            image_states=dict(self.image_states),
            generation=self.generation,
        )

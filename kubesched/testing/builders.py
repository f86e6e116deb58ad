"""Builders for pods and nodes in tests, in the spirit of kube-scheduler's MakePod()/MakeNode() wrappers.

A test case stays one line: ``make_pod("p").req(cpu="1", memory="1Gi").label(app="x").priority(100).obj()``.
Builders are mutable; ``obj()`` returns the immutable object.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta, OwnerReference
from kubesched.api.node import ContainerImage, Node, NodeSpec, NodeStatus, Taint
from kubesched.api.pod import (
    Affinity,
    Container,
    ContainerPort,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodSpec,
    PodStatus,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kubesched.api.quantity import Quantity

V = TypeVar("V")


def _quantities(values: dict[str, str | int | float]) -> dict[str, Quantity]:
    return {name: Quantity.parse(value) for name, value in values.items()}


class PodBuilder:
    """Builds a :class:`~kubesched.api.pod.Pod` step by step."""

    def __init__(self, name: str, namespace: str = "default") -> None:
        self._meta = ObjectMeta(name=name, namespace=namespace, uid=f"{namespace}/{name}-uid")
        self._spec = PodSpec(containers=())
        self._status = PodStatus()
        self._containers: list[Container] = []
        self._init_containers: list[Container] = []

    def uid(self, uid: str) -> PodBuilder:
        """Set metadata.uid (defaults to ``<namespace>/<name>-uid``)."""
        self._meta = attrs.evolve(self._meta, uid=uid)
        return self

    def label(self, **labels: str) -> PodBuilder:
        """Add labels."""
        self._meta = attrs.evolve(self._meta, labels={**self._meta.labels, **labels})
        return self

    def created(self, when: datetime) -> PodBuilder:
        """Set metadata.creationTimestamp."""
        self._meta = attrs.evolve(self._meta, creation_timestamp=when)
        return self

    def terminating(self, when: datetime) -> PodBuilder:
        """Set metadata.deletionTimestamp."""
        self._meta = attrs.evolve(self._meta, deletion_timestamp=when)
        return self

    def owner(self, kind: str, name: str) -> PodBuilder:
        """Add a controller owner reference (apiVersion ``v1`` for a ReplicationController, else ``apps/v1``)."""
        api_version = "v1" if kind == "ReplicationController" else "apps/v1"
        ref = OwnerReference(api_version, kind, name, f"{name}-uid", controller=True)
        self._meta = attrs.evolve(self._meta, owner_references=(*self._meta.owner_references, ref))
        return self

    def container(self, requests: dict[str, str | int | float] | None = None, *,
                  limits: dict[str, str | int | float] | None = None, image: str = "",
                  host_ports: tuple[int, ...] = ()) -> PodBuilder:
        """Add a container with these requests (and limits, image, host ports)."""
        ports = tuple(ContainerPort(container_port=p, host_port=p) for p in host_ports)
        reqs = _quantities(requests or {})
        lims = _quantities(limits or {})
        for name, limit in lims.items():
            reqs.setdefault(name, limit)
        self._containers.append(Container(name=f"c{len(self._containers)}", image=image, requests=reqs,
                                          limits=lims, ports=ports))
        return self

    def req(self, **requests: str | int | float) -> PodBuilder:
        """Add a container requesting these resources (``cpu="500m"``, ``memory="1Gi"``, ...)."""
        return self.container(_keys(requests))

    def init_req(self, sidecar: bool = False, **requests: str | int | float) -> PodBuilder:
        """Add an init container (a sidecar when ``sidecar``) requesting these resources."""
        self._init_containers.append(Container(name=f"init{len(self._init_containers)}",
                                               requests=_quantities(_keys(requests)),
                                               restart_policy="Always" if sidecar else None))
        return self

    def init_container(self, image: str = "", *, sidecar: bool = False, host_ports: tuple[int, ...] = ()) -> PodBuilder:
        """Add an init container (a sidecar when ``sidecar``) with this image and TCP host ports."""
        ports = tuple(ContainerPort(container_port=p, host_port=p) for p in host_ports)
        self._init_containers.append(Container(name=f"init{len(self._init_containers)}", image=image, ports=ports,
                                               restart_policy="Always" if sidecar else None))
        return self

    def overhead(self, **resources: str | int | float) -> PodBuilder:
        """Set spec.overhead."""
        self._spec = attrs.evolve(self._spec, overhead=_quantities(_keys(resources)))
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodBuilder:
        """Add a container exposing ``port`` on the host."""
        self._containers.append(Container(name=f"c{len(self._containers)}", ports=(
            ContainerPort(container_port=port, host_port=port, protocol=protocol, host_ip=host_ip),)))
        return self

    def priority(self, value: int) -> PodBuilder:
        """Set spec.priority."""
        self._spec = attrs.evolve(self._spec, priority=value)
        return self

    def preemption_policy(self, policy: str) -> PodBuilder:
        """Set spec.preemptionPolicy."""
        self._spec = attrs.evolve(self._spec, preemption_policy=policy)
        return self

    def scheduler_name(self, name: str) -> PodBuilder:
        """Set spec.schedulerName."""
        self._spec = attrs.evolve(self._spec, scheduler_name=name)
        return self

    def node(self, name: str) -> PodBuilder:
        """Set spec.nodeName (an assigned pod)."""
        self._spec = attrs.evolve(self._spec, node_name=name)
        return self

    def node_selector(self, **labels: str) -> PodBuilder:
        """Set spec.nodeSelector."""
        self._spec = attrs.evolve(self._spec, node_selector=labels)
        return self

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal") -> PodBuilder:
        """Add a toleration (``operator="Exists"`` to match any value)."""
        tol = Toleration(key=key, operator=operator, value=value, effect=effect)
        self._spec = attrs.evolve(self._spec, tolerations=(*self._spec.tolerations, tol))
        return self

    def _node_affinity(self) -> NodeAffinity:
        affinity = self._spec.affinity or Affinity()
        return affinity.node_affinity or NodeAffinity()

    def _set_node_affinity(self, node_affinity: NodeAffinity) -> None:
        affinity = self._spec.affinity or Affinity()
        self._spec = attrs.evolve(self._spec, affinity=attrs.evolve(affinity, node_affinity=node_affinity))

    def node_affinity_in(self, key: str, *values: str, operator: str = "In") -> PodBuilder:
        """Add a required node affinity term with one expression (a new ORed term)."""
        term = NodeSelectorTerm(match_expressions=(NodeSelectorRequirement(key, operator, values),))
        current = self._node_affinity()
        terms = current.required.node_selector_terms if current.required else ()
        self._set_node_affinity(attrs.evolve(current, required=NodeSelector((*terms, term))))
        return self

    def node_affinity_names(self, *names: str) -> PodBuilder:
        """Add required terms selecting nodes by metadata.name: one term per name (ORed), as the API
        allows a single value per node field requirement."""
        current = self._node_affinity()
        terms = current.required.node_selector_terms if current.required else ()
        new_terms = tuple(NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", (name,)),))
                          for name in names)
        self._set_node_affinity(attrs.evolve(current, required=NodeSelector((*terms, *new_terms))))
        return self

    def preferred_node_affinity(self, weight: int, key: str, *values: str, operator: str = "In") -> PodBuilder:
        """Add a preferred node affinity term."""
        term = PreferredSchedulingTerm(weight, NodeSelectorTerm(
            match_expressions=(NodeSelectorRequirement(key, operator, values),)))
        current = self._node_affinity()
        self._set_node_affinity(attrs.evolve(current, preferred=(*current.preferred, term)))
        return self

    def pod_affinity(self, topology_key: str, anti: bool = False, **match_labels: str) -> PodBuilder:
        """Add a required pod (anti-)affinity term selecting pods with these labels."""
        term = PodAffinityTerm(topology_key=topology_key, label_selector=LabelSelector(match_labels=match_labels))
        return self.affinity_term(term, anti=anti)

    def affinity_term(self, term: PodAffinityTerm, *, anti: bool = False, weight: int | None = None) -> PodBuilder:
        """Add a pod (anti-)affinity term as given: required, or preferred with ``weight``."""
        affinity = self._spec.affinity or Affinity()
        current = (affinity.pod_anti_affinity if anti else affinity.pod_affinity) or PodAffinity()
        if weight is None:
            updated = attrs.evolve(current, required=(*current.required, term))
        else:
            updated = attrs.evolve(current, preferred=(*current.preferred, WeightedPodAffinityTerm(weight, term)))
        if anti:
            affinity = attrs.evolve(affinity, pod_anti_affinity=updated)
        else:
            affinity = attrs.evolve(affinity, pod_affinity=updated)
        self._spec = attrs.evolve(self._spec, affinity=affinity)
        return self

    def spread(self, max_skew: int, topology_key: str, when: str = "DoNotSchedule", **match_labels: str) -> PodBuilder:
        """Add a topology spread constraint."""
        constraint = TopologySpreadConstraint(max_skew, topology_key, when, LabelSelector(match_labels=match_labels))
        self._spec = attrs.evolve(self._spec, topology_spread_constraints=(
            *self._spec.topology_spread_constraints, constraint))
        return self

    def scheduling_gates(self, *gates: str) -> PodBuilder:
        """Set spec.schedulingGates."""
        self._spec = attrs.evolve(self._spec, scheduling_gates=gates)
        return self

    def grace_period(self, seconds: int) -> PodBuilder:
        """Set spec.terminationGracePeriodSeconds."""
        self._spec = attrs.evolve(self._spec, termination_grace_period_seconds=seconds)
        return self

    def nominated(self, node: str) -> PodBuilder:
        """Set status.nominatedNodeName."""
        self._status = attrs.evolve(self._status, nominated_node_name=node)
        return self

    def start_time(self, when: datetime) -> PodBuilder:
        """Set status.startTime."""
        self._status = attrs.evolve(self._status, start_time=when)
        return self

    def phase(self, phase: str) -> PodBuilder:
        """Set status.phase."""
        self._status = attrs.evolve(self._status, phase=phase)
        return self

    def obj(self) -> Pod:
        """The pod (a pod without containers gets one container with no requests)."""
        containers = tuple(self._containers) or (Container(name="c0"),)
        spec = attrs.evolve(self._spec, containers=containers, init_containers=tuple(self._init_containers))
        return Pod(self._meta, spec, self._status)


class NodeBuilder:
    """Builds a :class:`~kubesched.api.node.Node` step by step."""

    def __init__(self, name: str) -> None:
        self._meta = ObjectMeta(name=name, uid=f"{name}-uid", labels={"kubernetes.io/hostname": name})
        self._spec = NodeSpec()
        self._status = NodeStatus()

    def label(self, **labels: str) -> NodeBuilder:
        """Add labels given as keywords; use :meth:`labels` for keys with dots or slashes."""
        self._meta = attrs.evolve(self._meta, labels={**self._meta.labels, **labels})
        return self

    def labels(self, labels: dict[str, str]) -> NodeBuilder:
        """Add labels whose keys are not Python identifiers (``topology.kubernetes.io/zone``)."""
        self._meta = attrs.evolve(self._meta, labels={**self._meta.labels, **labels})
        return self

    def zone(self, zone: str, region: str = "") -> NodeBuilder:
        """Set the topology zone (and region) labels."""
        labels = {"topology.kubernetes.io/zone": zone}
        if region:
            labels["topology.kubernetes.io/region"] = region
        return self.labels(labels)

    def capacity(self, **resources: str | int | float) -> NodeBuilder:
        """Set capacity and allocatable (``pods`` defaults to 110)."""
        values = _quantities({"pods": 110, **_keys(resources)})
        self._status = attrs.evolve(self._status, capacity=values, allocatable=values)
        return self

    def allocatable(self, **resources: str | int | float) -> NodeBuilder:
        """Set allocatable only."""
        values = _quantities({"pods": 110, **_keys(resources)})
        self._status = attrs.evolve(self._status, allocatable=values)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        """Add a taint."""
        self._spec = attrs.evolve(self._spec, taints=(*self._spec.taints, Taint(key, effect, value)))
        return self

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        """Cordon the node."""
        self._spec = attrs.evolve(self._spec, unschedulable=value)
        return self

    def image(self, size_bytes: int, *names: str) -> NodeBuilder:
        """Add an image present on the node."""
        self._status = attrs.evolve(self._status, images=(*self._status.images, ContainerImage(names, size_bytes)))
        return self

    def obj(self) -> Node:
        """The node."""
        return Node(self._meta, self._spec, self._status)


def _keys(values: dict[str, V]) -> dict[str, V]:
    """Resource names from keywords: ``ephemeral_storage`` -> ``ephemeral-storage``. Other names
    (``nvidia.com/gpu``) can be passed with ``**{"nvidia.com/gpu": 1}``."""
    return {k.replace("_", "-"): v for k, v in values.items()}


def make_pod(name: str, namespace: str = "default") -> PodBuilder:
    """Start building a pod."""
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    """Start building a node."""
    return NodeBuilder(name)

"""PodBuilder: a pod in one line, ``make_pod("p").req(cpu="1").label(app="x").priority(100).obj()``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta, OwnerReference
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
    PodCondition,
    PodSpec,
    PodStatus,
    PreferredSchedulingTerm,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kubesched.api.quantity import Quantity
from kubesched.api.volume import EPHEMERAL_SOURCE, PVC_SOURCE, ClaimTemplate, Volume
from kubesched.testing.builders_terms import (
    UNSET,
    AffinityTermLike,
    MetadataBuilder,
    NodeTermLike,
    SelectorLike,
    Unset,
    affinity_term_of,
    node_term_of,
    quantities,
    resource_keys,
    selector_of,
)

Amounts = dict[str, str | int | float]


def _host_ports(ports: Sequence[int]) -> tuple[ContainerPort, ...]:
    return tuple(ContainerPort(container_port=p, host_port=p) for p in ports)


def _with_host_network_ports(container: Container) -> Container:
    """What the API server stores for a hostNetwork pod: every port's hostPort defaults to its containerPort."""
    if all(p.host_port for p in container.ports):
        return container
    ports = tuple(p if p.host_port else attrs.evolve(p, host_port=p.container_port) for p in container.ports)
    return attrs.evolve(container, ports=ports)


class PodBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.pod.Pod` step by step; ``obj()`` returns the immutable pod."""

    def __init__(self, name: str, namespace: str = "default") -> None:
        self._meta = ObjectMeta(name=name, namespace=namespace, uid=f"{namespace}/{name}-uid")
        self._spec = PodSpec(containers=())
        self._status = PodStatus()
        self._containers: list[Container] = []
        self._init_containers: list[Container] = []
        self._default_container = True
        self._host_network = False

    # -- metadata ----------------------------------------------------------------------------------
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

    # -- containers --------------------------------------------------------------------------------
    def container(self, requests: Amounts | None = None, *, limits: Amounts | None = None, image: str = "",
                  host_ports: tuple[int, ...] = (), ports: Sequence[ContainerPort] = (),
                  name: str = "") -> PodBuilder:
        """Add a container with these requests (a limit without a request sets the request, as the API does),
        limits, image, TCP ``host_ports`` and ``ports`` (see :func:`port`); named ``c<N>`` unless ``name``."""
        reqs = quantities(requests or {})
        lims = quantities(limits or {})
        for resource, limit in lims.items():
            reqs.setdefault(resource, limit)
        self._containers.append(Container(name=name or f"c{len(self._containers)}", image=image, requests=reqs,
                                          limits=lims, ports=(*_host_ports(host_ports), *ports)))
        return self

    def req(self, **requests: str | int | float) -> PodBuilder:
        """Add a container requesting these resources (``cpu="500m"``, ``memory="1Gi"``, ...)."""
        return self.container(resource_keys(requests))

    def container_ports(self, *ports: ContainerPort) -> PodBuilder:
        """Add one container with all these ports (``port(80, "UDP", "10.0.0.1")``...)."""
        return self.container(ports=ports)

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodBuilder:
        """Add a container exposing ``port`` on the host."""
        return self.container(ports=(ContainerPort(container_port=port, host_port=port, protocol=protocol,
                                                   host_ip=host_ip),))

    def no_containers(self) -> PodBuilder:
        """Drop the containers added so far and build without the default container (a pod with none)."""
        self._containers.clear()
        self._default_container = False
        return self

    def init_req(self, sidecar: bool = False, **requests: str | int | float) -> PodBuilder:
        """Add an init container (a sidecar when ``sidecar``) requesting these resources."""
        self._init_containers.append(Container(name=f"init{len(self._init_containers)}",
                                               requests=quantities(resource_keys(requests)),
                                               restart_policy="Always" if sidecar else None))
        return self

    def init_container(self, image: str = "", *, sidecar: bool = False, host_ports: tuple[int, ...] = (),
                       ports: Sequence[ContainerPort] = ()) -> PodBuilder:
        """Add an init container (a restartable sidecar when ``sidecar``) with this image, TCP ``host_ports``
        and ``ports``."""
        self._init_containers.append(Container(name=f"init{len(self._init_containers)}", image=image,
                                               ports=(*_host_ports(host_ports), *ports),
                                               restart_policy="Always" if sidecar else None))
        return self

    def pvc(self, claim_name: str, volume: str | None = None, *, read_only: bool = False) -> PodBuilder:
        """Add a persistentVolumeClaim volume using claim ``claim_name`` (volume name: the claim's unless given)."""
        return self.volume(Volume(name=volume or claim_name, source=PVC_SOURCE, claim_name=claim_name,
                                  read_only=read_only))

    def ephemeral(self, volume: str, template: ClaimTemplate | None = None) -> PodBuilder:
        """Add a generic ephemeral volume; its claim is ``<pod>-<volume>`` (1Gi ReadWriteOnce unless given)."""
        spec = template or ClaimTemplate(access_modes=("ReadWriteOnce",), storage=Quantity.parse("1Gi"))
        return self.volume(Volume(name=volume, source=EPHEMERAL_SOURCE, ephemeral=spec))

    def volume(self, volume: Volume) -> PodBuilder:
        """Add a volume as given (an inline CSI volume, a gcePersistentDisk...)."""
        self._spec = attrs.evolve(self._spec, volumes=(*self._spec.volumes, volume))
        return self

    def host_network(self) -> PodBuilder:
        """Build the pod as the API server stores a ``hostNetwork: true`` pod: every container port without a
        hostPort gets hostPort = containerPort (the object model has no hostNetwork field of its own)."""
        self._host_network = True
        return self

    def overhead(self, **resources: str | int | float) -> PodBuilder:
        """Set spec.overhead."""
        self._spec = attrs.evolve(self._spec, overhead=quantities(resource_keys(resources)))
        return self

    # -- scheduling fields -------------------------------------------------------------------------
    def priority(self, value: int) -> PodBuilder:
        """Set spec.priority."""
        self._spec = attrs.evolve(self._spec, priority=value)
        return self

    def priority_class_name(self, name: str) -> PodBuilder:
        """Set spec.priorityClassName (the builder does not resolve it into spec.priority: use :meth:`priority`)."""
        self._spec = attrs.evolve(self._spec, priority_class_name=name)
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

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal",
                   seconds: int | None = None) -> PodBuilder:
        """Add a toleration (``operator="Exists"`` to match any value; ``seconds`` is tolerationSeconds)."""
        tol = Toleration(key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds)
        self._spec = attrs.evolve(self._spec, tolerations=(*self._spec.tolerations, tol))
        return self

    def scheduling_gates(self, *gates: str) -> PodBuilder:
        """Set spec.schedulingGates."""
        self._spec = attrs.evolve(self._spec, scheduling_gates=gates)
        return self

    def grace_period(self, seconds: int) -> PodBuilder:
        """Set spec.terminationGracePeriodSeconds."""
        self._spec = attrs.evolve(self._spec, termination_grace_period_seconds=seconds)
        return self

    # -- node affinity -----------------------------------------------------------------------------
    def _node_affinity(self) -> NodeAffinity:
        affinity = self._spec.affinity or Affinity()
        return affinity.node_affinity or NodeAffinity()

    def node_affinity(self, node_affinity: NodeAffinity | None) -> PodBuilder:
        """Set spec.affinity.nodeAffinity as given (``None`` removes it)."""
        affinity = self._spec.affinity or Affinity()
        self._spec = attrs.evolve(self._spec, affinity=attrs.evolve(affinity, node_affinity=node_affinity))
        return self

    def node_affinity_term(self, *terms: NodeTermLike) -> PodBuilder:
        """Add required node affinity terms, ORed with each other and earlier ones (``make_node_term()``...);
        with no term, a required node selector with no terms (which matches no node)."""
        current = self._node_affinity()
        before = current.required.node_selector_terms if current.required else ()
        required = NodeSelector((*before, *(node_term_of(t) for t in terms)))
        return self.node_affinity(attrs.evolve(current, required=required))

    def node_affinity_in(self, key: str, *values: str, operator: str = "In") -> PodBuilder:
        """Add a required node affinity term with one expression (a new ORed term)."""
        return self.node_affinity_term(NodeSelectorTerm(match_expressions=(
            NodeSelectorRequirement(key, operator, values),)))

    def node_affinity_names(self, *names: str) -> PodBuilder:
        """Add required terms selecting nodes by metadata.name: one term per name (ORed), as the API
        allows a single value per node field requirement."""
        return self.node_affinity_term(*(NodeSelectorTerm(match_fields=(
            NodeSelectorRequirement("metadata.name", "In", (name,)),)) for name in names))

    def preferred_node_affinity_term(self, weight: int, term: NodeTermLike) -> PodBuilder:
        """Add a preferred node affinity term with this weight (any term: several requirements, fields, empty)."""
        current = self._node_affinity()
        preferred = (*current.preferred, PreferredSchedulingTerm(weight, node_term_of(term)))
        return self.node_affinity(attrs.evolve(current, preferred=preferred))

    def preferred_node_affinity(self, weight: int, key: str, *values: str, operator: str = "In") -> PodBuilder:
        """Add a preferred node affinity term with one expression."""
        return self.preferred_node_affinity_term(weight, NodeSelectorTerm(
            match_expressions=(NodeSelectorRequirement(key, operator, values),)))

    # -- pod affinity and spreading ----------------------------------------------------------------
    def pod_affinity(self, topology_key: str, anti: bool = False, **match_labels: str) -> PodBuilder:
        """Add a required pod (anti-)affinity term selecting pods with these labels."""
        term = PodAffinityTerm(topology_key=topology_key, label_selector=LabelSelector(match_labels=match_labels))
        return self.affinity_term(term, anti=anti)

    def affinity_term(self, term: AffinityTermLike, *, anti: bool = False, weight: int | None = None) -> PodBuilder:
        """Add a pod (anti-)affinity term (``make_affinity_term(...)`` or an object): required, or preferred
        with ``weight``."""
        term = affinity_term_of(term)
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

    def spread(self, max_skew: int, topology_key: str, when: str = "DoNotSchedule", *,
               selector: SelectorLike | Unset | None = UNSET, min_domains: int | None = None,
               node_affinity_policy: str | None = None, node_taints_policy: str | None = None,
               match_label_keys: Sequence[str] = (), **match_labels: str) -> PodBuilder:
        """Add a topology spread constraint selecting pods with ``match_labels``, or by ``selector`` (``None``
        for no selector); the keywords set minDomains, nodeAffinityPolicy, nodeTaintsPolicy and matchLabelKeys."""
        if not isinstance(selector, Unset) and match_labels:
            raise TypeError(f"spread: give either selector= or labels ({', '.join(match_labels)}), not both")
        chosen = LabelSelector(match_labels=match_labels) if isinstance(selector, Unset) else selector_of(selector)
        constraint = TopologySpreadConstraint(max_skew, topology_key, when, chosen, min_domains=min_domains,
                                              node_affinity_policy=node_affinity_policy,
                                              node_taints_policy=node_taints_policy,
                                              match_label_keys=tuple(match_label_keys))
        self._spec = attrs.evolve(self._spec, topology_spread_constraints=(
            *self._spec.topology_spread_constraints, constraint))
        return self

    # -- status ------------------------------------------------------------------------------------
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

    def condition(self, condition_type: str, status: str = "True", reason: str = "", message: str = "",
                  at: datetime | None = None) -> PodBuilder:
        """Add a status condition (``DisruptionTarget``, ``PodScheduled``...); ``at`` is its lastTransitionTime."""
        condition = PodCondition(condition_type, status, reason, message, at)
        self._status = attrs.evolve(self._status, conditions=(*self._status.conditions, condition))
        return self

    def obj(self) -> Pod:
        """The pod; one given no container gets a container ``c0`` with no requests, unless :meth:`no_containers`."""
        containers = tuple(self._containers)
        if not containers and self._default_container:
            containers = (Container(name="c0"),)
        init_containers = tuple(self._init_containers)
        if self._host_network:
            containers = tuple(map(_with_host_network_ports, containers))
            init_containers = tuple(map(_with_host_network_ports, init_containers))
        spec = attrs.evolve(self._spec, containers=containers, init_containers=init_containers)
        return Pod(self._meta, spec, self._status)

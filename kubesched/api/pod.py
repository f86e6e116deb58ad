"""The Pod object model: every field kube-scheduler reads, as frozen attrs classes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

import attrs

from kubesched.api.meta import (
    EMPTY_MAP,
    LabelSelector,
    ObjectMeta,
    frozen_map,
    frozen_str_map,
    frozen_strs,
    frozen_tuple,
)
from kubesched.api.quantity import Quantity
from kubesched.api.replace import replaced
from kubesched.api.volume import Volume, frozen_volumes

ResourceList = Mapping[str, Quantity]
EMPTY_RESOURCES: ResourceList = EMPTY_MAP  # type: ignore[assignment]  # empty, so any value type


def frozen_resources(value: ResourceList) -> ResourceList:
    """Converter of resource lists (requests, limits, overhead, capacity, allocatable)."""
    return frozen_map(value)

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"
DEFAULT_SCHEDULER_NAME = "default-scheduler"


@attrs.frozen(slots=True)
class NodeSelectorRequirement:
    """A node selector expression; operators In, NotIn, Exists, DoesNotExist, Gt, Lt."""

    key: str
    operator: str
    values: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


def _requirements(value: Iterable[NodeSelectorRequirement]) -> tuple[NodeSelectorRequirement, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class NodeSelectorTerm:
    """Expressions on labels and on fields (``metadata.name``), ANDed."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_requirements)
    match_fields: tuple[NodeSelectorRequirement, ...] = attrs.field(default=(), converter=_requirements)


def _terms(value: Iterable[NodeSelectorTerm]) -> tuple[NodeSelectorTerm, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class NodeSelector:
    """Required node selector terms, ORed."""

    node_selector_terms: tuple[NodeSelectorTerm, ...] = attrs.field(default=(), converter=_terms)


@attrs.frozen(slots=True)
class PreferredSchedulingTerm:
    """A weighted preferred node selector term."""

    weight: int
    preference: NodeSelectorTerm


def _preferred_terms(value: Iterable[PreferredSchedulingTerm]) -> tuple[PreferredSchedulingTerm, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class NodeAffinity:
    """requiredDuringSchedulingIgnoredDuringExecution and its preferred counterpart."""

    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = attrs.field(default=(), converter=_preferred_terms)


@attrs.frozen(slots=True)
class PodAffinityTerm:
    """A pod (anti-)affinity term: which pods, in which namespaces, within which topology."""

    topology_key: str
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    mismatch_label_keys: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


@attrs.frozen(slots=True)
class WeightedPodAffinityTerm:
    """A preferred pod (anti-)affinity term with its weight."""

    weight: int
    pod_affinity_term: PodAffinityTerm


def _affinity_terms(value: Iterable[PodAffinityTerm]) -> tuple[PodAffinityTerm, ...]:
    return frozen_tuple(value)


def _weighted_terms(value: Iterable[WeightedPodAffinityTerm]) -> tuple[WeightedPodAffinityTerm, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class PodAffinity:
    """Required and preferred pod affinity (or anti-affinity) terms."""

    required: tuple[PodAffinityTerm, ...] = attrs.field(default=(), converter=_affinity_terms)
    preferred: tuple[WeightedPodAffinityTerm, ...] = attrs.field(default=(), converter=_weighted_terms)


@attrs.frozen(slots=True)
class Affinity:
    """A pod's node affinity, pod affinity and pod anti-affinity."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


@attrs.frozen(slots=True)
class Toleration:
    """A toleration; an empty operator means Equal, an empty key with Exists tolerates everything."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, key: str, value: str, effect: str) -> bool:
        """Whether this toleration tolerates the taint ``key=value:effect`` (core/v1 semantics)."""
        if self.effect and self.effect != effect:
            return False
        if self.key and self.key != key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return self.value == value
        return False


@attrs.frozen(slots=True)
class TopologySpreadConstraint:
    """How a pod spreads across a topology domain."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


@attrs.frozen(slots=True)
class ContainerPort:
    """A container port; only ports with a hostPort matter to the scheduler."""

    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""
    name: str = ""


def _ports(value: Iterable[ContainerPort]) -> tuple[ContainerPort, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class Container:
    """A container or init container; ``restart_policy == "Always"`` marks a sidecar init container."""

    name: str
    image: str = ""
    requests: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    limits: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    ports: tuple[ContainerPort, ...] = attrs.field(default=(), converter=_ports)
    restart_policy: str | None = None


def _containers(value: Iterable[Container]) -> tuple[Container, ...]:
    return frozen_tuple(value)


def _tolerations(value: Iterable[Toleration]) -> tuple[Toleration, ...]:
    return frozen_tuple(value)


def _spread_constraints(value: Iterable[TopologySpreadConstraint]) -> tuple[TopologySpreadConstraint, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class PodSpec:
    """The parts of a pod spec that scheduling reads."""

    containers: tuple[Container, ...] = attrs.field(default=(), converter=_containers)
    init_containers: tuple[Container, ...] = attrs.field(default=(), converter=_containers)
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    priority: int | None = None
    priority_class_name: str = ""
    preemption_policy: str | None = None
    node_selector: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_tolerations)
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = attrs.field(
        default=(), converter=_spread_constraints)
    overhead: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    scheduling_gates: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    termination_grace_period_seconds: int = 30
    #: The pod's volumes (what the volume plugins read of them).
    volumes: tuple[Volume, ...] = attrs.field(default=(), converter=frozen_volumes)
    #: The RuntimeClass admission resolved (its overhead and scheduling constraints are in the fields above).
    runtime_class_name: str = ""
    #: Seconds the pod may run; set, it makes the pod "Terminating" to a ResourceQuota's scopes.
    active_deadline_seconds: int | None = None


@attrs.frozen(slots=True)
class PodCondition:
    """A pod status condition such as PodScheduled or DisruptionTarget."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None


def _conditions(value: Iterable[PodCondition]) -> tuple[PodCondition, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class PodStatus:
    """Phase, nomination, start time and conditions."""

    phase: str = "Pending"
    nominated_node_name: str = ""
    start_time: datetime | None = None
    conditions: tuple[PodCondition, ...] = attrs.field(default=(), converter=_conditions)


@attrs.frozen(slots=True)
class Pod:
    """A pod. Immutable: the scheduler and the cluster replace pods, never edit them in place."""

    metadata: ObjectMeta
    spec: PodSpec = PodSpec()
    status: PodStatus = PodStatus()

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """metadata.namespace."""
        return self.metadata.namespace

    @property
    def uid(self) -> str:
        """metadata.uid."""
        return self.metadata.uid

    @property
    def key(self) -> str:
        """``namespace/name``, the pod's identity in messages and results."""
        return f"{self.metadata.namespace}/{self.metadata.name}"

    @property
    def labels(self) -> Mapping[str, str]:
        """metadata.labels."""
        return self.metadata.labels

    @property
    def priority(self) -> int:
        """The pod's priority: spec.priority, or 0 when unset (corev1helpers.PodPriority)."""
        priority = self.spec.priority
        return 0 if priority is None else priority

    def with_node_name(self, node_name: str) -> Pod:
        """A copy assigned to ``node_name``."""
        return replaced(self, spec=replaced(self.spec, node_name=str(node_name)))

    def with_status(self, **changes: object) -> Pod:
        """A copy with status fields replaced."""
        if "conditions" in changes:
            changes["conditions"] = _conditions(changes["conditions"])  # type: ignore[arg-type]
        return replaced(self, status=replaced(self.status, **changes))

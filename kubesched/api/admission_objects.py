"""The objects the API server's admission reads when a pod is created: LimitRange and ResourceQuota (core/v1) and
RuntimeClass (node.k8s.io/v1)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kubesched.api.meta import EMPTY_MAP, ObjectMeta, frozen_str_map, frozen_strs, frozen_tuple
from kubesched.api.pod import EMPTY_RESOURCES, ResourceList, Toleration, frozen_resources

LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CLAIM = "PersistentVolumeClaim"

# The ResourceQuota scopes (core/v1 ResourceQuotaScope).
SCOPE_TERMINATING = "Terminating"
SCOPE_NOT_TERMINATING = "NotTerminating"
SCOPE_BEST_EFFORT = "BestEffort"
SCOPE_NOT_BEST_EFFORT = "NotBestEffort"
SCOPE_PRIORITY_CLASS = "PriorityClass"
SCOPE_CROSS_NAMESPACE_POD_AFFINITY = "CrossNamespacePodAffinity"
SCOPE_VOLUME_ATTRIBUTES_CLASS = "VolumeAttributesClass"


@attrs.frozen(slots=True)
class LimitRangeItem:
    """One entry of a LimitRange's spec.limits, as the API server stores it (a Container item's default and
    defaultRequest already defaulted from max, default and min)."""

    type: str
    max: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    min: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    default: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    default_request: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    max_limit_request_ratio: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)


def _items(value: Iterable[LimitRangeItem]) -> tuple[LimitRangeItem, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class LimitRange:
    """Per-namespace defaults and bounds of containers' and pods' resources (the LimitRanger admission plugin)."""

    metadata: ObjectMeta
    limits: tuple[LimitRangeItem, ...] = attrs.field(default=(), converter=_items)

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """metadata.namespace."""
        return self.metadata.namespace


@attrs.frozen(slots=True)
class ScopedResourceSelectorRequirement:
    """One ``spec.scopeSelector.matchExpressions`` entry: a scope with In, NotIn, Exists or DoesNotExist."""

    scope_name: str
    operator: str
    values: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)


def _requirements(value: Iterable[ScopedResourceSelectorRequirement]) -> tuple[ScopedResourceSelectorRequirement, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class ResourceQuota:
    """A namespace's hard limits on what its pods may use, for the pods its scopes and scope selector match."""

    metadata: ObjectMeta
    hard: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    scopes: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)
    scope_selector: tuple[ScopedResourceSelectorRequirement, ...] = attrs.field(default=(), converter=_requirements)

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """metadata.namespace."""
        return self.metadata.namespace

    def selectors(self) -> tuple[ScopedResourceSelectorRequirement, ...]:
        """Every scope as a selector requirement: spec.scopes (each ``Exists``), then the scope selector's."""
        return (*(ScopedResourceSelectorRequirement(scope, "Exists") for scope in self.scopes), *self.scope_selector)


def _tolerations(value: Iterable[Toleration]) -> tuple[Toleration, ...]:
    return frozen_tuple(value)


def _overhead(value: ResourceList | None) -> ResourceList | None:
    return None if value is None else frozen_resources(value)


@attrs.frozen(slots=True)
class RuntimeClass:
    """A container runtime configuration a pod names in spec.runtimeClassName: its pod overhead (None when the class
    sets none) and the scheduling constraints its pods get (node selector, tolerations)."""

    metadata: ObjectMeta
    handler: str
    overhead: ResourceList | None = attrs.field(default=None, converter=_overhead)
    node_selector: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_tolerations)

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

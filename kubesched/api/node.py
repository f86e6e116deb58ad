"""The Node object model: labels, taints, unschedulable, capacity, allocatable and images."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from kubesched.api.meta import ObjectMeta, frozen_strs, frozen_tuple
from kubesched.api.pod import EMPTY_RESOURCES, ResourceList, frozen_resources

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
TAINT_EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)

# The taint the node lifecycle controller puts on cordoned nodes (v1.TaintNodeUnschedulable).
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


@attrs.frozen(slots=True)
class Taint:
    """A node taint ``key=value:effect``."""

    key: str
    effect: str
    value: str = ""


@attrs.frozen(slots=True)
class ContainerImage:
    """An image present on a node, under all its names."""

    names: tuple[str, ...] = attrs.field(converter=frozen_strs)
    size_bytes: int = 0


def _taints(value: Iterable[Taint]) -> tuple[Taint, ...]:
    return frozen_tuple(value)


def _images(value: Iterable[ContainerImage]) -> tuple[ContainerImage, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class NodeSpec:
    """Taints and the cordon flag."""

    taints: tuple[Taint, ...] = attrs.field(default=(), converter=_taints)
    unschedulable: bool = False


@attrs.frozen(slots=True)
class NodeStatus:
    """Capacity, allocatable and the images the kubelet reports."""

    capacity: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    allocatable: ResourceList = attrs.field(default=EMPTY_RESOURCES, converter=frozen_resources)
    images: tuple[ContainerImage, ...] = attrs.field(default=(), converter=_images)


@attrs.frozen(slots=True)
class Node:
    """A node. Immutable like :class:`~kubesched.api.pod.Pod`."""

    metadata: ObjectMeta
    spec: NodeSpec = NodeSpec()
    status: NodeStatus = NodeStatus()

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def labels(self) -> Mapping[str, str]:
        """metadata.labels."""
        return self.metadata.labels

"""What each node offers and what its pods request at the end of a run, per resource: the result's ``nodes`` key
and the Nodes table (docs/simulate.md)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import attrs

from kubesched.api.node import Node
from kubesched.api.quantity import BINARY_SI, DECIMAL_SI, canonical_text
from kubesched.api.resources import (
    CPU,
    EPHEMERAL_STORAGE,
    FIRST_RESOURCES,
    MEMORY,
    PODS,
    is_scalar_resource_name,
    resource_order,
)
from kubesched.framework._node_info import NodeInfo

_HUGEPAGES = "hugepages-"


def is_bytes(name: str) -> bool:
    """Whether ``name`` counts bytes (memory, ephemeral-storage, hugepages-*): shown in binary units."""
    return name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith(_HUGEPAGES)


def quantity_text(name: str, value: int) -> str:
    """An amount of resource ``name`` (millicores for cpu) as a canonical Kubernetes quantity, in the notation
    the kubelet writes it in a node's status: cpu in DecimalSI ("1500m", "4"), bytes in BinarySI ("8Gi"),
    counts in DecimalSI ("110")."""
    if name == CPU:
        return canonical_text(Fraction(value, 1000), DECIMAL_SI)
    return canonical_text(Fraction(value), BINARY_SI if is_bytes(name) else DECIMAL_SI)


@attrs.frozen
class NodeUsage:
    """A node at the end of the run: per resource it carries, its allocatable, and per resource its pods use, their
    requests summed as kube-scheduler's NodeInfo sums them (no non-zero defaults; ``pods`` is how many pods it
    holds). Amounts are in the scheduler's units: cpu in millicores, bytes, counts; keys in output order."""

    name: str
    allocatable: Mapping[str, int]
    requested: Mapping[str, int]

    # The fields NodeUsage had before it held every resource, kept for code that reads them.
    @property
    def pods(self) -> int:
        """How many pods the node holds."""
        return self.requested.get(PODS, 0)

    @property
    def max_pods(self) -> int:
        """The node's allocatable pods."""
        return self.allocatable.get(PODS, 0)

    @property
    def cpu_requested(self) -> int:
        """Its pods' cpu requests, in millicores."""
        return self.requested.get(CPU, 0)

    @property
    def cpu_allocatable(self) -> int:
        """Its allocatable cpu, in millicores."""
        return self.allocatable.get(CPU, 0)

    @property
    def memory_requested(self) -> int:
        """Its pods' memory requests, in bytes."""
        return self.requested.get(MEMORY, 0)

    @property
    def memory_allocatable(self) -> int:
        """Its allocatable memory, in bytes."""
        return self.allocatable.get(MEMORY, 0)

    def to_json(self) -> dict[str, object]:
        """The node's entry of the result's ``nodes`` key: amounts as canonical quantity strings."""
        return {"name": self.name,
                "allocatable": {n: quantity_text(n, v) for n, v in self.allocatable.items()},
                "requested": {n: quantity_text(n, v) for n, v in self.requested.items()}}


#: The resource name of a CSI driver's attach limit, as the kubelet once published it in a node's allocatable.
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-csi-"


def node_usage(node: Node, info: NodeInfo, volume_limits: Mapping[str, int] | None = None,
               attached: Mapping[str, int] | None = None) -> NodeUsage:
    """The usage of ``node`` from the scheduler's view of it. The resources it carries are the keys of its
    allocatable the scheduler accounts (unknown unprefixed names are ignored, as kube-scheduler ignores them);
    a resource it does not carry appears under ``requested`` only when its pods ask for some (a pod bound by
    ``spec.nodeName``, or one whose request a profile's ignoredResources let through). A CSI driver's attach
    limit from the node's CSINode (``volume_limits``) and the unique volumes of that driver its pods attach
    (``attached``) join both maps as ``attachable-volumes-csi-<driver>``."""
    carried = {n for n in node.status.allocatable if n in FIRST_RESOURCES or is_scalar_resource_name(n)}
    used = info.requested
    amounts = {CPU: used.milli_cpu, MEMORY: used.memory, EPHEMERAL_STORAGE: used.ephemeral_storage,
               PODS: len(info.pods), **used.scalar_resources}
    allocatable = {n: info.allocatable.get(n) for n in carried}
    for driver, limit in (volume_limits or {}).items():
        allocatable[ATTACHABLE_VOLUMES_PREFIX + driver] = limit
        amounts.setdefault(ATTACHABLE_VOLUMES_PREFIX + driver, 0)
    for driver, count in (attached or {}).items():
        amounts[ATTACHABLE_VOLUMES_PREFIX + driver] = count
    asked = {n for n, v in amounts.items() if v}
    return NodeUsage(node.name,
                     {n: allocatable[n] for n in resource_order(allocatable)},
                     {n: amounts.get(n, 0) for n in resource_order(set(allocatable) | asked)})

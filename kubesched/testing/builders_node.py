"""NodeBuilder: a node in one line, ``make_node("n1").capacity(cpu="4", memory="8Gi").zone("a").obj()``."""

from __future__ import annotations

import attrs

from kubesched.api.meta import ObjectMeta
from kubesched.api.node import ContainerImage, Node, NodeSpec, NodeStatus, Taint
from kubesched.testing.builders_terms import MetadataBuilder, quantities, resource_keys

#: The label every kubelet puts on its node, which the builder sets too (remove it with ``unlabel``).
HOSTNAME_LABEL = "kubernetes.io/hostname"
#: The pod count capacity and allocatable get when not given.
DEFAULT_PODS = 110


class NodeBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.node.Node` step by step; it starts with the ``kubernetes.io/hostname``
    label and no capacity or allocatable at all."""

    def __init__(self, name: str) -> None:
        self._meta = ObjectMeta(name=name, uid=f"{name}-uid", labels={HOSTNAME_LABEL: name})
        self._spec = NodeSpec()
        self._status = NodeStatus()

    def zone(self, zone: str, region: str = "") -> NodeBuilder:
        """Set the topology zone (and region) labels."""
        labels = {"topology.kubernetes.io/zone": zone}
        if region:
            labels["topology.kubernetes.io/region"] = region
        return self.labels(labels)

    def capacity(self, **resources: str | int | float) -> NodeBuilder:
        """Set capacity and allocatable (``pods`` defaults to 110)."""
        values = quantities({"pods": DEFAULT_PODS, **resource_keys(resources)})
        self._status = attrs.evolve(self._status, capacity=values, allocatable=values)
        return self

    def allocatable(self, **resources: str | int | float) -> NodeBuilder:
        """Set allocatable only (``pods`` defaults to 110)."""
        values = quantities({"pods": DEFAULT_PODS, **resource_keys(resources)})
        self._status = attrs.evolve(self._status, allocatable=values)
        return self

    def without_resource(self, *names: str) -> NodeBuilder:
        """Remove resources from capacity and allocatable (``"pods"``: a node that reports no pod limit)."""
        status = self._status
        self._status = attrs.evolve(status, capacity={k: v for k, v in status.capacity.items() if k not in names},
                                    allocatable={k: v for k, v in status.allocatable.items() if k not in names})
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

"""Resource: integer resource amounts as the scheduler accounts them (millicores, bytes, counts)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import attrs

from kubesched.api.quantity import Quantity
from kubesched.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_scalar_resource_name


@attrs.define(slots=True, eq=True)
class Resource:
    """Amounts per resource: cpu in millicores, memory and ephemeral storage in bytes, pods, scalars.

    Scalar resources are extended resources (``nvidia.com/gpu``), hugepages and prefixed native resources;
    resource names the scheduler does not know are ignored, as kube-scheduler does.
    """

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = attrs.field(factory=dict)

    @classmethod
    def from_amounts(cls, amounts: Mapping[str, Fraction | Quantity]) -> Resource:
        """Convert exact amounts (or quantities) with kube's rounding: MilliValue for cpu, Value otherwise."""
        res = cls()
        for name, raw in amounts.items():
            amount = raw.amount if isinstance(raw, Quantity) else raw
            # ceil(num / den) in integers: exact, and much cheaper than Fraction arithmetic.
            num, den = amount.numerator, amount.denominator
            if name == CPU:
                res.milli_cpu += -(-num * 1000 // den)
            elif name == MEMORY:
                res.memory += -(-num // den)
            elif name == EPHEMERAL_STORAGE:
                res.ephemeral_storage += -(-num // den)
            elif name == PODS:
                res.allowed_pod_number += -(-num // den)
            elif is_scalar_resource_name(name):
                res.scalar_resources[name] = res.scalar_resources.get(name, 0) - (-num // den)
        return res

    def add(self, other: Resource) -> None:
        """Add ``other`` into this resource."""
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.allowed_pod_number += other.allowed_pod_number
        if other.scalar_resources:
            scalars = self.scalar_resources
            for name, value in other.scalar_resources.items():
                scalars[name] = scalars.get(name, 0) + value

    def subtract(self, other: Resource) -> None:
        """Subtract ``other`` from this resource."""
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pod_number -= other.allowed_pod_number
        if other.scalar_resources:
            scalars = self.scalar_resources
            for name, value in other.scalar_resources.items():
                scalars[name] = scalars.get(name, 0) - value

    def clone(self) -> Resource:
        """An independent copy."""
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number,
                        dict(self.scalar_resources))

    def is_zero(self) -> bool:
        """Nothing requested at all (the pod count is not a request)."""
        return (not self.milli_cpu and not self.memory and not self.ephemeral_storage
                and not any(self.scalar_resources.values()))

    def get(self, name: str) -> int:
        """The amount of one resource by its Kubernetes name (0 when absent)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

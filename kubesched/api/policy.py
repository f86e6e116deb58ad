"""PriorityClass (scheduling.k8s.io/v1) and PodDisruptionBudget (policy/v1)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.api.meta import EMPTY_MAP, LabelSelector, ObjectMeta, frozen_str_map
from kubesched.api.pod import PREEMPT_LOWER_PRIORITY

# pkg/apis/scheduling: values of the classes the API server creates itself.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"


@attrs.frozen(slots=True)
class PriorityClass:
    """A named priority value with its preemption policy."""

    metadata: ObjectMeta
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    description: str = ""

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name


def builtin_priority_classes() -> tuple[PriorityClass, ...]:
    """system-cluster-critical and system-node-critical, which every API server creates."""
    return (
        PriorityClass(ObjectMeta(name="system-cluster-critical"), SYSTEM_CRITICAL_PRIORITY,
                      description="Used for system critical pods that must run in the cluster, "
                                  "but can be moved to another node if necessary."),
        PriorityClass(ObjectMeta(name="system-node-critical"), SYSTEM_CRITICAL_PRIORITY + 1000,
                      description="Used for system critical pods that must not be moved from their "
                                  "current node."),
    )


@attrs.frozen(slots=True)
class IntOrPercent:
    """An intstr value: a plain count or a percentage such as ``"25%"``."""

    value: int
    is_percent: bool = False

    def scaled(self, total: int, *, round_up: bool) -> int:
        """The count this stands for out of ``total`` (intstr.GetScaledValueFromIntOrPercent)."""
        if not self.is_percent:
            return self.value
        product = self.value * total
        return -((-product) // 100) if round_up else product // 100

    def __str__(self) -> str:
        return f"{self.value}%" if self.is_percent else str(self.value)


@attrs.frozen(slots=True)
class PodDisruptionBudgetStatus:
    """What the disruption controller last wrote; ``disruptions_allowed`` is None when absent."""

    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None
    disrupted_pods: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)


@attrs.frozen(slots=True)
class PodDisruptionBudget:
    """A PDB: minAvailable xor maxUnavailable over the pods its selector matches in its namespace."""

    metadata: ObjectMeta
    selector: LabelSelector | None = None
    min_available: IntOrPercent | None = None
    max_unavailable: IntOrPercent | None = None
    status: PodDisruptionBudgetStatus = PodDisruptionBudgetStatus()

    @property
    def name(self) -> str:
        """metadata.name."""
        return self.metadata.name

    @property
    def namespace(self) -> str:
        """metadata.namespace."""
        return self.metadata.namespace

"""Builders for the other objects plugins read: PodDisruptionBudget, PriorityClass and Namespace."""

from __future__ import annotations

import re

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.api.pod import PREEMPT_LOWER_PRIORITY
from kubesched.api.policy import IntOrPercent, PodDisruptionBudget, PriorityClass
from kubesched.api.workload import NAMESPACE_NAME_LABEL, Namespace
from kubesched.testing.builders_terms import MetadataBuilder, SelectorLike, selector_of

_PERCENT = re.compile(r"[0-9]+%", re.ASCII)


def int_or_percent(value: int | str) -> IntOrPercent:
    """An intstr value from ``2`` or ``"50%"``; anything else is a ValueError."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return IntOrPercent(value)
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return IntOrPercent(int(value[:-1]), is_percent=True)
    raise ValueError(f"{value!r} is neither a non-negative count nor a percentage such as '50%'")


class PdbBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.policy.PodDisruptionBudget`. It starts with no selector (which selects no
    pod in policy/v1), no minAvailable or maxUnavailable and no status."""

    def __init__(self, name: str, namespace: str = "default") -> None:
        self._meta = ObjectMeta(name=name, namespace=namespace, uid=f"{namespace}/{name}-uid")
        self._pdb = PodDisruptionBudget(self._meta)

    def match(self, **labels: str) -> PdbBuilder:
        """Select pods with these labels (added to spec.selector.matchLabels)."""
        current = self._pdb.selector or LabelSelector()
        return self.selector(attrs.evolve(current, match_labels={**current.match_labels, **labels}))

    def selector(self, selector: SelectorLike | None) -> PdbBuilder:
        """Set spec.selector as given (``make_selector()`` for an empty one, which selects every pod)."""
        self._pdb = attrs.evolve(self._pdb, selector=selector_of(selector))
        return self

    def min_available(self, value: int | str) -> PdbBuilder:
        """Set spec.minAvailable: a count or a percentage (``"50%"``)."""
        self._pdb = attrs.evolve(self._pdb, min_available=int_or_percent(value))
        return self

    def max_unavailable(self, value: int | str) -> PdbBuilder:
        """Set spec.maxUnavailable: a count or a percentage (``"50%"``)."""
        self._pdb = attrs.evolve(self._pdb, max_unavailable=int_or_percent(value))
        return self

    def disruptions_allowed(self, count: int) -> PdbBuilder:
        """Set status.disruptionsAllowed (without it the scheduler works the budget out from the pods)."""
        self._pdb = attrs.evolve(self._pdb, status=attrs.evolve(self._pdb.status, disruptions_allowed=count))
        return self

    def disrupted(self, *pod_names: str, at: str = "1970-01-01T00:00:00Z") -> PdbBuilder:
        """Add pods to status.disruptedPods (pod name to the time of its eviction)."""
        status = self._pdb.status
        disrupted = {**status.disrupted_pods, **dict.fromkeys(pod_names, at)}
        self._pdb = attrs.evolve(self._pdb, status=attrs.evolve(status, disrupted_pods=disrupted))
        return self

    def obj(self) -> PodDisruptionBudget:
        """The PodDisruptionBudget."""
        return attrs.evolve(self._pdb, metadata=self._meta)


class PriorityClassBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.policy.PriorityClass` (not global default, PreemptLowerPriority)."""

    def __init__(self, name: str, value: int) -> None:
        self._meta = ObjectMeta(name=name, uid=f"{name}-uid")
        self._class = PriorityClass(self._meta, value, preemption_policy=PREEMPT_LOWER_PRIORITY)

    def global_default(self, value: bool = True) -> PriorityClassBuilder:
        """Make this the class of pods that name none."""
        self._class = attrs.evolve(self._class, global_default=value)
        return self

    def preemption_policy(self, policy: str) -> PriorityClassBuilder:
        """Set preemptionPolicy (``Never`` for pods that must not preempt)."""
        self._class = attrs.evolve(self._class, preemption_policy=policy)
        return self

    def description(self, text: str) -> PriorityClassBuilder:
        """Set the description."""
        self._class = attrs.evolve(self._class, description=text)
        return self

    def obj(self) -> PriorityClass:
        """The PriorityClass."""
        return attrs.evolve(self._class, metadata=self._meta)


class NamespaceBuilder(MetadataBuilder):
    """Builds a :class:`~kubesched.api.workload.Namespace` with the ``kubernetes.io/metadata.name`` label the
    API server gives every namespace."""

    def __init__(self, name: str) -> None:
        self._meta = ObjectMeta(name=name, uid=f"{name}-uid", labels={NAMESPACE_NAME_LABEL: name})

    def obj(self) -> Namespace:
        """The Namespace."""
        return Namespace(self._meta)

"""PodTopologySpread args and the constraint model shared by Filter and Score: which constraints apply to a
pod (its own or the configured defaults), their selectors, and which nodes and pods they count."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

import attrs

from kubesched.api import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    RequiredNodeAffinity,
    TopologySpreadConstraint,
    find_untolerated_taint,
    is_qualified_name,
)
from kubesched.framework import ArgsError, PodInfo

NAME = "PodTopologySpread"

DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
HONOR: Final = "Honor"
IGNORE: Final = "Ignore"
SYSTEM_DEFAULTING: Final = "System"
LIST_DEFAULTING: Final = "List"

HOSTNAME_LABEL = "kubernetes.io/hostname"
ZONE_LABEL = "topology.kubernetes.io/zone"

_ACTIONS = (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
_DEFAULTING_TYPES = (SYSTEM_DEFAULTING, LIST_DEFAULTING)


def _supported(values: Sequence[str]) -> str:
    return ", ".join(f'"{v}"' for v in values)


# -- args ---------------------------------------------------------------------------------------------

def _positive_skew(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value <= 0:
        raise ArgsError(f"Invalid value: {value}: not in valid range (0, inf)", "max-skew")


def _label_name(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not value:
        raise ArgsError("Required value: can not be empty", "topology-key")
    if not is_qualified_name(value):
        raise ArgsError(f'Invalid value: "{value}": must be a qualified label name (an optional DNS subdomain '
                        "prefix and '/', then at most 63 alphanumeric characters, '-', '_' or '.', starting and "
                        "ending with an alphanumeric character)", "topology-key")


def _action(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not value:
        raise ArgsError("Required value: can not be empty", "when-unsatisfiable")
    if value not in _ACTIONS:
        raise ArgsError(f'Unsupported value: "{value}": supported values: {_supported(_ACTIONS)}',
                        "when-unsatisfiable")


def _no_selector(_instance: object, attribute: attrs.Attribute[dict[str, Any] | None], value: object) -> None:
    if value is not None:
        raise ArgsError("Forbidden: constraint must not define a selector, as they deduced for each pod",
                        "label-selector")


def _positive_or_unset(_instance: object, attribute: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and value <= 0:
        raise ArgsError(f"Invalid value: {value}: must be greater than 0", "min-domains")


def _policy(_instance: object, attribute: attrs.Attribute[str | None], value: str | None) -> None:
    if value is not None and value not in (HONOR, IGNORE):
        raise ArgsError(f'Unsupported value: "{value}": supported values: "{HONOR}", "{IGNORE}"',
                        attribute.name.replace("_", "-"))


@attrs.frozen
class SpreadConstraintArg:
    """A default spread constraint in plugin config; its selector is deduced per pod from its workload."""

    max_skew: int = attrs.field(validator=_positive_skew)
    topology_key: str = attrs.field(validator=_label_name)
    when_unsatisfiable: Literal["DoNotSchedule", "ScheduleAnyway"] = attrs.field(validator=_action)
    #: Only here to reject it with a clear error: default constraints never carry a selector.
    label_selector: Mapping[str, Any] | None = attrs.field(default=None, validator=_no_selector)
    min_domains: int | None = attrs.field(default=None, validator=_positive_or_unset)
    node_affinity_policy: Literal["Honor", "Ignore"] | None = attrs.field(default=None, validator=_policy)
    node_taints_policy: Literal["Honor", "Ignore"] | None = attrs.field(default=None, validator=_policy)


#: kube-scheduler's built-in defaults, used when ``defaulting-type`` is System.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[SpreadConstraintArg, ...] = (
    SpreadConstraintArg(3, HOSTNAME_LABEL, SCHEDULE_ANYWAY),
    SpreadConstraintArg(5, ZONE_LABEL, SCHEDULE_ANYWAY),
)


@attrs.frozen
class PodTopologySpreadArgs:
    """Args of PodTopologySpread: System uses the built-in defaults, List uses ``default-constraints``."""

    defaulting_type: Literal["System", "List"] = SYSTEM_DEFAULTING
    default_constraints: tuple[SpreadConstraintArg, ...] = ()

    def __attrs_post_init__(self) -> None:
        if self.defaulting_type not in _DEFAULTING_TYPES:
            raise ArgsError(f'Unsupported value: "{self.defaulting_type}": supported values: '
                            f"{_supported(_DEFAULTING_TYPES)}", "defaulting-type")
        if self.defaulting_type == SYSTEM_DEFAULTING and self.default_constraints:
            raise ArgsError(f'Invalid value: "{SYSTEM_DEFAULTING}": when default-constraints are not empty',
                            "defaulting-type")
        seen: set[tuple[str, str]] = set()
        for i, c in enumerate(self.default_constraints):
            pair = (c.topology_key, c.when_unsatisfiable)
            if pair in seen:
                raise ArgsError(f'Duplicate value: "{{{c.topology_key}, {c.when_unsatisfiable}}}"',
                                f"default-constraints[{i}]")
            seen.add(pair)

    def effective_defaults(self) -> tuple[SpreadConstraintArg, ...]:
        """The default constraints in force: the built-in ones under System, the configured list otherwise."""
        return SYSTEM_DEFAULT_CONSTRAINTS if self.defaulting_type == SYSTEM_DEFAULTING else self.default_constraints


# -- constraints --------------------------------------------------------------------------------------

@attrs.frozen(slots=True)
class SpreadConstraint:
    """A constraint ready to evaluate: policies resolved, matchLabelKeys merged into the selector.

    ``selector`` None matches no pod (a constraint without labelSelector), unlike an empty selector.
    """

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def selects(self, labels: Mapping[str, str]) -> bool:
        """Whether the selector matches these labels (the incoming pod's self-match; ``{}`` matches all)."""
        return self.selector is not None and self.selector.matches(labels)

    def counts(self, labels: Mapping[str, str]) -> bool:
        """Whether an existing pod with these labels is counted: as kube-scheduler's countPodsMatchSelector,
        an empty selector counts no pod, though the incoming pod still matches it."""
        selector = self.selector
        return selector is not None and not selector.is_empty() and selector.matches(labels)


def _merge_match_label_keys(selector: LabelSelector | None, keys: tuple[str, ...],
                            pod_labels: Mapping[str, str]) -> LabelSelector | None:
    """AND the incoming pod's values for ``keys`` into the selector; keys the pod lacks are ignored.

    A constraint without labelSelector keeps matching nothing (the API server rejects matchLabelKeys there).
    """
    values = {k: pod_labels[k] for k in keys if k in pod_labels}
    if not values or selector is None:
        return selector
    extra = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in values.items())
    return LabelSelector(match_labels=selector.match_labels,
                         match_expressions=(*selector.match_expressions, *extra))


def pod_constraints(constraints: Iterable[TopologySpreadConstraint], pod_labels: Mapping[str, str],
                    action: str) -> tuple[SpreadConstraint, ...]:
    """The pod's own constraints with ``whenUnsatisfiable == action``, with defaults filled in."""
    out = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        out.append(SpreadConstraint(
            max_skew=c.max_skew,
            topology_key=c.topology_key,
            selector=_merge_match_label_keys(c.label_selector, c.match_label_keys, pod_labels),
            min_domains=c.min_domains if c.min_domains is not None else 1,
            node_affinity_policy=c.node_affinity_policy or HONOR,
            node_taints_policy=c.node_taints_policy or IGNORE,
        ))
    return tuple(out)


def default_constraints(defaults: Iterable[SpreadConstraintArg],
                        selector: LabelSelector) -> tuple[SpreadConstraint, ...]:
    """Default constraints applied with the selector deduced from the pod's workload."""
    return tuple(SpreadConstraint(c.max_skew, c.topology_key, selector,
                                  min_domains=c.min_domains if c.min_domains is not None else 1,
                                  node_affinity_policy=c.node_affinity_policy or HONOR,
                                  node_taints_policy=c.node_taints_policy or IGNORE) for c in defaults)


def has_all_keys(labels: Mapping[str, str], constraints: Sequence[SpreadConstraint]) -> bool:
    """Whether the node labels hold every constraint's topology key (nodes lacking one are not counted)."""
    return all(c.topology_key in labels for c in constraints)


class InclusionCheck:
    """Whether a node counts for a constraint under its nodeAffinityPolicy and nodeTaintsPolicy.

    Built once per pod and cycle; the pod's required node affinity is evaluated at most once per node.
    """

    __slots__ = ("_affinity", "_honor_affinity", "_honor_taints", "_tolerations")

    def __init__(self, pod: Pod, constraints: Sequence[SpreadConstraint]) -> None:
        self._affinity = RequiredNodeAffinity.of(pod)
        self._tolerations = pod.spec.tolerations
        self._honor_affinity = any(c.node_affinity_policy == HONOR for c in constraints)
        self._honor_taints = any(c.node_taints_policy == HONOR for c in constraints)

    def per_constraint(self, node: Node, constraints: Sequence[SpreadConstraint]) -> list[bool]:
        """For each constraint, whether ``node`` is eligible to count its pods."""
        affinity_ok = not self._honor_affinity or self._affinity.matches(node)
        taints_ok = not self._honor_taints or find_untolerated_taint(node.spec.taints, self._tolerations) is None
        return [(affinity_ok or c.node_affinity_policy != HONOR) and (taints_ok or c.node_taints_policy != HONOR)
                for c in constraints]


def counts_for(pod: Pod, namespace: str) -> bool:
    """Whether an existing pod can count at all: same namespace as the incoming pod and not terminating."""
    return pod.metadata.deletion_timestamp is None and pod.metadata.namespace == namespace


def selector_groups(constraints: Sequence[SpreadConstraint]) -> tuple[int, ...]:
    """For each constraint, the index of the first constraint with an equal selector (so each is counted once)."""
    return tuple(next(j for j in range(i + 1) if constraints[j].selector == c.selector)
                 for i, c in enumerate(constraints))


def count_matching(pods: Iterable[PodInfo], constraint: SpreadConstraint, namespace: str) -> int:
    """How many of the node's pods the constraint counts (same namespace, not terminating, selected by a
    non-empty selector)."""
    selector = constraint.selector
    if selector is None or selector.is_empty():
        return 0
    matches = selector.matches
    count = 0
    for pod_info in pods:
        meta = pod_info.pod.metadata
        if meta.namespace == namespace and meta.deletion_timestamp is None and matches(meta.labels):
            count += 1
    return count

"""PodTopologySpread PreFilter/Filter: count matching pods per topology domain once, then check each node's skew
against the smallest domain; AddPod/RemovePod keep the counts as a fresh PreFilter would compute them."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import Node, Pod
from kubesched.framework import IntArray, NodeInfo, StateKey, Status
from kubesched.plugins.pod_topology_spread.common import (
    NAME,
    InclusionCheck,
    SpreadConstraint,
    count_matching,
    counts_for,
    has_all_keys,
    selector_groups,
)

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_REJECT_SKEW = Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH).with_plugin(NAME)
_REJECT_MISSING_LABEL = Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH).with_plugin(NAME)
# The minimum of a constraint with no domain at all (kube starts its critical paths at MaxInt32).
_NO_DOMAIN_MIN = 2**31 - 1

BoolArray = npt.NDArray[np.bool_]


class DomainCounts:
    """Matching pods per topology value of one constraint, plus the smallest count and the number of domains.

    Built from a dict (value -> count) or, by the columnar PreFilter, from counts per code of a label index's
    values; the dict is then materialised only when read (the per-node hooks, AddPod/RemovePod). A histogram of
    counts, built on the first change, keeps the minimum exact under AddPod/RemovePod in O(1) for +/-1 steps.
    """

    __slots__ = ("_counts", "_histogram", "_per_code", "_present", "_values", "min_match", "size")

    def __init__(self, counts: dict[str, int]) -> None:
        self._counts: dict[str, int] | None = counts
        self._histogram: dict[int, int] | None = None
        self._values: list[str] | None = None
        self._per_code: IntArray | None = None
        self._present: BoolArray | None = None
        self.size = len(counts)
        self.min_match = min(counts.values()) if counts else _NO_DOMAIN_MIN

    @classmethod
    def of_codes(cls, values: list[str], per_code: IntArray, present: BoolArray) -> DomainCounts:
        """The domains are the codes (indexes into ``values``) where ``present``; ``per_code`` their counts (0 at
        the other codes)."""
        domains = cls({})
        kept = per_code[present]
        domains._counts = None
        domains._values, domains._per_code, domains._present = values, per_code, present
        domains.size = len(kept)
        domains.min_match = int(kept.min()) if len(kept) else _NO_DOMAIN_MIN
        return domains

    @property
    def counts(self) -> dict[str, int]:
        """Matching pods per domain value."""
        counts = self._counts
        if counts is None:
            values, per_code, present = self._values, self._per_code, self._present
            assert values is not None
            assert per_code is not None
            assert present is not None
            codes: list[int] = np.flatnonzero(present).tolist()
            counts = self._counts = dict(zip([values[c] for c in codes], per_code[present].tolist(), strict=True))
        return counts

    def add(self, value: str, delta: int) -> None:
        """Change the count of domain ``value`` by ``delta`` (a new domain starts at 0)."""
        counts = self.counts
        self._per_code = self._present = self._values = None  # stale now: per_node reads the dict
        histogram = self._histogram
        if histogram is None:
            histogram = self._histogram = {}
            for n in counts.values():
                histogram[n] = histogram.get(n, 0) + 1
        old = counts.get(value)
        new = (old or 0) + delta
        counts[value] = new
        self.size = len(counts)
        if old is not None:
            left = histogram[old] - 1
            if left:
                histogram[old] = left
            else:
                del histogram[old]
        histogram[new] = histogram.get(new, 0) + 1
        if new <= self.min_match:
            self.min_match = new
        elif old == self.min_match and old not in histogram:
            self.min_match = min(histogram)

    def global_min(self, min_domains: int) -> int:
        """The skew baseline: the smallest count, or 0 while there are fewer domains than ``min_domains``."""
        return 0 if self.size < min_domains else self.min_match

    def per_code(self, values: list[str]) -> IntArray:
        """The count of each value's domain (0 for values that are no domain), plus a last 0 for code -1."""
        per_code = self._per_code
        lookup: IntArray = np.zeros(len(values) + 1, dtype=np.int64)
        if per_code is not None and values is self._values:
            lookup[:len(per_code)] = per_code  # values appended since PreFilter are no domain
        else:
            counts = self.counts
            lookup[:-1] = np.fromiter((counts.get(v, 0) for v in values), dtype=np.int64, count=len(values))
        return lookup

    def clone(self) -> DomainCounts:
        """An independent copy, holding its counts as a dict (it shares nothing with the columns' indexes)."""
        copy = DomainCounts.__new__(DomainCounts)
        copy._counts = dict(self.counts)
        copy._histogram = dict(self._histogram) if self._histogram is not None else None
        copy._values = copy._per_code = copy._present = None
        copy.size = self.size
        copy.min_match = self.min_match
        return copy


@attrs.define(slots=True, eq=False)
class PreFilterState:
    """The pod's DoNotSchedule constraints and, per constraint, the matching pods of every eligible domain."""

    constraints: tuple[SpreadConstraint, ...]
    domains: list[DomainCounts]
    #: 1 where the incoming pod matches the constraint's own selector, else 0.
    self_match: tuple[int, ...]
    namespace: str
    inclusion: InclusionCheck

    def clone(self) -> PreFilterState:
        """A copy whose counts AddPod/RemovePod can change without touching this one."""
        return PreFilterState(self.constraints, [d.clone() for d in self.domains], self.self_match,
                              self.namespace, self.inclusion)


PRE_FILTER_KEY = StateKey[PreFilterState]("PreFilter" + NAME)


def build_pre_filter_state(pod: Pod, constraints: tuple[SpreadConstraint, ...],
                           nodes: Sequence[NodeInfo]) -> PreFilterState:
    """Count, for every constraint, the pods it selects in each domain of the nodes that count.

    A node counts when it has every constraint's topology key and, per constraint, passes the node inclusion
    policies; only non-terminating pods of the incoming pod's namespace are counted.
    """
    namespace = pod.namespace
    inclusion = InclusionCheck(pod, constraints)
    groups = selector_groups(constraints)
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for node_info in nodes:
        node = node_info.node
        if node is None or not has_all_keys(node.labels, constraints):
            continue
        labels = node.labels
        eligible = inclusion.per_constraint(node, constraints)
        matched: dict[int, int] = {}
        for i, constraint in enumerate(constraints):
            if not eligible[i]:
                continue
            group = groups[i]
            found = matched.get(group)
            if found is None:
                found = matched[group] = count_matching(node_info.pods, constraint, namespace)
            value = labels[constraint.topology_key]
            by_value = counts[i]
            by_value[value] = by_value.get(value, 0) + found
    self_match = tuple(int(c.selects(pod.labels)) for c in constraints)
    return PreFilterState(constraints, [DomainCounts(c) for c in counts], self_match, namespace, inclusion)


def update_with_pod(state: PreFilterState, updated: Pod, node: Node | None, delta: int) -> None:
    """Account ``updated`` arriving on (+1) or leaving (-1) ``node`` exactly as PreFilter would count it."""
    if node is None or not counts_for(updated, state.namespace):
        return
    constraints = state.constraints
    labels = node.labels
    if not has_all_keys(labels, constraints):
        return
    pod_labels = updated.labels
    eligible: list[bool] | None = None
    for i, constraint in enumerate(constraints):
        if not constraint.counts(pod_labels):
            continue
        if eligible is None:
            eligible = state.inclusion.per_constraint(node, constraints)
        if eligible[i]:
            state.domains[i].add(labels[constraint.topology_key], delta)


def filter_node(state: PreFilterState, node_info: NodeInfo) -> Status | None:
    """Reject a node missing a topology key (unresolvable) or where the pod would exceed a maxSkew."""
    node = node_info.node
    if node is None:
        return Status.as_error("node not found")
    labels = node.labels
    constraints = state.constraints
    for i in range(len(constraints)):
        constraint = constraints[i]
        value = labels.get(constraint.topology_key)
        if value is None:
            return _REJECT_MISSING_LABEL
        domains = state.domains[i]
        skew = domains.counts.get(value, 0) + state.self_match[i] - domains.global_min(constraint.min_domains)
        if skew > constraint.max_skew:
            return _REJECT_SKEW
    return None

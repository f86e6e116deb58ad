"""PodTopologySpread over the columnar snapshot: PreFilter's and PreScore's counts per topology domain from the
per-node indexes :class:`NodeColumns` keeps incrementally, and the batch forms of Filter, Score and NormalizeScore.

Per node, ``pod_counts`` gives how many of its pods a constraint counts (keyed by namespace and selector) and
``label_values`` the code of its topology value; the counts per domain are then a ``bincount`` over the codes of
the nodes that count (every topology key present, the node inclusion policies). Which nodes pass the policies
is decided once per distinct value: per taint set for nodeTaintsPolicy, and per node through an index keyed by
the pod's required node affinity for nodeAffinityPolicy. Every answer equals the per-node code's (filtering.py,
scoring.py), which stays the reference and gives the reasons.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import LabelSelector, Pod, RequiredNodeAffinity, Taint, find_untolerated_taint
from kubesched.framework import MAX_NODE_SCORE, Code, IntArray, NodeBatch, NodeColumns, NodeInfo, PodInfo
from kubesched.plugins.pod_topology_spread.common import (
    HONOR,
    HOSTNAME_LABEL,
    NAME,
    InclusionCheck,
    SpreadConstraint,
)
from kubesched.plugins.pod_topology_spread.filtering import BoolArray, DomainCounts, PreFilterState
from kubesched.plugins.pod_topology_spread.scoring import PreScoreState, topology_weight

CodeArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float64]

_HAS_NODE_INDEX = (NAME, "has-node")
_TAINTS_INDEX = (NAME, "taints")
_UNRESOLVABLE = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
_UNSCHEDULABLE = int(Code.UNSCHEDULABLE)
_NAME_OF = operator.attrgetter("name")


def _has_node(info: NodeInfo) -> bool | None:
    return True if info.node is not None else None


def _taints(info: NodeInfo) -> tuple[Taint, ...] | None:
    node = info.node
    return node.spec.taints if node is not None else None


def selector_key(selector: LabelSelector) -> Hashable:
    """A hashable key equal for selectors that match the same labels."""
    return tuple(sorted(selector.match_labels.items())), selector.match_expressions


def matching_counts(columns: NodeColumns, constraint: SpreadConstraint, namespace: str) -> IntArray | None:
    """Per node, how many of its pods the constraint counts (as ``count_matching``); None when it counts none."""
    selector = constraint.selector
    if selector is None or selector.is_empty():
        return None
    matches = selector.matches

    def count(pod_info: PodInfo) -> int:
        meta = pod_info.pod.metadata
        return 1 if (meta.namespace == namespace and meta.deletion_timestamp is None
                     and matches(meta.labels)) else 0

    return columns.pod_counts((NAME, "matching", namespace, selector_key(selector)), count)


class ColumnarInclusion:
    """Per node, whether it passes the pod's required node affinity and tolerates its taints (each computed only
    when some constraint honours it): the columnar form of :class:`InclusionCheck`."""

    __slots__ = ("_affinity_ok", "_taints_ok")

    def __init__(self, columns: NodeColumns, pod: Pod, constraints: Sequence[SpreadConstraint]) -> None:
        self._affinity_ok: BoolArray | None = None
        self._taints_ok: BoolArray | None = None
        if any(c.node_affinity_policy == HONOR for c in constraints):
            self._affinity_ok = _affinity_mask(columns, RequiredNodeAffinity.of(pod))
        if any(c.node_taints_policy == HONOR for c in constraints):
            codes, taint_sets = columns.categories(_TAINTS_INDEX, _taints)
            tolerations = pod.spec.tolerations
            tolerated = [find_untolerated_taint(taints, tolerations) is None for taints in taint_sets]
            self._taints_ok = np.array([*tolerated, False], dtype=np.bool_)[codes]

    def mask(self, constraint: SpreadConstraint) -> BoolArray | None:
        """Per node, whether it counts for ``constraint`` under its policies (None: every node does)."""
        affinity = self._affinity_ok if constraint.node_affinity_policy == HONOR else None
        taints = self._taints_ok if constraint.node_taints_policy == HONOR else None
        if affinity is None:
            return taints
        return affinity if taints is None else affinity & taints


def _affinity_mask(columns: NodeColumns, affinity: RequiredNodeAffinity) -> BoolArray | None:
    """Per node, whether it satisfies ``affinity`` (None: every node does); kept incrementally per affinity."""
    if not affinity.node_selector and affinity.required is None:
        return None
    key = (NAME, "affinity", tuple(sorted(affinity.node_selector.items())), affinity.required)
    matches = affinity.matches

    def value_of(info: NodeInfo) -> bool | None:
        node = info.node
        return matches(node) if node is not None else None

    required = affinity.required
    # Terms on node names (a DaemonSet pod's, one per node) would each fill the columns with an index of their
    # own, pushing out the indexes that are read every cycle: such an affinity is evaluated on every node.
    per_pod = required is not None and any(term.match_fields for term in required.node_selector_terms)
    if not per_pod:
        try:
            hash(key)
        except TypeError:
            per_pod = True
    if per_pod:
        return np.fromiter((value_of(info) is True for info in columns.infos), dtype=np.bool_, count=len(columns))
    codes, values = columns.categories(key, value_of)
    return np.array([*values, False], dtype=np.bool_)[codes]


def _has_all_keys(labels: Sequence[tuple[CodeArray, list[str]]], size: int) -> BoolArray:
    """Per node, whether it has every one of the labels."""
    has_all: BoolArray = np.ones(size, dtype=np.bool_)
    for codes, _values in labels:
        has_all &= codes >= 0
    return has_all


# -- PreFilter / Filter -------------------------------------------------------------------------------------

def build_pre_filter_state(pod: Pod, constraints: tuple[SpreadConstraint, ...],
                           columns: NodeColumns) -> PreFilterState:
    """The state :func:`filtering.build_pre_filter_state` computes over every node of ``columns``.

    A node counts when it has every constraint's topology key and passes the constraint's inclusion policies;
    each domain sums the matching pods of its counting nodes.
    """
    namespace = pod.namespace
    labels = [columns.label_values(c.topology_key) for c in constraints]
    has_all: BoolArray | None = _has_all_keys(labels, len(columns))
    if has_all is not None and has_all.all():
        has_all = None  # every node counts: no masking
    inclusion = ColumnarInclusion(columns, pod, constraints)
    domains: list[DomainCounts] = []
    for constraint, (codes, values) in zip(constraints, labels, strict=True):
        eligible = inclusion.mask(constraint)
        counting = eligible if has_all is None else has_all if eligible is None else has_all & eligible
        domain_codes = codes if counting is None else codes[counting]
        size = len(values)
        present = np.bincount(domain_codes, minlength=size) > 0
        matching = matching_counts(columns, constraint, namespace)
        per_code: IntArray
        if matching is None:
            per_code = np.zeros(size, dtype=np.int64)
        else:
            weights = matching if counting is None else matching[counting]
            per_code = np.bincount(domain_codes, weights=weights, minlength=size).astype(np.int64)
        domains.append(DomainCounts.of_codes(values, per_code, present))
    self_match = tuple(int(c.selects(pod.labels)) for c in constraints)
    return PreFilterState(constraints, domains, self_match, namespace, InclusionCheck(pod, constraints))


def filter_codes(state: PreFilterState, node_batch: NodeBatch) -> IntArray | None:
    """The status code :func:`filtering.filter_node` gives each node of the batch (None: all pass); raises when a
    node has no node object (Filter's error)."""
    columns = node_batch.columns
    has_node, _ = columns.categories(_HAS_NODE_INDEX, _has_node)
    if (node_batch.column(has_node) < 0).any():
        raise LookupError("node not found")
    out: IntArray | None = None
    for i, constraint in enumerate(state.constraints):
        codes_all, values = columns.label_values(constraint.topology_key)
        domains = state.domains[i]
        # Per label code (the last slot for code -1, a missing label), the code Filter gives a node holding it.
        skew = domains.per_code(values) + (state.self_match[i] - domains.global_min(constraint.min_domains))
        by_code: IntArray = np.where(skew > constraint.max_skew, _UNSCHEDULABLE, 0)
        by_code[-1] = _UNRESOLVABLE
        verdicts = by_code[node_batch.column(codes_all)]
        out = verdicts if out is None else np.where(out != 0, out, verdicts)  # the first rejection decides
    return out if out is not None and out.any() else None


# -- PreScore / Score / NormalizeScore ----------------------------------------------------------------------

def build_pre_score_state(constraints: tuple[SpreadConstraint, ...], pod: Pod, feasible: Sequence[NodeInfo],
                          feasible_positions: IntArray, columns: NodeColumns,
                          require_all_topologies: bool) -> PreScoreState:
    """The state :func:`scoring.build_pre_score_state` computes for ``feasible`` (at ``feasible_positions``) with
    every node of ``columns`` counted; it also keeps the counts per label code for :func:`score_batch`."""
    namespace = pod.namespace
    has_node = columns.categories(_HAS_NODE_INDEX, _has_node)[0] >= 0
    labels = [columns.label_values(c.topology_key) for c in constraints]
    f_has_node = has_node[feasible_positions]
    counted = has_node
    ignored_positions = feasible_positions[:0]
    ignored: frozenset[str] = frozenset()
    kept = f_has_node
    if require_all_topologies:
        has_all = _has_all_keys(labels, len(columns))
        f_has_all = has_all[feasible_positions]
        ignored_at = np.flatnonzero(f_has_node & ~f_has_all)
        if len(ignored_at):
            ignored_positions = feasible_positions[ignored_at]
            ignored = frozenset(feasible[j].name for j in ignored_at.tolist())
        kept = f_has_node & f_has_all
        counted = has_node & has_all
    inclusion = ColumnarInclusion(columns, pod, constraints)
    counts: list[dict[str, int]] = []
    weights: list[float] = []
    per_slot: list[IntArray | None] = []
    slot_values: list[list[str] | None] = []
    for constraint, (codes, values) in zip(constraints, labels, strict=True):
        if constraint.topology_key == HOSTNAME_LABEL:
            counts.append({})
            weights.append(topology_weight(len(feasible) - len(ignored)))
            per_slot.append(None)
            slot_values.append(None)
            continue
        # A node without the key belongs to the "" domain: the slot of the value "" if some node has it, else an
        # extra last slot.
        size = len(values) + 1
        try:
            empty_slot = values.index("")
        except ValueError:
            empty_slot = len(values)
        slots = np.where(codes >= 0, codes, empty_slot)
        is_domain = np.bincount(slots[feasible_positions][kept], minlength=size) > 0
        weights.append(topology_weight(int(np.count_nonzero(is_domain))))
        eligible = inclusion.mask(constraint)
        counting = counted if eligible is None else counted & eligible
        matching = matching_counts(columns, constraint, namespace)
        sums: IntArray
        if matching is None:
            sums = np.zeros(size, dtype=np.int64)
        else:
            sums = np.bincount(slots[counting], weights=matching[counting], minlength=size).astype(np.int64)
            sums[~is_domain] = 0
        domain_slots: list[int] = np.flatnonzero(is_domain).tolist()
        names = [values[s] if s < len(values) else "" for s in domain_slots]
        counts.append(dict(zip(names, sums[is_domain].tolist(), strict=True)))
        per_slot.append(sums)
        slot_values.append(values)
    return PreScoreState(constraints, ignored, counts, weights, namespace, ignored_positions=ignored_positions,
                         per_slot=per_slot, slot_values=slot_values)


def _ignored_mask(state: PreScoreState, node_batch: NodeBatch) -> BoolArray:
    """Per node of the batch, whether PreScore left it unscored."""
    if not state.ignored_nodes:
        return np.zeros(len(node_batch), dtype=np.bool_)
    if state.ignored_positions is not None:
        return np.isin(node_batch.positions, state.ignored_positions)
    ignored = state.ignored_nodes
    return np.fromiter((info.name in ignored for info in node_batch), dtype=np.bool_, count=len(node_batch))


def score_batch(state: PreScoreState, node_batch: NodeBatch) -> IntArray:
    """The raw score :func:`scoring.score_node` gives each node of the batch, with the same float arithmetic."""
    columns = node_batch.columns
    size = len(node_batch)
    total: FloatArray = np.zeros(size, dtype=np.float64)
    for i, constraint in enumerate(state.constraints):
        codes_all, values = columns.label_values(constraint.topology_key)
        codes = node_batch.column(codes_all)
        has_value = codes >= 0
        count: IntArray
        if constraint.topology_key == HOSTNAME_LABEL:
            matching = matching_counts(columns, constraint, state.namespace)
            count = (node_batch.column(matching) if matching is not None
                     else np.zeros(size, dtype=np.int64))
        else:
            count = _domain_lookup(state, i, values)[codes]
        term = count.astype(np.float64) * state.weights[i] + float(constraint.max_skew - 1)
        total = total + np.where(has_value, term, 0.0)
    # Go's math.Round on non-negative values: half away from zero.
    whole = np.floor(total)
    rounded = (whole + (total - whole >= 0.5)).astype(np.int64)
    rounded[_ignored_mask(state, node_batch)] = 0
    return rounded


def _domain_lookup(state: PreScoreState, i: int, values: list[str]) -> IntArray:
    """Per code of ``values`` (plus a last slot for code -1), the matching pods of that domain (0: no domain)."""
    lookup: IntArray = np.zeros(len(values) + 1, dtype=np.int64)
    sums = state.per_slot[i] if state.per_slot is not None else None
    if sums is not None and state.slot_values is not None and state.slot_values[i] is values:
        known = min(len(sums) - 1, len(values))  # the extra slot of PreScore's values is no code
        lookup[:known] = sums[:known]
    else:
        counts = state.counts[i]
        lookup[:-1] = np.fromiter((counts.get(v, 0) for v in values), dtype=np.int64, count=len(values))
    return lookup


def normalize_batch(state: PreScoreState, node_batch: NodeBatch, scores: IntArray) -> IntArray:
    """:func:`scoring.normalize` over arrays: ``100 * (max + min - s) // max`` over the scored nodes, 0 for the
    ignored ones (100 for all when the highest score is 0)."""
    ignored = _ignored_mask(state, node_batch)
    kept = scores[~ignored]
    highest = int(kept.max()) if len(kept) else 0
    lowest = int(kept.min()) if len(kept) else 0
    out: IntArray
    if highest == 0:
        out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = MAX_NODE_SCORE * (highest + lowest - scores.astype(np.int64)) // highest
    out[ignored] = 0
    return out

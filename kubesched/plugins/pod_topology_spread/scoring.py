"""PodTopologySpread PreScore/Score/NormalizeScore: prefer nodes whose domains hold fewer matching pods for the
pod's ScheduleAnyway constraints, weighting each constraint by how many domains it has."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from kubesched.framework import MAX_NODE_SCORE, IntArray, NodeInfo, NodeScore, StateKey
from kubesched.plugins.pod_topology_spread.common import (
    HOSTNAME_LABEL,
    NAME,
    InclusionCheck,
    SpreadConstraint,
    count_matching,
    has_all_keys,
)


@attrs.define(slots=True, eq=False)
class PreScoreState:
    """Soft constraints, feasible nodes left unscored, per-constraint domain counts and weights.

    Hostname constraints keep no domain counts: Score counts the node's own pods instead.
    """

    constraints: tuple[SpreadConstraint, ...]
    ignored_nodes: frozenset[str]
    counts: list[dict[str, int]]
    weights: list[float]
    namespace: str
    #: Set by the columnar PreScore: the columns' positions of the ignored nodes, and per constraint (None for
    #: hostname) the counts per code of the topology label's values, whose last extra slot is for no code.
    ignored_positions: IntArray | None = None
    per_slot: list[IntArray | None] | None = None
    slot_values: list[list[str] | None] | None = None


PRE_SCORE_KEY = StateKey[PreScoreState]("PreScore" + NAME)


def topology_weight(domains: int) -> float:
    """How much one matching pod weighs for a topology with ``domains`` values: log(domains + 2)."""
    return math.log(domains + 2)


def go_round(value: float) -> int:
    """Round half away from zero, as Go's math.Round (Python's round() rounds half to even)."""
    whole = math.floor(abs(value))
    rounded = whole + 1 if abs(value) - whole >= 0.5 else whole
    return int(math.copysign(rounded, value))


def build_pre_score_state(constraints: tuple[SpreadConstraint, ...], namespace: str, inclusion: InclusionCheck,
                          feasible: Sequence[NodeInfo], all_nodes: Sequence[NodeInfo],
                          require_all_topologies: bool) -> PreScoreState:
    """Domains come from the feasible nodes; their pod counts come from every node of the snapshot.

    With ``require_all_topologies`` (anything but the system defaults) feasible nodes missing a key are ignored
    and other nodes missing one are not counted; otherwise a missing key reads as the empty value.
    """
    ignored: set[str] = set()
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for node_info in feasible:
        node = node_info.node
        if node is None:
            continue
        labels = node.labels
        if require_all_topologies and not has_all_keys(labels, constraints):
            ignored.add(node.name)
            continue
        for i, constraint in enumerate(constraints):
            if constraint.topology_key != HOSTNAME_LABEL:
                counts[i].setdefault(labels.get(constraint.topology_key, ""), 0)
    weights = [topology_weight(len(feasible) - len(ignored) if c.topology_key == HOSTNAME_LABEL else len(counts[i]))
               for i, c in enumerate(constraints)]
    for node_info in all_nodes:
        node = node_info.node
        if node is None:
            continue
        labels = node.labels
        if require_all_topologies and not has_all_keys(labels, constraints):
            continue
        eligible = inclusion.per_constraint(node, constraints)
        for i, constraint in enumerate(constraints):
            by_value = counts[i]
            value = labels.get(constraint.topology_key, "")
            if eligible[i] and value in by_value:
                by_value[value] += count_matching(node_info.pods, constraint, namespace)
    return PreScoreState(constraints, frozenset(ignored), counts, weights, namespace)


def score_node(state: PreScoreState, node_info: NodeInfo) -> int:
    """Sum over constraints of ``matching pods in the node's domain * weight + (maxSkew - 1)``, rounded."""
    node = node_info.node
    if node is None or node.name in state.ignored_nodes:
        return 0
    labels = node.labels
    total = 0.0
    for i, constraint in enumerate(state.constraints):
        value = labels.get(constraint.topology_key)
        if value is None:
            continue
        if constraint.topology_key == HOSTNAME_LABEL:
            count = count_matching(node_info.pods, constraint, state.namespace)
        else:
            count = state.counts[i].get(value, 0)
        total += count * state.weights[i] + (constraint.max_skew - 1)
    return go_round(total)


def normalize(state: PreScoreState, scores: list[NodeScore]) -> None:
    """Fewer is better: ``100 * (max + min - s) // max`` (100 for all when max is 0); ignored nodes get 0."""
    ignored = state.ignored_nodes
    kept = [ns.score for ns in scores if ns.name not in ignored]
    highest = max(kept, default=0)
    lowest = min(kept, default=0)
    for ns in scores:
        if ns.name in ignored:
            ns.score = 0
        elif highest == 0:
            ns.score = MAX_NODE_SCORE
        else:
            ns.score = MAX_NODE_SCORE * (highest + lowest - ns.score) // highest

"""NodeCost: keep pods within their budget and prefer cheaper nodes, with batch forms for the fast path.

- A node's price is the value of its ``cost-label`` (default ``example.com/hourly-cost``): digits only, at most
  15 of them (say cents per hour). A node without the label, or with any other value, is unpriced.
- Filter: a pod annotated ``cost.example.com/max-hourly-cost: "N"`` is kept off priced nodes costing more than
  N, UnschedulableAndUnresolvable (preemption cannot make a node cheaper). Unpriced nodes pass. Without the
  annotation PreFilter skips the Filter; an annotation that is not a price rejects the pod at PreFilter.
- Score: the raw score is the node's price (-1 when unpriced); NormalizeScore maps the cheapest priced node to
  100 and the dearest to 0, linearly and floored (all priced nodes 100 when they cost the same); unpriced 0.
- Batch forms (``filter_nodes``, ``score_nodes``, ``normalize_scores``) give exactly the same answers for a whole
  batch of nodes from the snapshot's columns: the label's values are parsed once per distinct value, then
  looked up per node by their codes in numpy, with no Python loop over the nodes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
from kubesched import ArgsError, Code, CycleState, Handle, NodeInfo, NodeScore, Plugin, Pod, StateKey, Status, hookimpl
from kubesched.framework import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, NodeBatch

NAME = "NodeCost"
MAX_COST_ANNOTATION = "cost.example.com/max-hourly-cost"
ERR_REASON_COST = "node(s) cost more than the pod's max-hourly-cost"
#: The raw score of an unpriced node.
UNPRICED = -1
#: Prices have at most this many digits, so every sum and product below stays exact in int64.
MAX_DIGITS = 15


@lru_cache(maxsize=4096)
def parse_cost(value: str | None) -> int:
    """The price a label value gives, or :data:`UNPRICED` (no value, not plain digits, more than 15 digits)."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > MAX_DIGITS:
        return UNPRICED
    return int(value)


def _label_key(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not value.strip():
        raise ArgsError(f'Invalid value: "{value}": label key must be non-empty', attribute.name.replace("_", "-"))


@attrs.frozen
class NodeCostArgs:
    """The node label holding each node's price."""

    cost_label: str = attrs.field(default="example.com/hourly-cost", validator=_label_key)


_MAX_COST_KEY = StateKey[int]("PreFilterNodeCost")


def pod_max_cost(pod: Pod) -> int | None:
    """The pod's budget from its annotation; None without one. Raises ValueError for a value that is no price."""
    raw = pod.metadata.annotations.get(MAX_COST_ANNOTATION)
    if raw is None:
        return None
    cost = parse_cost(raw.strip())
    if cost == UNPRICED:
        raise ValueError(f'invalid {MAX_COST_ANNOTATION} annotation "{raw}": must be a whole number of at most '
                         f"{MAX_DIGITS} digits")
    return cost


class NodeCost(Plugin):
    """Keeps pods off nodes above their budget and prefers cheaper nodes."""

    name = NAME
    Args = NodeCostArgs

    def __init__(self, handle: Handle, args: NodeCostArgs | None = None) -> None:
        config = args if args is not None else NodeCostArgs()
        super().__init__(handle, config)
        self._label = config.cost_label

    # -- per node: the reference answers ---------------------------------------------------------------------
    def _cost(self, node_info: NodeInfo) -> int:
        node = node_info.node
        return parse_cost(node.labels.get(self._label)) if node is not None else UNPRICED

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A new node, or a node whose labels (its cost) changed, may fit."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL))]

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Read the pod's budget once; Skip the Filter without one, reject a budget that is not a price."""
        try:
            budget = pod_max_cost(pod)
        except ValueError as exc:
            return Status.unresolvable(str(exc))
        if budget is None:
            return Status.skip()
        state.write(_MAX_COST_KEY, budget)
        return None

    def _budget(self, state: CycleState, pod: Pod) -> int | None:
        budget = state.get(_MAX_COST_KEY)
        if budget is None:  # PreFilter is not enabled in this profile
            try:
                budget = pod_max_cost(pod)
            except ValueError:
                return None
        return budget

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable on a priced node costing more than the pod's budget."""
        budget = self._budget(state, pod)
        if budget is not None and self._cost(node_info) > budget:
            return Status.unresolvable(ERR_REASON_COST)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The node's price, or -1 when it is unpriced."""
        return self._cost(node_info)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Cheapest priced node 100, dearest 0, linearly (floored); unpriced nodes 0."""
        priced = [ns.score for ns in scores if ns.score != UNPRICED]
        low, high = (min(priced), max(priced)) if priced else (0, 0)
        for ns in scores:
            if ns.score == UNPRICED:
                ns.score = 0
            elif high == low:
                ns.score = 100
            else:
                ns.score = (high - ns.score) * 100 // (high - low)
        return None

    # -- batch forms: the same answers over the columns ----------------------------------------------------------
    def _batch_costs(self, node_batch: NodeBatch) -> npt.NDArray[np.int64]:
        """Per node of the batch, its price: each distinct label value parsed once, then looked up by code (the
        table's last entry, UNPRICED, is what code -1, "no label", picks)."""
        codes, values = node_batch.columns.label_values(self._label)
        table = np.array([*(parse_cost(value) for value in values), UNPRICED], dtype=np.int64)
        costs: npt.NDArray[np.int64] = table[node_batch.column(codes)]
        return costs

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """The status code :meth:`filter` gives, for every node of the batch."""
        budget = self._budget(state, pod)
        if budget is None:
            return None
        return np.where(self._batch_costs(node_batch) > budget, int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), 0)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """The raw score :meth:`score` gives, for every node of the batch."""
        return self._batch_costs(node_batch)

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        """What :meth:`normalize_score` writes, over the array."""
        priced = batch_scores != UNPRICED
        if not priced.any():
            return np.zeros_like(batch_scores)
        low, high = int(batch_scores[priced].min()), int(batch_scores[priced].max())
        if high == low:
            return np.where(priced, 100, 0)
        return np.where(priced, (high - batch_scores) * 100 // (high - low), 0)

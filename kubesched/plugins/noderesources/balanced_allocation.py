"""NodeResourcesBalancedAllocation (Score): prefer nodes whose resources stay evenly used."""

from __future__ import annotations

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import ArgsError, CycleState, NodeBatch, NodeInfo, Plugin, StateKey, Status, hookimpl
from kubesched.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    balanced_batch_scorer,
    balanced_scorer,
    default_if_empty,
    unique_names,
)

NAME = "NodeResourcesBalancedAllocation"
_PRE_SCORE_KEY = StateKey[list[int]]("PreScoreNodeResourcesBalancedAllocation")


def _weights_are_one(_instance: object, attribute: attrs.Attribute[tuple[ResourceSpec, ...]],
                     value: tuple[ResourceSpec, ...]) -> None:
    unique_names(_instance, attribute, value)
    for i, spec in enumerate(value):
        if spec.weight != 1:
            raise ArgsError(f"Invalid value: {spec.weight}: must be 1", f"{attribute.name}[{i}].weight")


@attrs.frozen
class NodeResourcesBalancedAllocationArgs:
    """Args of NodeResourcesBalancedAllocation: the resources to balance (each with weight 1)."""

    resources: tuple[ResourceSpec, ...] = attrs.field(default=DEFAULT_RESOURCES, converter=default_if_empty,
                                                      validator=_weights_are_one)


class NodeResourcesBalancedAllocation(Plugin):
    """Scores 100 * (1 - std of requested/allocatable fractions) over the configured resources."""

    name = NAME
    Args = NodeResourcesBalancedAllocationArgs

    def __init__(self, handle: object, args: NodeResourcesBalancedAllocationArgs | None = None) -> None:
        super().__init__(handle, args or NodeResourcesBalancedAllocationArgs())  # type: ignore[arg-type]
        self._scorer = ResourceAllocationScorer(self.args.resources, balanced_scorer, balanced_batch_scorer,
                                                use_requested=True)

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Keep the pod's requests for Score; a best-effort pod is scored too, as kube-scheduler v1.32 does."""
        state.write(_PRE_SCORE_KEY, self._scorer.pod_requests(pod))
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """How evenly the node's resources would be used with the pod added."""
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = self._scorer.pod_requests(pod)
        return self._scorer.score(node_info, requests)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[np.int64]:
        """Score of every node at once, from the snapshot's columns."""
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = self._scorer.pod_requests(pod)
        return self._scorer.score_batch(node_batch, requests)

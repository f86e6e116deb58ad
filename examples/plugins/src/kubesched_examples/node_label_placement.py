"""NodeLabelPlacement: a node-label placement policy, as a Filter and a Score.

- Filter: a node must carry every label of ``required-labels`` with exactly that value, else it is rejected
  UnschedulableAndUnresolvable with :data:`ERR_REASON_LABELS` (preemption cannot add labels).
- Score: nodes are ranked by their ``preferred-label`` value, in the order of ``preferred-values`` (first is
  best); nodes without the label or with another value score 0. NormalizeScore scales the best node to 100.
- A pod may override the order with the annotation ``placement.example.com/preferred-values``: comma-separated
  values, first is best. An empty annotation opts the pod out of the preference (Score is skipped).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs
from kubesched import ArgsError, CycleState, Handle, NodeInfo, NodeScore, Plugin, Pod, StateKey, Status, hookimpl
from kubesched.framework import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, default_normalize_score

NAME = "NodeLabelPlacement"
ERR_REASON_LABELS = "node(s) didn't have the required placement labels"
PREFERRED_VALUES_ANNOTATION = "placement.example.com/preferred-values"

_REJECT = Status.unresolvable(ERR_REASON_LABELS).with_plugin(NAME)


def _label_keys(_instance: object, attribute: attrs.Attribute[Mapping[str, str]], value: Mapping[str, str]) -> None:
    for key in value:
        if not key.strip():
            raise ArgsError(f'Invalid value: "{key}": label key must be non-empty', attribute.name.replace("_", "-"))


def _distinct_values(_instance: object, attribute: attrs.Attribute[tuple[str, ...]], value: tuple[str, ...]) -> None:
    key = attribute.name.replace("_", "-")
    for i, item in enumerate(value):
        if not item:
            raise ArgsError('Invalid value: "": must be non-empty', f"{key}[{i}]")
        if item in value[:i]:
            raise ArgsError(f'Duplicate value: "{item}"', f"{key}[{i}]")


@attrs.frozen
class NodeLabelPlacementArgs:
    """Required node labels (Filter) and a preferred order of one label's values (Score)."""

    required_labels: Mapping[str, str] = attrs.field(factory=lambda: MappingProxyType({}), validator=_label_keys)
    preferred_label: str = ""
    preferred_values: tuple[str, ...] = attrs.field(default=(), validator=_distinct_values)

    def __attrs_post_init__(self) -> None:
        if self.preferred_values and not self.preferred_label.strip():
            raise ArgsError("Required value: must be set when preferred-values is given", "preferred-label")
        if self.preferred_label and not self.preferred_values:
            raise ArgsError("Required value: at least one value must be given with preferred-label",
                            "preferred-values")


@attrs.frozen
class Ranking:
    """Score state: the label to read and each preferred value's raw score. Immutable, so clones share it."""

    label: str
    scores: Mapping[str, int]

    @classmethod
    def of(cls, label: str, values: tuple[str, ...]) -> Ranking:
        """The first of ``values`` scores ``len(values)``, the last scores 1."""
        count = len(values)
        return cls(label, MappingProxyType({value: count - i for i, value in enumerate(values)}))


_PRE_SCORE_KEY = StateKey[Ranking]("PreScoreNodeLabelPlacement")


def pod_preferred_values(pod: Pod, default: tuple[str, ...]) -> tuple[str, ...]:
    """The pod's annotation override (comma-separated, first is best, duplicates dropped), else ``default``."""
    raw = pod.metadata.annotations.get(PREFERRED_VALUES_ANNOTATION)
    if raw is None:
        return default
    values = (item.strip() for item in raw.split(","))
    return tuple(dict.fromkeys(value for value in values if value))


class NodeLabelPlacement(Plugin):
    """Keeps pods on nodes with the required labels and prefers nodes by one label's value."""

    name = NAME
    Args = NodeLabelPlacementArgs

    def __init__(self, handle: Handle, args: NodeLabelPlacementArgs | None = None) -> None:
        config = args if args is not None else NodeLabelPlacementArgs()
        super().__init__(handle, config)
        self._required = tuple(config.required_labels.items())
        self._label = config.preferred_label
        self._values = config.preferred_values

    def _ranking(self, pod: Pod) -> Ranking | None:
        values = pod_preferred_values(pod, self._values)
        return Ranking.of(self._label, values) if self._label and values else None

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A new node, or a node whose labels changed, may match."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL))]

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Skip Filter for the cycle when no label is required."""
        return None if self._required else Status.skip()

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable when the node lacks a required label or has another value."""
        node = node_info.node
        if node is None:
            return Status.as_error("node not found")
        labels = node.labels
        for key, value in self._required:
            if labels.get(key) != value:
                return _REJECT
        return None

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Resolve the pod's preferred order once; Skip when there is none (no args, or the pod opted out)."""
        ranking = self._ranking(pod)
        if ranking is None:
            return Status.skip()
        state.write(_PRE_SCORE_KEY, ranking)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The raw score of the node's preferred-label value: ``len(values)`` for the first, 0 when absent."""
        ranking = state.get(_PRE_SCORE_KEY)
        if ranking is None:  # PreScore is not enabled in this profile
            ranking = self._ranking(pod)
        node = node_info.node
        if ranking is None or node is None:
            return 0
        value = node.labels.get(ranking.label)
        return ranking.scores.get(value, 0) if value is not None else 0

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale so the best-ranked node scores 100 (and every score lies in [0, 100])."""
        default_normalize_score(scores)
        return None

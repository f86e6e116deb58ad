"""NodeAffinity: spec.nodeSelector and required node affinity as a Filter; preferred terms as a Score.

Args ``added-affinity`` is ANDed with every pod's required affinity (rejections then read "scheduler-
enforced") and its preferred terms add to every pod's score. The batch forms evaluate each requirement once per
distinct value of its label key (``NodeColumns.label_values``) and index the answers by node.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import (
    OBJECT_NAME_FIELD,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
    RequiredNodeAffinity,
    label_value,
    node_selector_matches,
    preferred_score,
    preferred_terms_error,
    qualified_name,
)
from kubesched.framework import (
    ActionType,
    ArgsError,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    NodeBatch,
    NodeInfo,
    NodeScore,
    Plugin,
    PreFilterResult,
    QueueingHint,
    StateKey,
    Status,
    default_normalize_score,
    default_normalize_scores,
    hookimpl,
    in_range,
    kebab,
    node_selector_mask,
    preferred_scores,
    required_affinity_mask,
    show_value,
)

NAME = "NodeAffinity"
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_REJECT_ENFORCED = Status.unresolvable(ERR_REASON_ENFORCED).with_plugin(NAME)
_REJECT_POD = Status.unresolvable(ERR_REASON_POD).with_plugin(NAME)
_PRE_FILTER_KEY = StateKey[RequiredNodeAffinity]("PreFilterNodeAffinity")
_PRE_SCORE_KEY = StateKey[tuple[PreferredSchedulingTerm, ...]]("PreScoreNodeAffinity")


@attrs.frozen
class SelectorRequirementArg:
    """A node selector requirement in plugin config."""

    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: tuple[str, ...] = ()

    def to_api(self) -> NodeSelectorRequirement:
        """As the object-model requirement."""
        return NodeSelectorRequirement(self.key, self.operator, self.values)


def _go_strings(values: tuple[str, ...]) -> str:
    """Values as kube-scheduler's messages show a []string (Go's ``%#v``)."""
    return "[]string{" + ", ".join(show_value(v) for v in values) + "}" if values else "[]string(nil)"


def _is_go_int64(text: str) -> bool:
    """Whether Go's strconv.ParseInt(text, 10, 64) accepts ``text`` (ASCII digits only, unlike Python's int)."""
    digits = text.lstrip("+-")
    return (re.fullmatch(r"[+-]?[0-9]+", text, re.ASCII) is not None and len(digits) <= 19
            and -(2**63) <= int(text) < 2**63)


def _check_expressions(_instance: object, attribute: attrs.Attribute[Any],
                       requirements: tuple[SelectorRequirementArg, ...]) -> None:
    """matchExpressions as kube-scheduler checks them in addedAffinity (labels.NewRequirement's rules)."""
    for i, req in enumerate(requirements):
        at = f"{kebab(attribute.name)}[{i}]"
        problems = qualified_name(req.key)
        if problems:
            raise ArgsError(f"Invalid value: {show_value(req.key)}: {'; '.join(problems)}", f"{at}.key")
        values = req.values
        if req.operator in ("In", "NotIn") and not values:
            raise ArgsError(f"Invalid value: {_go_strings(values)}: for 'in', 'notin' operators, values set can't "
                            "be empty", f"{at}.values")
        if req.operator in ("Exists", "DoesNotExist") and values:
            raise ArgsError(f"Invalid value: {_go_strings(values)}: values set must be empty for exists and does "
                            "not exist", f"{at}.values")
        if req.operator in ("Gt", "Lt"):
            if len(values) != 1:
                raise ArgsError(f"Invalid value: {_go_strings(values)}: for 'Gt', 'Lt' operators, exactly one value "
                                "is required", f"{at}.values")
            if not _is_go_int64(values[0]):
                raise ArgsError(f"Invalid value: {show_value(values[0])}: for 'Gt', 'Lt' operators, the value must "
                                "be an integer", f"{at}.values[0]")
        for j, value in enumerate(values):
            problems = label_value(value)
            if problems:
                raise ArgsError(f"Invalid value: {show_value(value)}: {'; '.join(problems)}", f"{at}.values[{j}]")


def _check_fields(_instance: object, attribute: attrs.Attribute[Any],
                  requirements: tuple[SelectorRequirementArg, ...]) -> None:
    """matchFields as kube-scheduler checks them in addedAffinity: In or NotIn, with exactly one value."""
    for i, req in enumerate(requirements):
        at = f"{kebab(attribute.name)}[{i}]"
        if req.operator not in ("In", "NotIn"):
            raise ArgsError(f'Unsupported value: {show_value(req.operator)}: supported values: "In", "NotIn"',
                            f"{at}.operator")
        if len(req.values) != 1:
            raise ArgsError(f"Invalid value: {_go_strings(req.values)}: must have one element", f"{at}.values")


@attrs.frozen
class NodeSelectorTermArg:
    """A node selector term in plugin config, checked as kube-scheduler checks addedAffinity's terms."""

    match_expressions: tuple[SelectorRequirementArg, ...] = attrs.field(default=(), validator=_check_expressions)
    match_fields: tuple[SelectorRequirementArg, ...] = attrs.field(default=(), validator=_check_fields)

    def to_api(self) -> NodeSelectorTerm:
        """As the object-model term."""
        return NodeSelectorTerm(tuple(r.to_api() for r in self.match_expressions),
                                tuple(r.to_api() for r in self.match_fields))


@attrs.frozen
class RequiredNodeSelectorArg:
    """``required-during-scheduling-ignored-during-execution``: terms ORed."""

    node_selector_terms: tuple[NodeSelectorTermArg, ...] = ()


@attrs.frozen
class PreferredTermArg:
    """A weighted preferred term."""

    preference: NodeSelectorTermArg
    weight: int = attrs.field(validator=in_range(1, 100))


@attrs.frozen
class AddedAffinity:
    """Node affinity the scheduler enforces on every pod of the profile."""

    required_during_scheduling_ignored_during_execution: RequiredNodeSelectorArg | None = None
    preferred_during_scheduling_ignored_during_execution: tuple[PreferredTermArg, ...] = ()


@attrs.frozen
class NodeAffinityArgs:
    """Args of NodeAffinity."""

    added_affinity: AddedAffinity | None = None


def _pod_preferred(pod: Pod) -> tuple[PreferredSchedulingTerm, ...]:
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return ()
    return affinity.node_affinity.preferred


def _pod_required(pod: Pod) -> NodeSelector | None:
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    return affinity.node_affinity.required


def _named_nodes(required: NodeSelector) -> frozenset[str] | None:
    """Nodes named through ``metadata.name In`` in every term, or None when some term allows all nodes."""
    names: set[str] = set()
    for term in required.node_selector_terms:
        term_names: set[str] | None = None
        for req in term.match_fields:
            if req.key == OBJECT_NAME_FIELD and req.operator == "In":
                term_names = set(req.values) if term_names is None else term_names & set(req.values)
        if term_names is None:
            return None
        names |= term_names
    return frozenset(names)


class NodeAffinity(Plugin):
    """Filters by nodeSelector and required node affinity; scores preferred node affinity terms."""

    name = NAME
    #: Filter reads only the Node object, so the runtime may overlay nominated pods' requests on the columns.
    filter_reads = FilterReads.NODE
    Args = NodeAffinityArgs

    def __init__(self, handle: object, args: NodeAffinityArgs | None = None) -> None:
        super().__init__(handle, args or NodeAffinityArgs())  # type: ignore[arg-type]
        added = self.args.added_affinity
        self._added_required: NodeSelector | None = None
        self._added_preferred: tuple[PreferredSchedulingTerm, ...] = ()
        if added is not None:
            required = added.required_during_scheduling_ignored_during_execution
            if required is not None:
                self._added_required = NodeSelector(tuple(t.to_api() for t in required.node_selector_terms))
            self._added_preferred = tuple(
                PreferredSchedulingTerm(t.weight, t.preference.to_api())
                for t in added.preferred_during_scheduling_ignored_during_execution)

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A node added, or one whose labels changed, may now match the pod's node affinity."""
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                                     self.hint_node_changed)]

    def hint_node_changed(self, pod: Pod, old_obj: Node | None, new_obj: Node | None) -> QueueingHint:
        """Queue when the node matches the enforced affinity and the pod's required affinity and nodeSelector now,
        and (for an update) did not before."""
        if new_obj is None:
            return QueueingHint.QUEUE
        if self._added_required is not None and not node_selector_matches(self._added_required, new_obj):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity.of(pod)
        if not required.matches(new_obj):
            return QueueingHint.QUEUE_SKIP
        if old_obj is not None and required.matches(old_obj):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterResult | Status | None:
        """Skip pods without node constraints; narrow to nodes named by ``metadata.name`` fields."""
        required = _pod_required(pod)
        if required is None and self._added_required is None and not pod.spec.node_selector:
            return Status.skip()
        state.write(_PRE_FILTER_KEY, RequiredNodeAffinity.of(pod))
        if required is None or not required.node_selector_terms:
            return None
        names = _named_nodes(required)
        if names is None:
            return None
        if not names:
            return Status.unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(names)

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable when the node misses the enforced or the pod's own affinity."""
        node = node_info.node
        if node is None:
            return Status.as_error("node not found")
        if self._added_required is not None and not node_selector_matches(self._added_required, node):
            return _REJECT_ENFORCED
        required = state.get(_PRE_FILTER_KEY) or RequiredNodeAffinity.of(pod)
        if not required.matches(node):
            return _REJECT_POD
        return None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch (every node in the snapshot has its Node object)."""
        passed = required_affinity_mask(node_batch, state.get(_PRE_FILTER_KEY) or RequiredNodeAffinity.of(pod))
        if self._added_required is not None:
            passed &= node_selector_mask(node_batch, self._added_required)
        if passed.all():
            return None
        return np.where(passed, np.int8(Code.SUCCESS), np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Skip when neither the pod nor the args have preferred terms; an Error when kube-scheduler cannot parse
        the pod's preferred terms (a value that is no label value, a Gt/Lt value that is no integer...)."""
        preferred = _pod_preferred(pod)
        if not preferred and not self._added_preferred:
            return Status.skip()
        error = preferred_terms_error(preferred)
        if error is not None:
            return Status.as_error(error)
        state.write(_PRE_SCORE_KEY, preferred)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The summed weights of the matching preferred terms (added and the pod's own)."""
        node = node_info.node
        if node is None:
            return 0
        preferred = self._preferred(state, pod)
        return preferred_score(self._added_preferred, node) + preferred_score(preferred, node)

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """Score of every node of the batch: the summed weights of the preferred terms each matches."""
        preferred = self._preferred(state, pod)
        scores = preferred_scores(node_batch, self._added_preferred)
        if preferred:
            scores += preferred_scores(node_batch, preferred)
        return scores

    @staticmethod
    def _preferred(state: CycleState, pod: Pod) -> tuple[PreferredSchedulingTerm, ...]:
        """PreScore's terms; without them (PreScore disabled) the pod's own, as kube-scheduler falls back, which
        raises when they cannot be parsed."""
        preferred = state.get(_PRE_SCORE_KEY)
        if preferred is None:
            preferred = _pod_preferred(pod)
            error = preferred_terms_error(preferred)
            if error is not None:
                raise ValueError(error)
        return preferred

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """NormalizeScore over the batch's scores at once."""
        return default_normalize_scores(batch_scores)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale so the best node scores 100."""
        default_normalize_score(scores)
        return None

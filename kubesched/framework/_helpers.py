"""Helpers shared by built-in plugins (score normalisation, workload selectors, node selectors evaluated over a
NodeBatch's columns), usable by third-party plugins too."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.api.node_selector import OBJECT_NAME_FIELD, RequiredNodeAffinity
from kubesched.api.pod import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm
from kubesched.api.selector_errors import requirement_valid
from kubesched.api.workload import CONTROLLER_KINDS
from kubesched.backend import ClusterClient
from kubesched.framework._columns import NodeBatch
from kubesched.framework._types import MAX_NODE_SCORE, NodeScore


def default_normalize_score(scores: list[NodeScore], *, reverse: bool = False,
                            max_priority: int = MAX_NODE_SCORE) -> None:
    """Scale scores so the highest becomes ``max_priority``; ``reverse`` flips them (fewer is better).

    When every score is 0 they stay 0, or all become ``max_priority`` when reversed.
    """
    highest = max((ns.score for ns in scores), default=0)
    if highest == 0:
        if reverse:
            for ns in scores:
                ns.score = max_priority
        return
    for ns in scores:
        score = max_priority * ns.score // highest
        ns.score = max_priority - score if reverse else score


def default_selector(pod: Pod, client: ClusterClient) -> LabelSelector | None:
    """The selector of the pod's workload (helper.DefaultSelector): the selectors of the Services that
    select it, ANDed with the selector of its controlling ReplicaSet, StatefulSet or ReplicationController.

    None when nothing selects the pod, so no default spreading applies. The controller is found through
    the pod's controller ownerReference, and only when the input holds that object.
    """
    labels: dict[str, str] = {}
    for service in client.list_services(pod.namespace):
        if service.selects(pod.namespace, pod.labels):
            labels.update(service.selector)
    expressions: tuple[LabelSelectorRequirement, ...] = ()
    owner = next((o for o in pod.metadata.owner_references if o.controller), None)
    if owner is not None and CONTROLLER_KINDS.get(owner.kind) == owner.api_version:
        controller = client.get_controller(owner.kind, pod.namespace, owner.name)
        if controller is not None and controller.selector is not None:
            labels.update(controller.selector.match_labels)
            expressions = controller.selector.match_expressions
    if not labels and not expressions:
        return None
    return LabelSelector(match_labels=labels, match_expressions=expressions)


# -- batch forms (numpy arrays over a NodeBatch) ----------------------------------------------------------

BoolArray = npt.NDArray[np.bool_]
#: Raw scores at or above this magnitude are normalised with Python integers (``max_priority * score`` could
#: overflow int64).
_SAFE_SCORE = 2**52


def default_normalize_scores(scores: npt.NDArray[Any], *, reverse: bool = False,
                             max_priority: int = MAX_NODE_SCORE) -> npt.NDArray[np.int64]:
    """:func:`default_normalize_score` over an array of raw scores: the same integers, as a new int64 array.

    A result beyond int64 (only from hugely negative raw scores) is clipped to int64's range: still out of
    [0, 100], so the framework rejects it as it rejects the per-node result."""
    scores = np.asarray(scores, dtype=np.int64)
    if not len(scores):
        return scores.copy()
    highest = int(scores.max())
    if highest == 0:
        return np.full(len(scores), max_priority, dtype=np.int64) if reverse else scores.copy()
    if max(abs(highest), abs(int(scores.min()))) >= _SAFE_SCORE or abs(max_priority) >= 2**10:
        plain = [max_priority * s // highest for s in scores.tolist()]
        low, high = -(2**63), 2**63 - 1
        return np.array([min(max(max_priority - s if reverse else s, low), high) for s in plain], dtype=np.int64)
    normalized = max_priority * scores // highest  # floor division, as Python's //
    return max_priority - normalized if reverse else normalized


class _LabelValues:
    """For one ``NodeColumns.label_values`` values list: value -> code, and each value parsed as Gt/Lt read it.

    The columns only ever append to the list, so this catches up in O(new values)."""

    __slots__ = ("code_of", "ints", "parsed", "valid", "values")

    def __init__(self, values: list[str]) -> None:
        self.values = values
        self.code_of: dict[str, int] = {}
        self.parsed = 0
        self.ints: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.valid: BoolArray = np.zeros(0, dtype=np.bool_)

    def codes_of(self) -> dict[str, int]:
        """value -> code for every value listed so far."""
        code_of, values = self.code_of, self.values
        for code in range(len(code_of), len(values)):
            code_of[values[code]] = code
        return code_of

    def integers(self) -> tuple[npt.NDArray[np.int64], BoolArray]:
        """(value as an integer, whether it is one) per code, as strconv.ParseInt(value, 10, 64) reads it."""
        values = self.values
        if self.parsed < len(values):
            new = [_as_int64(v) for v in values[self.parsed:]]
            self.ints = np.concatenate([self.ints, np.array([0 if n is None else n for n in new], dtype=np.int64)])
            self.valid = np.concatenate([self.valid, np.array([n is not None for n in new], dtype=np.bool_)])
            self.parsed = len(values)
        return self.ints, self.valid


_INT64_TEXT = re.compile(r"^[+-]?[0-9]+$")
#: Per values list (by identity; the entry holds the list, so the id is not reused), its lookups; bounded.
_LABEL_VALUES: OrderedDict[int, _LabelValues] = OrderedDict()
_MAX_LABEL_VALUES = 1024


def _as_int64(text: str) -> int | None:
    if not _INT64_TEXT.match(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _label_lookup(values: list[str]) -> _LabelValues:
    lookup = _LABEL_VALUES.get(id(values))
    if lookup is None or lookup.values is not values:
        lookup = _LABEL_VALUES[id(values)] = _LabelValues(values)
        if len(_LABEL_VALUES) > _MAX_LABEL_VALUES:
            _LABEL_VALUES.popitem(last=False)
    return lookup


def requirement_mask(node_batch: NodeBatch, requirement: NodeSelectorRequirement) -> BoolArray:
    """Per node of the batch, whether its labels satisfy the requirement (``requirement_matches``), evaluated
    once per distinct value of the requirement's label key; one kube-scheduler cannot parse matches no node."""
    if not requirement_valid(requirement):
        return np.zeros(len(node_batch), dtype=np.bool_)
    codes, values = node_batch.columns.label_values(requirement.key)
    op, wanted = requirement.operator, requirement.values
    # table[code] is the answer for a node whose label has that value; table[-1] for a node without the label.
    table = np.zeros(len(values) + 1, dtype=np.bool_)
    if op in ("In", "NotIn"):
        code_of = _label_lookup(values).codes_of()
        table[[c for c in (code_of.get(v) for v in wanted) if c is not None]] = True
        if op == "NotIn":
            table = ~table
    elif op in ("Exists", "DoesNotExist"):
        table[:-1] = True
        if op == "DoesNotExist":
            table = ~table
    elif op in ("Gt", "Lt") and len(wanted) == 1:
        want = _as_int64(wanted[0])
        if want is not None:
            ints, valid = _label_lookup(values).integers()
            table[:-1] = valid & (ints > want if op == "Gt" else ints < want)
    mask: BoolArray = table[node_batch.column(codes)]
    return mask


def field_mask(node_batch: NodeBatch, requirement: NodeSelectorRequirement) -> BoolArray:
    """Per node of the batch, whether its name satisfies a matchFields requirement (only ``metadata.name``, In or
    NotIn, with exactly one value, is valid; an invalid one matches no node)."""
    if (requirement.key != OBJECT_NAME_FIELD or requirement.operator not in ("In", "NotIn")
            or len(requirement.values) != 1):
        return np.zeros(len(node_batch), dtype=np.bool_)
    position = node_batch.columns.position.get(requirement.values[0], -1)
    mask: BoolArray = (node_batch.positions == position if requirement.operator == "In"
                       else node_batch.positions != position)
    return mask


def term_mask(node_batch: NodeBatch, term: NodeSelectorTerm) -> BoolArray:
    """Per node of the batch, whether it satisfies every requirement of the term (an empty term: none does)."""
    requirements = [*((r, requirement_mask) for r in term.match_expressions),
                    *((r, field_mask) for r in term.match_fields)]
    if not requirements:
        return np.zeros(len(node_batch), dtype=np.bool_)
    mask: BoolArray | None = None
    for requirement, evaluate in requirements:
        matched = evaluate(node_batch, requirement)
        mask = matched if mask is None else mask & matched
        if not mask.any():
            break
    assert mask is not None
    return mask


def node_selector_mask(node_batch: NodeBatch, selector: NodeSelector) -> BoolArray:
    """Per node of the batch, whether some term of a required node selector matches it."""
    mask = np.zeros(len(node_batch), dtype=np.bool_)
    for term in selector.node_selector_terms:
        mask |= term_mask(node_batch, term)
        if mask.all():
            break
    return mask


def required_affinity_mask(node_batch: NodeBatch, required: RequiredNodeAffinity) -> BoolArray:
    """Per node of the batch, ``required.matches(node)``: its nodeSelector labels and required node affinity."""
    mask = np.ones(len(node_batch), dtype=np.bool_)
    for key, value in required.node_selector.items():
        mask &= requirement_mask(node_batch, NodeSelectorRequirement(key, "In", (value,)))
    if required.required is not None and mask.any():
        mask &= node_selector_mask(node_batch, required.required)
    return mask


def preferred_scores(node_batch: NodeBatch, terms: Sequence[PreferredSchedulingTerm]) -> npt.NDArray[np.int64]:
    """Per node of the batch, ``preferred_score(terms, node)``: the summed weights of the terms it matches."""
    total = np.zeros(len(node_batch), dtype=np.int64)
    for term in terms:
        if term.weight:
            total += term_mask(node_batch, term.preference) * np.int64(term.weight)
    return total

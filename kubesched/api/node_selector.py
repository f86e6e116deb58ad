"""Node selector matching: nodeSelector labels and node affinity terms, as component-helpers does.

Terms are ORed, the requirements of a term ANDed. A term with no requirement matches nothing; an invalid
requirement (unknown field key, a key or value kube-scheduler cannot parse, see :mod:`kubesched.api.selector_errors`)
makes its term match nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm
from kubesched.api.selector_errors import requirement_valid

OBJECT_NAME_FIELD = "metadata.name"


_INT64 = re.compile(r"^[+-]?[0-9]+$")


def _as_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): optional sign, decimal digits, within int64."""
    if not _INT64.match(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    """One label requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt); one kube-scheduler cannot parse matches
    nothing."""
    return _plain_match(req, labels) and requirement_valid(req)


def _plain_match(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    op = req.operator
    present = req.key in labels
    if op == "In":
        return present and labels[req.key] in req.values
    if op == "NotIn":
        return not present or labels[req.key] not in req.values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(req.values) == 1:
        have, want = _as_int(labels[req.key]), _as_int(req.values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _field_matches(req: NodeSelectorRequirement, node_name: str) -> bool:
    if req.key != OBJECT_NAME_FIELD or req.operator not in ("In", "NotIn") or len(req.values) != 1:
        return False  # only metadata.name, In/NotIn, exactly one value is a valid node field selector
    return (node_name == req.values[0]) == (req.operator == "In")


def term_matches(term: NodeSelectorTerm, labels: Mapping[str, str], node_name: str) -> bool:
    """Whether a node (labels and name) satisfies every requirement of a non-empty term."""
    if not term.match_expressions and not term.match_fields:
        return False
    return (all(requirement_matches(r, labels) for r in term.match_expressions)
            and all(_field_matches(r, node_name) for r in term.match_fields))


def node_selector_matches(selector: NodeSelector, node: Node) -> bool:
    """Whether any term of a required node selector matches the node."""
    labels, name = node.labels, node.name
    return any(term_matches(t, labels, name) for t in selector.node_selector_terms)


def preferred_score(terms: Sequence[PreferredSchedulingTerm], node: Node) -> int:
    """The sum of the weights of the preferred terms the node matches (empty terms are ignored)."""
    labels, name = node.labels, node.name
    return sum(t.weight for t in terms if t.weight and term_matches(t.preference, labels, name))


@attrs.frozen
class RequiredNodeAffinity:
    """A pod's hard node constraints: spec.nodeSelector and required node affinity, both must hold."""

    node_selector: Mapping[str, str]
    required: NodeSelector | None

    @classmethod
    def of(cls, pod: Pod) -> RequiredNodeAffinity:
        """The required node affinity of a pod."""
        affinity = pod.spec.affinity
        required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
        return cls(pod.spec.node_selector, required)

    def matches(self, node: Node) -> bool:
        """Whether the node satisfies the pod's nodeSelector and required node affinity."""
        labels = node.labels
        for key, value in self.node_selector.items():
            if labels.get(key) != value:
                return False
        return self.required is None or node_selector_matches(self.required, node)

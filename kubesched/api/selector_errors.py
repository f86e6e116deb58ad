"""Why kube-scheduler cannot parse a selector, in its words: the rules of apimachinery's labels.NewRequirement, of
component-helpers' node selector terms and of metav1.LabelSelectorAsSelector.

The API server does not check everything the scheduler parses (a node affinity value need not be a label value,
a Gt value need not be an integer), so a pod can carry a requirement that kube-scheduler cannot parse: such a
requirement makes its node selector term match nothing, and scoring that term is an error.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from kubesched.api.meta import LabelSelector
from kubesched.api.pod import NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm
from kubesched.api.validation import label_value, qualified_name
from kubesched.validation import escape

#: A problem: (field path, message), as one of kube's field errors.
Problem = tuple[str, str]

_NODE_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
_LABEL_SELECTOR_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
_INT64 = re.compile(r"^[+-]?[0-9]+$")


def _quoted(text: str) -> str:
    return f'"{escape(text)}"'


def _go_strings(values: Sequence[str]) -> str:
    """A []string as Go's ``%#v`` shows it (a pod's missing list is nil)."""
    return "[]string{" + ", ".join(_quoted(v) for v in values) + "}" if values else "[]string(nil)"


def _is_int64(text: str) -> bool:
    """strconv.ParseInt(text, 10, 64) succeeds."""
    return _INT64.match(text) is not None and -(2**63) <= int(text) < 2**63


def requirement_problems(key: str, operator: str, values: Sequence[str], path: str) -> list[Problem]:
    """labels.NewRequirement's errors for ``key operator values`` at ``path``, in its order. ``operator`` is one of
    In, NotIn, Exists, DoesNotExist, Gt, Lt, or Equals (a matchLabels entry)."""
    problems: list[Problem] = []
    key_problems = qualified_name(key)
    if key_problems:
        problems.append((f"{path}.key", f"Invalid value: {_quoted(key)}: {'; '.join(key_problems)}"))
    at = f"{path}.values"
    if operator in ("In", "NotIn") and not values:
        problems.append((at, f"Invalid value: {_go_strings(values)}: for 'in', 'notin' operators, values set can't "
                             "be empty"))
    elif operator in ("Exists", "DoesNotExist") and values:
        problems.append((at, f"Invalid value: {_go_strings(values)}: values set must be empty for exists and does "
                             "not exist"))
    elif operator == "Equals" and len(values) != 1:
        problems.append((at, f"Invalid value: {_go_strings(values)}: exact-match compatibility requires one single "
                             "value"))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            problems.append((at, f"Invalid value: {_go_strings(values)}: for 'Gt', 'Lt' operators, exactly one value "
                                 "is required"))
        problems.extend((f"{at}[{i}]", f"Invalid value: {_quoted(v)}: for 'Gt', 'Lt' operators, the value must be "
                                       "an integer") for i, v in enumerate(values) if not _is_int64(v))
    for i, value in enumerate(values):
        value_problems = label_value(value)
        if value_problems:
            problems.append((f"{at}[{i}][{key}]", f"Invalid value: {_quoted(value)}: {'; '.join(value_problems)}"))
    return problems


def _expression_problems(requirement: NodeSelectorRequirement, path: str) -> list[Problem]:
    if requirement.operator not in _NODE_OPERATORS:
        return [(f"{path}.operator", f"Unsupported value: {_quoted(requirement.operator)}")]
    return requirement_problems(requirement.key, requirement.operator, requirement.values, path)


def _field_problems(requirement: NodeSelectorRequirement, path: str) -> list[Problem]:
    if requirement.operator not in ("In", "NotIn"):
        return [(f"{path}.operator", f'Unsupported value: {_quoted(requirement.operator)}: supported values: "In", '
                                     '"NotIn"')]
    if len(requirement.values) != 1:
        return [(f"{path}.values", f"Invalid value: {_go_strings(requirement.values)}: must have one element")]
    return []


@functools.lru_cache(maxsize=4096)
def requirement_valid(requirement: NodeSelectorRequirement) -> bool:
    """Whether kube-scheduler parses a node selector term's label requirement (matchExpressions); a term with one
    it cannot parse matches no node."""
    return not _expression_problems(requirement, "")


def term_problems(term: NodeSelectorTerm, path: str) -> list[Problem]:
    """Why kube-scheduler cannot parse a node selector term at ``path`` (its matchExpressions, then its
    matchFields); empty when it can."""
    problems = [p for j, r in enumerate(term.match_expressions)
                for p in _expression_problems(r, f"{path}.matchExpressions[{j}]")]
    problems += [p for j, r in enumerate(term.match_fields) for p in _field_problems(r, f"{path}.matchFields[{j}]")]
    return problems


def preferred_terms_error(terms: Sequence[PreferredSchedulingTerm]) -> str | None:
    """Why kube-scheduler cannot parse a pod's preferred node affinity terms (terms of weight 0 and empty terms
    are not parsed), as its error reads; None when it can."""
    problems = [p for i, t in enumerate(terms) if t.weight and (t.preference.match_expressions
                                                                 or t.preference.match_fields)
                for p in term_problems(t.preference, f"[{i}]")]
    return joined(problems) if problems else None


def label_selector_error(selector: LabelSelector | None) -> str | None:
    """Why metav1.LabelSelectorAsSelector fails on ``selector`` (its first failing requirement: matchLabels in key
    order, then matchExpressions), as its error reads; None when it parses."""
    if selector is None:
        return None
    for key, value in sorted(selector.match_labels.items()):
        problems = requirement_problems(key, "Equals", (value,), "")
        if problems:
            return joined(problems)
    for requirement in selector.match_expressions:
        if requirement.operator not in _LABEL_SELECTOR_OPERATORS:
            return f"{_quoted(requirement.operator)} is not a valid label selector operator"
        problems = requirement_problems(requirement.key, requirement.operator, requirement.values, "")
        if problems:
            return joined(problems)
    return None


def joined(problems: Iterable[Problem]) -> str:
    """Field errors as kube's aggregated error reads: ``path: message``, each distinct text once, several in
    brackets and comma-separated (a path that starts at the root is written without its leading dot)."""
    texts = list(dict.fromkeys(f"{path.removeprefix('.')}: {message}" for path, message in problems))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"

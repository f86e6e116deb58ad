"""Metadata and label selectors, shared by every kind decode reads.

Names are held to the rule of their kind, as the API server holds them, and every failure names its field path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.api import validation
from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from kubesched.io import fields as f

Obj = Mapping[str, Any]
NameRule = Callable[[str], list[str]]


LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def object_meta(obj: Obj, path: str = "metadata", *, namespaced: bool,
                name_rule: NameRule = validation.dns1123_subdomain) -> ObjectMeta:
    """metadata; a namespaced object without a namespace is in ``default``. The name must satisfy the kind's
    ``name_rule`` and the namespace must be a DNS-1123 label, as the API server requires."""
    meta = f.mapping(obj.get("metadata"), path)
    name = f.string(meta.get("name"), f"{path}.name")
    if not name:
        f.report(f"{path}.name", "Required value: name is required")
    else:
        check_name(name, f"{path}.name", name_rule)
    namespace = f.string(meta.get("namespace"), f"{path}.namespace", "default") if namespaced else ""
    if namespace:
        check_name(namespace, f"{path}.namespace", validation.dns1123_label)
    owners = _owner_references(meta.get("ownerReferences"), f"{path}.ownerReferences")
    return ObjectMeta(
        name=name,
        namespace=namespace,
        uid=f.string(meta.get("uid"), f"{path}.uid"),
        labels=f.shared_map(f.string_map(meta.get("labels"), f"{path}.labels")),
        annotations=f.shared_map(f.string_map(meta.get("annotations"), f"{path}.annotations")),
        creation_timestamp=f.timestamp(meta.get("creationTimestamp"), f"{path}.creationTimestamp"),
        deletion_timestamp=f.timestamp(meta.get("deletionTimestamp"), f"{path}.deletionTimestamp"),
        owner_references=owners,
    )


#: Names known to keep each rule (namespaces and node names repeat in every pod); cleared when full.
_KEPT: dict[NameRule, set[str]] = {}
_KEPT_SIZE = 1 << 12


def check_name(value: str, path: str, rule: NameRule) -> bool:
    """Report every way ``value`` breaks ``rule``; True when it keeps it."""
    kept = _KEPT.get(rule)
    if kept is None:
        kept = _KEPT[rule] = set()
    elif value in kept:
        return True
    problems = rule(value)
    if not problems:
        if len(kept) >= _KEPT_SIZE:
            kept.clear()
        kept.add(value)
    for problem in problems:
        f.report(path, f"Invalid value: {f.quote(value)}: {problem}")
    return not problems


@f.remembered
def _owner_reference(obj: Obj, path: str) -> OwnerReference:
    return OwnerReference(
        api_version=f.string(obj.get("apiVersion"), f"{path}.apiVersion"),
        kind=f.string(obj.get("kind"), f"{path}.kind"),
        name=f.string(obj.get("name"), f"{path}.name"),
        uid=f.string(obj.get("uid"), f"{path}.uid"),
        controller=f.boolean(obj.get("controller"), f"{path}.controller"),
    )


#: A list of owner references, decoded once per distinct list (a workload's pods repeat theirs).
_owner_references = f.remembered_items(_owner_reference)


def label_selector(value: object, path: str) -> LabelSelector | None:
    """A metav1.LabelSelector, or None when absent."""
    if value is None:
        return None
    obj = f.mapping(value, path)
    return LabelSelector(
        match_labels=f.string_map(obj.get("matchLabels"), f"{path}.matchLabels"),
        match_expressions=f.items(obj.get("matchExpressions"), f"{path}.matchExpressions", _label_requirement),
    )


def operator_and_values(obj: Obj, path: str, operators: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """A selector requirement's operator and values, with the rules label and node selectors share: an operator
    is required, In/NotIn need values, Exists/DoesNotExist take none."""
    operator = f.one_of(obj.get("operator"), f"{path}.operator", operators)
    if operator is None and obj.get("operator") is None:
        f.report(f"{path}.operator", "Required value")
    values = f.string_list(obj.get("values"), f"{path}.values")
    if operator in ("In", "NotIn") and not values:
        f.report(f"{path}.values", "Required value: must be specified when `operator` is 'In' or 'NotIn'")
    if operator in ("Exists", "DoesNotExist") and values:
        f.report(f"{path}.values", "Forbidden: may not be specified when `operator` is 'Exists' or "
                                       "'DoesNotExist'")
    return operator, values


def _label_requirement(obj: Obj, path: str) -> LabelSelectorRequirement:
    operator, values = operator_and_values(obj, path, LABEL_OPERATORS)
    return LabelSelectorRequirement(f.string(obj.get("key"), f"{path}.key"), operator or "", values)

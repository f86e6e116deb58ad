"""Decode the objects admission reads: LimitRange, ResourceQuota and RuntimeClass, checked as the v1.32 API server
checks them (its field paths and words), a LimitRange's Container item defaulted as the API server stores it.

Where the API server prints Go's internal form of a value (a quantity, a list of scopes), kubesched prints the
quantity as the API server writes it (``"2Gi"``) and the list as Go does (``[]core.ResourceQuotaScope{"A"}``).
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.api import validation
from kubesched.api.admission_objects import (
    LIMIT_TYPE_CLAIM,
    LIMIT_TYPE_CONTAINER,
    LIMIT_TYPE_POD,
    SCOPE_BEST_EFFORT,
    SCOPE_CROSS_NAMESPACE_POD_AFFINITY,
    SCOPE_NOT_BEST_EFFORT,
    SCOPE_NOT_TERMINATING,
    SCOPE_PRIORITY_CLASS,
    SCOPE_TERMINATING,
    LimitRange,
    LimitRangeItem,
    ResourceQuota,
    RuntimeClass,
    ScopedResourceSelectorRequirement,
)
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.api.resources import is_extended_resource_name
from kubesched.api.validation import canonical_quantity
from kubesched.io import fields as f
from kubesched.io import pod_rules as rules
from kubesched.io.decode_pod import toleration
from kubesched.io.meta import Obj, check_name, object_meta
from kubesched.validation import HugeInteger, key_path, key_text, quote

LIMIT_TYPES = (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_CLAIM)
SCOPES = (SCOPE_TERMINATING, SCOPE_NOT_TERMINATING, SCOPE_BEST_EFFORT, SCOPE_NOT_BEST_EFFORT, SCOPE_PRIORITY_CLASS,
          SCOPE_CROSS_NAMESPACE_POD_AFFINITY)
_CONFLICTING = ((SCOPE_BEST_EFFORT, SCOPE_NOT_BEST_EFFORT), (SCOPE_TERMINATING, SCOPE_NOT_TERMINATING))
#: The scopes whose selector takes only Exists.
_EXISTS_ONLY = (SCOPE_BEST_EFFORT, SCOPE_NOT_BEST_EFFORT, SCOPE_TERMINATING, SCOPE_NOT_TERMINATING,
                SCOPE_CROSS_NAMESPACE_POD_AFFINITY)
_COMPUTE = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"})
#: IsIntegerResourceName's standard names (extended resources too).
_INTEGER_RESOURCES = frozenset({"pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
                                "configmaps", "persistentvolumeclaims", "services.nodeports",
                                "services.loadbalancers"})


def _amounts(value: object, path: str) -> dict[str, Quantity]:
    """A resource list whose amounts may be negative (the API server does not bound a LimitRange's)."""
    found: dict[str, Quantity] = {}
    for name, raw in f.mapping(value, path).items():
        try:
            found[key_text(name)] = Quantity.parse(raw.text if isinstance(raw, HugeInteger) else raw)
        except QuantityError as exc:
            f.report(key_path(path, name), str(exc))
    return found


def _shown(quantity: Quantity) -> str:
    return canonical_quantity(quantity)


def _check_names(values: Mapping[str, Quantity], path: str, limit_type: str) -> None:
    for name in sorted(values):
        for problem in validation.resource_name_problems(
                name, containers=limit_type in (LIMIT_TYPE_CONTAINER, LIMIT_TYPE_POD)):
            f.report(key_path(path, name), problem)


def _limit_item(obj: Obj, path: str, seen: set[str]) -> LimitRangeItem:
    """One spec.limits entry, defaulted (SetDefaults_LimitRangeItem) then checked (ValidateLimitRange); ``seen``
    holds the types of the entries before it."""
    limit_type = f.string(obj.get("type"), f"{path}.type")
    check_name(limit_type, f"{path}.type", _limit_type_problems)
    if limit_type in seen:
        f.report(f"{path}.type", f"Duplicate value: {quote(limit_type)}")
    seen.add(limit_type)
    parts = {key: _amounts(obj.get(key), f"{path}.{key}")
             for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")}
    if limit_type == LIMIT_TYPE_CONTAINER:
        for source, target in (("max", "default"), ("default", "defaultRequest"), ("min", "defaultRequest")):
            for name, quantity in parts[source].items():
                parts[target].setdefault(name, quantity)
    for key in ("max", "min"):
        _check_names(parts[key], f"{path}.{key}", limit_type)
    if limit_type == LIMIT_TYPE_POD:
        for key in ("default", "defaultRequest"):
            if parts[key]:
                f.report(f"{path}.{key}", "Forbidden: may not be specified when `type` is 'Pod'")
    else:
        for key in ("default", "defaultRequest"):
            _check_names(parts[key], f"{path}.{key}", limit_type)
    _check_names(parts["maxLimitRequestRatio"], f"{path}.maxLimitRequestRatio", limit_type)
    if limit_type == LIMIT_TYPE_CLAIM and "storage" not in parts["min"] and "storage" not in parts["max"]:
        f.report(f"{path}.limits", "Required value: either minimum or maximum storage value is required, but neither "
                                   "was provided")
    _check_bounds(parts, path)
    return LimitRangeItem(type=limit_type, max=parts["max"], min=parts["min"], default=parts["default"],
                          default_request=parts["defaultRequest"],
                          max_limit_request_ratio=parts["maxLimitRequestRatio"])


def _limit_type_problems(value: str) -> list[str]:
    """validateLimitRangeTypeName: a qualified name, one of the standard types when it has no prefix."""
    problems = validation.qualified_name(value)
    if not problems and "/" not in value and value not in LIMIT_TYPES:
        problems.append("must be a standard limit type or fully qualified")
    return problems


def _check_bounds(parts: Mapping[str, Mapping[str, Quantity]], path: str) -> None:
    """The bounds of one item agree: min <= defaultRequest <= default <= max, maxLimitRequestRatio at least 1
    and at most max/min."""
    low, high, default, request, ratio = (parts[k] for k in ("min", "max", "default", "defaultRequest",
                                                              "maxLimitRequestRatio"))
    names = sorted(set().union(*(set(p) for p in parts.values())))
    for name in names:
        def bad(key: str, shown: Quantity, message: str, name: str = name) -> None:
            f.report(key_path(f"{path}.{key}", name), f"Invalid value: {quote(_shown(shown))}: {message}")

        lo, hi, de, rq, ra = (p.get(name) for p in (low, high, default, request, ratio))
        if lo is not None and hi is not None and lo.amount > hi.amount:
            bad("min", lo, f"min value {_shown(lo)} is greater than max value {_shown(hi)}")
        if rq is not None and lo is not None and lo.amount > rq.amount:
            bad("defaultRequest", rq, f"min value {_shown(lo)} is greater than default request value {_shown(rq)}")
        if rq is not None and hi is not None and rq.amount > hi.amount:
            bad("defaultRequest", rq, f"default request value {_shown(rq)} is greater than max value {_shown(hi)}")
        if rq is not None and de is not None and rq.amount > de.amount:
            bad("defaultRequest", rq, f"default request value {_shown(rq)} is greater than default limit value "
                                      f"{_shown(de)}")
        if de is not None and lo is not None and lo.amount > de.amount:
            bad("default", lo, f"min value {_shown(lo)} is greater than default value {_shown(de)}")
        if de is not None and hi is not None and de.amount > hi.amount:
            bad("default", hi, f"default value {_shown(de)} is greater than max value {_shown(hi)}")
        if ra is not None and ra.amount < 1:
            bad("maxLimitRequestRatio", ra, f"ratio {_shown(ra)} is less than 1")
        if ra is not None and lo is not None and hi is not None and lo.milli_value():
            bound = hi.milli_value() / lo.milli_value()
            if ra.milli_value() / 1000 > bound:
                bad("maxLimitRequestRatio", ra, f"ratio {_shown(ra)} is greater than max/min = {bound:f}")


def limit_range(obj: Obj) -> LimitRange:
    """Decode a LimitRange; a type may appear once among its limits."""
    meta = object_meta(obj, namespaced=True)
    spec = f.mapping(obj.get("spec"), "spec")
    seen: set[str] = set()
    items = f.items(spec.get("limits"), "spec.limits", lambda item, path: _limit_item(item, path, seen))
    return LimitRange(metadata=meta, limits=items)


def _go_strings(values: tuple[str, ...] | None, kind: str) -> str:
    """A list of strings as Go's %#v prints it (``[]string{"a"}``, ``[]string(nil)``)."""
    if values is None:
        return f"[]{kind}(nil)"
    return f"[]{kind}{{{', '.join(quote(v) for v in values)}}}"


def _scope_valid_for(scope: str, resource: str) -> bool:
    """IsResourceQuotaScopeValidForResource."""
    if scope in (SCOPE_TERMINATING, SCOPE_NOT_TERMINATING, SCOPE_NOT_BEST_EFFORT, SCOPE_PRIORITY_CLASS,
                 SCOPE_CROSS_NAMESPACE_POD_AFFINITY):
        return resource == "pods" or resource in _COMPUTE
    if scope == SCOPE_BEST_EFFORT:
        return resource == "pods"
    return True


def _unsupported_for(scope: str, hard: Mapping[str, Quantity]) -> bool:
    return any(validation.is_quota_standard(name) and not _scope_valid_for(scope, name) for name in sorted(hard))


def _scoped_requirement(obj: Obj, path: str) -> ScopedResourceSelectorRequirement:
    values = obj.get("values")
    return ScopedResourceSelectorRequirement(
        scope_name=f.string(obj.get("scopeName"), f"{path}.scopeName"),
        operator=f.string(obj.get("operator"), f"{path}.operator"),
        values=f.string_list(values, f"{path}.values") if values is not None else ())


class _Reporter:
    """Reports each (field, message) once, as the API server's aggregate of field errors shows it."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str]] = set()

    def __call__(self, path: str, message: str) -> None:
        if (path, message) not in self.seen:
            self.seen.add((path, message))
            f.report(path, message)


def resource_quota(obj: Obj) -> ResourceQuota:
    """Decode a ResourceQuota: its hard limits, scopes and scope selector, checked as ValidateResourceQuotaSpec
    does. Its status is not read: the simulation recomputes the usage from the pods, as the quota controller does."""
    meta = object_meta(obj, namespaced=True)
    spec = f.mapping(obj.get("spec"), "spec")
    hard = f.resource_list(spec.get("hard"), "spec.hard")
    report = _Reporter()
    for name in sorted(hard):
        where = key_path("spec.hard", name)
        for problem in validation.resource_name_problems(name, quota=True):
            report(where, problem)
        if (name in _INTEGER_RESOURCES or is_extended_resource_name(name)) and hard[name].milli_value() % 1000:
            report(where, f"Invalid value: {quote(_shown(hard[name]))}: must be an integer")
    scopes = f.string_list(spec.get("scopes"), "spec.scopes")
    raw_scopes = tuple(scopes) if spec.get("scopes") is not None else None
    shown_scopes = _go_strings(raw_scopes, "core.ResourceQuotaScope")
    for scope in scopes:
        if scope not in SCOPES:
            report("spec.scopes", f"Invalid value: {shown_scopes}: unsupported scope")
        if _unsupported_for(scope, hard):
            report("spec.scopes", f"Invalid value: {shown_scopes}: unsupported scope applied to resource")
    if any(set(pair) <= set(scopes) for pair in _CONFLICTING):
        report("spec.scopes", f"Invalid value: {shown_scopes}: conflicting scopes")
    selector = f.mapping(spec.get("scopeSelector"), "spec.scopeSelector")
    raw = f.sequence(selector.get("matchExpressions"), "spec.scopeSelector.matchExpressions")
    requirements = f.items(selector.get("matchExpressions"), "spec.scopeSelector.matchExpressions",
                           _scoped_requirement)
    if spec.get("scopeSelector") is not None:
        _check_selector(requirements, raw, hard, shown_scopes, report)
    return ResourceQuota(metadata=meta, hard=hard, scopes=scopes, scope_selector=requirements)


def _go_selector(requirements: tuple[ScopedResourceSelectorRequirement, ...], raw: list[object]) -> str:
    """The scope selector as Go's %#v prints it."""
    parts = []
    for requirement, item in zip(requirements, raw, strict=False):
        values = item.get("values") if isinstance(item, Mapping) else None
        shown = _go_strings(requirement.values if values is not None else None, "string")
        parts.append(f"core.ScopedResourceSelectorRequirement{{ScopeName:{quote(requirement.scope_name)}, "
                     f"Operator:{quote(requirement.operator)}, Values:{shown}}}")
    return ("core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{" + ", ".join(parts)
            + "}}")


def _check_selector(requirements: tuple[ScopedResourceSelectorRequirement, ...], raw: list[object],
                    hard: Mapping[str, Quantity], shown_scopes: str, report: _Reporter) -> None:
    """validateScopedResourceSelectorRequirement: known scopes, fit for the limited resources, and operators."""
    path = "spec.scopeSelector.matchExpressions"
    seen: set[str] = set()
    for requirement in requirements:
        scope, operator = requirement.scope_name, requirement.operator
        if scope not in SCOPES:
            report(f"{path}.scopeName", f"Invalid value: {quote(scope)}: unsupported scope")
        if _unsupported_for(scope, hard):
            report(path, f"Invalid value: {_go_selector(requirements, raw)}: unsupported scope applied to resource")
        if scope in _EXISTS_ONLY and operator != "Exists":
            report(f"{path}.operator", f"Invalid value: {quote(operator)}: must be 'Exists' when scope is any of "
                                       "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
                                       "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
                                       "ResourceQuotaScopeCrossNamespacePodAffinity")
        if operator in ("In", "NotIn"):
            if not requirement.values:
                report(f"{path}.values", "Required value: must be at least one value when `operator` is 'In' or "
                                         "'NotIn' for scope selector")
        elif operator in ("Exists", "DoesNotExist"):
            if requirement.values:
                report(f"{path}.values", f"Invalid value: {_go_strings(requirement.values, 'string')}: must be no "
                                         "value when `operator` is 'Exist' or 'DoesNotExist' for scope selector")
        else:
            report(f"{path}.operator", f"Invalid value: {quote(operator)}: not a valid selector operator")
        seen.add(scope)
    if any(set(pair) <= seen for pair in _CONFLICTING):
        report(path, f"Invalid value: {shown_scopes}: conflicting scopes")


def runtime_class(obj: Obj) -> RuntimeClass:
    """Decode a RuntimeClass (node.k8s.io/v1): its handler, pod overhead and scheduling constraints."""
    meta = object_meta(obj, namespaced=False)
    handler = f.string(obj.get("handler"), "handler")
    check_name(handler, "handler", validation.dns1123_label)
    overhead = None
    if obj.get("overhead") is not None:
        fixed = f.mapping(obj.get("overhead"), "overhead").get("podFixed")
        overhead = f.resource_list(fixed, "overhead.limits")  # the API server's path for podFixed
        for name in sorted(overhead):
            for problem in validation.resource_name_problems(name):
                f.report(key_path("overhead.limits", name), problem)
    scheduling = f.mapping(obj.get("scheduling"), "scheduling")
    return RuntimeClass(
        metadata=meta, handler=handler, overhead=overhead,
        node_selector=rules.labels(scheduling.get("nodeSelector"), "scheduling.nodeSelector"),
        tolerations=f.items(scheduling.get("tolerations"), "scheduling.tolerations.tolerations", toleration))

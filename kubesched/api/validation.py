"""The API server's name rules (DNS-1123 label and subdomain, DNS-1035 label, qualified names) and its rules on
a container's resource requirements, with its wording. They are object-model rules, so they live here; how values
are quoted in messages is :mod:`kubesched.validation`'s."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from kubesched.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    Quantity,
    QuantityError,
    canonical_text,
)
from kubesched.api.resources import CPU, MEMORY, is_extended_resource_name, is_native_resource
from kubesched.validation import MAX_SHOWN, escape, quote

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
QUALIFIED_NAME_MAX_LENGTH = 63
_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = rf"{_LABEL}(\.{_LABEL})*"
_DNS1035 = "[a-z]([-a-z0-9]*[a-z0-9])?"
_NAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_RE = re.compile(_LABEL, re.ASCII)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN, re.ASCII)
_DNS1035_RE = re.compile(_DNS1035, re.ASCII)
_NAME_PART_RE = re.compile(_NAME_PART, re.ASCII)
_LABEL_VALUE_RE = re.compile(f"({_NAME_PART})?", re.ASCII)

_LABEL_MESSAGE = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                  "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                  f"validation is '{_LABEL}')")
_SUBDOMAIN_MESSAGE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                      "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                      f"validation is '{_SUBDOMAIN}')")
_DNS1035_MESSAGE = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                    f"regex used for validation is '{_DNS1035}')")
_NAME_PART_MESSAGE = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                      "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                      f"validation is '{_NAME_PART}')")
_PREFIX_MESSAGE = "prefix part " + _SUBDOMAIN_MESSAGE
_LABEL_VALUE_MESSAGE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                        "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                        "'my_value',  or '12345', regex used for validation is "
                        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _problems(value: str, max_length: int, pattern: re.Pattern[str], message: str, part: str = "") -> list[str]:
    """The API server's two checks of a name (or of its ``part``, "name part "): its length, then its form
    (``message`` when it does not match)."""
    problems = []
    if len(value) > max_length:
        problems.append(f"{part}must be no more than {max_length} characters")
    if not pattern.fullmatch(value):
        problems.append(message)
    return problems


def dns1123_label(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1123 label (namespaces, StatefulSets); empty when it is one."""
    # The API server says this instead when only the dots are wrong.
    message = "must not contain dots" if _SUBDOMAIN_RE.fullmatch(value) else _LABEL_MESSAGE
    return _problems(value, DNS1123_LABEL_MAX_LENGTH, _LABEL_RE, message)


def dns1123_subdomain(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1123 subdomain (pods, nodes, and most names); empty when it is one."""
    return _problems(value, DNS1123_SUBDOMAIN_MAX_LENGTH, _SUBDOMAIN_RE, _SUBDOMAIN_MESSAGE)


def dns1035_label(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1035 label (Services); empty when it is one."""
    return _problems(value, DNS1123_LABEL_MAX_LENGTH, _DNS1035_RE, _DNS1035_MESSAGE)


def qualified_name(value: str) -> list[str]:
    """Why ``value`` is not a qualified name (``[prefix/]name``: label keys, taint keys, scheduling gates)."""
    prefix, slash, name = value.rpartition("/")
    problems = []
    if slash:
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems.extend(_problems(prefix, DNS1123_SUBDOMAIN_MAX_LENGTH, _SUBDOMAIN_RE, _PREFIX_MESSAGE,
                                      "prefix part "))
        if "/" in prefix:
            return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
                    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
                    "subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:  # the API server then also reports the form it does not have
        problems.extend(["name part must be non-empty", _NAME_PART_MESSAGE])
    else:
        problems.extend(_problems(name, QUALIFIED_NAME_MAX_LENGTH, _NAME_PART_RE, _NAME_PART_MESSAGE, "name part "))
    return problems


def label_value(value: str) -> list[str]:
    """Why ``value`` is not a valid label value (label values, taint values); empty when it is one."""
    return _problems(value, QUALIFIED_NAME_MAX_LENGTH, _LABEL_VALUE_RE, _LABEL_VALUE_MESSAGE)


_HUGEPAGES_PREFIX = "hugepages-"
def canonical_quantity(quantity: Quantity) -> str:
    """``quantity`` as the API server shows it (resource.Quantity's String()): its amount in the canonical form of
    the notation it was written in, e.g. "1.5" as "1500m", "0.5Gi" as "512Mi", "3000000k" as "3G"."""
    suffix = quantity.text.lstrip("+-0123456789.")
    if suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        notation = BINARY_SI
    elif suffix[:1] in ("e", "E") and suffix != "E":
        notation = DECIMAL_EXPONENT
    else:
        notation = DECIMAL_SI
    return canonical_text(quantity.amount, notation)


def _overcommit_allowed(name: str) -> bool:
    """Whether a request may be below its limit (helper.IsOvercommitAllowed): native resources but hugepages."""
    return is_native_resource(name) and not name.startswith(_HUGEPAGES_PREFIX)


def _hugepage_problem(name: str, quantity: Quantity) -> str:
    """Why a hugepages amount is not a whole number of its pages (empty when it is, or for other resources)."""
    if not name.startswith(_HUGEPAGES_PREFIX):
        return ""
    try:
        page = Quantity.parse(name.removeprefix(_HUGEPAGES_PREFIX)).value()
    except QuantityError:
        page = 0
    if page > 0 and quantity.amount >= 0 and quantity.value() % page == 0:
        return ""
    return f"{canonical_quantity(quantity)} is not positive integer multiple of {name}"


# IsStandardResourceName's names without a "/" (quota names included: a container may not use them either).
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers",
    "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})


def _shown_name(name: str) -> str:
    """A resource name as the API server shows it in a message: bare (quoted and escaped when it is odd)."""
    return name if len(name) <= MAX_SHOWN and escape(name) == name and " " not in name else quote(name)


_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
    "services.nodeports", "services.loadbalancers"})


def _resource_name_problems(name: str, *, containers: bool = True, quota: bool = False) -> list[str]:
    """Why ``name`` is not a resource name: a qualified name, standard when it has no prefix
    (validateResourceName); with ``containers``, one a container may ask for (validateContainerResourceName); with
    ``quota``, one a ResourceQuota may limit (ValidateResourceQuotaResourceName)."""
    problems = qualified_name(name)
    if not problems and "/" not in name and not (
            name in _STANDARD_RESOURCES or name.startswith((_HUGEPAGES_PREFIX, "requests." + _HUGEPAGES_PREFIX))):
        problems.append("must be a standard resource type or fully qualified")
    if quota:
        if "/" not in name and not (name in _QUOTA_RESOURCES
                                    or name.startswith((_HUGEPAGES_PREFIX, "requests." + _HUGEPAGES_PREFIX))):
            problems.append("must be a standard resource for quota")
    elif containers and "/" not in name:
        if name not in _CONTAINER_RESOURCES and not name.startswith(_HUGEPAGES_PREFIX):
            problems.append("must be a standard resource for containers")
    elif containers and not is_native_resource(name) and not is_extended_resource_name(name):
        problems.append("doesn't follow extended resource name standard")
    return [f"Invalid value: {_shown_name(name)}: {problem}" for problem in problems]


def resource_name_problems(name: str, *, containers: bool = True, quota: bool = False) -> list[str]:
    """Why ``name`` is not a valid resource name, each as ``Invalid value: name: reason``: for containers (a
    LimitRange's Container and Pod items, a RuntimeClass's overhead), for a ResourceQuota (``quota``), or any
    standard or prefixed one (neither)."""
    return _resource_name_problems(name, containers=containers, quota=quota)


def is_quota_standard(name: str) -> bool:
    """IsStandardQuotaResourceName: a resource a ResourceQuota's scopes are checked against."""
    return name in _QUOTA_RESOURCES or name.startswith((_HUGEPAGES_PREFIX, "requests." + _HUGEPAGES_PREFIX))


def _to_milli(quantity: Quantity) -> Quantity:
    """``quantity`` rounded up to thousandths, as the API server's defaulting stores every resource list."""
    return Quantity(Fraction(quantity.milli_value(), 1000), quantity.text)


def _integer_problems(name: str, quantity: Quantity) -> list[str]:
    """An extended resource is counted in whole units (ValidateResourceQuantityValue)."""
    if is_extended_resource_name(name) and quantity.milli_value() % 1000:
        return [f'Invalid value: "{canonical_quantity(quantity)}": must be an integer']
    return []


def _hugepage_problems(name: str, quantity: Quantity) -> list[str]:
    """A hugepages amount is a whole number of its pages."""
    problem = _hugepage_problem(name, quantity)
    return [f'Invalid value: "{canonical_quantity(quantity)}": {problem}'] if problem else []


#: The problems of requirements checked before, by their names, amounts and texts; cleared when full.
_REQUIREMENT_PROBLEMS: dict[tuple[tuple[tuple[str, Fraction, str], ...], ...], list[tuple[str, str, str]]] = {}
_REQUIREMENT_PROBLEMS_SIZE = 1024


def resource_requirement_problems(requests: Mapping[str, Quantity],
                                  limits: Mapping[str, Quantity]) -> list[tuple[str, str, str]]:
    """:func:`checked_resource_requirements`, remembered: the pods of a cluster repeat a few requirements."""
    key = (tuple((n, q.amount, q.text) for n, q in requests.items()),
           tuple((n, q.amount, q.text) for n, q in limits.items()))
    problems = _REQUIREMENT_PROBLEMS.get(key)
    if problems is None:
        if len(_REQUIREMENT_PROBLEMS) >= _REQUIREMENT_PROBLEMS_SIZE:
            _REQUIREMENT_PROBLEMS.clear()
        problems = _REQUIREMENT_PROBLEMS[key] = checked_resource_requirements(requests, limits)
    return list(problems)


def checked_resource_requirements(requests: Mapping[str, Quantity],
                                  limits: Mapping[str, Quantity]) -> list[tuple[str, str, str]]:
    """The API server's checks of a container's (defaulted) resource requirements, as (``"requests"`` or
    ``"limits"`` or "", resource name or "" for the whole list, message), resources in name order: names, whole
    amounts, and requests against limits, compared at the thousandths the API server keeps. Extended resources
    and hugepages cannot be overcommitted: their request needs a limit and must equal it."""
    problems: list[tuple[str, str, str]] = []
    limits = {name: _to_milli(q) for name, q in limits.items()}
    for name in sorted(limits):
        problems.extend(("limits", name, p) for p in _resource_name_problems(name))
        problems.extend(("limits", name, p) for p in _integer_problems(name, limits[name]))
        problems.extend(("limits", name, p) for p in _hugepage_problems(name, limits[name]))
    for name in sorted(requests):
        request, limit = _to_milli(requests[name]), limits.get(name)
        problems.extend(("requests", name, p) for p in _resource_name_problems(name))
        problems.extend(("requests", name, p) for p in _integer_problems(name, request))
        shown = canonical_quantity(request)
        if limit is None:
            if not _overcommit_allowed(name):
                problems.append(("limits", "", "Required value: Limit must be set for non overcommitable resources"))
        elif request.amount != limit.amount and not _overcommit_allowed(name):
            problems.append(("requests", "", f'Invalid value: "{shown}": must be equal to {escape(name)} limit of '
                                             f"{canonical_quantity(limit)}"))
        elif request.amount > limit.amount:
            problems.append(("requests", "", f'Invalid value: "{shown}": must be less than or equal to '
                                             f"{escape(name)} limit of {canonical_quantity(limit)}"))
        problems.extend(("requests", name, p) for p in _hugepage_problems(name, request))
    named = set(requests) | set(limits)
    if not named & {CPU, MEMORY} and any(n.startswith(_HUGEPAGES_PREFIX) for n in named):
        problems.append(("", "", "Forbidden: HugePages require cpu or memory"))
    return problems

"""The API server's name rules (DNS-1123 label and subdomain, DNS-1035 label, qualified names), with its
wording. They are object-model rules, so they live here; how values are quoted in messages is
:mod:`kubesched.validation`'s."""

from __future__ import annotations

import re

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
    if not name:
        problems.append("name part must be non-empty")
    else:
        problems.extend(_problems(name, QUALIFIED_NAME_MAX_LENGTH, _NAME_PART_RE, _NAME_PART_MESSAGE, "name part "))
    return problems


def label_value(value: str) -> list[str]:
    """Why ``value`` is not a valid label value (label values, taint values); empty when it is one."""
    return _problems(value, QUALIFIED_NAME_MAX_LENGTH, _LABEL_VALUE_RE, _LABEL_VALUE_MESSAGE)

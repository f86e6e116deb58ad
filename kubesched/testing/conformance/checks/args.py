"""Checks of the plugin's Args: the defaults work, and ill-typed profile values are refused clearly."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any, Literal, get_args, get_origin

import attrs

from kubesched.errors import KubeschedError
from kubesched.framework._args import ArgsError, kebab, structure, unstructure
from kubesched.runtime import validate_plugin_class
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, explain
from kubesched.testing.conformance.subject import PluginUnderTest


def _args_class(subject: PluginUnderTest) -> type[Any]:
    args_class = getattr(subject.plugin_class, "Args", None)
    if args_class is None:
        raise CheckSkipped("the plugin takes no args")
    if not attrs.has(args_class):
        raise CheckSkipped("Args is not an attrs class (see hooks-match-hookspecs)")
    return typing.cast("type[Any]", args_class)


def args_accept_defaults(subject: PluginUnderTest) -> list[str]:
    """``Args()`` builds with every default, survives a round trip through profile keys, and the plugin
    accepts it."""
    args_class = _args_class(subject)
    try:
        defaults = args_class()
    except Exception as exc:
        raise CheckFailed(f"Args() with no arguments raised {explain(exc)}; every arg needs a default so that "
                          "a profile may leave it out") from None
    try:
        again = structure(args_class, unstructure(defaults))
    except Exception as exc:
        raise CheckFailed(f"the defaults, written as profile keys, are rejected: {explain(exc)}") from None
    if again != defaults:
        raise CheckFailed(f"the defaults do not survive a round trip through profile keys: {defaults!r} "
                          f"became {again!r}")
    try:
        validate_plugin_class(subject.plugin_class, subject.name)
    except KubeschedError:
        raise CheckSkipped("the defaults build and round-trip, but the plugin's hooks do not match the hookspecs, "
                           "so it cannot be built (see hooks-match-hookspecs)") from None
    try:
        PluginUnderTest(subject.plugin_class, defaults).framework()
    except Exception as exc:
        raise CheckFailed(f"the plugin rejects its default args: {explain(exc)}") from None
    return []


#: Values of every TOML kind, one of which is ill-typed for any typed arg.
_SAMPLES: tuple[tuple[str, Any], ...] = (("a string", "ill-typed"), ("an integer", 12345), ("a boolean", True),
                                         ("an array", [1, "two"]), ("a table", {"ill": "typed"}))


def _accepted_kinds(tp: Any) -> set[str] | None:
    """The TOML kinds an annotation accepts (None: anything)."""
    if tp is Any:
        return None
    origin = get_origin(tp)
    if origin is Literal:
        return {_kind(v) for v in get_args(tp)}
    if origin in (typing.Union, types.UnionType):
        kinds: set[str] = set()
        for option in get_args(tp):
            if option is type(None):
                continue
            accepted = _accepted_kinds(option)
            if accepted is None:
                return None
            kinds |= accepted
        return kinds
    if origin in (list, tuple, frozenset) or tp in (list, tuple, frozenset):
        return {"an array"}
    if origin in (dict, collections.abc.Mapping) or tp is dict or attrs.has(tp):
        return {"a table"}
    return {bool: {"a boolean"}, int: {"an integer"}, float: {"an integer"}, str: {"a string"}}.get(tp, set())


def _has_any(tp: Any) -> bool:
    """Whether ``Any`` appears anywhere in an annotation (``list[Any]``, ``dict[str, Any]``...)."""
    return tp is Any or any(_has_any(arg) for arg in get_args(tp) if arg is not Ellipsis)


def _kind(value: Any) -> str:
    for kind, sample in _SAMPLES:
        if type(sample) is type(value) or (isinstance(value, dict) and isinstance(sample, dict)):
            return kind
    return type(value).__name__


def args_reject_ill_typed(subject: PluginUnderTest) -> list[str]:
    """Every arg given a value of the wrong type is refused with an error naming its key, and every arg's type
    is one profiles can express."""
    args_class = _args_class(subject)
    fields = attrs.fields(args_class)
    if not fields:
        raise CheckSkipped("Args has no fields")
    try:
        hints = typing.get_type_hints(args_class)
    except Exception as exc:
        raise CheckFailed(f"Args' annotations cannot be resolved at run time: {explain(exc)}") from None
    for field in fields:
        key = kebab(field.name)
        if field.name not in hints:
            raise CheckFailed(f"{key}: has no type annotation, so no value can be refused as ill-typed")
        hint = hints[field.name]
        accepted = _accepted_kinds(hint)
        if accepted is None or _has_any(hint):
            raise CheckFailed(f"{key}: is typed with Any, so ill-typed values are accepted (give it a real type)")
        for kind, sample in _SAMPLES:
            try:
                structure(args_class, {key: sample})
            except ArgsError as exc:
                if "unsupported argument type" in str(exc):
                    raise CheckFailed(f"{key}: profiles cannot set it: {exc}") from None
                if kind not in accepted and key not in str(exc):
                    raise CheckFailed(f"{key} = {sample!r}: the error does not name the key: {exc}") from None
                continue
            except Exception as exc:
                raise CheckFailed(f"{key} = {sample!r}: raised {explain(exc)} instead of a clear args "
                                  "error") from None
            if kind not in accepted:
                raise CheckFailed(f"{key} = {sample!r} ({kind}) was accepted")
    return []

"""Plugin args: fill a plugin's attrs ``Args`` class from profile config and back.

Keys are kebab-case in TOML profiles and camelCase in KubeSchedulerConfiguration, both derived from the
attrs field names (``naming``). Types come from the class's annotations (int, float, str, bool, Literal,
tuple/list/frozenset from an array, Mapping/dict from a table, nested attrs classes, optional fields). Every
error names the key path and what was expected. A frozen Args class may not declare mutable containers
(dict, list, set): :func:`mutable_fields` names them, and plugin registration rejects them.
"""

from __future__ import annotations

import collections.abc
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin

import attrs

from kubesched.api.meta import frozen_map
from kubesched.validation import PROFILE, did_you_mean, is_finite, is_integer, is_number, join_path

T = TypeVar("T")


class ArgsError(ValueError):
    """A bad plugin argument; ``key`` is the kebab-case path below the args root, if known."""

    def __init__(self, message: str, key: str = "") -> None:
        self.message = message
        self.key = key
        super().__init__(f"{key}: {message}" if key else message)

    def under(self, prefix: str) -> ArgsError:
        """The same error with ``prefix`` prepended to its key path."""
        return ArgsError(self.message, join_path(prefix, self.key)) if prefix else self


def kebab(name: str) -> str:
    """``scoring_strategy`` -> ``scoring-strategy``."""
    return name.replace("_", "-")


def camel(name: str) -> str:
    """``scoring_strategy`` (or ``scoring-strategy``) -> ``scoringStrategy``, as kube-scheduler spells args."""
    first, *rest = re.split(r"[_-]", name)
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


#: How args keys are spelled: a function from an attrs field name to the key.
Naming = Callable[[str], str]

class _Shown:
    """A value for a message template: formatted as the template asks, or shown by :func:`show` when it cannot be
    (an integer too large for ``{value:g}``) or when the template gives no format."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        if not spec:
            return PROFILE.show(self.value)
        try:
            return format(self.value, spec)
        except (ValueError, OverflowError, TypeError):
            return PROFILE.show(self.value)


def show_value(value: object) -> str:
    """A value as args messages show it, for validators' own messages: strings quoted and escaped as Go's ``%q``
    does (cut when long), numbers as written, tables and arrays by kind; always one printable line."""
    return PROFILE.show(value)


# -- validators for Args classes ------------------------------------------------------------------
def in_range(low: float, high: float, *, low_open: bool = False,
             message: str | None = None) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    """An attrs validator: ``low <= value <= high`` (``low < value`` when ``low_open``).

    The default message is kube-scheduler's (``Invalid value: 150: not in valid range [0, 100]``, an infinite
    bound written ``inf``); ``message`` replaces it, a template whose ``{value}`` may carry a format (``{value:g}``).
    """

    def check(_instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        ok = (value > low if low_open else value >= low) and value <= high
        if not ok:
            bounds = f"({low:g}, {high:g}]" if low_open else f"[{low:g}, {high:g}]"
            shown = _Shown(value)
            text = message.format(value=shown) if message else f"Invalid value: {shown}: not in valid range {bounds}"
            raise ArgsError(text, kebab(attribute.name))

    return check


# -- structuring ----------------------------------------------------------------------------------
def structure(cls: type[T], data: Mapping[str, Any] | None, naming: Naming = kebab) -> T:
    """Build an attrs ``cls`` from a mapping whose keys are spelled by ``naming`` (kebab-case unless told);
    raise :class:`ArgsError` with the key path, spelled the same way."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ArgsError(PROFILE.wrong_type(data, "a table"))
    fields = {naming(f.name): f for f in attrs.fields(cast("Any", cls))}
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        field = fields.get(key) if isinstance(key, str) else None
        if field is None:
            hint = did_you_mean(str(key), fields) or f" (expected one of: {', '.join(sorted(fields)) or 'none'})"
            raise ArgsError(f"unknown key{hint}", str(key))
        try:
            kwargs[field.name] = _convert(hints[field.name], value, naming)
        except ArgsError as exc:
            raise exc.under(key) from None
    for key, field in fields.items():
        if field.default is attrs.NOTHING and field.name not in kwargs:
            raise ArgsError("Required value", key)
    try:
        return cls(**kwargs)
    except ArgsError as exc:
        raise exc if naming is kebab else _respelled(exc, cls, naming) from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise ArgsError(str(exc)) from None


def _respelled(exc: ArgsError, cls: type[Any], naming: Naming) -> ArgsError:
    """A validator's error (written with kebab-case keys) with its key path and the field names it mentions
    spelled by ``naming``."""
    key = re.sub(r"[A-Za-z0-9_-]+", lambda m: naming(m.group(0).replace("-", "_")), exc.key)
    message = exc.message
    for field in attrs.fields(cls):
        if "_" in field.name:
            message = re.sub(rf"(?<![\w-]){re.escape(kebab(field.name))}(?![\w-])", naming(field.name), message)
    return ArgsError(message, key)


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return " or ".join(repr(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(tp) if a is not type(None))
    if origin in (tuple, list, frozenset):
        return f"an array of {_plural(_type_name(get_args(tp)[0]))}"
    if origin in (dict, collections.abc.Mapping):
        return "a table"
    if attrs.has(tp):
        return "a table"
    return {int: "an integer", float: "a number", str: "a string", bool: "a boolean"}.get(tp, str(tp))


def _plural(name: str) -> str:
    """``a string`` -> ``strings``, ``an array of tables`` -> ``arrays of tables``, ``an integer or a string`` ->
    ``integers or strings``; other names (choices) as they are."""
    if " or " in name and not name.startswith("an array"):
        return " or ".join(_plural(option) for option in name.split(" or "))
    article, _, rest = name.partition(" ")
    if article not in ("a", "an") or not rest:
        return name
    noun, _, tail = rest.partition(" ")
    return f"{noun}s{' ' if tail else ''}{tail}"


def _convert(tp: Any, value: Any, naming: Naming = kebab) -> Any:
    origin = get_origin(tp)
    expected = ArgsError(PROFILE.wrong_type(value, _type_name(tp)))
    if tp is Any:
        return value
    if origin is Literal:
        # Compare types too: True == 1 in Python, but a TOML boolean is not the integer 1.
        if not any(value == choice and type(value) is type(choice) for choice in get_args(tp)):
            choices = ", ".join(PROFILE.show(str(a)) for a in get_args(tp))
            raise ArgsError(f"Unsupported value: {PROFILE.show(value)}: supported values: {choices}")
        return value
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        errors = []
        for option in options:
            try:
                return _convert(option, value, naming)
            except ArgsError as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        raise expected
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise expected
        item_type = get_args(tp)[0]
        out = []
        for i, item in enumerate(value):
            try:
                out.append(_convert(item_type, item, naming))
            except ArgsError as exc:
                raise exc.under(f"[{i}]") from None
        return tuple(out) if origin is tuple else out
    if origin is frozenset:
        if not isinstance(value, list):
            raise expected
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_convert(get_args(tp)[0], item, naming))
            except ArgsError as exc:
                raise exc.under(f"[{i}]") from None
        return frozenset(items)
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, Mapping):
            raise expected
        value_type = get_args(tp)[1]
        result = {}
        for key, item in value.items():
            try:
                result[str(key)] = _convert(value_type, item, naming)
            except ArgsError as exc:
                raise exc.under(str(key)) from None
        return result if origin is dict else frozen_map(result)
    if attrs.has(tp):
        if not isinstance(value, Mapping):
            raise expected
        return structure(tp, value, naming)
    if tp is bool:
        if not isinstance(value, bool):
            raise expected
        return value
    if tp is int:
        if not is_integer(value):
            raise expected
        return value
    if tp is float:
        if not is_number(value):
            raise expected
        if not is_finite(value):
            raise ArgsError(f"Invalid value: {PROFILE.show(value)}: must be a finite number")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise expected
        return value
    raise ArgsError(f"unsupported argument type {tp!r}")


def unstructure(instance: Any, naming: Naming = kebab) -> Any:
    """The inverse of :func:`structure`: dicts keyed by ``naming``, lists for tuples, None fields omitted."""
    if attrs.has(type(instance)):
        out: dict[str, Any] = {}
        for field in attrs.fields(type(instance)):
            value = getattr(instance, field.name)
            if value is not None:
                out[naming(field.name)] = unstructure(value, naming)
        return out
    if isinstance(instance, (list, tuple)):
        return [unstructure(v, naming) for v in instance]
    if isinstance(instance, frozenset):  # sorted, so that written profiles are deterministic
        return sorted((unstructure(v, naming) for v in instance), key=lambda v: (type(v).__name__, v))
    if isinstance(instance, Mapping):
        return {str(k): unstructure(v, naming) for k, v in instance.items()}
    return instance


#: Mutable containers a frozen Args class may not hold, and the read-only type to use instead.
_MUTABLE = {dict: "Mapping", list: "tuple", set: "frozenset"}


def mutable_fields(cls: type[Any]) -> list[str]:
    """Why a frozen attrs ``cls`` (or a frozen attrs class nested in it) breaks its own immutability: each
    field annotated with a mutable container (dict, list, set), with the read-only type to use instead.
    Empty for a non-frozen class or one whose annotations cannot be resolved."""
    problems: list[str] = []
    _collect_mutable(cls, "", problems, set())
    return problems


def _collect_mutable(cls: type[Any], prefix: str, problems: list[str], seen: set[type[Any]]) -> None:
    if cls in seen or not attrs.has(cls):
        return
    seen.add(cls)
    frozen = getattr(cls.__setattr__, "__name__", "") == "_frozen_setattrs"  # how attrs marks frozen classes
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        return
    for field in attrs.fields(cls):
        hint = hints.get(field.name)
        for tp in _types_in(hint):
            container = get_origin(tp) or tp
            if frozen and container in _MUTABLE:
                problems.append(f"Args field {prefix + field.name!r} is a {container.__name__} in a frozen class: "
                                f"it could still change; use {_MUTABLE[container]} instead")
            elif attrs.has(tp):
                _collect_mutable(tp, f"{prefix}{field.name}.", problems, seen)


def _types_in(tp: Any) -> list[Any]:
    """``tp`` and every type nested in it (union options, item and value types)."""
    found = [tp]
    for arg in get_args(tp):
        if arg is not Ellipsis and get_origin(tp) is not Literal:
            found.extend(_types_in(arg))
    return found

"""Plugin args: fill a plugin's attrs ``Args`` class from profile config (kebab-case keys) and back.

Types come from the class's annotations (int, float, str, bool, Literal, tuple/list, dict, nested attrs
classes, optional fields). Every error names the key path and what was expected.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union, cast, get_args, get_origin

import attrs

T = TypeVar("T")


class ArgsError(ValueError):
    """A bad plugin argument; ``key`` is the kebab-case path below the args root, if known."""

    def __init__(self, message: str, key: str = "") -> None:
        self.message = message
        self.key = key
        super().__init__(f"{key}: {message}" if key else message)

    def under(self, prefix: str) -> ArgsError:
        """The same error with ``prefix`` prepended to its key path."""
        if not prefix:
            return self
        if not self.key:
            return ArgsError(self.message, prefix)
        joiner = "" if self.key.startswith("[") else "."
        return ArgsError(self.message, f"{prefix}{joiner}{self.key}")


def kebab(name: str) -> str:
    """``scoring_strategy`` -> ``scoring-strategy``."""
    return name.replace("_", "-")


def did_you_mean(name: str, candidates: typing.Iterable[str]) -> str:
    """A " (did you mean X?)" hint, or ""."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# -- validators for Args classes ------------------------------------------------------------------
def in_range(low: float, high: float, *, low_open: bool = False,
             message: str | None = None) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    """An attrs validator: ``low <= value <= high`` (``low < value`` when ``low_open``)."""

    def check(_instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        ok = (value > low if low_open else value >= low) and value <= high
        if not ok:
            bounds = f"({low:g}, {high:g}]" if low_open else f"[{low:g}, {high:g}]"
            text = message.format(value=value) if message else f"{value} not in valid range {bounds}"
            raise ArgsError(text, kebab(attribute.name))

    return check


# -- structuring ----------------------------------------------------------------------------------
def structure(cls: type[T], data: Mapping[str, Any] | None) -> T:
    """Build an attrs ``cls`` from a kebab-case mapping; raise :class:`ArgsError` with the key path."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ArgsError(f"expected a table, got {_describe(data)}")
    fields = {kebab(f.name): f for f in attrs.fields(cast("Any", cls))}
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        field = fields.get(key)
        if field is None:
            hint = did_you_mean(key, fields) or f" (expected one of: {', '.join(sorted(fields)) or 'none'})"
            raise ArgsError(f"unknown key{hint}", key)
        try:
            kwargs[field.name] = _convert(hints[field.name], value)
        except ArgsError as exc:
            raise exc.under(key) from None
    for key, field in fields.items():
        if field.default is attrs.NOTHING and field.name not in kwargs:
            raise ArgsError("Required value", key)
    try:
        return cls(**kwargs)
    except ArgsError:
        raise
    except (TypeError, ValueError) as exc:
        raise ArgsError(str(exc)) from None


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return " or ".join(repr(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(tp) if a is not type(None))
    if origin in (tuple, list):
        return f"an array of {_type_name(get_args(tp)[0])}"
    if origin is dict:
        return "a table"
    if attrs.has(tp):
        return "a table"
    return {int: "an integer", float: "a number", str: "a string", bool: "a boolean"}.get(tp, str(tp))


def _convert(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    expected = ArgsError(f"expected {_type_name(tp)}, got {_describe(value)}")
    if tp is Any:
        return value
    if origin is Literal:
        # Compare types too: True == 1 in Python, but a TOML boolean is not the integer 1.
        if not any(value == choice and type(value) is type(choice) for choice in get_args(tp)):
            choices = ", ".join(f'"{a}"' for a in get_args(tp))
            raise ArgsError(f'Unsupported value: "{value}": supported values: {choices}')
        return value
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        errors = []
        for option in options:
            try:
                return _convert(option, value)
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
                out.append(_convert(item_type, item))
            except ArgsError as exc:
                raise exc.under(f"[{i}]") from None
        return tuple(out) if origin is tuple else out
    if origin is dict:
        if not isinstance(value, Mapping):
            raise expected
        value_type = get_args(tp)[1]
        result = {}
        for key, item in value.items():
            try:
                result[str(key)] = _convert(value_type, item)
            except ArgsError as exc:
                raise exc.under(str(key)) from None
        return result
    if attrs.has(tp):
        if not isinstance(value, Mapping):
            raise expected
        return structure(tp, value)
    if tp is bool:
        if not isinstance(value, bool):
            raise expected
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise expected
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise expected
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise expected
        return value
    raise ArgsError(f"unsupported argument type {tp!r}")


def unstructure(instance: Any) -> Any:
    """The inverse of :func:`structure`: kebab-case dicts, lists for tuples, None fields omitted."""
    if attrs.has(type(instance)):
        out: dict[str, Any] = {}
        for field in attrs.fields(type(instance)):
            value = getattr(instance, field.name)
            if value is not None:
                out[kebab(field.name)] = unstructure(value)
        return out
    if isinstance(instance, (list, tuple)):
        return [unstructure(v) for v in instance]
    if isinstance(instance, Mapping):
        return {str(k): unstructure(v) for k, v in instance.items()}
    return instance

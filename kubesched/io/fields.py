"""Typed readers for decoded YAML/JSON values that fail with the field path of the bad value."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

from kubesched.api.quantity import Quantity, QuantityError
from kubesched.errors import InputError

T = TypeVar("T")


def describe(value: object) -> str:
    """A short description of a value's type for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def fail(path: str, message: str) -> InputError:
    """An input error at ``path``."""
    return InputError(message, field=path)


def mapping(value: object, path: str) -> Mapping[str, Any]:
    """An object; null reads as empty."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail(path, f"expected an object, got {describe(value)}")
    return value


def sequence(value: object, path: str) -> list[Any]:
    """A list; null reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise fail(path, f"expected a list, got {describe(value)}")
    return value


def string(value: object, path: str, default: str = "") -> str:
    """A string; null reads as ``default``."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise fail(path, f"expected a string, got {describe(value)}")
    return value


def integer(value: object, path: str, default: int | None = None) -> int | None:
    """An integer; null reads as ``default``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(path, f"expected an integer, got {describe(value)}")
    return value


def boolean(value: object, path: str, default: bool = False) -> bool:
    """A boolean; null reads as ``default``."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise fail(path, f"expected a boolean, got {describe(value)}")
    return value


def one_of(value: object, path: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
    """A string from ``allowed`` (Kubernetes' "Unsupported value" check); null reads as ``default``."""
    if value is None:
        return default
    text = string(value, path)
    if text not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        raise fail(path, f'Unsupported value: "{text}": supported values: {choices}')
    return text


def string_map(value: object, path: str) -> dict[str, str]:
    """A map of strings to strings (labels, annotations, nodeSelector)."""
    result: dict[str, str] = {}
    for key, item in mapping(value, path).items():
        result[str(key)] = string(item, f"{path}.{key}")
    return result


def string_list(value: object, path: str) -> tuple[str, ...]:
    """A list of strings."""
    return tuple(string(item, f"{path}[{i}]") for i, item in enumerate(sequence(value, path)))


def quantity(value: object, path: str) -> Quantity:
    """A non-negative resource quantity."""
    try:
        parsed = Quantity.parse(value)
    except QuantityError as exc:
        raise fail(path, str(exc)) from None
    if parsed.amount < 0:
        raise fail(path, f'Invalid value: "{parsed.text}": must be greater than or equal to 0')
    return parsed


def resource_list(value: object, path: str) -> dict[str, Quantity]:
    """A ResourceList: resource name to quantity."""
    return {str(name): quantity(item, f"{path}.{name}") for name, item in mapping(value, path).items()}


def timestamp(value: object, path: str) -> datetime | None:
    """An RFC 3339 time, as a UTC-aware datetime; null reads as None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    text = string(value, path)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise fail(path, f'"{text}" is not an RFC 3339 time') from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def items(value: object, path: str, read: Callable[[Mapping[str, Any], str], T]) -> tuple[T, ...]:
    """Read every object of a list with ``read(obj, path_of_item)``."""
    out = []
    for i, item in enumerate(sequence(value, path)):
        item_path = f"{path}[{i}]"
        out.append(read(mapping(item, item_path), item_path))
    return tuple(out)

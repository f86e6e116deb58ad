"""Typed readers for decoded YAML/JSON values that report the field path of each bad value.

Inside :func:`collecting`, a reader that meets a bad value records the problem and returns a neutral
default, so one pass over an object finds every problem in it; outside, it raises at the first one.
Values shown in messages are quoted and escaped (:func:`quote`), so every message stays on one line.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta, timezone
from fractions import Fraction
from typing import Any, TypeGuard, TypeVar

from kubesched.api.meta import EMPTY_MAP, FrozenMap, LabelSelectorRequirement, OwnerReference
from kubesched.api.node import ContainerImage, Taint
from kubesched.api.pod import (
    ContainerPort,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodCondition,
    PreferredSchedulingTerm,
    Toleration,
)
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.errors import InputError
from kubesched.io.errors import InputErrorList
from kubesched.validation import MANIFEST, HugeInteger, Problems, fits_bits, is_integer, key_path, key_text

# escape and quote are re-exported for the decoders.
from kubesched.validation import escape as escape
from kubesched.validation import quote as quote

T = TypeVar("T")

_sink: ContextVar[Problems[InputError] | None] = ContextVar("kubesched_input_problems", default=None)


class collecting:  # noqa: N801 - used as a function: ``with collecting() as problems``
    """Record problems instead of raising them, for the duration of the block; yields them. A class rather than
    a generator context manager: every object decoded enters one, and a generator costs several times as much."""

    __slots__ = ("_problems", "_token")

    def __enter__(self) -> Problems[InputError]:
        self._problems = problems = Problems(InputError, _error_list)
        self._token = _sink.set(problems)
        return problems

    def __exit__(self, *exc_info: object) -> None:
        _sink.reset(self._token)


def _error_list(errors: list[InputError]) -> Exception:
    return InputErrorList(errors)


def is_collecting() -> bool:
    """Whether problems are being collected (inside :func:`collecting`) rather than raised."""
    return _sink.get() is not None


def report(path: str, message: str) -> None:
    """Record an input problem at ``path`` (raise it when not :func:`collecting`)."""
    error = InputError(message, field=path)
    sink = _sink.get()
    if sink is None:
        raise error
    sink.add(error)


def _wrong_type(value: object, path: str, expected: str) -> None:
    report(path, MANIFEST.wrong_type(value, expected))


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` is an object (a dict first: a raw value almost always is one, and checking it is cheaper
    than the abstract class's check)."""
    return value.__class__ is dict or isinstance(value, Mapping)


def mapping(value: object, path: str) -> Mapping[str, Any]:
    """An object; null (or a bad value, once reported) reads as empty."""
    if value.__class__ is dict:
        return value
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        _wrong_type(value, path, "an object")
        return {}
    return value


def sequence(value: object, path: str) -> list[Any]:
    """A list; null (or a bad value, once reported) reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        _wrong_type(value, path, "a list")
        return []
    return value


def string(value: object, path: str, default: str = "") -> str:
    """A string; null (or a bad value, once reported) reads as ``default``."""
    if value is None:
        return default
    if not isinstance(value, str):
        _wrong_type(value, path, "a string")
        return default
    return value


def integer(value: object, path: str, default: int | None = None, *, bits: int = 64) -> int | None:
    """A signed integer of ``bits`` bits; null (or a bad value, once reported) reads as ``default``."""
    if value is None:
        return default
    if not (is_integer(value) or isinstance(value, HugeInteger)):
        _wrong_type(value, path, "an integer")
        return default
    if isinstance(value, HugeInteger) or not fits_bits(value, bits):
        report(path, f"Invalid value: {MANIFEST.show(value)}: must be a {bits}-bit integer")
        return default
    return value


def boolean(value: object, path: str, default: bool = False) -> bool:
    """A boolean; null (or a bad value, once reported) reads as ``default``."""
    if value is None:
        return default
    if not isinstance(value, bool):
        _wrong_type(value, path, "a boolean")
        return default
    return value


def one_of(value: object, path: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
    """A string from ``allowed`` (Kubernetes' "Unsupported value" check); null reads as ``default``."""
    if value is None:
        return default
    if not isinstance(value, str):
        _wrong_type(value, path, "a string")
        return default
    if value not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        report(path, f"Unsupported value: {quote(value)}: supported values: {choices}")
        return default
    return value


def string_map(value: object, path: str) -> dict[str, str]:
    """A map of strings to strings (labels, annotations, nodeSelector)."""
    result: dict[str, str] = {}
    for key, item in mapping(value, path).items():
        # The usual case (a string key and value) builds no field path: one is needed only for a problem.
        text = key if key.__class__ is str else key_text(key)
        result[text] = item if item.__class__ is str else string(item, key_path(path, key))
    return result


def string_list(value: object, path: str) -> tuple[str, ...]:
    """A list of strings."""
    return tuple(string(item, f"{path}[{i}]") for i, item in enumerate(sequence(value, path)))


_ZERO = Quantity(Fraction(0), "0")


def quantity(value: object, path: str) -> Quantity:
    """A non-negative resource quantity (zero, once a bad value is reported)."""
    if isinstance(value, HugeInteger):
        value = value.text
    try:
        parsed = Quantity.parse(value)
    except QuantityError as exc:
        report(path, str(exc))
        return _ZERO
    if parsed.amount < 0:
        report(path, f"Invalid value: {quote(parsed.text)}: must be greater than or equal to 0")
        return _ZERO
    if value.__class__ is str:
        if len(_QUANTITIES) >= _SHARED_SIZE:
            _QUANTITIES.clear()
        _QUANTITIES[(str, value)] = parsed
    return parsed


def resource_list(value: object, path: str) -> dict[str, Quantity]:
    """A ResourceList: resource name to quantity."""
    result: dict[str, Quantity] = {}
    for name, item in mapping(value, path).items():
        text = name if name.__class__ is str else key_text(name)
        known = _QUANTITIES.get((item.__class__, item)) if item.__class__ is str else None
        # A quantity read before (and so valid) needs no field path: one is built only to report a problem.
        result[text] = known if known is not None else quantity(item, key_path(path, name))
    return result


#: Valid quantities by (type, text) of the last resource lists read; cleared when full.
_QUANTITIES: dict[tuple[type, object], Quantity] = {}


# RFC 3339 as Go's time.Parse(time.RFC3339, ...) reads it: a 4-digit year, "T", an optional fraction, "Z" or an offset.
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))",
                      re.ASCII)


def timestamp(value: object, path: str) -> datetime | None:
    """An RFC 3339 time (years 1 to 9999, any offset), as an aware datetime; null reads as None. A text read
    before gives the same (immutable) datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        known = _shared_times.get(value)
        if known is not None:
            return known
        parsed = _timestamp(value, path)
        if parsed is not None:
            if len(_shared_times) >= _SHARED_SIZE:
                _shared_times.clear()
            _shared_times[value] = parsed
        return parsed
    return _timestamp(value, path)


def _timestamp(value: object, path: str) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    text = string(value, path)
    if not isinstance(value, str):
        return None
    match = _RFC3339.fullmatch(text)
    if match is None:
        report(path, f'Invalid value: {quote(text)}: must be an RFC 3339 time such as "2024-01-31T12:00:00Z"')
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    problem = next((f"{unit} out of range" for unit, ok in (
        ("year", year >= 1), ("month", 1 <= month <= 12), ("day", 1 <= day <= _days_in(year, month)),
        ("hour", hour <= 23), ("minute", minute <= 59), ("second", second <= 59),
        ("time zone offset hour", not match.group(9) or int(match.group(10)) <= 23),
        ("time zone offset minute", not match.group(9) or int(match.group(11)) <= 59)) if not ok), None)
    if problem:
        report(path, f"Invalid value: {quote(text)}: {problem}")
        return None
    zone: timezone = UTC
    if match.group(9):
        offset = timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        zone = timezone(-offset if match.group(9) == "-" else offset)
    micro = int(((match.group(7) or "") + "000000")[:6])
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=zone)


def _days_in(year: int, month: int) -> int:
    if not 1 <= month <= 12:
        return 31
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def items(value: object, path: str, read: Callable[[Mapping[str, Any], str], T]) -> tuple[T, ...]:
    """Read every object of a list with ``read(obj, path_of_item)``; a non-object item is reported and skipped.
    Small objects equal to ones read before are those (see :func:`shared`)."""
    if value is None:
        return ()
    out = []
    for i, item in enumerate(sequence(value, path)):
        item_path = f"{path}[{i}]"
        if item.__class__ is not dict and not isinstance(item, Mapping):
            _wrong_type(item, item_path, "an object")
            continue
        out.append(shared(read(item, item_path)))
    return shared(tuple(out))


# -- sharing: API objects are immutable, so equal ones are interchangeable, and a cluster repeats many (the same
# tolerations, ports, owners, labels and requests in every pod of a workload). Decoders hand back the object read
# before when an equal one was; memory then grows with the distinct objects, not with the pods.

#: The kinds shared whole: hashable, and equal only when every field is (no Quantity, whose equality ignores its
#: text).
_SHAREABLE = frozenset({Toleration, ContainerPort, PodCondition, OwnerReference, Taint, ContainerImage,
                        LabelSelectorRequirement, NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm})
_SHARED_SIZE = 1 << 16
_shared_objects: dict[object, object] = {}
_shared_maps: dict[tuple[object, ...], Mapping[str, Any]] = {}
_shared_times: dict[str, datetime] = {}


def shared(value: T) -> T:
    """``value``, or the equal object of a shareable kind (or tuple of them) decoded before."""
    kind = value.__class__
    if kind is tuple:
        if not value or not all(v.__class__ in _SHAREABLE or v.__class__ is str for v in value):  # type: ignore[attr-defined]
            return value
    elif kind not in _SHAREABLE:
        return value
    found = _shared_objects.get(value)
    if found is not None:
        return found  # type: ignore[return-value]
    if len(_shared_objects) >= _SHARED_SIZE:
        _shared_objects.clear()
    _shared_objects[value] = value
    return value


_remembered: dict[tuple[object, ...], tuple[Any, tuple[InputError, ...]]] = {}
_REMEMBERED_SIZE = 4096


def _frozen(value: object) -> bytes:
    """A hashable form of a decoded YAML/JSON value, equal only for values of the same types and contents: its
    pickle (1, 1.0 and true differ there, as in YAML; a HugeInteger or FloatText keeps its class and text).
    Pickling runs in C, several times faster than a tuple built in Python for each collection."""
    return pickle.dumps(value, protocol=5)


def remembered(read: Callable[[Any, str], T], key: Callable[[Any], object] | None = None) -> Callable[[Any, str], T]:
    """``read(value, path)``, decoded once per distinct value and path: the object and the problems reported
    are those of the first time (objects are immutable; a workload's pods repeat their containers, tolerations
    and affinities). ``read`` must depend on nothing else; with ``key``, on nothing but what ``key(value)`` holds
    (the fields it reads: values alike in those are one decoding, and only ``key(value)`` is pickled). Null is
    read afresh: it costs less than its key."""

    def remembering(value: Any, path: str) -> T:
        sink = _sink.get()
        if sink is None or value is None:
            return read(value, path)  # raising at the first problem (nothing to replay), or nothing to read
        known_key = (read, path, _frozen(value if key is None else key(value)))
        known = _remembered.get(known_key)
        if known is None:
            with collecting() as problems:
                result = read(value, path)
            if len(_remembered) >= _REMEMBERED_SIZE:
                _remembered.clear()
            known = _remembered[known_key] = (result, tuple(problems))
        for problem in known[1]:
            sink.add(problem)
        return known[0]

    remembering.__doc__ = read.__doc__
    return remembering


def remembered_items(read: Callable[[Mapping[str, Any], str], T]) -> Callable[[object, str], tuple[T, ...]]:
    """:func:`items` of ``read``, the whole list decoded once per distinct list and path: one key for a pod's
    owner references or conditions instead of one per item (``read`` must depend on nothing but its item)."""

    def read_items(value: object, path: str) -> tuple[T, ...]:
        return items(value, path, read)

    read_items.__doc__ = read.__doc__
    return remembered(read_items)


def shared_map(value: Mapping[str, str]) -> Mapping[str, str]:
    """A read-only copy of a string map (labels, annotations, selectors), the one made before for equal maps."""
    if not value:
        return EMPTY_MAP
    key = tuple(value.items())
    found = _shared_maps.get(key)
    if found is None:
        if len(_shared_maps) >= _SHARED_SIZE:
            _shared_maps.clear()
        found = _shared_maps[key] = FrozenMap(value)
    return found


def shared_resources(value: Mapping[str, Quantity]) -> Mapping[str, Quantity]:
    """A read-only copy of a resource list, the one made before for lists of the same names, amounts and texts."""
    if not value:
        return EMPTY_MAP  # type: ignore[return-value]  # empty, so any value type
    key = (Quantity, *((name, q.amount, q.text) for name, q in value.items()))
    found = _shared_maps.get(key)
    if found is None:
        if len(_shared_maps) >= _SHARED_SIZE:
            _shared_maps.clear()
        found = _shared_maps[key] = FrozenMap(value)
    return found

"""Structural snapshots and aliasing checks over arbitrary plugin data, for the conformance checks.

:func:`freeze` turns a value (a pod, a NodeInfo, a plugin's state) into nested tuples that compare equal
exactly when the structures hold equal data, so "did this hook change its input" is one comparison.
:func:`shared_mutables` finds mutable containers that a clone shares with its original.
"""

from __future__ import annotations

import array
import collections
import datetime
import decimal
import enum
import fractions
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import numpy as np

_SCALARS = (str, bytes, int, float, complex, bool, type(None), enum.Enum, datetime.date, datetime.time,
            datetime.timedelta, decimal.Decimal, fractions.Fraction)
_MUTABLE = (list, dict, set, bytearray, collections.deque, array.array)
SEQUENCES = (list, tuple, collections.deque, array.array, bytearray)
#: Modules whose objects are services, never plugin data (loggers, locks, weak references, generators).
_SERVICE_MODULES = frozenset({"logging", "threading", "_thread", "weakref", "random", "queue", "asyncio"})
#: Objects that are services, not data: a plugin's handle or the framework it holds.
OPAQUE_NAMES = frozenset({"Framework", "PluginFramework", "Handle", "RuntimeHandle", "InMemoryCluster", "Scheduler",
                           "Random", "VirtualClock", "Nominator", "Snapshot", "NodeSnapshot", "module", "function",
                           "method", "builtin_function_or_method"})
MAX_DEPTH = 40
#: What may answer for a value :func:`freeze` should not look inside: a stand-in, or None to look inside.
StandIn = Callable[[Any], Any]


def data_fields(value: Any) -> Iterator[tuple[str, Any]]:
    """An object's data fields: attrs fields, else ``__slots__`` and ``__dict__`` entries."""
    cls = type(value)
    if attrs.has(cls):
        for field in attrs.fields(cls):
            yield field.name, getattr(value, field.name, None)
        return
    for klass in cls.__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if hasattr(value, slot) and slot != "__weakref__":
                yield slot, getattr(value, slot)
    yield from getattr(value, "__dict__", {}).items()


def freeze(value: Any, *, opaque: frozenset[str] = OPAQUE_NAMES, stand_in: StandIn | None = None) -> Any:
    """A comparable snapshot of ``value``'s data (services such as handles are reduced to their type name);
    ``stand_in`` may answer for a value not to look inside (None for the others)."""
    return _freeze(value, opaque, stand_in, set(), 0)


def _freeze(value: Any, opaque: frozenset[str], stand_in: StandIn | None, active: set[int], depth: int) -> Any:
    if isinstance(value, _SCALARS):
        return value
    name = type(value).__name__
    if name in opaque or _in_service_module(value) or (
            callable(value) and not attrs.has(type(value)) and not hasattr(value, "__dict__")):
        return ("<opaque>", name)
    if stand_in is not None and (kept := stand_in(value)) is not None:
        return kept
    if isinstance(value, np.ndarray):
        return (name, (value.dtype.str, value.shape, value.tobytes()))
    if depth > MAX_DEPTH or id(value) in active:
        return ("<cycle>", name)
    active.add(id(value))
    try:
        if isinstance(value, Mapping):
            items = [(_freeze(k, opaque, stand_in, active, depth + 1), _freeze(v, opaque, stand_in, active, depth + 1))
                     for k, v in value.items()]
            return (name, tuple(sorted(items, key=repr)))
        if isinstance(value, SEQUENCES):
            return (name, tuple(_freeze(v, opaque, stand_in, active, depth + 1) for v in value))
        if isinstance(value, (set, frozenset)):
            return (name, tuple(sorted((_freeze(v, opaque, stand_in, active, depth + 1) for v in value), key=repr)))
        return (name, tuple((k, _freeze(v, opaque, stand_in, active, depth + 1)) for k, v in data_fields(value)))
    finally:
        active.discard(id(value))


def shared_by_design(value: Any) -> bool:
    """Data the scheduler shares read-only between plugins and cycles (API objects, PodInfo, NodeInfo), and
    classes that say ``shared_across_clones = True`` (memo caches): state may reference them."""
    from kubesched.framework._node_info import NodeInfo, PodInfo

    cls = type(value)
    return (cls.__module__.startswith("kubesched.api.") or isinstance(value, (PodInfo, NodeInfo))
            or getattr(cls, "shared_across_clones", False) is True)


def _in_service_module(value: Any) -> bool:
    return type(value).__module__.split(".")[0] in _SERVICE_MODULES


def _is_service(value: Any) -> bool:
    return type(value).__name__ in OPAQUE_NAMES or _in_service_module(value)


def reachable_ids(*roots: Any) -> frozenset[int]:
    """The ids of the mutable containers reachable from ``roots`` (the pod and snapshot a hook received):
    state may hold these, since inputs are read-only by contract."""
    found: set[int] = set()
    stack: list[tuple[Any, int]] = [(root, 0) for root in roots]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, _SCALARS) or id(value) in found or depth > MAX_DEPTH or _is_service(value):
            continue
        found.add(id(value))
        if isinstance(value, Mapping):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, (*SEQUENCES, set, frozenset)):
            stack.extend((v, depth + 1) for v in value)
        else:
            stack.extend((v, depth + 1) for _k, v in data_fields(value))
    return frozenset(found)


def _is_mutable(value: Any) -> bool:
    if isinstance(value, _MUTABLE):
        return True
    cls = type(value)
    if attrs.has(cls):
        return not _is_frozen_attrs(cls) and bool(attrs.fields(cls))
    return hasattr(value, "__dict__") and not isinstance(value, type)


def _is_frozen_attrs(cls: type) -> bool:
    """Whether an attrs class is frozen: attrs gives it its own __setattr__ that always raises."""
    try:
        from attr._make import _frozen_setattrs
    except ImportError:  # pragma: no cover - a future attrs; fall back to "mutable", the safe answer
        return False
    return getattr(cls, "__setattr__", None) is _frozen_setattrs


def shared_mutables(original: Any, clone: Any, path: str = "state", *, exempt: frozenset[int] = frozenset()) \
        -> list[str]:
    """Paths of mutable objects (lists, dicts, sets, non-frozen objects) that ``clone`` shares with
    ``original`` by identity: writing through the clone there would change the original. Objects whose id is
    in ``exempt`` (inputs, read-only by contract) and data shared by design do not count."""
    found: list[str] = []
    _walk_shared(original, clone, path, found, set(exempt), 0)
    return found


def _walk_shared(original: Any, clone: Any, path: str, found: list[str], seen: set[int], depth: int) -> None:
    if isinstance(original, _SCALARS) or depth > MAX_DEPTH or id(original) in seen:
        return
    if _is_service(original) or shared_by_design(original):
        return
    seen.add(id(original))
    if original is clone and _is_mutable(original):
        found.append(path)
        return
    # An immutable object shared by both may still hold mutable objects, which are then shared too.
    if isinstance(original, Mapping) and isinstance(clone, Mapping):
        for key, value in original.items():
            if key in clone:
                _walk_shared(value, clone[key], f"{path}[{key!r}]", found, seen, depth + 1)
    elif isinstance(original, SEQUENCES) and isinstance(clone, SEQUENCES):
        for i, (a, b) in enumerate(zip(original, clone, strict=False)):
            _walk_shared(a, b, f"{path}[{i}]", found, seen, depth + 1)
    elif isinstance(original, (set, frozenset)):
        return  # set members are hashable, hence immutable enough to share
    elif type(original) is type(clone):
        clone_fields = dict(data_fields(clone))
        for key, value in data_fields(original):
            if key in clone_fields:
                _walk_shared(value, clone_fields[key], f"{path}.{key}", found, seen, depth + 1)


def deeply_immutable(value: Any, *, exempt: frozenset[int] = frozenset()) -> bool:
    """Whether nothing reachable from ``value`` can be changed in place (scalars, tuples, frozen attrs...),
    leaving out objects whose id is in ``exempt`` and data shared by design."""
    return not _first_mutable(value, set(exempt), 0)


def _first_mutable(value: Any, seen: set[int], depth: int) -> bool:
    if isinstance(value, _SCALARS) or depth > MAX_DEPTH or id(value) in seen or shared_by_design(value) \
            or _is_service(value):
        return False
    seen.add(id(value))
    if _is_mutable(value):
        return True
    if isinstance(value, Mapping):
        return any(_first_mutable(v, seen, depth + 1) for v in value.values())
    if isinstance(value, (tuple, frozenset)):
        return any(_first_mutable(v, seen, depth + 1) for v in value)
    return any(_first_mutable(v, seen, depth + 1) for _k, v in data_fields(value))

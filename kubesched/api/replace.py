"""Copies of the API's frozen objects with some fields changed, without running any converter again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

import attrs

_T = TypeVar("_T")
_FIELD_NAMES: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}
# Per (class, changed field names): a function building the copy with one slot store per field, no loop.
_REPLACERS: dict[tuple[type, frozenset[str]], Callable[[object, Mapping[str, object]], object]] = {}


def replaced(obj: _T, **changes: object) -> _T:
    """``attrs.evolve`` for the API's frozen slotted classes, without re-running the converters of the fields kept
    (they hold converted values already): binding replaces a pod twice per placement and loading once per pod, so
    this is on hot paths. Changed fields must be given in converted form."""
    kind = type(obj)
    replacer = _REPLACERS.get((kind, frozenset(changes)))
    if replacer is None:
        replacer = _replacer(kind, frozenset(changes))
    return replacer(obj, changes)  # type: ignore[return-value]


def _replacer(kind: type, changed: frozenset[str]) -> Callable[[object, Mapping[str, object]], object]:
    """The copy function of ``kind`` for ``changed`` fields (kept in :data:`_REPLACERS`): a generated function
    storing each slot directly, as attrs generates its own methods, three times faster than a loop over fields."""
    known = _FIELD_NAMES.get(kind)
    if known is None:
        fields = tuple(field.name for field in attrs.fields(kind))
        known = _FIELD_NAMES[kind] = (fields, frozenset(fields))
    names, name_set = known
    if not name_set.issuperset(changed):
        raise TypeError(f"{kind.__name__} has no field(s) {sorted(changed - name_set)}")
    namespace: dict[str, object] = {"_new": object.__new__, "_kind": kind}
    lines = ["def replace(obj, changes):", "    copy = _new(_kind)"]
    for i, name in enumerate(names):
        namespace[f"_set{i}"] = getattr(kind, name).__set__  # the slot's descriptor (frozen: no __setattr__)
        value = f"changes[{name!r}]" if name in changed else f"obj.{name}"
        lines.append(f"    _set{i}(copy, {value})")
    lines.append("    return copy")
    exec("\n".join(lines), namespace)  # field names come from attrs.fields, never from input
    replacer: Callable[[object, Mapping[str, object]], object] = namespace["replace"]  # type: ignore[assignment]
    _REPLACERS[(kind, changed)] = replacer
    return replacer

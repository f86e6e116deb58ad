"""What a hook changed in a CycleState: a fingerprint of the state taken before the call, and the first
difference from it, in words (``PopsTolerations went from 2 items to 1``).

Data shared by design (API objects, PodInfos, NodeInfos, memo caches marked ``shared_across_clones``) is
compared by identity only: what is inside is no-input-mutation's concern, and a memo may fill itself. The
snapshot's columns are caches too, left opaque.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.testing.conformance.inspect import OPAQUE_NAMES, SEQUENCES, data_fields, freeze, shared_by_design

_OPAQUE = OPAQUE_NAMES | {"NodeColumns"}
_SKIP_SETS = ("skip_filter_plugins", "skip_score_plugins")

#: Each value of a CycleState frozen, by its key, and its two skip sets by their names.
Fingerprint = dict[object, Any]


class Same:
    """Stands in for shared data in a fingerprint: equal to another Same of the very same object."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value  # held, so no later object can take its id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__}>"


def _print(value: Any) -> Any:
    return freeze(value, opaque=_OPAQUE, stand_in=lambda v: Same(v) if shared_by_design(v) else None)


def fingerprint(state: CycleState) -> Fingerprint:
    """The state as it is now, to compare with later."""
    prints: Fingerprint = {key: _print(value) for key, value in state.items()}
    for name in _SKIP_SETS:
        prints[name] = frozenset(getattr(state, name))
    return prints


class StateWatch:
    """Tells what changed in a CycleState since the last look. A value PreFilter left None (a form built when
    first needed, such as a dictionary made from arrays) may be filled in once; from then on it is watched."""

    def __init__(self, state: CycleState) -> None:
        self.prints = fingerprint(state)

    def change(self, state: CycleState) -> str | None:
        """The first change since the last look, in words; None when there is none (nothing, or only fills)."""
        now = fingerprint(state)
        if now == self.prints:
            return None
        change = _state_difference(self.prints, now, dict(state.items()))
        if change is None:
            self.prints = now
        return change


def _state_difference(before: Fingerprint, after: Fingerprint, values: dict[StateKey[Any], Any]) -> str | None:
    for key in before:
        if isinstance(key, StateKey) and key not in after:
            return f"{key.name} was deleted"
    for key, value in values.items():
        if key not in before:
            return f"{key.name} was written"
        change = _difference(before[key], after[key], value, key.name)
        if change is not None:
            return change
    for name in _SKIP_SETS:
        if after[name] != before[name]:
            return f"{name} went from {sorted(before[name])} to {sorted(after[name])}"
    return None


def _composite(frozen: Any) -> bool:
    """Whether a frozen value is a container or an object: ``(type name, parts)``."""
    return isinstance(frozen, tuple) and len(frozen) == 2 and isinstance(frozen[1], tuple)


def _show(frozen: Any) -> str:
    if isinstance(frozen, Same):
        return f"a {type(frozen.value).__name__}"
    if isinstance(frozen, tuple):
        return f"a {frozen[-1] if frozen[0] == '<opaque>' else frozen[0]}"
    return repr(frozen)


def _items(count: int) -> str:
    return f"{count} item" + ("" if count == 1 else "s")


def _difference(before: Any, after: Any, value: Any, path: str) -> str | None:
    """Where ``value`` (frozen: ``after``) differs from ``before``: the innermost path and how; None when it
    does not, or only where ``before`` was None."""
    if after == before or before is None:
        return None
    if isinstance(before, Same) and isinstance(after, Same):
        return f"{path} now holds another {type(value).__name__}"
    if not (_composite(before) and _composite(after) and before[0] == after[0]):
        return f"{path} went from {_show(before)} to {_show(after)}"
    old, new = before[1], after[1]
    if isinstance(value, np.ndarray):
        return _array_difference(old, value, path)
    if isinstance(value, Mapping):
        return _mapping_difference(dict(old), dict(new), value, path)
    if isinstance(value, (*SEQUENCES, set, frozenset)) and len(old) != len(new):
        return f"{path} went from {_items(len(old))} to {len(new)}"
    if isinstance(value, SEQUENCES):
        for i, (was, now, live) in enumerate(zip(old, new, value, strict=True)):
            if (change := _difference(was, now, live, f"{path}[{i}]")) is not None:
                return change
        return None
    if isinstance(value, (set, frozenset)):
        return f"{path} holds other items"
    fields, now_fields, live_fields = dict(old), dict(new), dict(data_fields(value))
    for name in fields:
        if name not in now_fields:
            return f"{path}.{name} was deleted"
    for name, now in now_fields.items():
        if name not in fields:
            return f"{path}.{name} was added"
        if (change := _difference(fields[name], now, live_fields[name], f"{path}.{name}")) is not None:
            return change
    return None


def _mapping_difference(old: dict[Any, Any], new: dict[Any, Any], value: Mapping[Any, Any], path: str) -> str | None:
    keys = {_print(k): k for k in value}
    for key in old:
        if key not in new:
            return f"{path}[{_show(key)}] was deleted"
    for key, now in new.items():
        if key not in old:
            return f"{path}[{_show(key)}] was added"
        if (change := _difference(old[key], now, value[keys[key]], f"{path}[{_show(key)}]")) is not None:
            return change
    return None


def _array_difference(old: tuple[str, tuple[int, ...], bytes], value: np.ndarray[Any, Any], path: str) -> str:
    dtype, shape, data = old
    if dtype != value.dtype.str or shape != value.shape:
        return f"{path} went from an array of {np.dtype(dtype)} {shape} to one of {value.dtype} {value.shape}"
    was = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)
    differing = np.argwhere(was != value)
    if not len(differing):  # only the bits of a NaN changed
        return f"{path} changed"
    where = tuple(int(i) for i in differing[0])
    index = f"[{', '.join(map(str, where))}]" if where else ""
    return f"{path}{index} went from {was[where].item()!r} to {value[where].item()!r}"

"""Plugins that change the pod they are handed: the scheduler records every field of the pod's frozen objects
before its scheduling cycle (one walk), and checks them after the cycle, and, with ``check_plugin_inputs``
(``--strict``), after every plugin call, so that the plugin is named. A changed field is put back and the attempt
fails: no decision rests on a changed pod."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

import attrs

Hook = Callable[..., Any]
_Getter = Callable[[Any], tuple[Any, ...]]
#: How a value's class is walked: not looked inside, a tuple's items, a map's values, or an attrs class's fields
#: (their names and a getter of their values as a tuple); worked out once per class.
_LEAF, _ITEMS, _VALUES = 0, 1, 2
_KINDS: dict[type, int | tuple[tuple[str, ...], _Getter]] = {
    str: _LEAF, int: _LEAF, float: _LEAF, bool: _LEAF, type(None): _LEAF, bytes: _LEAF, tuple: _ITEMS}


class PluginChangedInput(BaseException):  # not an Exception: the plugin's own catch cannot eat it
    """Raised after a plugin call that changed the pod it was handed (the change is undone first)."""


def _kind(cls: type) -> int | tuple[tuple[str, ...], _Getter]:
    kind: int | tuple[tuple[str, ...], _Getter] = _LEAF
    if issubclass(cls, Mapping):
        kind = _VALUES
    elif attrs.has(cls) and (names := tuple(f.name for f in attrs.fields(cls))):
        many = attrgetter(*names)
        kind = (names, many if len(names) > 1 else (lambda obj: (many(obj),)))
    _KINDS[cls] = kind
    return kind


class Snapshot:
    """Every field value of every attrs object reachable from a pod (through fields, tuples and maps), as found."""

    __slots__ = ("_records",)

    def __init__(self, root: object) -> None:
        records: list[tuple[object, tuple[str, ...], _Getter, tuple[Any, ...]]] = []
        seen: set[int] = set()
        stack: list[Any] = [root]
        kinds = _KINDS
        while stack:
            value = stack.pop()
            kind = kinds.get(type(value))
            if kind is None:
                kind = _kind(type(value))
            if kind == _LEAF:
                continue
            if kind == _ITEMS:
                stack.extend(value)
            elif kind == _VALUES:
                stack.extend(value.values())
            elif id(value) not in seen:
                seen.add(id(value))
                names, getter = kind  # type: ignore[misc]  # the attrs case
                values = getter(value)
                records.append((value, names, getter, values))
                stack.extend(values)
        self._records = records

    def changed(self) -> str | None:
        """The first field found changed (``Container.requests``), or None when every field is as it was."""
        for obj, names, getter, values in self._records:
            now = getter(obj)
            if now != values:
                name = next(n for n, a, b in zip(names, now, values, strict=True) if a is not b and a != b)
                return f"{type(obj).__name__}.{name}"
        return None

    def restore(self) -> None:
        """Put every field back as it was found."""
        for obj, names, getter, values in self._records:
            if getter(obj) != values:
                for name, value in zip(names, values, strict=True):
                    object.__setattr__(obj, name, value)


class InputWatch:
    """The snapshot of the pod in its scheduling cycle, which checked plugin calls compare against."""

    __slots__ = ("snapshot",)

    def __init__(self) -> None:
        self.snapshot: Snapshot | None = None

    def check(self) -> str | None:
        """The field a plugin changed since the cycle began, put back; None when nothing changed."""
        snapshot = self.snapshot
        if snapshot is None or (changed := snapshot.changed()) is None:
            return None
        snapshot.restore()
        return changed

    def checked(self, function: Hook) -> Hook:
        """``function``, followed by the check: a change raises PluginChangedInput, so the guard reports it as
        that plugin's error for that pod."""
        def checked_call(*args: Any) -> Any:
            result = function(*args)
            if (changed := self.check()) is not None:
                raise PluginChangedInput(f"changed the pod it was given ({changed}); the change was undone")
            return result

        return checked_call

"""CycleState: per-attempt storage that plugins share across extension points, keyed by typed keys."""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar, cast, runtime_checkable

import attrs

T = TypeVar("T")


class StateKey(Generic[T]):
    """A typed key into :class:`CycleState`. Keys compare by identity, so two plugins never collide.

    Create one per plugin at module level: ``FIT_STATE = StateKey[FitState]("NodeResourcesFit")``.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


@runtime_checkable
class Cloneable(Protocol):
    """State that a PreFilter extension mutates must implement ``clone`` returning a deep copy."""

    def clone(self) -> Any:
        """Return an independent copy."""


class StateNotFoundError(KeyError):
    """Raised by :meth:`CycleState.read` for a key that was never written (kube's ErrNotFound).

    A hook that cannot return a Status (a batch form, Score) raises it with kube-scheduler's wrapped message
    (``reading "PreFilterX" from cycleState: not found``): the runtime reports that message alone, as the Error
    status the per-node hook returns."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@attrs.define(slots=True, eq=False)
class CycleState:
    """Data for one scheduling attempt of one pod.

    ``clone`` copies the map and calls ``clone()`` on every value that has one, so a preemption dry run can
    add and remove pods on a branch without touching the original; values without ``clone`` are shared.
    """

    _data: dict[StateKey[Any], Any] = attrs.field(factory=dict)
    #: Plugins whose PreFilter returned Skip: their Filter and PreFilter extensions do not run.
    skip_filter_plugins: set[str] = attrs.field(factory=set)
    #: Plugins whose PreScore returned Skip: their Score does not run.
    skip_score_plugins: set[str] = attrs.field(factory=set)

    def read(self, key: StateKey[T]) -> T:
        """The value stored under ``key``; raises :class:`StateNotFoundError` if there is none."""
        try:
            return cast("T", self._data[key])
        except KeyError:
            raise StateNotFoundError(f"{key.name}: not found") from None

    def get(self, key: StateKey[T]) -> T | None:
        """The value under ``key``, or None."""
        return self._data.get(key)

    def write(self, key: StateKey[T], value: T) -> None:
        """Store ``value`` under ``key``, replacing any previous value."""
        self._data[key] = value

    def delete(self, key: StateKey[Any]) -> None:
        """Remove ``key`` if present."""
        self._data.pop(key, None)

    def items(self) -> list[tuple[StateKey[Any], Any]]:
        """Every (key, value) written so far, in write order (for conformance checks and debugging)."""
        return list(self._data.items())

    def __contains__(self, key: StateKey[Any]) -> bool:
        return key in self._data

    def clone(self) -> CycleState:
        """A branch of this state: cloneable values are deep-copied, skip sets are shared (as in Go)."""
        data = {k: (v.clone() if _cloneable(type(v)) else v) for k, v in self._data.items()}
        return CycleState(data, self.skip_filter_plugins, self.skip_score_plugins)


# Per type, whether its values are Cloneable: a runtime Protocol check is slow, and dry runs clone states often.
_CLONEABLE_TYPES: dict[type, bool] = {}


def _cloneable(kind: type) -> bool:
    known = _CLONEABLE_TYPES.get(kind)
    if known is None:
        known = _CLONEABLE_TYPES[kind] = callable(getattr(kind, "clone", None))
    return known

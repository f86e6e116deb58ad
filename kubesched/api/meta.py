"""Object metadata and label selectors shared by every kind."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, NoReturn, TypeVar

import attrs


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    """What every writing method of an API object's map does: refuse, with the way to make a changed copy."""
    raise TypeError("this map of an API object is read-only: API objects are immutable (use attrs.evolve to make "
                    "a changed copy)")


class _EmptyMap(Mapping[str, str]):
    """An empty mapping that cannot be changed, shared as the default of every map field: a plain ``{}``
    shared by all objects would let one careless write show up in every pod."""

    __slots__ = ()

    # The same refusal as FrozenMap's, so an empty map and a full one fail a write alike.
    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __getitem__(self, key: str) -> NoReturn:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    # Direct answers instead of Mapping's generic ones: label lookups on the hot path hit this map often.
    def __contains__(self, key: object) -> bool:
        return False

    def get(self, key: str, default: Any = None) -> Any:
        return default

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and not other

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __copy__(self) -> _EmptyMap:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _EmptyMap:
        return self

    def __reduce__(self) -> str:
        return "EMPTY_MAP"


EMPTY_MAP: Mapping[str, str] = _EmptyMap()

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(dict[K, V]):
    """A read-only dict: the map fields of API objects (labels, selectors, resource lists) hold one.

    A dict subclass so that reads run at dict speed (the hot path reads labels constantly) and JSON, repr and
    equality stay those of a dict; every method that would change it raises TypeError. Unhashable, like dict.
    """

    __slots__ = ()

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __copy__(self) -> FrozenMap[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap[K, V]:
        return self  # the keys and values of API maps are immutable too

    def __reduce__(self) -> tuple[type[FrozenMap[K, V]], tuple[dict[K, V]]]:
        return type(self), (dict(self),)


def frozen_map(value: Mapping[K, V]) -> Mapping[K, V]:
    """The read-only map a map field stores: the value itself when already read-only, else a copy (EMPTY_MAP
    when empty). Objects are thus frozen once, when built or evolved, never when read."""
    if type(value) is FrozenMap or value is EMPTY_MAP:
        return value
    if not value:
        return EMPTY_MAP  # type: ignore[return-value]
    return FrozenMap(value)


def frozen_tuple(value: Iterable[V]) -> tuple[V, ...]:
    """The tuple a list field stores: the value itself when already a tuple."""
    return value if type(value) is tuple else tuple(value)


# The attrs converters of the fields: mypy's attrs plugin types __init__ from a converter's parameter and
# supports only named, non-generic functions, hence one small converter per element type.
def frozen_str_map(value: Mapping[str, str]) -> Mapping[str, str]:
    """Converter of string maps (labels, annotations, selectors)."""
    return frozen_map(value)


def frozen_strs(value: Iterable[str]) -> tuple[str, ...]:
    """Converter of string lists; a lone string is refused rather than split into characters."""
    if isinstance(value, str):
        raise TypeError(f"expected a list of strings, got the string {value!r}")
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class OwnerReference:
    """A reference to the controller or owner of an object."""

    api_version: str
    kind: str
    name: str
    uid: str = ""
    controller: bool = False


def _owner_references(value: Iterable[OwnerReference]) -> tuple[OwnerReference, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class ObjectMeta:
    """The metadata the scheduler reads: identity, labels, annotations, timestamps and owners."""

    name: str
    namespace: str = ""
    uid: str = ""
    labels: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    annotations: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_owner_references)


@attrs.frozen(slots=True)
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry: In, NotIn, Exists or DoesNotExist."""

    key: str
    operator: str
    values: tuple[str, ...] = attrs.field(default=(), converter=frozen_strs)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether the labels satisfy this requirement (apimachinery semantics)."""
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        return False


def _requirements(value: Iterable[LabelSelectorRequirement]) -> tuple[LabelSelectorRequirement, ...]:
    return frozen_tuple(value)


@attrs.frozen(slots=True)
class LabelSelector:
    """A metav1.LabelSelector: ``matchLabels`` and ``matchExpressions``, ANDed."""

    match_labels: Mapping[str, str] = attrs.field(default=EMPTY_MAP, converter=frozen_str_map)
    match_expressions: tuple[LabelSelectorRequirement, ...] = attrs.field(default=(), converter=_requirements)

    def is_empty(self) -> bool:
        """An empty selector has neither labels nor expressions."""
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether the labels match; an empty selector matches everything (metav1 semantics)."""
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        return all(req.matches(labels) for req in self.match_expressions)

"""Object metadata and label selectors shared by every kind."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, NoReturn

import attrs


class _EmptyMap(Mapping[str, str]):
    """An empty mapping that cannot be changed, shared as the default of every map field: a plain ``{}``
    shared by all objects would let one careless write show up in every pod."""

    __slots__ = ()

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


@attrs.frozen(slots=True)
class OwnerReference:
    """A reference to the controller or owner of an object."""

    api_version: str
    kind: str
    name: str
    uid: str = ""
    controller: bool = False


@attrs.frozen(slots=True)
class ObjectMeta:
    """The metadata the scheduler reads: identity, labels, annotations, timestamps and owners."""

    name: str
    namespace: str = ""
    uid: str = ""
    labels: Mapping[str, str] = EMPTY_MAP
    annotations: Mapping[str, str] = EMPTY_MAP
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    owner_references: tuple[OwnerReference, ...] = ()


@attrs.frozen(slots=True)
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry: In, NotIn, Exists or DoesNotExist."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

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


@attrs.frozen(slots=True)
class LabelSelector:
    """A metav1.LabelSelector: ``matchLabels`` and ``matchExpressions``, ANDed."""

    match_labels: Mapping[str, str] = EMPTY_MAP
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        """An empty selector has neither labels nor expressions."""
        return not self.match_labels and not self.match_expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether the labels match; an empty selector matches everything (metav1 semantics)."""
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        return all(req.matches(labels) for req in self.match_expressions)

"""The structural helpers behind the conformance checks: freeze, shared_mutables, deeply_immutable."""

from __future__ import annotations

import attrs
import numpy as np
import pytest

from kubesched.testing import make_pod
from kubesched.testing.conformance.inspect import deeply_immutable, freeze, shared_mutables


@attrs.frozen
class Frozen:
    counts: tuple[int, ...]


@attrs.define
class Mutable:
    counts: dict[str, int]


@pytest.mark.parametrize(("value", "immutable"), [
    pytest.param((1, "a", None), True, id="tuple-of-scalars"),
    pytest.param(Frozen((1, 2)), True, id="frozen-attrs"),
    pytest.param(Mutable({}), False, id="attrs-define"),
    pytest.param((1, [2]), False, id="tuple-holding-a-list"),
    pytest.param(Frozen((1, [2])), False, id="frozen-attrs-holding-a-list"),  # type: ignore[arg-type]
    pytest.param(frozenset({1, 2}), True, id="frozenset"),
])
def test_deeply_immutable(value: object, immutable: bool) -> None:
    """Nothing reachable can change in place only for scalars, tuples, frozensets and frozen attrs of those."""
    assert deeply_immutable(value) is immutable


def test_shared_mutables_names_the_shared_path() -> None:
    """A shallow copy shares its inner dict; a deep copy shares nothing."""
    original = Mutable({"n1": 1})
    assert shared_mutables(original, Mutable(original.counts), "state") == ["state.counts"]
    assert shared_mutables(original, Mutable(dict(original.counts)), "state") == []


def test_freeze_sees_a_change_deep_inside_a_pod() -> None:
    """Two snapshots of a pod differ once a nested label changes, and agree otherwise."""
    pod = make_pod("p").label(app="web").obj()
    before = freeze(pod)
    assert freeze(pod) == before
    object.__setattr__(pod.metadata, "labels", {"app": "db"})  # around the API objects' immutability
    assert freeze(pod) != before


def test_freeze_sees_a_change_inside_an_array() -> None:
    """A numpy array is data: changing one element changes its snapshot (it used to look like an empty object)."""
    values = np.array([1, 2, 3])
    before = freeze({"counts": values})
    values[1] = 0
    assert freeze({"counts": values}) != before

"""Specification of the read-only container types plugin args may use (Mapping, frozenset, tuple) and of the
rule that a frozen Args class holds no mutable container."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import pytest

from kubesched.errors import PluginError
from kubesched.framework._args import ArgsError, structure, unstructure
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.runtime import validate_plugin_class
from kubesched.testing.conformance import Outcome, PluginUnderTest, run_conformance
from kubesched.testing.conformance.report import select_checks


@attrs.frozen
class ReadOnlyArgs:
    """Args using the read-only containers."""

    weights: Mapping[str, int] = attrs.field(factory=dict)
    zones: frozenset[str] = frozenset()


def test_a_mapping_arg_is_read_only() -> None:
    """A Mapping field is filled from a table and cannot be changed afterwards."""
    args = structure(ReadOnlyArgs, {"weights": {"gpu": 3}})
    assert args.weights == {"gpu": 3}
    with pytest.raises(TypeError):
        args.weights["gpu"] = 4  # type: ignore[index]


def test_a_frozenset_arg_is_filled_from_an_array() -> None:
    """A frozenset field takes an array; duplicates collapse."""
    assert structure(ReadOnlyArgs, {"zones": ["b", "a", "b"]}).zones == frozenset({"a", "b"})


def test_read_only_args_round_trip_through_profile_keys() -> None:
    """Written back as profile keys (a frozenset as a sorted array), the args read back equal."""
    args = ReadOnlyArgs({"gpu": 3}, frozenset({"b", "a"}))
    assert unstructure(args) == {"weights": {"gpu": 3}, "zones": ["a", "b"]}
    assert structure(ReadOnlyArgs, unstructure(args)) == args


@pytest.mark.parametrize(("data", "message"), [
    ({"zones": "a"}, 'zones: Invalid value: "a": must be an array of strings'),
    ({"zones": ["a", 1]}, "zones[1]: Invalid value: 1: must be a string"),
    ({"weights": ["a"]}, "weights: Invalid value: an array: must be a table"),
    ({"weights": {"gpu": "3"}}, 'weights.gpu: Invalid value: "3": must be an integer'),
], ids=["frozenset-not-array", "frozenset-item", "mapping-not-table", "mapping-value"])
def test_ill_typed_read_only_args_name_the_key(data: dict[str, Any], message: str) -> None:
    """Ill-typed values for Mapping and frozenset fields are refused with the key path."""
    with pytest.raises(ArgsError) as info:
        structure(ReadOnlyArgs, data)
    assert str(info.value) == message


def _plugin_with(args_class: type[Any]) -> type[Any]:
    def filter(self: Any, pod: Any) -> None:
        return None

    filter.__qualname__ = "WithArgs.filter"
    return type("WithArgs", (Plugin,), {"name": "WithArgs", "Args": args_class, "filter": hookimpl(filter)})


@attrs.frozen
class _Inner:
    labels: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen
class _Nested:
    inner: _Inner = attrs.field(factory=_Inner)


@attrs.frozen
class _Several:
    ports: list[int] = attrs.field(factory=list)
    names: set[str] | None = None


@pytest.mark.parametrize(("args_class", "message"), [
    (_Several, "Args field 'ports' is a list in a frozen class: it could still change; use tuple instead; Args "
               "field 'names' is a set in a frozen class: it could still change; use frozenset instead"),
    (_Nested, "Args field 'inner.labels' is a dict in a frozen class: it could still change; use Mapping "
              "instead"),
], ids=["list-and-set", "nested-dict"])
def test_a_frozen_args_class_with_a_mutable_container_is_rejected(args_class: type[Any], message: str) -> None:
    """Registration rejects dict, list and set fields of a frozen Args class (nested ones too), naming each."""
    with pytest.raises(PluginError) as info:
        validate_plugin_class(_plugin_with(args_class), "WithArgs", "acme")
    assert str(info.value) == f"plugin 'WithArgs' (from acme): {message}"


def test_read_only_containers_and_mutable_args_classes_are_accepted() -> None:
    """Mapping and frozenset in a frozen class, or a dict in a class that is not frozen, register fine."""
    @attrs.define
    class Mutable:
        labels: dict[str, str] = attrs.field(factory=dict)

    for args_class in (ReadOnlyArgs, Mutable):
        assert validate_plugin_class(_plugin_with(args_class), "WithArgs").args_class is args_class


def test_read_only_args_pass_the_args_conformance_checks() -> None:
    """The conformance suite knows Mapping and frozenset as profile types."""
    checks = select_checks(["args-accept-defaults", "args-reject-ill-typed"])
    report = run_conformance(PluginUnderTest(_plugin_with(ReadOnlyArgs), large_cluster=20), checks)
    assert [r.outcome for r in report.results] == [Outcome.PASSED, Outcome.PASSED], "\n".join(report.lines())

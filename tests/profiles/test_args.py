"""Plugin args: ``structure`` fills an attrs Args class from kebab-case config, ``unstructure`` is its inverse."""

from __future__ import annotations

from typing import Any, Literal

import attrs
import pytest

from kubesched.framework._args import ArgsError, camel, in_range, structure, unstructure


@attrs.frozen
class Resource:
    """A weighted resource."""

    name: str
    weight: int = attrs.field(default=1, validator=in_range(0, 100, low_open=True))


@attrs.frozen
class Shape:
    """A nested class with a float and a bool."""

    max_skew: float = 1.0
    when_unsatisfiable: bool = False


@attrs.frozen
class Args:
    """Args covering every supported type."""

    strategy_type: Literal["LeastAllocated", "MostAllocated"] = "LeastAllocated"
    resources: tuple[Resource, ...] = (Resource("cpu"), Resource("memory"))
    shape: Shape = Shape()
    ignored_groups: list[str] = attrs.field(factory=list)
    labels: dict[str, int] = attrs.field(factory=dict)
    percentage: int = attrs.field(default=50, validator=in_range(0, 100))
    hard_limit: int | None = None
    description: str | None = None
    extra: Any = None


def error(data: dict[str, Any]) -> ArgsError:
    """The ArgsError that structuring ``data`` into Args raises."""
    with pytest.raises(ArgsError) as caught:
        structure(Args, data)
    return caught.value


def test_empty_config_gives_the_defaults() -> None:
    """Keys left out take the class defaults."""
    assert structure(Args, {}) == Args()


def test_none_config_gives_the_defaults() -> None:
    """No config at all (None) is the same as an empty table."""
    assert structure(Args, None) == Args()


def test_keys_are_kebab_case_field_names() -> None:
    """``strategy-type`` fills ``strategy_type``, ``ignored-groups`` fills ``ignored_groups``."""
    args = structure(Args, {"strategy-type": "MostAllocated", "ignored-groups": ["example.com"]})
    assert (args.strategy_type, args.ignored_groups) == ("MostAllocated", ["example.com"])


def test_snake_case_keys_are_unknown() -> None:
    """The Python field name is not a config key; the error suggests the kebab-case one."""
    caught = error({"strategy_type": "MostAllocated"})
    assert (caught.key, caught.message) == ("strategy_type", "unknown key (did you mean 'strategy-type'?)")


def test_nested_classes_are_structured() -> None:
    """A table for a nested attrs class becomes that class, with its own kebab-case keys."""
    args = structure(Args, {"shape": {"max-skew": 2.5, "when-unsatisfiable": True}})
    assert args.shape == Shape(max_skew=2.5, when_unsatisfiable=True)


def test_arrays_of_tables_become_tuples_of_classes() -> None:
    """An array of tables for a ``tuple[Resource, ...]`` field becomes a tuple of Resource."""
    args = structure(Args, {"resources": [{"name": "cpu", "weight": 2}, {"name": "example.com/gpu"}]})
    assert args.resources == (Resource("cpu", 2), Resource("example.com/gpu", 1))


def test_tables_become_dicts() -> None:
    """A table for a ``dict[str, int]`` field becomes a dict."""
    assert structure(Args, {"labels": {"zone": 1, "rack": 2}}).labels == {"zone": 1, "rack": 2}


def test_optional_fields_accept_their_type() -> None:
    """An ``int | None`` field takes an integer; left out it stays None."""
    assert structure(Args, {"hard-limit": 7}).hard_limit == 7
    assert structure(Args, {}).hard_limit is None


def test_integers_are_accepted_for_floats() -> None:
    """An integer where a float is expected becomes a float."""
    max_skew = structure(Args, {"shape": {"max-skew": 3}}).shape.max_skew
    assert (max_skew, type(max_skew)) == (3.0, float)


def test_any_fields_take_any_value() -> None:
    """An ``Any`` field keeps the value as given."""
    assert structure(Args, {"extra": {"free": ["form", 1]}}).extra == {"free": ["form", 1]}


@pytest.mark.parametrize(("data", "key", "message"), [
    pytest.param({"percentage": "50"}, "percentage", 'Invalid value: "50": must be an integer',
                 id="string-for-integer"),
    pytest.param({"percentage": True}, "percentage", "Invalid value: true: must be an integer",
                 id="boolean-for-integer"),
    pytest.param({"percentage": 1.5}, "percentage", "Invalid value: 1.5: must be an integer", id="float-for-integer"),
    pytest.param({"shape": {"when-unsatisfiable": 1}}, "shape.when-unsatisfiable",
                 "Invalid value: 1: must be a boolean", id="integer-for-boolean"),
    pytest.param({"shape": {"max-skew": "2"}}, "shape.max-skew", 'Invalid value: "2": must be a number',
                 id="string-for-float"),
    pytest.param({"shape": {"max-skew": False}}, "shape.max-skew", "Invalid value: false: must be a number",
                 id="boolean-for-float"),
    pytest.param({"shape": 3}, "shape", "Invalid value: 3: must be a table", id="integer-for-nested-class"),
    pytest.param({"resources": [{"name": "cpu"}, {"name": "memory", "weight": "2"}]}, "resources[1].weight",
                 'Invalid value: "2": must be an integer', id="array-item-field"),
    pytest.param({"resources": [{"name": "cpu"}, "memory"]}, "resources[1]", 'Invalid value: "memory": must be a table',
                 id="array-item"),
    pytest.param({"ignored-groups": ["a", 2]}, "ignored-groups[1]", "Invalid value: 2: must be a string",
                 id="array-of-strings-item"),
    pytest.param({"labels": {"zone": "a"}}, "labels.zone", 'Invalid value: "a": must be an integer', id="dict-value"),
    pytest.param({"hard-limit": "7"}, "hard-limit", 'Invalid value: "7": must be an integer', id="optional-field"),
    pytest.param({"strategy-type": "Balanced"}, "strategy-type",
                 'Unsupported value: "Balanced": supported values: "LeastAllocated", "MostAllocated"',
                 id="literal-not-a-choice"),
])
def test_type_errors_name_the_key_path(data: dict[str, Any], key: str, message: str) -> None:
    """An ill-typed value raises ArgsError with the kebab-case key path and what was expected."""
    caught = error(data)
    assert (caught.key, caught.message) == (key, message)
    assert str(caught) == f"{key}: {message}"


def test_a_table_for_an_array_is_an_error() -> None:
    """A table where an array is expected is rejected at that key."""
    caught = error({"resources": {"name": "cpu"}})
    assert caught.key == "resources"
    assert caught.message == "Invalid value: a table: must be an array of tables"


@pytest.mark.parametrize(("data", "key", "message"), [
    pytest.param({"strategy-typ": "MostAllocated"}, "strategy-typ", "unknown key (did you mean 'strategy-type'?)",
                 id="top-level-close-match"),
    pytest.param({"shape": {"max-skw": 1}}, "shape.max-skw", "unknown key (did you mean 'max-skew'?)",
                 id="nested-close-match"),
    pytest.param({"resources": [{"name": "cpu", "wieght": 2}]}, "resources[0].wieght",
                 "unknown key (did you mean 'weight'?)", id="in-array-item"),
    pytest.param({"shape": {"colour": 1}}, "shape.colour",
                 "unknown key (expected one of: max-skew, when-unsatisfiable)", id="no-close-match-lists-keys"),
])
def test_unknown_keys_suggest_the_closest_key(data: dict[str, Any], key: str, message: str) -> None:
    """An unknown key raises ArgsError at its path, with a did-you-mean or the list of valid keys."""
    caught = error(data)
    assert (caught.key, caught.message) == (key, message)


@pytest.mark.parametrize(("data", "key", "message"), [
    pytest.param({"percentage": 101}, "percentage", "Invalid value: 101: not in valid range [0, 100]",
                 id="above-closed-range"),
    pytest.param({"percentage": -1}, "percentage", "Invalid value: -1: not in valid range [0, 100]",
                 id="below-closed-range"),
    pytest.param({"resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}]}, "resources[1].weight",
                 "Invalid value: 0: not in valid range (0, 100]", id="open-lower-bound-in-array-item"),
])
def test_validators_raise_args_error_with_the_key(data: dict[str, Any], key: str, message: str) -> None:
    """``in_range`` rejects out-of-range values with an ArgsError at the field's key path."""
    caught = error(data)
    assert (caught.key, caught.message) == (key, message)


@pytest.mark.parametrize("value", [0, 100])
def test_in_range_bounds_are_inclusive(value: int) -> None:
    """``in_range(0, 100)`` accepts both bounds."""
    assert structure(Args, {"percentage": value}).percentage == value


def test_in_range_uses_a_custom_message() -> None:
    """A message template given to ``in_range`` replaces the default text."""

    @attrs.frozen
    class Weighted:
        weight: int = attrs.field(validator=in_range(1, 10, message="weight {value} is out of range"))

    with pytest.raises(ArgsError) as caught:
        structure(Weighted, {"weight": 11})
    assert (caught.value.key, caught.value.message) == ("weight", "weight 11 is out of range")


def test_missing_required_key_is_named_in_kebab_case() -> None:
    """A required field left out is reported by its kebab-case key, not by its Python name."""

    @attrs.frozen
    class Term:
        match_label: str

    with pytest.raises(ArgsError) as caught:
        structure(Term, {})
    assert "match-label" in str(caught.value)
    assert "match_label" not in str(caught.value)


def test_a_non_table_config_is_an_error() -> None:
    """Args config must be a table."""
    with pytest.raises(ArgsError, match="Invalid value: an array: must be a table"):
        structure(Args, [])  # type: ignore[arg-type]


def test_unstructure_writes_kebab_case_and_lists() -> None:
    """``unstructure`` gives kebab-case keys, lists for tuples, and leaves out None fields."""
    assert unstructure(Args(resources=(Resource("cpu", 3),), labels={"zone": 1})) == {
        "strategy-type": "LeastAllocated",
        "resources": [{"name": "cpu", "weight": 3}],
        "shape": {"max-skew": 1.0, "when-unsatisfiable": False},
        "ignored-groups": [],
        "labels": {"zone": 1},
        "percentage": 50,
    }


@pytest.mark.parametrize("args", [
    pytest.param(Args(), id="defaults"),
    pytest.param(Args(strategy_type="MostAllocated", resources=(Resource("cpu", 5), Resource("example.com/gpu", 9)),
                      shape=Shape(2.5, True), ignored_groups=["example.com"], labels={"a": 1}, percentage=0,
                      hard_limit=3, description="d", extra=["x"]), id="every-field-set"),
])
def test_structure_inverts_unstructure(args: Args) -> None:
    """``structure(unstructure(args))`` gives back equal args."""
    assert structure(Args, unstructure(args)) == args


@attrs.frozen
class Versioned:
    version: Literal[1, 2] = 1


def test_a_boolean_is_not_an_integer_literal() -> None:
    """``true`` is refused for ``Literal[1, 2]`` although True == 1 in Python."""
    with pytest.raises(ArgsError, match='version: Unsupported value: true: supported values: "1", "2"'):
        structure(Versioned, {"version": True})
    assert structure(Versioned, {"version": 2}) == Versioned(2)


@pytest.mark.parametrize(("name", "spelled"), [
    ("scoring_strategy", "scoringStrategy"),
    ("min_candidate_nodes_percentage", "minCandidateNodesPercentage"),
    ("requested-to-capacity-ratio", "requestedToCapacityRatio"),
    ("resources", "resources"),
])
def test_camel_spells_field_names_as_kube_scheduler(name: str, spelled: str) -> None:
    """Snake-case field names and kebab-case keys both become kube-scheduler's camelCase."""
    assert camel(name) == spelled


def test_camel_case_keys_structure_every_field_type() -> None:
    """With ``naming=camel`` the same class reads camelCase keys, nested classes included."""
    data = {"strategyType": "MostAllocated", "shape": {"maxSkew": 2, "whenUnsatisfiable": True},
            "ignoredGroups": ["example.com"], "hardLimit": 3}
    assert structure(Args, data, camel) == Args(strategy_type="MostAllocated", shape=Shape(2.0, True),
                                               ignored_groups=["example.com"], hard_limit=3)


def test_camel_case_structure_refuses_kebab_case_keys() -> None:
    """A kebab-case key is unknown in camelCase config, with the camelCase spelling suggested."""
    with pytest.raises(ArgsError) as caught:
        structure(Args, {"hard-limit": 3}, camel)
    assert (caught.value.key, caught.value.message) == ("hard-limit", "unknown key (did you mean 'hardLimit'?)")


def test_camel_case_errors_have_camel_case_paths() -> None:
    """Type and validator errors below a camelCase root name the camelCase key path."""
    with pytest.raises(ArgsError) as caught:
        structure(Args, {"resources": [{"name": "cpu", "weight": 0}]}, camel)
    assert (caught.value.key, caught.value.message) == (
        "resources[0].weight", "Invalid value: 0: not in valid range (0, 100]")
    with pytest.raises(ArgsError) as caught:
        structure(Args, {"shape": {"maxSkew": "x"}}, camel)
    assert caught.value.key == "shape.maxSkew"


@pytest.mark.parametrize("args", [
    pytest.param(Args(), id="defaults"),
    pytest.param(Args(strategy_type="MostAllocated", shape=Shape(2.5, True), hard_limit=3), id="fields-set"),
])
def test_camel_case_structure_inverts_unstructure(args: Args) -> None:
    """``structure(unstructure(args, camel), camel)`` gives back equal args, with camelCase keys between."""
    data = unstructure(args, camel)
    assert "strategyType" in data
    assert structure(Args, data, camel) == args

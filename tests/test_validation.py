"""kubesched.validation: how every input checker renders values, builds key paths and collects problems."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kubesched
from kubesched.validation import (
    INT32_MAX,
    INT64_MAX,
    MANIFEST,
    PROFILE,
    HugeInteger,
    Problems,
    Wording,
    did_you_mean,
    digits,
    escape,
    fits_bits,
    is_finite,
    is_integer,
    is_number,
    join_path,
    key_path,
    key_text,
    parse_float,
    quote,
    refused_integer,
    too_deep,
)

PACKAGE = Path(kubesched.__file__).resolve().parent


@pytest.mark.parametrize(("text", "escaped"), [
    pytest.param('say "hi"', 'say \\"hi\\"', id="quote"),
    pytest.param("a\\b", "a\\\\b", id="backslash"),
    pytest.param("a\nb\r\t", "a\\nb\\r\\t", id="newline-return-tab"),
    pytest.param("\x1b[31m", "\\x1b[31m", id="control-character"),
    pytest.param("\x7f", "\\x7f", id="delete"),
    pytest.param("\u2028", "\\u2028", id="line-separator"),
    pytest.param("\ud800", "\\ud800", id="lone-surrogate"),
    pytest.param("\U000e0001", "\\U000e0001", id="astral-format-character"),
    pytest.param("café ✓", "café ✓", id="printable-unicode-kept"),
])
def test_escape_writes_what_a_terminal_would_not_print_as_go_does(text: str, escaped: str) -> None:
    """escape() follows Go's %q: quotes, backslashes and unprintable characters become escapes."""
    assert escape(text) == escaped


def test_quote_cuts_long_text_and_gives_its_length() -> None:
    """A value longer than 80 characters is cut, and the message says how long it was."""
    assert quote("x" * 100) == '"' + "x" * 80 + '..." (100 characters)'


@pytest.mark.parametrize("wording", [MANIFEST, PROFILE], ids=["manifest", "profile"])
def test_a_short_string_of_control_characters_is_cut_by_its_escaped_length(wording: Wording) -> None:
    """80 control characters escape to 320: the shown text is cut at 80 escaped characters, escapes whole."""
    shown = wording.show("\x01" * 80)
    assert shown.startswith('"' + "\\x01" * 20 + '..."')


@pytest.mark.parametrize(("wording", "value", "shown"), [
    pytest.param(MANIFEST, None, "null", id="manifest-null"),
    pytest.param(MANIFEST, False, "false", id="manifest-boolean"),
    pytest.param(MANIFEST, 12, "12", id="manifest-integer"),
    pytest.param(MANIFEST, 1.5, "1.5", id="manifest-float"),
    pytest.param(MANIFEST, float("nan"), "nan", id="manifest-nan-as-python-writes-it"),
    pytest.param(MANIFEST, "x" * 100, '"' + "x" * 80 + '..." (100 characters)', id="manifest-long-string"),
    pytest.param(MANIFEST, 10**99, "1" + "0" * 79 + "... (100 digits)", id="manifest-long-integer"),
    pytest.param(MANIFEST, -(10**99), "-1" + "0" * 78 + "... (101 digits)", id="manifest-long-negative-integer"),
    pytest.param(MANIFEST, HugeInteger("9" * 5000), "9" * 80 + "... (5000 digits)", id="manifest-huge-integer"),
    pytest.param(MANIFEST, {"a": 1}, "an object", id="manifest-object"),
    pytest.param(MANIFEST, [1], "a list", id="manifest-list"),
    pytest.param(PROFILE, "x" * 100, '"' + "x" * 80 + '..."', id="profile-long-string"),
    pytest.param(PROFILE, "a\x01", '"a\\x01"', id="profile-control-character"),
    pytest.param(PROFILE, 10**40, "an integer of 41 digits", id="profile-long-integer"),
    pytest.param(PROFILE, -(10**4100), "-an integer of 4101 digits", id="profile-integer-past-pythons-limit"),
    pytest.param(PROFILE, float("inf"), "+Inf", id="profile-infinity-as-go-writes-it"),
    pytest.param(PROFILE, float("nan"), "NaN", id="profile-nan-as-go-writes-it"),
    pytest.param(PROFILE, {"a": 1}, "a table", id="profile-table"),
    pytest.param(PROFILE, [1], "an array", id="profile-array"),
])
def test_show_renders_a_value_as_its_family_of_messages_does(wording: Wording, value: object, shown: str) -> None:
    """Manifests and profiles share one renderer and differ only in the words their wording picks."""
    assert wording.show(value) == shown


@pytest.mark.parametrize(("value", "manifest", "profile"), [
    (None, "null", "null"),
    (True, "a boolean", "a boolean"),
    (3, "an integer", "an integer"),
    (HugeInteger("1" * 2000), "an integer", "an integer"),
    (0.5, "a number", "a float"),
    ("s", "a string", "a string"),
    ([], "a list", "an array"),
    ({}, "an object", "a table"),
    ({1, 2}, "a value of no JSON type", "an unsupported value"),
])
def test_describe_names_a_value_in_kubernetes_or_toml_terms(value: object, manifest: str, profile: str) -> None:
    """describe() names the kind of a value: JSON's words for manifests, TOML's for profiles and args."""
    assert (MANIFEST.describe(value), PROFILE.describe(value)) == (manifest, profile)


@pytest.mark.parametrize(("number", "count"), [
    pytest.param(0, 1, id="zero"), pytest.param(9, 1, id="nine"), pytest.param(10, 2, id="ten"),
    pytest.param(-999, 3, id="negative"), pytest.param(10**4500, 4501, id="past-pythons-limit")])
def test_digits_counts_decimal_digits_without_converting_to_text(number: int, count: int) -> None:
    """digits() works past Python's 4300-digit conversion limit."""
    assert digits(number) == count


@pytest.mark.parametrize(("key", "text"), [(None, "null"), (True, "true"), (12, "12"), ("cpu", "cpu"),
                                           (HugeInteger("1" * 2000), "1" * 2000)])
def test_key_text_reads_a_map_key_as_kubernetes_does(key: object, text: str) -> None:
    """YAML keys that are not strings read as their JSON text: null, true, 12."""
    assert key_text(key) == text


@pytest.mark.parametrize(("path", "key", "expected"), [
    pytest.param("metadata.labels", "app", "metadata.labels.app", id="plain"),
    pytest.param("metadata.labels", "example.com/tier", "metadata.labels.example.com/tier", id="qualified"),
    pytest.param("limits", "cpu\nx", 'limits["cpu\\nx"]', id="odd-key-quoted"),
    pytest.param("limits", "k" * 81, f'limits["{"k" * 80}..." (81 characters)]', id="long-key-quoted"),
    pytest.param("", "app", "app", id="top-level"),
])
def test_key_path_appends_a_key_and_quotes_an_odd_one(path: str, key: object, expected: str) -> None:
    """Manifest field paths quote keys that are not plain words."""
    assert key_path(path, key) == expected


def test_key_path_can_leave_odd_keys_unquoted_for_profiles() -> None:
    """Profile key paths write keys as they are; a YAML null key reads as null."""
    assert (key_path("profiles[0]", "a b", quote_odd=False), key_path("", None, quote_odd=False)) == (
        "profiles[0].a b", "null")


@pytest.mark.parametrize(("prefix", "rest", "joined"), [
    ("a.b", "c", "a.b.c"), ("a.b", "[0].c", "a.b[0].c"), ("", "c", "c"), ("a", "", "a")])
def test_join_path_joins_two_key_paths(prefix: str, rest: str, joined: str) -> None:
    """An index needs no dot before it; an empty side leaves the other as it is."""
    assert join_path(prefix, rest) == joined


def test_did_you_mean_names_the_closest_candidate() -> None:
    """A near miss gets a hint, a far one none."""
    assert (did_you_mean("wieght", ["weight", "name"]), did_you_mean("zzz", ["weight"])) == (
        " (did you mean 'weight'?)", "")


@pytest.mark.parametrize(("value", "bits", "fits"), [
    (INT32_MAX, 32, True), (INT32_MAX + 1, 32, False), (-(2**31), 32, True), (-(2**31) - 1, 32, False),
    (INT64_MAX, 64, True), (INT64_MAX + 1, 64, False)])
def test_fits_bits_checks_signed_integer_ranges(value: int, bits: int, fits: bool) -> None:
    """int32 and int64 bounds as Go's types have them."""
    assert fits_bits(value, bits) is fits


@pytest.mark.parametrize(("value", "finite"), [
    (1.0, True), (sys.float_info.max, True), (10**300, True), (10**400, False), (float("inf"), False),
    (float("nan"), False)])
def test_is_finite_accepts_only_finite_float64_values(value: float, finite: bool) -> None:
    """An integer too large for a float64 is not finite, like NaN and the infinities."""
    assert is_finite(value) is finite


def test_too_deep_names_the_first_path_past_the_limit() -> None:
    """The path of the value that nests one level too deep, keys and indexes included."""
    assert too_deep({"a": [{"b": [[]]}]}, 3) == "a[0].b[0]"


def test_too_deep_is_none_within_the_limit() -> None:
    """A document exactly as deep as the limit passes."""
    assert too_deep({"a": [{"b": []}]}, 3) is None


class BadError(ValueError):
    """A problem for the collector tests."""


class BadListError(Exception):
    """Several problems."""

    def __init__(self, errors: list[BadError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


def fail(message: str) -> None:
    """Raise a BadError problem."""
    raise BadError(message)


def test_problems_raises_a_single_problem_as_itself() -> None:
    """One recorded problem is raised unchanged."""
    problems = Problems(BadError, BadListError)
    problems.check(fail, "one")
    with pytest.raises(BadError, match=r"^one$"):
        problems.raise_any()


def test_problems_raises_several_problems_together() -> None:
    """Every recorded problem is reported in one error, in the order found."""
    problems = Problems(BadError, BadListError)
    problems.check(fail, "one")
    problems.add(BadError("two"))
    with pytest.raises(BadListError, match=r"^one; two$"):
        problems.raise_any()


def test_problems_passes_through_results_and_raises_nothing_when_clean() -> None:
    """check() returns what the function returns; with nothing recorded, raise_any() returns."""
    problems = Problems(BadError, BadListError)
    assert problems.check(len, "abc") == 3
    problems.raise_any()
    assert list(problems) == []


def test_problems_records_only_its_own_error_type() -> None:
    """Any other exception is a bug, and propagates."""
    with pytest.raises(KeyError):
        Problems(BadError, BadListError).check({}.__getitem__, "missing")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10)
HUGE = (st.integers(min_value=10**4000, max_value=10**4100)
        | st.text("0123456789", min_size=1001, max_size=1200).map(HugeInteger))


@given(st.sampled_from([MANIFEST, PROFILE]), JSON_VALUES | HUGE)
def test_a_rendered_value_is_always_one_printable_line(wording: Wording, value: object) -> None:
    """Whatever a file holds, show() renders it as one bounded, printable line, without raising."""
    text = wording.show(value)
    assert text.isprintable()
    assert len(text) <= 100


def defined_names(relative: str) -> set[str]:
    """The functions and classes a module of the package defines at its top level."""
    tree = ast.parse((PACKAGE / relative).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}


SHARED = {"show", "describe", "escape", "quote", "key_text", "key_path", "did_you_mean", "HugeInteger", "_digits",
          "_children", "Wording"}


@pytest.mark.parametrize("module", ["io/fields.py", "io/load.py", "io/meta.py", "io/decode.py", "io/decode_pod.py",
                                    "io/pod_rules.py", "framework/_args.py", "profiles/config.py", "profiles/parse.py",
                                    "profiles/resolve.py", "profiles/files.py", "profiles/kube.py", "api/validation.py",
                                    "api/quantity.py"])
def test_checkers_use_the_shared_primitives_instead_of_their_own(module: str) -> None:
    """Rendering, describing, key paths and did-you-mean live once, in kubesched/validation.py."""
    assert defined_names(module) & SHARED == set()


def test_only_the_yaml_reader_defines_a_yaml_loader() -> None:
    """Manifests and kube-scheduler configurations share one safe YAML loader (kubesched/io/yaml_reader.py)."""
    loaders = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if "SafeLoader" in path.read_text(encoding="utf-8"))
    assert loaders == ["io/yaml_reader.py"]


def test_the_validation_module_needs_only_the_standard_library() -> None:
    """The plugin contract imports it, so it may import nothing outside the standard library."""
    tree = ast.parse((PACKAGE / "validation.py").read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module}
    assert modules - sys.stdlib_module_names == set()


@pytest.mark.parametrize(("wording", "value", "message"), [
    pytest.param(MANIFEST, 12, "Invalid value: 12: must be a string", id="manifest-integer"),
    pytest.param(MANIFEST, {"a": 1}, "Invalid value: an object: must be a string", id="manifest-object"),
    pytest.param(PROFILE, 12, "Invalid value: 12: must be a string", id="profile-integer"),
    pytest.param(PROFILE, {"a": 1}, "Invalid value: a table: must be a string", id="profile-table"),
])
def test_wrong_type_is_worded_in_kubernetes_terms(wording: Wording, value: object, message: str) -> None:
    """Both families say what the value is and what it must be, each naming containers in its own format's kinds."""
    assert wording.wrong_type(value, "a string") == message


@pytest.mark.parametrize(("text", "shown"), [
    pytest.param("1e309", "1e309", id="overflowing-literal-as-written"),
    pytest.param("-1.5E+400", "-1.5E+400", id="negative-overflowing-literal-as-written"),
    pytest.param("inf", "+Inf", id="infinity-literal-as-go-writes-it"),
    pytest.param("1.5", "1.5", id="ordinary-float"),
])
def test_a_parsed_float_that_overflows_is_shown_as_written(text: str, shown: str) -> None:
    """A float literal too large for a float64 is shown as the file wrote it, not as an infinity."""
    assert PROFILE.show(parse_float(text)) == shown


@pytest.mark.parametrize(("value", "integer", "number"), [
    (1, True, True), (True, False, False), (1.5, False, True), ("1", False, False), (None, False, False)])
def test_a_boolean_is_neither_an_integer_nor_a_number(value: object, integer: bool, number: bool) -> None:
    """Python's True is 1; an input file's true is not."""
    assert (is_integer(value), is_number(value)) == (integer, number)


def test_refused_integer_names_pythons_digit_limit() -> None:
    """Python's refusal to convert a long integer literal becomes a parser problem naming the limit."""
    with pytest.raises(ValueError, match="digits") as caught:
        int("9" * 5000)
    assert (refused_integer(caught.value), refused_integer(ValueError("other"))) == (
        f"an integer has more than {sys.get_int_max_str_digits()} digits", None)

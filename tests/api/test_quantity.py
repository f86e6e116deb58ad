"""Quantity parsing and rounding, following apimachinery's ``resource.Quantity``."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api.quantity import Quantity, QuantityError, parse_quantity

MAX_INT64 = 2**63 - 1


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        # plain decimals
        ("0", Fraction(0)),
        ("1", Fraction(1)),
        ("1.5", Fraction(3, 2)),
        ("128974848", Fraction(128974848)),
        ("007", Fraction(7)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("+", Fraction(0)),
        ("-", Fraction(0)),
        ("m", Fraction(0)),  # apimachinery reads a missing number as 0
        ("+1", Fraction(1)),
        ("-1.5", Fraction(-3, 2)),
        # decimal SI suffixes
        ("500m", Fraction(1, 2)),
        ("1n", Fraction(1, 10**9)),
        ("1u", Fraction(1, 10**6)),
        ("1k", Fraction(10**3)),
        ("129M", Fraction(129 * 10**6)),
        ("1G", Fraction(10**9)),
        ("1T", Fraction(10**12)),
        ("1P", Fraction(10**15)),
        ("1E", Fraction(10**18)),
        ("1.5k", Fraction(1500)),
        ("1.G", Fraction(10**9)),
        # binary SI suffixes
        ("1Ki", Fraction(1024)),
        ("2Gi", Fraction(2 * 2**30)),
        ("123Mi", Fraction(123 * 2**20)),
        ("1.5Ki", Fraction(1536)),
        ("1Ti", Fraction(2**40)),
        ("1Pi", Fraction(2**50)),
        ("1Ei", Fraction(2**60)),
        # decimal exponents
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),
        ("1e+3", Fraction(1000)),
        ("1e-3", Fraction(1, 1000)),
        ("1.5e2", Fraction(150)),
        ("1e0", Fraction(1)),
        ("1e000003", Fraction(1000)),  # the exponent is a base-10 integer; leading zeros do not change it
        ("1e-000003", Fraction(1, 1000)),
        # precision below one nano-unit rounds up (away from zero)
        ("0.1n", Fraction(1, 10**9)),
        ("1.0000000001", Fraction(1_000_000_001, 10**9)),
        ("-0.1n", Fraction(-1, 10**9)),
        ("1e-30", Fraction(1, 10**9)),
        # values above the int64 range saturate
        ("8Ei", Fraction(MAX_INT64)),
        ("10E", Fraction(MAX_INT64)),
        ("1e30", Fraction(MAX_INT64)),
        ("-1e30", Fraction(-MAX_INT64)),
    ],
)
def test_parse_text_gives_exact_amount(text: str, amount: Fraction) -> None:
    """A quantity string parses to its exact amount in base units."""
    assert Quantity.parse(text).amount == amount


@pytest.mark.parametrize(
    ("raw", "amount", "text"),
    [
        (2, Fraction(2), "2"),
        (0, Fraction(0), "0"),
        (128974848, Fraction(128974848), "128974848"),
        (1.5, Fraction(3, 2), "1.5"),
        (0.1, Fraction(1, 10), "0.1"),
        (1000.0, Fraction(1000), "1000.0"),
        (1e-7, Fraction(1, 10**7), "1e-07"),
        (1e20, Fraction(MAX_INT64), "1e+20"),
        (2**70, Fraction(MAX_INT64), str(2**70)),
    ],
)
def test_parse_yaml_and_json_numbers_reads_their_literal_text(raw: int | float, amount: Fraction, text: str) -> None:
    """Numbers from YAML/JSON parse as their shortest literal text, as apimachinery reads unquoted numbers."""
    quantity = Quantity.parse(raw)
    assert (quantity.amount, quantity.text) == (amount, text)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("2x", '"2x" is not a valid quantity'),
        ("1e", '"1e" is not a valid quantity'),
        ("1E+", '"1E+" is not a valid quantity'),
        ("1.5.5", '"1.5.5" is not a valid quantity'),
        ("", '"" is not a valid quantity'),
        (" 1", '" 1" is not a valid quantity'),
        ("1 ", '"1 " is not a valid quantity'),
        ("1Mi2", '"1Mi2" is not a valid quantity'),
        ("1K", '"1K" is not a valid quantity'),
        ("1mi", '"1mi" is not a valid quantity'),
        ("1KiB", '"1KiB" is not a valid quantity'),
        ("1e1.5", '"1e1.5" is not a valid quantity'),
        ("--1", '"--1" is not a valid quantity'),
        ("abc", '"abc" is not a valid quantity'),
        ("1e9223372036854775808", '"1e9223372036854775808" is not a valid quantity'),  # exponent overflows int64
        (True, "true is not a valid quantity"),
        (False, "false is not a valid quantity"),
        (None, "null is not a valid quantity"),
        ([1], "a list is not a valid quantity"),
        ({"cpu": 1}, "an object is not a valid quantity"),
        (float("nan"), "nan is not a valid quantity"),
    ],
)
def test_parse_rejects_invalid_input_with_its_text(raw: object, message: str) -> None:
    """Anything outside the quantity grammar is rejected, and the message quotes the input."""
    with pytest.raises(QuantityError) as excinfo:
        Quantity.parse(raw)
    assert str(excinfo.value) == message


def test_quantity_error_is_a_value_error() -> None:
    """QuantityError can be caught as a ValueError."""
    with pytest.raises(ValueError, match="is not a valid quantity"):
        Quantity.parse("2x")


def test_parse_quantity_is_shorthand_for_parse() -> None:
    """parse_quantity(x) is Quantity.parse(x)."""
    assert parse_quantity("250m") == Quantity.parse("250m")


def test_parse_keeps_the_text_it_was_written_as() -> None:
    """str() of a quantity is the text from the manifest, not a canonical form."""
    assert str(Quantity.parse("1024Mi")) == "1024Mi"


def test_equality_compares_amounts_not_text() -> None:
    """Two spellings of the same amount are equal quantities."""
    assert Quantity.parse("1Ki") == Quantity.parse("1024")
    assert Quantity.parse("1") != Quantity.parse("1001m")


@pytest.mark.parametrize(
    ("text", "milli"),
    [
        ("500m", 500),
        ("1", 1000),
        ("1.5", 1500),
        ("0.1n", 1),
        ("1n", 1),
        ("1u", 1),
        ("1.0001", 1001),
        ("0", 0),
        ("2Ki", 2_048_000),
        ("1e-3", 1),
        ("1e-4", 1),
        ("-1.5m", -2),  # MilliValue rounds away from zero
    ],
)
def test_milli_value_rounds_up(text: str, milli: int) -> None:
    """milli_value() is MilliValue(): thousandths, rounded up (away from zero)."""
    assert Quantity.parse(text).milli_value() == milli


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("500m", 1),
        ("1001m", 2),
        ("0.1n", 1),
        ("1Ki", 1024),
        ("129M", 129_000_000),
        ("0", 0),
        ("8Ei", MAX_INT64),
        ("-0.5", -1),  # Value rounds away from zero
    ],
)
def test_value_rounds_up_to_whole_units(text: str, value: int) -> None:
    """value() is Value(): whole units, rounded up (away from zero)."""
    assert Quantity.parse(text).value() == value


@pytest.mark.parametrize(("milli", "text"), [(1500, "1500m"), (2000, "2"), (0, "0"), (1, "1m")])
def test_from_milli_builds_millicores(milli: int, text: str) -> None:
    """from_milli(m) holds m thousandths and reads back as the same milli value."""
    quantity = Quantity.from_milli(milli)
    assert (quantity.milli_value(), str(quantity)) == (milli, text)


def test_from_int_builds_whole_units() -> None:
    """from_int(n) holds exactly n."""
    quantity = Quantity.from_int(3 * 2**30)
    assert (quantity.amount, quantity.value(), str(quantity)) == (Fraction(3 * 2**30), 3 * 2**30, str(3 * 2**30))


@given(st.integers(min_value=0, max_value=10**15))
def test_milli_suffix_gives_exactly_that_many_millis(n: int) -> None:
    """For any non-negative n, "<n>m" has a milli value of n."""
    assert Quantity.parse(f"{n}m").milli_value() == n


@given(st.integers(min_value=0, max_value=2**52))
def test_ki_suffix_multiplies_by_1024(n: int) -> None:
    """For any non-negative n, "<n>Ki" is n * 1024 units."""
    assert Quantity.parse(f"{n}Ki").value() == n * 1024


@given(st.integers(min_value=0, max_value=MAX_INT64))
def test_plain_integer_text_round_trips(n: int) -> None:
    """Any int64 written in digits parses to itself, as text and as a YAML number."""
    assert Quantity.parse(str(n)).value() == n
    assert Quantity.parse(n).value() == n


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=0, max_value=10**12),
       st.sampled_from(["", "n", "u", "m", "k", "M", "Ki", "Mi", "e-2", "e1"]))
def test_milli_value_never_rounds_down(whole: int, fraction: int, suffix: str) -> None:
    """milli_value(x) >= 1000 * amount(x), and is less than one milli above it."""
    quantity = Quantity.parse(f"{whole}.{fraction}{suffix}")
    exact = 1000 * quantity.amount
    assert exact <= quantity.milli_value() < exact + 1


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=0, max_value=10**12),
       st.sampled_from(["", "n", "u", "m", "k", "Ki", "e-5"]))
def test_value_never_rounds_down(whole: int, fraction: int, suffix: str) -> None:
    """value(x) >= amount(x), and is less than one unit above it."""
    quantity = Quantity.parse(f"{whole}.{fraction}{suffix}")
    assert quantity.amount <= quantity.value() < quantity.amount + 1


@given(st.integers(min_value=-(10**9), max_value=10**9), st.integers(min_value=0, max_value=9))
def test_exponent_form_equals_plain_form(mantissa: int, exponent: int) -> None:
    """"<m>e<k>" is the same amount as m * 10**k written out."""
    assert Quantity.parse(f"{mantissa}e{exponent}").amount == Fraction(mantissa * 10**exponent)


@given(st.integers(min_value=10, max_value=40), st.sampled_from(["", "-"]))
def test_any_nonzero_amount_below_a_nano_unit_rounds_away_from_zero(exponent: int, sign: str) -> None:
    """A non-zero amount too small to represent becomes 1n (or -1n), never 0."""
    expected = Fraction(-1 if sign else 1, 10**9)
    assert Quantity.parse(f"{sign}1e-{exponent}").amount == expected

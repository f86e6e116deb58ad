"""Exact parsing of Kubernetes resource quantities (``500m``, ``1.5``, ``2Gi``, ``1e3``, ``129M``).

The grammar and rounding follow apimachinery's ``resource.Quantity``: a signed decimal number followed by
a binary-SI suffix (Ki..Ei), a decimal-SI suffix (n, u, m, k, M..E) or a decimal exponent (e3, E-2).
Values are held as exact fractions; :meth:`Quantity.milli_value` and :meth:`Quantity.value` round up, as
``MilliValue()`` and ``Value()`` do.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from kubesched.validation import MANIFEST

_BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL_SUFFIXES = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
# apimachinery caps quantities at the int64 range; exponents beyond this cannot be represented anyway.
_MAX_INT64 = 2**63 - 1
_MAX_EXPONENT = 30
_MAX_DIGITS = 40


#: Quantities parsed from a text or an integer, by (type, value); cleared when full.
_PARSED: dict[tuple[type, object], Quantity] = {}
_PARSED_SIZE = 4096


class QuantityError(ValueError):
    """Raised for text that is not a valid quantity."""


@attrs.frozen(slots=True)
class Quantity:
    """An exact resource amount together with the text it was written as."""

    amount: Fraction
    text: str = attrs.field(eq=False)

    @classmethod
    def parse(cls, raw: object) -> Quantity:
        """Parse a manifest value (string or number) into a quantity, or raise :class:`QuantityError`. Texts
        and integers parsed before give the same (immutable) object: a cluster repeats a few quantities."""
        key = (raw.__class__, raw)
        known = _PARSED.get(key) if cls is Quantity and (key[0] is str or key[0] is int) else None
        if known is not None:
            return known
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            raise QuantityError(f"{MANIFEST.show(raw)} is not a valid quantity")
        text = raw if isinstance(raw, str) else _number_text(raw)
        parsed = cls(_parse_amount(text, raw), text)
        if cls is Quantity and (key[0] is str or key[0] is int):
            if len(_PARSED) >= _PARSED_SIZE:
                _PARSED.clear()
            _PARSED[key] = parsed
        return parsed

    @classmethod
    def from_int(cls, value: int) -> Quantity:
        """Build a whole-unit quantity (bytes, pods, devices)."""
        return cls(Fraction(value), str(value))

    @classmethod
    def from_milli(cls, milli: int) -> Quantity:
        """Build a quantity from thousandths (millicores)."""
        amount = Fraction(milli, 1000)
        return cls(amount, str(milli // 1000) if milli % 1000 == 0 else f"{milli}m")

    def milli_value(self) -> int:
        """The amount in thousandths, rounded away from zero (``MilliValue()``)."""
        return _away_from_zero(self.amount * 1000)

    def value(self) -> int:
        """The amount in whole units, rounded away from zero (``Value()``)."""
        return _away_from_zero(self.amount)

    def __str__(self) -> str:
        return self.text


#: The notations apimachinery writes a quantity in (resource.Format): binary suffixes (Ki..Ei), decimal suffixes
#: (n..E), or a decimal exponent (e3).
BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"
_BINARY_NAMES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_NAMES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_NANO = Fraction(1, 10**9)


def canonical_text(amount: Fraction, notation: str) -> str:
    """``amount`` as resource.Quantity's String() writes it in ``notation`` (:data:`BINARY_SI`, :data:`DECIMAL_SI`
    or :data:`DECIMAL_EXPONENT`): nanounits rounded up, binary only for whole amounts of at least 1024, e.g.
    1.5 as "1500m", 512 MiB as "512Mi", 3e9 as "3G"."""
    amount = -((-amount) // _NANO) * _NANO
    if notation == BINARY_SI and abs(amount) >= 1024 and amount.denominator == 1:
        number, power = int(amount), 0
        while power < len(_BINARY_NAMES) - 1 and number % 1024 == 0:
            number, power = number // 1024, power + 1
        return f"{number}{_BINARY_NAMES[power]}"
    mantissa, exponent = int(amount / _NANO), -9
    while mantissa and mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    if not mantissa:
        exponent = 0
    while exponent % 3:
        mantissa, exponent = mantissa * 10, exponent - 1
    if notation == DECIMAL_EXPONENT:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    while exponent > 18:
        mantissa, exponent = mantissa * 1000, exponent - 3
    return f"{mantissa}{_DECIMAL_NAMES[exponent]}"


def parse_quantity(raw: object) -> Quantity:
    """Parse a quantity; shorthand for :meth:`Quantity.parse`."""
    return Quantity.parse(raw)


def _number_text(value: int | float) -> str:
    # JSON/YAML numbers are read by apimachinery as their literal text; repr is Python's shortest form.
    return repr(value)


def _away_from_zero(value: Fraction) -> int:
    magnitude = -((-abs(value.numerator)) // value.denominator)
    return magnitude if value >= 0 else -magnitude


def _parse_amount(text: str, raw: object) -> Fraction:
    if not text:
        raise _not_a_quantity(raw)
    pos, end = 0, len(text)
    negative = False
    if text[0] in "+-":
        negative = text[0] == "-"
        pos = 1
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    whole = text[start:pos]
    fraction = ""
    if pos < end and text[pos] == ".":
        pos += 1
        fstart = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        fraction = text[fstart:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos != end:
        raise _not_a_quantity(raw)
    multiplier = _suffix_multiplier(text[suffix_start:])
    if multiplier is None:
        raise _not_a_quantity(raw)
    number = _decimal(whole, fraction)
    amount = number * multiplier
    if negative:
        amount = -amount
    # Precision below one nano-unit rounds up (away from zero), as apimachinery does.
    scaled = amount * 10**9
    if scaled.denominator != 1:
        magnitude = -((-abs(scaled.numerator)) // scaled.denominator)
        amount = Fraction(magnitude if amount > 0 else -magnitude, 10**9)
    if abs(amount) > _MAX_INT64:
        amount = Fraction(_MAX_INT64 if amount > 0 else -_MAX_INT64)
    return amount


def _not_a_quantity(raw: object) -> QuantityError:
    return QuantityError(f"{MANIFEST.show(raw)} is not a valid quantity")


def _decimal(whole: str, fraction: str) -> Fraction:
    whole = whole.lstrip("0")
    if len(whole) > _MAX_DIGITS:
        return Fraction(_MAX_INT64 + 1)  # saturates below
    number = Fraction(int(whole or "0"))
    if fraction.strip("0"):
        kept = fraction[:_MAX_DIGITS]
        number += Fraction(int(kept), 10 ** len(kept))
        if kept != fraction and fraction[_MAX_DIGITS:].strip("0"):
            # Dropped digits only matter for rounding up; keep a trace of them.
            number += Fraction(1, 10 ** (_MAX_DIGITS + 1))
    return number


def _suffix_multiplier(suffix: str) -> Fraction | None:
    if suffix in _BINARY_SUFFIXES:
        return Fraction(_BINARY_SUFFIXES[suffix])
    if suffix in _DECIMAL_SUFFIXES:
        return _DECIMAL_SUFFIXES[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        digits = suffix[1:]
        sign = 1
        if digits[0] in "+-":
            sign = -1 if digits[0] == "-" else 1
            digits = digits[1:]
        if not digits or not digits.isdigit():
            return None
        digits = digits.lstrip("0") or "0"
        if len(digits) > 19 or int(digits) > _MAX_INT64 + (sign < 0):
            return None  # strconv.ParseInt would overflow: apimachinery rejects the suffix
        exponent = sign * int(digits)
        # Clamp absurd exponents before computing 10**n: the result saturates or rounds to 1n anyway.
        exponent = max(-_MAX_EXPONENT, min(_MAX_EXPONENT, exponent))
        return Fraction(10) ** exponent
    return None

"""What every input checker shares: how a value reads in a message, key paths, numeric and nesting checks,
and collecting every problem of a run before raising.

Manifests (``kubesched.io``), plugin args (``kubesched.framework._args``) and profiles (``kubesched.profiles``)
each check their own fields but word their messages the same way through this module. It depends on the
standard library only, so the plugin contract may import it.
"""

from __future__ import annotations

import difflib
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

T = TypeVar("T")
E = TypeVar("E", bound=Exception)

#: Longest value text quoted in a message; longer values are cut.
MAX_SHOWN = 80
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1

_SIMPLE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


class HugeInteger:
    """An integer literal with too many digits to convert (Python refuses past 4300): kept as its text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"HugeInteger({len(self.text)} characters)"


class FloatText(float):
    """A float literal too large for a float64 (``1e309``): an infinity, but shown in messages as written."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> FloatText:
        number = super().__new__(cls, text)
        number.text = text
        return number

    text: str


def parse_float(text: str) -> float:
    """A parser's float literal: a plain float, or a :class:`FloatText` when it overflows (so messages quote it)."""
    number = float(text)
    if math.isinf(number) and "inf" not in text.lower():
        return FloatText(text)
    return number


# -- rendering values --------------------------------------------------------------------------------
def _escaped(char: str) -> str:
    """One character as Go's %q writes it inside quotes."""
    if char in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with quotes, backslashes, control characters and lone surrogates escaped, as Go's %q does."""
    return "".join(_escaped(char) for char in text)


def escape_cut(text: str, limit: int = MAX_SHOWN) -> tuple[str, bool]:
    """``text`` escaped, cut before the escaped form passes ``limit`` characters (escapes are never split), and
    whether it was cut: a message stays short even for a string of control characters."""
    out: list[str] = []
    size = 0
    for char in text:
        piece = _escaped(char)
        size += len(piece)
        if size > limit:
            return "".join(out), True
        out.append(piece)
    return "".join(out), False


#: Longest user-controlled text written to a terminal as it is (a table cell, a name in a summary line).
TERMINAL_MAX = 256
#: Longest line of an error or warning written to a terminal: its values are already cut, so only a message
#: listing very many objects reaches it.
LINE_MAX = 4096


def terminal(text: str, limit: int = TERMINAL_MAX) -> str:
    """``text`` safe to write to a terminal: characters that are not printable (escape sequences, bells, lone
    surrogates) as visible escapes (``\\x1b``), printable ones as they are; cut after ``limit`` characters with
    ``... (N characters)``, so a megabyte of name is one short line and no sequence reaches the terminal."""
    if text.isprintable() and len(text) <= limit:
        return text
    out: list[str] = []
    size = 0
    for char in text:
        piece = char if char.isprintable() else _escaped(char)
        size += len(piece)
        if size > limit:
            return f"{''.join(out)}... ({len(text)} characters)"
        out.append(piece)
    return "".join(out)


def quote(text: str) -> str:
    """``text`` in double quotes and escaped; cut where its escaped form passes :data:`MAX_SHOWN` characters, with
    its length given."""
    escaped, cut = escape_cut(text)
    return f'"{escaped}..." ({len(text)} characters)' if cut else f'"{escaped}"'


def digits(number: int) -> int:
    """How many decimal digits ``number`` has, without converting it to text (Python refuses past 4300)."""
    magnitude = abs(number)
    estimate = max(1, int(magnitude.bit_length() * math.log10(2)))
    while 10**estimate <= magnitude:
        estimate += 1
    while estimate > 1 and 10 ** (estimate - 1) > magnitude:
        estimate -= 1
    return estimate


@dataclass(frozen=True)
class Wording:
    """How one family of messages renders values: what it calls each kind of value, and how it cuts long ones.

    Manifests speak JSON (``an object``, ``a list``); profiles and plugin args speak TOML (``a table``,
    ``an array``), also for a KubeSchedulerConfiguration, so that both profile forms read alike.
    """

    float_kind: str
    list_kind: str
    object_kind: str
    other_kind: str
    #: Integers with more digits are abbreviated.
    max_digits: int
    #: An abbreviated integer is named by its length alone (``an integer of 51 digits``) rather than shown
    #: by its first digits (``12345... (51 digits)``).
    integer_by_length: bool
    #: A cut string is followed by its length (``"abc..." (100 characters)``).
    cut_length_given: bool
    #: NaN and the infinities are written as Go writes them (``NaN``, ``+Inf``), not as Python does (``nan``).
    go_specials: bool
    #: A value of the wrong type, formatted with ``expected`` (``an object``), ``shown`` and ``kind`` (the value
    #: by :meth:`show` and by :meth:`describe`).
    wrong_type_template: str

    def wrong_type(self, value: object, expected: str) -> str:
        """The message for ``value`` where ``expected`` (``a string``, ``a table``) should be."""
        shown = self.show(value) if "{shown}" in self.wrong_type_template else ""
        return self.wrong_type_template.format(expected=expected, shown=shown, kind=self.describe(value))

    def describe(self, value: object) -> str:
        """What kind of value this is, for messages: "a string", "an object" or "a table", ..."""
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "a boolean"
        if isinstance(value, (int, HugeInteger)):
            return "an integer"
        if isinstance(value, float):
            return self.float_kind
        if isinstance(value, str):
            return "a string"
        if isinstance(value, list):
            return self.list_kind
        if isinstance(value, Mapping):
            return self.object_kind
        return self.other_kind

    def show(self, value: object) -> str:
        """A value as a message shows it, always one printable line: scalars as Kubernetes prints them (strings
        quoted and escaped, long strings and numbers cut), containers by their kind."""
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, HugeInteger)):
            return self._integer(value)
        if isinstance(value, FloatText):
            return value.text if len(value.text) <= MAX_SHOWN else f"{value.text[:MAX_SHOWN]}..."
        if isinstance(value, float):
            if not self.go_specials or math.isfinite(value):
                return repr(value)
            if math.isnan(value):
                return "NaN"
            return "+Inf" if value > 0 else "-Inf"
        if isinstance(value, str):
            if self.cut_length_given:
                return quote(value)
            escaped, cut = escape_cut(value)
            return f'"{escaped}..."' if cut else f'"{escaped}"'
        return self.describe(value)

    def _integer(self, value: int | HugeInteger) -> str:
        """An integer as written, or abbreviated past :attr:`max_digits` (a huge one never converted whole)."""
        if isinstance(value, HugeInteger):
            text = value.text
            negative, count, length = text.startswith("-"), len(text.lstrip("+-")), len(text)
        else:
            count = digits(value)
            if count <= self.max_digits:
                return str(value)
            negative, length = value < 0, count + (value < 0)
            text = ("-" if negative else "") + str(abs(value) // 10 ** max(0, count - MAX_SHOWN))
        if self.integer_by_length:
            return f"{'-' if negative else ''}an integer of {count} digits"
        return text if length <= MAX_SHOWN else f"{text[:MAX_SHOWN]}... ({length} digits)"


#: Messages about manifests: JSON's kinds, long values cut with their length given.
MANIFEST = Wording("a number", "a list", "an object", "a value of no JSON type", max_digits=MAX_SHOWN,
                   integer_by_length=False, cut_length_given=True, go_specials=False,
                   wrong_type_template="Invalid value: {shown}: must be {expected}")
#: Messages about profiles and plugin args: TOML's kinds, long integers named by their length; a value of the wrong
#: type is worded as for manifests, in Kubernetes' terms.
PROFILE = Wording("a float", "an array", "a table", "an unsupported value", max_digits=40, integer_by_length=True,
                  cut_length_given=False, go_specials=True,
                  wrong_type_template="Invalid value: {shown}: must be {expected}")


# -- key paths ---------------------------------------------------------------------------------------
def key_text(key: object) -> str:
    """A map key as Kubernetes reads it (YAML keys become JSON strings: null, true, 12)."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, HugeInteger):
        return key.text
    return str(key)


def join_path(prefix: str, rest: str) -> str:
    """Two key paths as one: ``a.b`` + ``c`` is ``a.b.c``, ``a.b`` + ``[0].c`` is ``a.b[0].c``."""
    if not prefix or not rest:
        return prefix or rest
    return f"{prefix}{'' if rest.startswith('[') else '.'}{rest}"


def key_path(path: str, key: object, *, quote_odd: bool = True) -> str:
    """The key path of a map entry: ``path.key``; with ``quote_odd``, ``path["key"]`` when the key is not a
    plain word (dots, slashes, dashes and underscores allowed) or is too long to show whole."""
    text = key_text(key)
    if quote_odd and not (len(text) <= MAX_SHOWN and _PLAIN_KEY.fullmatch(text)):
        return f"{path}[{quote(text)}]"
    return f"{path}.{text}" if path else text


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """A " (did you mean 'X'?)" hint naming the closest candidate, or ""."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# -- numbers -----------------------------------------------------------------------------------------
def is_integer(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an integer and not a boolean (Python's True is 1; JSON's, YAML's and TOML's is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is an integer or a float, and not a boolean."""
    return is_integer(value) or isinstance(value, float)


def fits_bits(value: int, bits: int) -> bool:
    """Whether ``value`` is a signed integer of ``bits`` bits (int32, int64)."""
    return -(1 << (bits - 1)) <= value < 1 << (bits - 1)


def is_finite(value: float) -> bool:
    """Whether a number (an integer of any size included) is a finite float64: not NaN, not infinite."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def refused_integer(error: Exception) -> str | None:
    """The problem when ``error`` is Python refusing to convert an integer literal of too many digits (past
    ``sys.get_int_max_str_digits()``, 4300 by default), for a parser's message; None for any other error."""
    if isinstance(error, ValueError) and "digits" in str(error):
        return f"an integer has more than {sys.get_int_max_str_digits()} digits"
    return None


# -- nesting -----------------------------------------------------------------------------------------
def too_deep(document: object, limit: int) -> str | None:
    """The key path of the first value nested more than ``limit`` objects or lists deep, or None."""
    stack: list[tuple[object, str, int]] = [(document, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > limit:
            return path
        stack.extend((child, child_path, depth + 1) for child_path, child in _containers_in(value, path))
    return None


def _containers_in(value: object, path: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, Mapping):
        for key, child in value.items():
            if isinstance(child, (Mapping, list)):
                yield key_path(path, key, quote_odd=False), child
    elif isinstance(value, list):
        for i, child in enumerate(value):
            if isinstance(child, (Mapping, list)):
                yield f"{path}[{i}]", child


# -- collecting problems -----------------------------------------------------------------------------
class Problems(Generic[E]):
    """Collects the problems of one run, so that it reports every one of them; then :meth:`raise_any`.

    ``caught`` is the error type :meth:`check` records; ``combine`` makes one error of several.
    """

    def __init__(self, caught: type[E], combine: Callable[[list[E]], Exception]) -> None:
        self.caught = caught
        self.combine = combine
        self.errors: list[E] = []

    def add(self, error: E) -> None:
        """Record a problem."""
        self.errors.append(error)

    def check(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``function(*args, **kwargs)``, or None with its error recorded."""
        try:
            return function(*args, **kwargs)
        except self.caught as exc:
            self.add(exc)
            return None

    def raise_any(self) -> None:
        """Raise what was recorded: the error itself when there is one, all of them combined when there are more."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise self.combine(self.errors)

    def __iter__(self) -> Iterator[E]:
        return iter(self.errors)

    def __len__(self) -> int:
        return len(self.errors)

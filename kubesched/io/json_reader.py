"""Reading a manifest's JSON: msgspec's C parser where it provably reads the values Python's ``json`` module does,
the ``json`` module (with kubesched's depth and integer limits) for everything else, so values and messages are
those of the ``json`` module whichever parser read the text."""

from __future__ import annotations

import json
import re
from itertools import accumulate

from kubesched.validation import HugeInteger


class JsonError(Exception):
    """Why a JSON text could not be read, in words for an error line (the caller adds the file's name)."""


# A JSON string or bracket; depth is counted over these only, so brackets inside strings do not count.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
#: bytes.translate tables: keep only quotes and brackets; every digit as ``0`` and every other byte as a space.
_NOT_STRUCTURE = bytes(c for c in range(256) if chr(c) not in '"[]{}')
_DIGITS_AS_ZERO = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord(" ") for c in range(256))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_EMPTY_STRING = re.compile(rb'"[^"]*"')


_FALLBACK = object()


def loads(data: bytes, max_depth: int, max_digits: int) -> object:
    """The value of JSON text ``data`` (valid UTF-8): a :class:`JsonError` for nesting deeper than ``max_depth``
    levels or malformed text (located as the ``json`` module does); integer literals longer than ``max_digits``
    stay text. Bytes, not text: an ASCII dump of a few hundred MiB is then never copied into a str."""
    value = _fast(data, max_depth, max_digits)
    return reference_loads(data.decode(), max_depth, max_digits) if value is _FALLBACK else value


def reference_loads(text: str, max_depth: int, max_digits: int) -> object:
    """:func:`loads` through the ``json`` module alone (kubesched's reader before msgspec, and the fast path's
    reference): the depth checked first, so that deep text is refused before Python's recursion limit."""
    deep = _depth_problem(text, max_depth)
    if deep is not None:
        raise JsonError(f"invalid JSON {deep}: nesting deeper than {max_depth} levels")

    def parse_int(literal: str) -> int | HugeInteger:
        return HugeInteger(literal) if len(literal) > max_digits else int(literal)

    try:
        return json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as exc:
        raise JsonError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise JsonError(f"invalid JSON: nesting deeper than {max_depth} levels") from None


def _fast(data: bytes, max_depth: int, max_digits: int) -> object:
    """msgspec's value of ``data``, or :data:`_FALLBACK` where the ``json`` module must read it: text msgspec
    refuses (the ``json`` module accepts NaN, Infinity, lone surrogates and numbers past a double's range, and
    words its errors otherwise), nesting past ``max_depth`` and digit runs that could be an integer past
    ``max_digits`` (msgspec reads those as ints where kubesched keeps them as text). The checks are exact for
    text msgspec accepts, and only that text is returned."""
    import msgspec  # only JSON input pays for it

    if _beyond_limits(data, max_depth, max_digits):
        return _FALLBACK
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return _FALLBACK


#: Bytes per piece of text checked at a time (cut at a line break), so the checks' copies stay small.
_PIECE = 1 << 22


def _beyond_limits(data: bytes, max_depth: int, max_digits: int) -> bool:
    """Whether ``data`` nests deeper than ``max_depth``, holds a run of ``max_digits`` digits or is malformed
    in a way the checks see (a quote left unpaired), found in C-speed passes (any True sends the text to the
    ``json`` module, which reads it exactly)."""
    return _has_digit_run(data, max_digits) or _deeper_than(_structure(data), max_depth)


_ASCII_DIGITS = b"0123456789"
_DIGIT_RUN = re.compile(rb"[0-9]*")


def _has_digit_run(data: bytes, length: int) -> bool:
    """Whether ``data`` holds ``length`` digits in a row (an integer literal that long, or a run in a string,
    which only costs the ``json`` module's reading). Such a run covers two bytes ``length // 2`` apart at
    multiples of it, so a sample of every such byte finds the only places to look (a copy 1/500 of the text
    for the usual limit, where translating all of it cost a large file a tenth of its load)."""
    step = length // 2
    if step < 8:  # a short limit: the whole text, digits as zeros (exact, and cheap for the tests using it)
        return b"0" * length in data.translate(_DIGITS_AS_ZERO)
    sample = data[::step].translate(_DIGITS_AS_ZERO)
    at = sample.find(b"00")
    while at >= 0:
        start = at * step
        if data[start:start + step + 1].isdigit():  # both sampled bytes in one run: measure it
            end = _DIGIT_RUN.match(data, start).end()  # type: ignore[union-attr]  # matches the empty run too
            before = data[max(0, start - step):start]
            if end - start + len(before) - len(before.rstrip(_ASCII_DIGITS)) >= length:
                return True
        at = sample.find(b"00", at + 1)
    return False


def _structure(data: bytes) -> bytes:
    """The brackets of ``data`` outside strings, taken a piece at a time (cut at line breaks, which valid JSON
    has only between tokens): escaped backslashes and quotes dropped (backslashes occur only in strings), then
    all but quotes and brackets, then strings (quotes alternate, open and close). A quote left unpaired (text
    malformed) stays, and the depth check then refers the text to the ``json`` module."""
    parts = []
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _PIECE) + 1 or len(data)
        piece = data[start:end]
        start = end
        if b"\\" in piece:
            piece = piece.replace(b"\\\\", b"").replace(b'\\"', b"")
        structure = piece.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
        if b'"' in structure:  # a string holding brackets
            structure = _EMPTY_STRING.sub(b"", structure)
        parts.append(structure)
    return b"".join(parts)


def _deeper_than(structure: bytes, max_depth: int) -> bool:
    """Whether brackets ``structure`` nest deeper than ``max_depth`` (or hold a quote: malformed). Innermost
    pairs are removed a level or two per pass, in C: a manifest's few levels empty it in as many passes; what is
    left after ``max_depth // 2`` passes is summed bracket by bracket."""
    rest = structure
    for _ in range(max_depth // 2):
        if not rest:
            return False
        rest = rest.replace(b"[]", b"").replace(b"{}", b"")
    if not rest:
        return False
    if b'"' in structure:
        return True
    return max(accumulate(map(_STEP.__getitem__, structure), initial=0)) > max_depth


def _depth_problem(text: str, max_depth: int) -> str | None:
    """Where JSON text nests deeper than ``max_depth``, as "at line L column C", or None."""
    if text.count("[") + text.count("{") <= max_depth:
        return None
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, token.start()) + 1
                column = token.start() - text.rfind("\n", 0, token.start())
                return f"at line {line} column {column}"
        elif char in "]}":
            depth -= 1
    return None

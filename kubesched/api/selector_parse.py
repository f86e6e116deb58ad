"""Label selectors written as strings (``app=web,tier!=db``, ``env in (a,b)``, ``!x``), read by the grammar of
apimachinery's labels.Parse, which ``kubectl -l`` and the API server's ``labelSelector`` use, and refused in the
v1.32 API server's words (checked on the binary: ``unable to parse requirement: found 'b', expected: ...``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

import attrs

from kubesched.api.selector_errors import joined, requirement_problems
from kubesched.api.validation import qualified_name
from kubesched.validation import escape


class SelectorParseError(ValueError):
    """A selector string that does not parse; the message is the API server's."""


class _Kind(enum.Enum):
    END = "end"
    IDENTIFIER = "identifier"
    IN = "in"
    NOT_IN = "notin"
    OPEN = "("
    CLOSE = ")"
    COMMA = ","
    NOT = "!"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    GREATER = ">"
    LESS = "<"


_SYMBOLS: dict[str, _Kind] = {kind.value: kind for kind in (_Kind.OPEN, _Kind.CLOSE, _Kind.COMMA, _Kind.NOT,
                                                             _Kind.EQUALS, _Kind.DOUBLE_EQUALS, _Kind.NOT_EQUALS,
                                                             _Kind.GREATER, _Kind.LESS)}
_WORDS: dict[str, _Kind] = {"in": _Kind.IN, "notin": _Kind.NOT_IN}
_SPECIAL = frozenset("=!(),><")
_BLANK = frozenset(" \t\r\n")
#: The binary operators as the v1.32 parser names them when it finds something else.
_BINARY = "in, notin, =, ==, !=, gt, lt"
#: Operators as NewRequirement checks their values (``==`` is checked as ``=``; ``!=`` only for its value's form).
_CHECKED_AS = {_Kind.IN: "In", _Kind.NOT_IN: "NotIn", _Kind.EQUALS: "Equals", _Kind.DOUBLE_EQUALS: "Equals",
               _Kind.NOT_EQUALS: "NotEquals", _Kind.GREATER: "Gt", _Kind.LESS: "Lt"}


def _tokens(text: str) -> list[tuple[_Kind, str]]:
    """The lexer's tokens: operators of one or two symbols (the longest that is one), words up to a symbol or a
    blank (``in`` and ``notin`` are keywords), and the end."""
    found: list[tuple[_Kind, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _BLANK:
            i += 1
        if i == n:
            found.append((_Kind.END, ""))
            return found
        if text[i] in _SPECIAL:
            pair = text[i:i + 2]
            symbol = pair if pair in _SYMBOLS else text[i]
            found.append((_SYMBOLS[symbol], symbol))
            i += len(symbol)
            continue
        start = i
        while i < n and text[i] not in _SPECIAL and text[i] not in _BLANK:
            i += 1
        word = text[start:i]
        found.append((_WORDS.get(word, _Kind.IDENTIFIER), word))


@attrs.frozen
class Requirement:
    """One requirement: ``key``, an operator (``in``, ``notin``, ``=``, ``==``, ``!=``, ``gt``, ``lt``,
    ``exists``, ``!``) and its values (sorted, as the parser keeps them in a set)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """labels.Requirement's Matches: a missing key satisfies only ``notin``, ``!=`` and ``!``."""
        value = labels.get(self.key)
        if self.operator == "exists":
            return value is not None
        if self.operator == "!":
            return value is None
        if self.operator in ("notin", "!="):
            return value is None or value not in self.values
        if value is None:
            return False
        if self.operator in ("gt", "lt"):
            try:
                have, bound = int(value), int(self.values[0])
            except ValueError:
                return False
            return have > bound if self.operator == "gt" else have < bound
        return value in self.values


@attrs.frozen
class Selector:
    """A parsed selector: every requirement must match (an empty selector matches every object)."""

    text: str
    requirements: tuple[Requirement, ...]

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy every requirement."""
        return all(r.matches(labels) for r in self.requirements)


def parse_selector(text: str) -> Selector:
    """``text`` as a label selector; a :class:`SelectorParseError` with the API server's message if it is not
    one."""
    return Selector(text, tuple(_Parser(_tokens(text)).selector()))


class _Parser:
    """A recursive descent over the tokens; in a value's place ``in`` and ``notin`` are plain words."""

    def __init__(self, tokens: Sequence[tuple[_Kind, str]]) -> None:
        self._tokens = tokens
        self._at = 0

    def _peek(self, value: bool = True) -> tuple[_Kind, str]:
        kind, literal = self._tokens[self._at]
        return (_Kind.IDENTIFIER if value and kind in (_Kind.IN, _Kind.NOT_IN) else kind), literal

    def _take(self, value: bool = True) -> tuple[_Kind, str]:
        token = self._peek(value)
        self._at += 1
        return token

    def selector(self) -> list[Requirement]:
        """Requirements separated by commas, up to the end."""
        found: list[Requirement] = []
        kind, literal = self._peek()
        if kind is _Kind.END:
            return found
        if kind not in (_Kind.IDENTIFIER, _Kind.NOT):
            raise SelectorParseError(f"found '{literal}', expected: !, identifier, or 'end of string'")
        while True:
            try:
                found.append(self._requirement())
            except SelectorParseError as error:
                raise SelectorParseError(f"unable to parse requirement: {error}") from None
            kind, literal = self._take()
            if kind is _Kind.END:
                return found
            if kind is not _Kind.COMMA:
                raise SelectorParseError(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self._peek()
            if kind not in (_Kind.IDENTIFIER, _Kind.NOT):
                raise SelectorParseError(f"found '{literal}', expected: identifier after ','")

    def _requirement(self) -> Requirement:
        negated = self._peek()[0] is _Kind.NOT
        if negated:
            self._take()
        kind, key = self._take()
        if kind is not _Kind.IDENTIFIER:
            raise SelectorParseError(f"found '{key}', expected: identifier")
        problems = qualified_name(key)
        if problems:
            raise SelectorParseError(f'<nil>: Invalid value: "{escape(key)}": {"; ".join(problems)}')
        if negated:  # "!key" is whole: what follows it must end the requirement
            return Requirement(key, "!")
        if self._peek()[0] in (_Kind.END, _Kind.COMMA):
            return Requirement(key, "exists")
        operator, literal = self._take(value=False)
        if operator not in _CHECKED_AS:
            raise SelectorParseError(f"found '{literal}', expected: {_BINARY}")
        values = self._set() if operator in (_Kind.IN, _Kind.NOT_IN) else (self._exact(),)
        problems_found = requirement_problems(key, _CHECKED_AS[operator], values, "")
        if problems_found:
            raise SelectorParseError(joined(problems_found))
        return Requirement(key, "gt" if operator is _Kind.GREATER else "lt" if operator is _Kind.LESS
                           else operator.value, values)

    def _set(self) -> tuple[str, ...]:
        """``(a,b,...)``: empty members are the empty string; the values come out sorted and distinct."""
        kind, literal = self._take()
        if kind is not _Kind.OPEN:
            raise SelectorParseError(f"found '{literal}' expected: '('")
        kind, literal = self._peek()
        if kind is _Kind.CLOSE:
            self._take()
            return ("",)
        if kind not in (_Kind.IDENTIFIER, _Kind.COMMA):
            raise SelectorParseError(f"found '{literal}', expected: ',', ')' or identifier")
        values: set[str] = set()
        while True:
            kind, literal = self._take()
            if kind is _Kind.IDENTIFIER:
                values.add(literal)
                after, after_literal = self._peek()
                if after is _Kind.CLOSE:
                    break
                if after is not _Kind.COMMA:
                    raise SelectorParseError(f"found '{after_literal}', expected: ',' or ')'")
            elif kind is _Kind.COMMA:
                after = self._peek()[0]
                if not values or after in (_Kind.CLOSE, _Kind.COMMA):
                    values.add("")  # "(,", ",)" and ",," hold an empty value
                if after is _Kind.CLOSE:
                    break
            else:
                raise SelectorParseError(f"found '{literal}', expected: ',', or identifier")
        self._take()
        return tuple(sorted(values))

    def _exact(self) -> str:
        """The one value after ``=``, ``==``, ``!=``, ``>`` or ``<``: empty when nothing follows."""
        kind, literal = self._peek()
        if kind in (_Kind.END, _Kind.COMMA):
            return ""
        self._take()
        if kind is not _Kind.IDENTIFIER:
            raise SelectorParseError(f"found '{literal}', expected: identifier")
        return literal

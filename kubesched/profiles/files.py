"""Profile files read from disk: their text, their TOML document, and the whole read-parse-resolve of a TOML
profile file; every failure is a ProfileError naming the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from kubesched.errors import ProfileError
from kubesched.io.read import UnreadableFileError
from kubesched.io.read import read_text as read_bounded
from kubesched.profiles.config import MAX_DEPTH, TOO_DEEP, SchedulerConfiguration
from kubesched.profiles.parse import parse_config
from kubesched.runtime import PluginRegistry
from kubesched.validation import parse_float, refused_integer


def read_toml(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """A TOML file's document; unreadable or invalid files are a ProfileError naming the file (or ``name``)."""
    name = name or str(path)
    return toml_document(read_text(path, name), name)


def toml_document(text: str, name: str) -> dict[str, Any]:
    """The document of TOML ``text`` read from ``name``; invalid TOML is a ProfileError naming it.

    A float literal too large for a float64 reads as a :class:`~kubesched.validation.FloatText`, so that a
    message quotes it as written (``1e309``) rather than as an infinity.
    """
    try:
        return tomllib.loads(text, parse_float=parse_float)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"invalid TOML: {exc}", file=name) from None
    except RecursionError:
        where = _too_deep_at(text, MAX_DEPTH)
        at = f" (at line {where[0]}, column {where[1]})" if where else ""
        raise ProfileError(f"invalid TOML: {TOO_DEEP.format(limit=MAX_DEPTH)}{at}", file=name) from None
    except ValueError as exc:
        # Python refuses to convert integers of more than 4300 digits (sys.int_info.str_digits_check_threshold).
        raise ProfileError(f"invalid TOML: {refused_integer(exc) or exc}", file=name) from None


#: TOML's string openings, longest first (a multi-line string opens with three quotes).
_TOML_QUOTES = ('"""', "'''", '"', "'")


def _too_deep_at(text: str, limit: int) -> tuple[int, int] | None:
    """The line and column (from 1) of the array or inline-table bracket that nests TOML ``text`` more than
    ``limit`` deep, skipping strings and comments: for when the parser itself gave up without a position."""
    depth, line, line_start, i = 0, 1, 0, 0
    while i < len(text):
        char = text[i]
        if char in "[{":
            depth += 1
            if depth > limit:
                return line, i - line_start + 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        elif char in "\"'":
            quote = next(q for q in _TOML_QUOTES if text.startswith(q, i))
            end = i + len(quote)
            while end < len(text) and not text.startswith(quote, end):
                end += 2 if text[end] == "\\" and quote[0] == '"' else 1
            if "\n" in text[i:end]:
                line += text.count("\n", i, end)
                line_start = text.rfind("\n", i, end) + 1
            i = end + len(quote)
            continue
        elif char == "\n":
            line, line_start = line + 1, i + 1
        i += 1
    return None


def read_text(path: str | Path, name: str) -> str:
    """A profile file's text; unreadable or non-UTF-8 files are a ProfileError naming the file."""
    try:
        return read_bounded(path)
    except UnreadableFileError as exc:
        raise ProfileError(str(exc), file=name) from None


def load_config_file(path: str | Path, registry: PluginRegistry, source: str | None = None) -> SchedulerConfiguration:
    """Read, parse and resolve a profile file."""
    name = source or str(path)
    return parse_config(read_toml(path, name), registry, name)

"""A small TOML writer for what profiles contain: tables, arrays of tables, scalars and inline tables.

Python reads TOML (tomllib) but does not write it; the subset profiles need is small enough to write here
rather than add a dependency.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def key(name: str) -> str:
    """A bare key when possible, else a quoted one."""
    return name if _BARE_KEY.fullmatch(name) else string(name)


def string(text: str) -> str:
    """A basic TOML string with escapes."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def value(item: Any) -> str:
    """A TOML value: scalars, arrays and inline tables."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        return string(item)
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    if isinstance(item, Sequence):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"cannot write {type(item).__name__} as TOML")


def _is_table_array(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(v, Mapping) for v in item)


def dumps(document: Mapping[str, Any], *, table_arrays: frozenset[str] = frozenset()) -> str:
    """Write a document. Nested mappings become ``[tables]``; lists of mappings whose dotted path is in
    ``table_arrays`` become ``[[arrays of tables]]``, other lists are written inline."""
    lines: list[str] = []
    _write_table(document, [], lines, table_arrays)
    return "\n".join(lines).strip("\n") + "\n"


def _write_table(table: Mapping[str, Any], path: list[str], lines: list[str], arrays: frozenset[str]) -> None:
    dotted = ".".join(path)
    scalars = [(k, v) for k, v in table.items()
               if not isinstance(v, Mapping) and not (_is_table_array(v) and _join(dotted, k) in arrays)]
    for k, v in scalars:
        lines.append(f"{key(k)} = {value(v)}")
    for k, v in table.items():
        child = [*path, key(k)]
        if isinstance(v, Mapping):
            has_scalars = any(not isinstance(x, Mapping) for x in v.values())
            if has_scalars or not v:
                lines.extend(["", f"[{'.'.join(child)}]"])
            _write_table(v, child, lines, arrays)
        elif _is_table_array(v) and _join(dotted, k) in arrays:
            for item in v:
                lines.extend(["", f"[[{'.'.join(child)}]]"])
                _write_table(item, child, lines, arrays)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name

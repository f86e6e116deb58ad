"""Reading a result document field by field: each value of the wrong type becomes one error naming the file, the
document's kind and the field, and reading goes on with a neutral value, so one run reports every problem."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from kubesched.errors import InputError
from kubesched.validation import MANIFEST, is_integer, is_number, key_path, quote


class Checker:
    """Collects the errors of one document (``file``, ``kind``) as its fields are read."""

    def __init__(self, file: str, kind: str) -> None:
        self.file = file
        self.kind = kind
        self.errors: list[InputError] = []

    def fail(self, field: str, message: str) -> None:
        """One problem at ``field``."""
        self.errors.append(InputError(message, file=self.file, obj=self.kind, field=field or None))

    def _wrong(self, field: str, value: object, expected: str) -> None:
        self.fail(field, f"{MANIFEST.show(value)} is not {expected}")

    def mapping(self, value: object, field: str, *, optional: bool = False) -> Mapping[str, Any]:
        """``value`` as a map with text keys; empty (and an error unless ``optional`` and null) otherwise."""
        if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            return value
        if value is None and optional:
            return {}
        if isinstance(value, Mapping):
            self.fail(field, "expected text keys")
        else:
            self._wrong(field, value, "an object" if value is not None else "an object (missing)")
        return {}

    def items(self, value: object, field: str, *, optional: bool = False) -> list[Any]:
        """``value`` as a list; empty (and an error unless ``optional`` and null) otherwise."""
        if isinstance(value, list):
            return value
        if not (value is None and optional):
            self._wrong(field, value, "a list" if value is not None else "a list (missing)")
        return []

    def number(self, value: object, field: str, default: float = 0.0) -> float:
        """``value`` as a finite number; ``default`` (and an error) otherwise."""
        if is_number(value) and math.isfinite(value):
            return float(value)
        self._wrong(field, value, "a number")
        return default

    def optional_number(self, value: object, field: str) -> float | None:
        """``value`` as a finite number, or None for null."""
        return None if value is None else self.number(value, field)

    def integer(self, value: object, field: str, default: int = 0) -> int:
        """``value`` as an integer; ``default`` (and an error) otherwise."""
        if is_integer(value):
            return value
        self._wrong(field, value, "an integer")
        return default

    def text(self, value: object, field: str, default: str = "") -> str:
        """``value`` as text; ``default`` (and an error) otherwise."""
        if isinstance(value, str):
            return value
        self._wrong(field, value, "a string")
        return default

    def optional_text(self, value: object, field: str) -> str | None:
        """``value`` as text, or None for null."""
        return None if value is None else self.text(value, field)

    def texts(self, value: object, field: str) -> tuple[str, ...]:
        """A list of strings (each wrong item one error)."""
        return tuple(self.text(item, f"{field}[{i}]") for i, item in enumerate(self.items(value, field)))

    def numbers(self, value: object, field: str) -> tuple[float, ...]:
        """A list of numbers (each wrong item one error)."""
        return tuple(self.number(item, f"{field}[{i}]") for i, item in enumerate(self.items(value, field)))


def entry(path: str, key: str) -> str:
    """The field path of a map entry (``analysis.series.values["pods.pending"]``: keys with dots quoted)."""
    return f"{path}[{quote(key)}]" if "." in key else key_path(path, key)

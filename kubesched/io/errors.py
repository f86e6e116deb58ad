"""The error that carries every problem found in an input, one line each.

It sits below the field readers and the decoders, which raise it when they are not collecting, and below
:mod:`kubesched.io.load`, which raises it for a whole input: every module of the package may import it.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.errors import InputError, KubeschedError
from kubesched.validation import escape


class InputErrorList(KubeschedError):  # noqa: N818 - a list of InputError
    """Every error found in the input, sorted by file (in input order) and position, each made one line."""

    def __init__(self, errors: Sequence[InputError]) -> None:
        self.errors = [_one_line(e) for e in errors]
        super().__init__("\n".join(str(e) for e in self.errors))


def _one_line(error: InputError) -> InputError:
    """The error with any control character left in its parts escaped: one error, one line."""
    parts = (error.message, error.file, error.obj, error.field)
    if not any(p and not p.isprintable() for p in parts):
        return error
    return InputError(escape(error.message), file=error.file and escape(error.file),
                      obj=error.obj and escape(error.obj), field=error.field and escape(error.field))

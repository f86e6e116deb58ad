"""What a report holds, apart from how it is written: sections of text, tables and plots, which the HTML page and
the markdown document each render (markdown names the plots instead of drawing them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from plotly.graph_objects import Figure
else:
    Figure = Any


@attrs.frozen
class Text:
    """A paragraph of plain text (escaped by each renderer)."""

    text: str


@attrs.frozen
class Table:
    """A table of text cells: a title, the header, the rows, and which columns hold numbers (right-aligned)."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: frozenset[int] = frozenset()
    #: Shown folded (an HTML ``<details>``): long tables a reader opens when wanted.
    folded: bool = False


@attrs.frozen
class Plot:
    """A plotly figure, built only when the HTML page is written (markdown needs no plotting library)."""

    title: str
    build: Callable[[], Figure] = attrs.field(eq=False)


Block = Text | Table | Plot


@attrs.frozen
class Section:
    """A titled part of the report (one result file, or the overlay of several) and its blocks in order; ``level``
    2 for a result, 3 for a part of one."""

    title: str
    blocks: tuple[Block, ...]
    level: int = 2


@attrs.frozen
class Report:
    """The whole report: its title and its sections in order."""

    title: str
    sections: tuple[Section, ...]

    def plots(self) -> list[Plot]:
        """Every plot of the report, in page order."""
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]

    def tables(self) -> list[Table]:
        """Every table of the report, in page order."""
        return [b for s in self.sections for b in s.blocks if isinstance(b, Table)]


def number(value: object) -> str:
    """A figure as tables show it: integers as they are, other floats to four significant digits, ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.4g}"
    return str(value)


def signed(value: object) -> str:
    """A difference: ``+`` before a positive one."""
    text = number(value)
    return text if text in ("-", "0") or text.startswith("-") else f"+{text}"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], *, numeric_from: int = 1,
          folded: bool = False) -> Table:
    """A table whose columns from ``numeric_from`` on hold numbers."""
    return Table(title, tuple(header), tuple(tuple(r) for r in rows),
                 frozenset(range(numeric_from, len(header))), folded)

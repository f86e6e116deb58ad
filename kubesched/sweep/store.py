"""A sweep's Parquet file: each finished cell's row written at once to a journal beside it (``OUT.cells/``, one
small Parquet file per cell, renamed into place whole), and at the end the file itself, every row in matrix
order; so a sweep stopped anywhere resumes from its journal, and finishes to the file an uninterrupted run writes.

Columns: the parameters (:data:`~kubesched.sweep.matrix.LEADING`, the varied plugin args ``args.*`` sorted,
:data:`~kubesched.sweep.matrix.TRAILING`), then every metric sorted by name; a metric some rows lack is null there.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.sweep.columns import ARGS_PREFIX
from kubesched.sweep.matrix import LEADING, TRAILING, cell_key

_INTEGERS = frozenset({"cell", "seed", "repetition", "runSeed"})
_TEXT = frozenset(LEADING + TRAILING) - _INTEGERS


def pyarrow_modules() -> Any:
    """pyarrow and pyarrow.parquet, or a KubeschedError saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise KubeschedError("kubesched sweep writes Parquet with pyarrow, which is not installed: "
                             "pip install 'kubesched[sweep]'") from None
    return pyarrow


def columns(rows: Iterable[dict[str, Any]]) -> list[str]:
    """Every column of ``rows`` in file order: the parameters, the varied args sorted, the metrics sorted."""
    names: set[str] = set()
    for row in rows:
        names.update(row)
    args = sorted(n for n in names if n.startswith(ARGS_PREFIX))
    metrics = sorted(names - set(LEADING) - set(TRAILING) - set(args))
    return [*LEADING, *args, *TRAILING, *metrics]


def table(rows: Sequence[dict[str, Any]]) -> Any:
    """The rows as a pyarrow Table with the sweep's schema (integers int64, parameters and args text, metrics
    float64)."""
    pa = pyarrow_modules()
    fields = []
    for name in columns(rows):
        kind = pa.int64() if name in _INTEGERS else pa.string() if name in _TEXT or name.startswith(ARGS_PREFIX) \
            else pa.float64()
        fields.append(pa.field(name, kind, nullable=True))
    schema = pa.schema(fields)
    return pa.Table.from_pylist([{name: row.get(name) for name in schema.names} for row in rows], schema=schema)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """A Parquet file's rows, without the nulls of the columns a row did not have."""
    pyarrow_modules()
    import pyarrow.parquet as pq

    return [{k: v for k, v in row.items() if v is not None or k == "error"}
            for row in pq.read_table(path).to_pylist()]


def write(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``rows`` to ``path`` whole: to a temporary file beside it, renamed into place."""
    pyarrow_modules()
    import pyarrow.parquet as pq

    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    pq.write_table(table(rows), partial)
    os.replace(partial, path)


class ResultStore:
    """The Parquet file of a sweep and its journal of finished cells."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.journal = path.with_name(path.name + ".cells")

    def journalled(self) -> int:
        """How many finished cells the journal holds (an interrupted sweep's)."""
        return len(list(self.journal.glob("*.parquet"))) if self.journal.is_dir() else 0

    def finished(self) -> dict[str, dict[str, Any]]:
        """The rows already written, by cell key: the file's (a finished sweep's), then the journal's."""
        rows: dict[str, dict[str, Any]] = {}
        sources = [self.path] if self.path.is_file() else []
        if self.journal.is_dir():
            sources += sorted(self.journal.glob("*.parquet"))
        for source in sources:
            try:
                found = read_rows(source)
            except (OSError, ValueError) as exc:
                raise KubeschedError(f"--resume: cannot read {source}: {exc}") from None
            rows.update((cell_key(row), row) for row in found)
        return rows

    def start(self) -> None:
        """Make the journal's folder."""
        try:
            self.journal.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise KubeschedError(f"cannot create {self.journal}: {exc.strerror or exc}") from None

    def record(self, row: dict[str, Any]) -> None:
        """Journal one finished cell's row (whole or not at all)."""
        name = hashlib.sha256(cell_key(row).encode()).hexdigest()[:32]
        write(self.journal / f"{name}.parquet", [row])

    def finish(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write the file (``rows`` in matrix order), then drop the journal."""
        write(self.path, rows)
        shutil.rmtree(self.journal, ignore_errors=True)

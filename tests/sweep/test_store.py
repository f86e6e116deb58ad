"""Specification of a sweep's Parquet file: its columns and types, nulls where a row lacks a metric, and the
journal of finished cells it is assembled from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kubesched.sweep.store import ResultStore, columns, read_rows, table


def row(cell: int, **metrics: float) -> dict[str, Any]:
    """A cell's row with these metrics."""
    return {"cell": cell, "input": "i", "inputKind": "manifests", "inputDigest": "d", "profile": "default",
            "profileDigest": "p", "seed": 0, "repetition": cell, "runSeed": cell, "kubeschedVersion": "0.1.0",
            "error": None, **metrics}


def test_columns_are_the_parameters_the_varied_args_sorted_then_the_metrics_sorted() -> None:
    rows = [row(0, **{"pods.bound": 1.0, "attempts": 2.0}),
            {**row(1, **{"pendingTime.byPriority.5.p95": 3.0}), "args.X.b": "1", "args.A.a": "2"}]
    assert columns(rows) == ["cell", "input", "inputKind", "inputDigest", "profile", "profileDigest", "args.A.a",
                             "args.X.b", "seed", "repetition", "runSeed", "kubeschedVersion", "error", "attempts",
                             "pendingTime.byPriority.5.p95", "pods.bound"]


def test_a_metric_or_arg_a_row_lacks_is_null_there() -> None:
    rows = [row(0, **{"pods.bound": 1.0}), {**row(1, **{"pendingTime.byPriority.5.p95": 3.0}), "args.A.a": "x"}]
    found = table(rows).to_pylist()
    assert (found[0]["pendingTime.byPriority.5.p95"], found[0]["args.A.a"], found[1]["pods.bound"]) == (None, None,
                                                                                                       None)


def test_integers_are_int64_parameters_text_and_metrics_float64() -> None:
    schema = table([{**row(0, **{"pods.bound": 1.0}), "args.A.a": "x"}]).schema
    assert {f.name: str(f.type) for f in schema} == {
        "cell": "int64", "input": "string", "inputKind": "string", "inputDigest": "string", "profile": "string",
        "profileDigest": "string", "args.A.a": "string", "seed": "int64", "repetition": "int64", "runSeed": "int64",
        "kubeschedVersion": "string", "error": "string", "pods.bound": "double"}
    assert schema.field("pods.bound").type == pa.float64()


def test_rows_read_back_as_written_without_the_nulls_of_other_rows_columns(tmp_path: Path) -> None:
    rows = [row(0, **{"pods.bound": 1.0}), row(1, **{"pods.pending": 2.0})]
    store = ResultStore(tmp_path / "out.parquet")
    store.finish(rows)
    assert read_rows(store.path) == rows


def test_the_journal_holds_each_finished_cell_until_the_file_is_written(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "out.parquet")
    store.start()
    store.record(row(0, **{"pods.bound": 1.0}))
    store.record(row(1, **{"pods.bound": 2.0}))
    assert store.journalled() == 2
    assert not store.path.exists()
    assert sorted(r["cell"] for r in store.finished().values()) == [0, 1]
    store.finish([row(0, **{"pods.bound": 1.0}), row(1, **{"pods.bound": 2.0})])
    assert (store.journalled(), store.journal.exists()) == (0, False)
    assert pq.read_table(store.path).column("pods.bound").to_pylist() == [1.0, 2.0]
    assert sorted(r["cell"] for r in store.finished().values()) == [0, 1]

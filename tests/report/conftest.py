"""Result files for the report's tests: real simulate and compare output (run in-process once per session) and a
sweep's Parquet file in the shape kubesched sweep writes."""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import EXAMPLES

#: The metric columns of the sweep file the tests write, with each cell's values drawn from its parameters.
SWEEP_METRICS = ("fragmentation.copies", "pendingTime.p95", "pods.bound", "pods.pending", "resources.cpu.ratio",
                 "resources.memory.ratio")


def kubesched_stdout(*arguments: str) -> str:
    """Run the CLI in-process; its standard output (the run must succeed)."""
    outcome = CliRunner().invoke(main, list(arguments), catch_exceptions=False)
    assert outcome.exit_code == 0, outcome.output
    return outcome.stdout


@pytest.fixture(scope="session")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``preemption.json`` (examples/preemption, critical explained), ``explain.json`` (examples/explain, p and
    big explained), ``comparison.json`` (default and bin-packing on examples/preemption), ``sweep.parquet``."""
    folder = tmp_path_factory.mktemp("results")
    runs = {
        "preemption.json": ("simulate", str(EXAMPLES / "preemption"), "--explain", "critical", "-o", "json"),
        "explain.json": ("simulate", str(EXAMPLES / "explain"), "--explain", "p", "--explain", "big", "-o", "json"),
        "comparison.json": ("compare", "default", "bin-packing", "-o", "json", "--", str(EXAMPLES / "preemption")),
    }
    files = {}
    for name, arguments in runs.items():
        files[name] = folder / name
        files[name].write_text(kubesched_stdout(*arguments), encoding="utf-8")
    files["sweep.parquet"] = write_sweep(folder / "sweep.parquet", sweep_rows())
    return files


def sweep_rows(*, failed: Sequence[int] = (7,)) -> list[dict[str, Any]]:
    """Two inputs x two profiles (one a variant with a plugin arg) x two seeds; the cells in ``failed`` have an
    error and no metrics. Each metric is a plain function of the cell, so a test can work out any figure."""
    rows: list[dict[str, Any]] = []
    for input_index, source in enumerate(("a.yaml", "b.yaml")):
        for profile_index, (profile, arg) in enumerate((("default", None), ("packing[type=MostAllocated]",
                                                                           "MostAllocated"))):
            for seed in (0, 1):
                cell = len(rows)
                base = 4 * input_index + 2 * profile_index + seed
                metrics = {name: None if cell in failed else float(base + offset) / (10 if "ratio" in name else 1)
                           for offset, name in enumerate(SWEEP_METRICS)}
                rows.append({"cell": cell, "input": source, "inputKind": "manifests", "inputDigest": f"sha-{source}",
                             "profile": profile, "profileDigest": f"sha-{profile}",
                             "args.NodeResourcesFit.scoringStrategy.type": arg, "seed": seed, "repetition": 0,
                             "runSeed": seed, "kubeschedVersion": "0.1.0",
                             "error": "boom" if cell in failed else None, **metrics})
    return rows


def write_sweep(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """The rows as kubesched sweep writes them: integers int64, parameters text, metrics float64."""
    pa: Any = importlib.import_module("pyarrow")  # untyped
    pq: Any = importlib.import_module("pyarrow.parquet")
    integers = {"cell", "seed", "repetition", "runSeed"}
    fields = [pa.field(name, pa.int64() if name in integers else pa.float64() if name in SWEEP_METRICS
                       else pa.string()) for name in rows[0]]
    pq.write_table(pa.Table.from_pylist(list(rows), schema=pa.schema(fields)), path)
    return path


def document(path: Path) -> dict[str, Any]:
    """A JSON result file's document."""
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded

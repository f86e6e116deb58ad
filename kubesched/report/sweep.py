"""A sweep's Parquet results (``kubesched sweep``: one row per cell, its parameter columns, then one column per run
metric under its dotted name): the figures over all cells, and per varied parameter a summary table and the
distribution of the headline figures over its values (box plots with every cell's point)."""

from __future__ import annotations

import importlib
import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kubesched.errors import InputError
from kubesched.report.model import Block, Plot, Section, Table, Text, number, table
from kubesched.sweep.columns import ARGS_PREFIX, PARAMETER_COLUMNS

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

#: Columns that identify or check a cell rather than vary the experiment: never plotted as a parameter.
BOOKKEEPING = ("cell", "inputDigest", "profileDigest", "runSeed", "kubeschedVersion")
#: The column holding a failed cell's message (its metrics are null).
ERROR = "error"
#: The figures a sweep's plots and tables show, those the file has in this order; the resources' ratios after the
#: pod outcomes.
HEADLINE = ("pods.bound", "pods.pending", "pods.preempted", "preemptions.count", "pendingTime.p95",
            "fragmentation.copies")
HEADLINE_RESOURCES = ("cpu", "memory")


@attrs.frozen
class SweepDocument:
    """A sweep's rows, its parameter columns and its metric columns (dotted names holding numbers)."""

    source: str
    parameters: tuple[str, ...]
    metrics: tuple[str, ...]
    rows: tuple[Mapping[str, Any], ...]

    def finished(self) -> list[Mapping[str, Any]]:
        """The rows of cells that ran (no error)."""
        return [row for row in self.rows if not row.get(ERROR)]

    def headline(self) -> list[str]:
        """The figures shown: the headline ones the file has (the first six metrics when it has none of them)."""
        wanted = [*HEADLINE[:3], *(f"resources.{r}.ratio" for r in HEADLINE_RESOURCES), *HEADLINE[3:]]
        shown = [name for name in wanted if name in self.metrics]
        return shown or list(self.metrics[:6])

    def varied(self) -> list[str]:
        """The parameters that vary (two values at least), bookkeeping columns aside, each once: a column that
        groups the cells exactly as an earlier one (a label and its digest) is left out."""
        chosen: list[str] = []
        partitions: list[list[int]] = []
        for name in self.parameters:
            if name in BOOKKEEPING or name == ERROR:
                continue
            values = [_key(row.get(name)) for row in self.rows]
            if len(set(values)) < 2:
                continue
            first: dict[object, int] = {}
            partition = [first.setdefault(v, len(first)) for v in values]
            if partition not in partitions:
                chosen.append(name)
                partitions.append(partition)
        return chosen


def _key(value: object) -> object:
    """A parameter value as a grouping key (lists and maps as their text)."""
    return value if isinstance(value, str | int | float | bool) or value is None else repr(value)


def read_sweep(path: Path, source: str) -> tuple[SweepDocument | None, list[InputError]]:
    """A Parquet file as a sweep's results: the sweep's parameter columns (docs/sweep.md: the cell, input, profile,
    seed... and each varied plugin arg) and any column not holding numbers are parameters, the other columns
    metrics (``attempts``, ``endTime`` and the dotted ones); an unreadable file or one without metrics is an
    error."""
    try:  # untyped: read through Any
        pa: Any = importlib.import_module("pyarrow")
        pq: Any = importlib.import_module("pyarrow.parquet")
    except ImportError:
        return None, [InputError("reading a sweep's Parquet file needs pyarrow, which is not installed: pip install "
                                 "'kubesched[report]'", file=source)]
    try:
        data = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        return None, [InputError(f"not a Parquet file kubesched can read: {exc}", file=source)]
    parameters: list[str] = []
    metrics: list[str] = []
    for field in data.schema:
        numeric = pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
        parameter = field.name in PARAMETER_COLUMNS or field.name.startswith(ARGS_PREFIX) or not numeric
        (parameters if parameter else metrics).append(field.name)
    if not metrics:
        return None, [InputError("no metric column (a dotted name holding numbers, such as pods.bound): not the "
                                 "results of kubesched sweep", file=source)]
    rows = tuple(data.to_pylist())
    return SweepDocument(source, tuple(parameters), tuple(metrics), rows), []


def sweep_section(sweep: SweepDocument, title: str) -> Section:
    """The sweep's section: what it holds, the figures over all cells, then per varied parameter its table and
    plot."""
    finished = sweep.finished()
    failed = len(sweep.rows) - len(finished)
    varied = sweep.varied()
    constant = [name for name in sweep.parameters if name not in varied and name not in BOOKKEEPING
                and name != ERROR and len({_key(row.get(name)) for row in sweep.rows}) == 1 and sweep.rows]
    blocks: list[Block] = [Text(
        f"{len(sweep.rows)} cell(s), {len(sweep.metrics)} metric column(s)"
        + (f"; {failed} cell(s) failed (their error column set) and are left out of the figures" if failed else "")
        + (f". Varied: {', '.join(varied)}" if varied else ". No parameter varies")
        + (". The same in every cell: " + ", ".join(f"{name} = {_shown(sweep.rows[0].get(name))}"
                                                    for name in constant) if constant else "") + ".")]
    headline = sweep.headline()
    blocks.append(_overall(finished, headline, "Figures over all cells", folded=False))
    blocks.append(_overall(finished, list(sweep.metrics), "Every figure over all cells", folded=True))
    for name in varied:
        values = _ordered({_key(row.get(name)) for row in finished})
        rows = []
        for value in values:
            group = [row for row in finished if _key(row.get(name)) == value]
            rows.append([_shown(value), str(len(group)), *(number(_mean(group, m)) for m in headline)])
        blocks.append(table(f"Mean by {name}", [name, "CELLS", *headline], rows))
        blocks.append(Plot(f"Distribution by {name}", _distribution_builder(finished, name, values, headline)))
    return Section(title, tuple(blocks))


def _overall(rows: Sequence[Mapping[str, Any]], metrics: Sequence[str], title: str, *, folded: bool) -> Table:
    lines = []
    for name in metrics:
        values = _values(rows, name)
        if not values:
            lines.append([name, "0", "-", "-", "-", "-"])
            continue
        lines.append([name, str(len(values)), number(min(values)), number(statistics.median(values)),
                      number(statistics.fmean(values)), number(max(values))])
    return table(title, ["METRIC", "CELLS", "MIN", "MEDIAN", "MEAN", "MAX"], lines, folded=folded)


def _values(rows: Sequence[Mapping[str, Any]], name: str) -> list[float]:
    """The finite values of a metric over ``rows`` (nulls, where a row lacks it, left out)."""
    found = (row.get(name) for row in rows)
    return [float(v) for v in found if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]


def _mean(rows: Sequence[Mapping[str, Any]], name: str) -> float | None:
    values = _values(rows, name)
    return statistics.fmean(values) if values else None


def _ordered(values: set[object]) -> list[object]:
    """Parameter values in a reading order: numbers (and texts of numbers) by value, then the rest by text, null
    last."""
    def rank(value: object) -> tuple[int, float, str]:
        if value is None:
            return (2, 0.0, "")
        try:
            return (0, float(value), str(value))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return (1, 0.0, str(value))
    return sorted(values, key=rank)


def _shown(value: object) -> str:
    return "null" if value is None else number(value)


def _distribution_builder(rows: Sequence[Mapping[str, Any]], name: str, values: Sequence[object],
                          metrics: Sequence[str]) -> Any:
    """The plot's builder: one box plot per headline figure, one box per value of the parameter."""
    def build() -> Figure:
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots

        figure = make_subplots(rows=len(metrics), cols=1, subplot_titles=list(metrics), vertical_spacing=0.25
                               / max(len(metrics), 1))
        categories = [_shown(v) for v in values]
        for index, metric in enumerate(metrics, start=1):
            points = [(_shown(_key(row.get(name))), row.get(metric)) for row in rows]
            kept = [(x, float(y)) for x, y in points if isinstance(y, int | float) and math.isfinite(y)]
            figure.add_trace(go.Box(x=[x for x, _ in kept], y=[y for _, y in kept], name=metric, boxpoints="all",
                                    jitter=0.3, pointpos=0, showlegend=False), row=index, col=1)
            figure.update_xaxes(type="category", categoryorder="array", categoryarray=categories, row=index, col=1)
        figure.update_layout(title={"text": f"Distribution by {name}"}, template="plotly_white",
                             height=90 + 220 * len(metrics), margin={"l": 60, "r": 20, "t": 80, "b": 40})
        return figure
    return build

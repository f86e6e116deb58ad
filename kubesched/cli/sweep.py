"""The ``kubesched sweep`` command: check the Sweep file and the flags (every problem at once), run the cells on
local processes or a Dask cluster with a progress bar on a terminal, write the Parquet file, print the summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NoReturn

import click
import yaml

from kubesched.cli.progress import stderr_is_terminal, wants_progress
from kubesched.errors import KubeschedError
from kubesched.io.errors import InputErrorList
from kubesched.validation import LINE_MAX, did_you_mean, terminal

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.progress import TaskID

    from kubesched.sweep.matrix import Cell


class SweepBar:
    """A rich progress bar of the cells on standard error; it goes away when the sweep ends."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self._progress = Progress(TextColumn("cells"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                  console=console or Console(stderr=True), transient=True)
        self._task: TaskID | None = None

    def __enter__(self) -> SweepBar:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._progress.stop()

    def started(self, total: int, finished: int) -> None:
        """``total`` cells, ``finished`` of them reused."""
        self._task = self._progress.add_task("cells", total=total, completed=finished)

    def advance(self) -> None:
        """One more cell finished."""
        if self._task is not None:
            self._progress.advance(self._task)


def _fail(lines: list[str]) -> NoReturn:
    for line in lines:
        click.echo(terminal(f"error: {line}", LINE_MAX), err=True)
    sys.exit(1)


def _lines(exc: KubeschedError) -> list[str]:
    return [str(e) for e in exc.errors] if isinstance(exc, InputErrorList) else str(exc).splitlines() or [""]


@click.command()
@click.argument("sweep_file", metavar="SWEEP.yaml", type=click.Path(dir_okay=False))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: the CPU count; 1 runs the cells in this process).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS",
              help="Run the cells on the Dask distributed cluster whose scheduler is at ADDRESS (tcp://HOST:8786).")
@click.option("--send-inputs", "send_inputs", is_flag=True,
              help="With --dask: send the input files to the workers, instead of their reading the paths (which "
                   "they must then share).")
@click.option("--parquet", "parquet", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="The results file (default: the Sweep file's name with .parquet, in the current directory).")
@click.option("--resume", is_flag=True,
              help="Reuse the finished cells of the results file and of an interrupted sweep's journal.")
@click.option("--by", "by", multiple=True, metavar="PARAM",
              help="Group the summary by this parameter (repeatable; default: profile): input, inputKind, profile, "
                   "seed, repetition, runSeed, or a varied plugin arg (args.PLUGIN.KEY).")
@click.option("--metric", "metrics", multiple=True, metavar="NAME",
              help="A run metric the summary shows (repeatable; default: pods.bound, pods.pending, "
                   "preemptions.count, resources.cpu.ratio, resources.cpu.nodes.cv, fragmentation.copies, "
                   "pendingTime.p95).")
@click.option("-o", "--output", "output", type=click.Choice(["table", "json", "yaml"]), default="table",
              show_default=True, help="The summary's form.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar on stderr (it is drawn only on a terminal anyway).")
def sweep(sweep_file: str, jobs: int | None, dask_address: str | None, send_inputs: bool, parquet: str | None,
          resume: bool, by: tuple[str, ...], metrics: tuple[str, ...], output: str, quiet: bool) -> None:
    """Run every cell of the Sweep file SWEEP.yaml (kind: Sweep: inputs x profiles x seeds x repetitions, see
    docs/sweep.md), one simulation each, writing one row per cell (its parameters, input digest and run metrics)
    to a Parquet file, and print a summary grouped by --by."""
    try:
        _sweep(Path(sweep_file), jobs, dask_address, send_inputs, parquet, resume, by, metrics, output, quiet)
    except KubeschedError as exc:
        _fail(_lines(exc))


def _sweep(path: Path, jobs: int | None, dask_address: str | None, send_inputs: bool, parquet: str | None,
           resume: bool, by: tuple[str, ...], metrics: tuple[str, ...], output: str, quiet: bool) -> None:
    import contextlib

    from kubesched.runtime import PluginRegistry
    from kubesched.sweep import executors
    from kubesched.sweep.matrix import Plan, plan
    from kubesched.sweep.run import run_sweep
    from kubesched.sweep.store import ResultStore, pyarrow_modules
    from kubesched.sweep.summary import HEADLINE, summarise

    problems: list[str] = []
    if send_inputs and dask_address is None:
        problems.append("--send-inputs: only with --dask (local processes read the inputs where they are)")
    if jobs is not None and dask_address is not None:
        problems.append("--jobs: not with --dask (the Dask cluster's workers run the cells)")
    try:
        pyarrow_modules()
    except KubeschedError as exc:
        problems.append(str(exc))
    checked: Plan | None = None
    try:
        checked = plan(path, PluginRegistry.discover())
    except KubeschedError as exc:
        problems.extend(_lines(exc))
    by = by or ("profile",)
    if checked is not None:
        allowed = checked.parameters()
        for name in by:
            if name not in allowed:
                problems.append(f"--by: unknown parameter {name!r}{did_you_mean(name, allowed)}; parameters: "
                                f"{', '.join(allowed)}")
    if problems or checked is None:
        _fail(problems)
    for entry in checked.inputs:
        for warning in entry.warnings:
            click.echo(terminal(f"warning: input {entry.cell_input.label!r}: {warning}", LINE_MAX), err=True)
    for warning in dict.fromkeys(w for p in checked.profiles for w in p.warnings):
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    store = ResultStore(Path(parquet) if parquet is not None else Path(path.with_suffix(".parquet").name))
    if dask_address is not None:
        address = dask_address
        inputs = {c.cell_input.label: c for c in checked.inputs} if send_inputs else None

        def execute(cells: Sequence[Cell], done: executors.Done) -> None:
            executors.run_dask(cells, address, done, inputs=inputs)
    else:
        workers = jobs if jobs is not None else executors.default_jobs()

        def execute(cells: Sequence[Cell], done: executors.Done) -> None:
            executors.run_local(cells, workers, done)

    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(SweepBar()) if wants_progress(stderr_is_terminal(), quiet) else None
        finished = run_sweep(checked, store, execute, resume=resume, progress=bar)
    for warning in finished.warnings:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    click.echo(terminal(f"sweep {terminal(checked.spec.name)}: {len(finished.rows)} cell(s), {finished.ran} run, "
                        f"{finished.reused} reused: {store.path}", LINE_MAX), err=True)
    chosen = metrics or tuple(m for m in HEADLINE if any(m in row for row in finished.rows))
    present = sorted({name for row in finished.rows for name in row})
    unknown = [m for m in chosen if m not in present]
    summary = summarise(finished.rows, by, [m for m in chosen if m in present])
    if output == "json":
        click.echo(json.dumps(summary.to_json(), indent=2))
    elif output == "yaml":
        click.echo(yaml.safe_dump(json.loads(json.dumps(summary.to_json())), sort_keys=False), nl=False)
    else:
        click.echo("\n".join(terminal(line, LINE_MAX) for line in summary.lines()))
    errors = [f"--metric: no cell has a metric {m!r}{did_you_mean(m, present)}" for m in unknown]
    failed = [row for row in finished.rows if row.get("error") is not None]
    if failed:
        first = failed[0]
        errors.append(f"{len(failed)} of {len(finished.rows)} cell(s) failed (their rows' error column says why); "
                      f"first: cell {first['cell']} (input {first['input']!r}, profile {first['profile']!r}, seed "
                      f"{first['seed']}, repetition {first['repetition']}): {first['error']}")
    if errors:
        _fail(errors)

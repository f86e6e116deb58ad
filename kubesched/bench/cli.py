"""The ``kubesched bench`` command's work: check the request, run it with a progress bar on a terminal, print."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from types import TracebackType

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from kubesched.bench.harness import BenchResult, run_bench
from kubesched.bench.workloads import BenchError, Workload, workload
from kubesched.errors import KubeschedError
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry


def _count(option: str, value: int | None, default: int, *, minimum: int, problems: list[str]) -> int:
    """``value`` (or the workload's ``default``), noting a problem when it is below ``minimum``."""
    if value is None:
        return default
    if value < minimum:
        what = "a positive integer" if minimum > 0 else "a non-negative integer"
        problems.append(f'{option}: must be {what}, got "{value}"')
    return value


class _Bar:
    """A rich progress bar on standard error, one task per phase."""

    def __init__(self) -> None:
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self._task: TaskID | None = None

    def __enter__(self) -> _Bar:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._progress.stop()

    def phase(self, description: str, total: int) -> None:
        """Start a task for the phase."""
        if self._task is not None:
            self._progress.update(self._task, visible=False)
        self._task = self._progress.add_task(description, total=total)

    def advance(self) -> None:
        """One pod more in the current phase."""
        if self._task is not None:
            self._progress.advance(self._task)


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal: only then is a progress bar drawn."""
    return sys.stderr.isatty()


def _table(result: BenchResult) -> str:
    """The figures, one per line."""
    latency = result.latency_seconds
    rows = [
        ("workload", result.workload + (" (reference: per-node path)" if result.reference else "")),
        ("nodes / init pods / measured pods", f"{result.nodes} / {result.init_pods} / {result.measure_pods}"),
        ("throughput", f"{result.pods_per_second:.1f} pods/s"),
        ("latency p50 / p90 / p99", " / ".join(f"{latency[k] * 1000:.2f} ms" for k in ("p50", "p90", "p99"))),
        ("peak RSS", f"{result.peak_rss_bytes / 2**20:.0f} MiB"),
        ("decision digest", result.decision_digest),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def bench_command(workload_name: str, *, nodes: int | None, init_pods: int | None, measure_pods: int | None,
                  load_profile: Callable[[PluginRegistry], SchedulerConfiguration], seed: int, reference: bool,
                  output: str) -> None:
    """Check every part of the request (reporting all problems at once), run the benchmark, print the result."""
    problems: list[str] = []
    chosen: Workload | None = None
    try:
        chosen = workload(workload_name)
    except BenchError as exc:
        problems.append(str(exc))
    sizes = (
        _count("--nodes", nodes, chosen.nodes if chosen else 0, minimum=1, problems=problems),
        _count("--init-pods", init_pods, chosen.init_pods if chosen else 0, minimum=0, problems=problems),
        _count("--measure-pods", measure_pods, chosen.measure_pods if chosen else 0, minimum=1, problems=problems),
    )
    registry = PluginRegistry.discover()
    config: SchedulerConfiguration | None = None
    try:
        config = load_profile(registry)
    except KubeschedError as exc:
        problems.extend(str(exc).splitlines())
    if problems or chosen is None or config is None:
        raise BenchError("\n".join(problems))
    n_nodes, n_init, n_measure = sizes
    if stderr_is_terminal():
        with _Bar() as bar:
            result = run_bench(chosen, config, registry, nodes=n_nodes, init_pods=n_init, measure_pods=n_measure,
                               seed=seed, reference=reference, progress=bar)
    else:
        result = run_bench(chosen, config, registry, nodes=n_nodes, init_pods=n_init, measure_pods=n_measure,
                           seed=seed, reference=reference)
    if output == "json":
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(_table(result))

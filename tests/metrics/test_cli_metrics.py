"""`kubesched simulate` with --metrics-file, --events and --quiet, and its progress bar."""

from __future__ import annotations

import io
from pathlib import Path
from types import TracebackType

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console

from kubesched.cli import progress
from kubesched.cli.main import main
from kubesched.cli.progress import SimulationBar, wants_progress
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import VirtualClock
from kubesched.sim.simulate import Simulation
from tests.metrics.scenario import known_input

MANIFESTS = """\
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}
---
kind: Pod
metadata: {name: web}
spec: {containers: [{name: a, resources: {requests: {cpu: '1'}}}]}
"""


def simulate(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    manifest = tmp_path / "in.yaml"
    manifest.write_text(MANIFESTS, encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(manifest), *args], env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_metrics_file_is_prometheus_text(tmp_path: Path) -> None:
    """--metrics-file PATH writes the metrics in the Prometheus text format."""
    target = tmp_path / "metrics.prom"
    code, _out, _err = simulate(tmp_path, "--metrics-file", str(target))
    assert code == 0
    families = {f.name: f for f in text_string_to_metric_families(target.read_text(encoding="utf-8"))}
    [scheduled] = [s for s in families["scheduler_schedule_attempts"].samples if s.labels["result"] == "scheduled"]
    assert scheduled.value == 1.0


def test_unwritable_metrics_file_is_one_error_line(tmp_path: Path) -> None:
    """A metrics file that cannot be written: one line naming the option and path, exit 1, no traceback."""
    target = tmp_path / "missing" / "metrics.prom"
    code, _out, err = simulate(tmp_path, "--metrics-file", str(target))
    assert code == 1
    assert err.splitlines()[-1] == f'error: --metrics-file: cannot write "{target}": No such file or directory'


def test_events_flag_adds_the_events_table(tmp_path: Path) -> None:
    """--events prints the events between the pods and the nodes."""
    code, out, _err = simulate(tmp_path, "--events")
    assert code == 0
    assert "Events" in out
    assert "Successfully assigned default/web to n1" in out


@pytest.mark.parametrize(("terminal", "quiet", "drawn"), [(True, False, True), (True, True, False),
                                                          (False, False, False), (False, True, False)])
def test_progress_bar_only_on_a_terminal_without_quiet(terminal: bool, quiet: bool, drawn: bool) -> None:
    """The bar is drawn only when stderr is a terminal, and never with --quiet."""
    assert wants_progress(terminal, quiet) is drawn


class FakeBar:
    """Stands in for the rich bar: records that it was used and what it was told."""

    used: list[FakeBar] = []  # noqa: RUF012 - the instances of a test

    def __init__(self) -> None:
        self.pods = -1
        self.bound = 0
        FakeBar.used.append(self)

    def __enter__(self) -> FakeBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        return None

    def started(self, pods: int, clock: VirtualClock) -> None:
        self.pods = pods

    def pod_bound(self) -> None:
        self.bound += 1


@pytest.mark.parametrize(("terminal", "args", "drawn"), [(True, (), True), (True, ("--quiet",), False),
                                                         (True, ("-q",), False), (False, (), False)])
def test_simulate_draws_the_bar_only_when_wanted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool,
                                                 args: tuple[str, ...], drawn: bool) -> None:
    """kubesched simulate uses the bar on a terminal unless --quiet; the bar hears of each binding."""
    FakeBar.used = []
    monkeypatch.setattr(progress, "SimulationBar", FakeBar)
    monkeypatch.setattr(progress, "stderr_is_terminal", lambda: terminal)
    code, _out, _err = simulate(tmp_path, *args)
    assert code == 0
    assert [(bar.pods, bar.bound) for bar in FakeBar.used] == ([(1, 1)] if drawn else [])


def test_simulation_tells_its_progress_of_every_binding(registry: PluginRegistry) -> None:
    """The run reports the pods it starts with and each pod bound, and its outcome is unchanged."""
    bar = FakeBar()
    config = load_config("default", registry)
    with_bar = Simulation(known_input(), config, registry, progress=bar).run()
    assert (bar.pods, bar.bound) == (4, 2)
    assert with_bar.to_json() == Simulation(known_input(), config, registry).run().to_json()


def test_rich_bar_shows_pods_and_simulated_time() -> None:
    """On a terminal the bar shows pods bound of pods to schedule and the simulated time."""
    out = io.StringIO()
    clock = VirtualClock()
    bar = SimulationBar(Console(file=out, force_terminal=True, width=120))
    with bar:
        bar.started(3, clock)
        clock.advance_to(12.5)
        bar.pod_bound()
        bar._progress.refresh()
        shown = out.getvalue()
    assert "1/3" in shown
    assert "t=12.5s" in shown


def test_rich_bar_starts_afresh_for_a_run_made_again() -> None:
    """A second run (--explain-pending records the pods pending at the end) replaces the first run's bar."""
    clock = VirtualClock()
    bar = SimulationBar(Console(file=io.StringIO(), force_terminal=True, width=120))
    with bar:
        bar.started(3, clock)
        bar.pod_bound()
        bar.pod_bound()
        bar.started(3, clock)
        bar.pod_bound()
        tasks = bar._progress.tasks
    assert [(task.completed, task.total) for task in tasks] == [(1, 3)]

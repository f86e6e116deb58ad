"""One cell, run wherever it is sent (this process, a local worker process, a Dask worker): its input loaded, its
profile's configuration, one simulation, and its row of parameters and run metrics. The row depends on nothing
but the cell, so every executor gives the same one.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

import attrs

from kubesched.bench.churn import Churn
from kubesched.bench.workloads import workload
from kubesched.errors import KubeschedError
from kubesched.io.errors import InputErrorList
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import SchedulerConfiguration, parse_config
from kubesched.profiles.files import toml_document
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import ScenarioRunner
from kubesched.sim.simulate import Simulation, SimulationError, SimulationResult
from kubesched.sweep.inputs import BENCH, SCENARIO, Files, materialise
from kubesched.sweep.matrix import Cell
from kubesched.sweep.profiles import ResolvedProfile
from kubesched.sweep.spec import BenchInput


@attrs.frozen
class CellOutcome:
    """A finished cell: its row (parameters, ``error`` and every run metric) and the run's warnings."""

    row: dict[str, Any]
    warnings: tuple[str, ...] = ()


@functools.cache
def _registry() -> PluginRegistry:
    """The installed plugins, discovered once per process."""
    return PluginRegistry.discover()


_CONFIGS: dict[str, SchedulerConfiguration] = {}
_CONFIGS_LOCK = threading.Lock()


def _configuration(profile: ResolvedProfile) -> SchedulerConfiguration:
    """The variant's configuration, parsed once per process from the TOML the cell carries."""
    with _CONFIGS_LOCK:
        config = _CONFIGS.get(profile.digest)
        if config is None:
            config = _CONFIGS[profile.digest] = parse_config(toml_document(profile.toml, profile.label), _registry(),
                                                             profile.label)
    return config


def _bench(bench: BenchInput, config: SchedulerConfiguration, registry: PluginRegistry, seed: int) -> SimulationResult:
    """The workload as ``kubesched bench`` runs it: the init pods scheduled until the cluster settles, then the
    measured pods (nothing timed)."""
    chosen = workload(bench.workload)
    sim = Simulation(ClusterInput(nodes=tuple(chosen.build_nodes(bench.nodes)),
                                  pods=tuple(chosen.build_init_pods(bench.init_pods))), config, registry, seed=seed)
    try:
        sim.start()
        sim.settle()
        measured = chosen.build_measure_pods(bench.measure_pods)
        if chosen.churn:  # SchedulingWithMixedChurn's churn runs beside the measured pods, as in kubesched bench
            sim.cluster.subscribe(Churn(sim, {p.uid for p in measured}))
        sim.add_pods(measured)
        sim.settle()
    except SimulationError as error:
        error.result = sim.result()
        raise
    return sim.result()


def _simulate(cell: Cell, paths: tuple[str, ...], config: SchedulerConfiguration, seed: int) -> SimulationResult:
    registry = _registry()
    if cell.input.kind == BENCH:
        assert cell.input.bench is not None
        return _bench(cell.input.bench, config, registry, seed)
    if cell.input.kind == SCENARIO:
        return ScenarioRunner(load_scenario(Path(paths[0])), config, registry, seed=seed).run()
    return Simulation(load(paths), config, registry, seed=seed).run()


def run_cell(cell: Cell, files: Files = ()) -> CellOutcome:
    """Run ``cell``; its input from the paths it names, or from ``files`` (sent with it) written to a folder of
    this machine. A cell that fails (a run that does not settle, an input that no longer loads) still gives a
    row: its ``error`` says why, with the metrics of the run so far when there was one."""
    paths = cell.input.paths
    shown: tuple[str, str] | None = None
    if files:
        folder = materialise(files, cell.input_digest)
        paths = tuple(str(folder / p) for p in paths)
        shown = (str(folder), cell.input.shown_root)
    row = {**cell.parameters(), "error": None}
    result: SimulationResult | None = None
    try:
        result = _simulate(cell, paths, _configuration(cell.profile), row["runSeed"])
    except SimulationError as exc:
        row["error"], result = str(exc), exc.result
    except InputErrorList as exc:
        row["error"] = "; ".join(str(e) for e in exc.errors)
    except KubeschedError as exc:
        row["error"] = str(exc)
    if result is not None and result.analysis is not None:
        row.update((name, float(value)) for name, value in result.analysis.metrics.flat().items())
    warnings = result.warnings if result is not None else ()
    if shown is not None:
        warnings = tuple(w.replace(*shown) for w in warnings)
        if row["error"] is not None:
            row["error"] = row["error"].replace(*shown)
    return CellOutcome(row, warnings)

"""Writing and running scenarios in tests."""

from __future__ import annotations

from pathlib import Path

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import run_scenario
from kubesched.sim.scenario_steps import Scenario
from kubesched.sim.simulate import PodResult, SimulationResult

HEADER = "apiVersion: kubesched.io/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n  steps:\n"


def node(name: str, cpu: str = "4", labels: str = "{}") -> str:
    """An inline Node object (one flow mapping)."""
    return (f"{{kind: Node, apiVersion: v1, metadata: {{name: {name}, labels: {labels}}}, "
            f"status: {{capacity: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}}}")


def write(tmp_path: Path, steps: str, name: str = "scenario.yaml") -> Path:
    """A scenario file with ``steps`` (YAML list items indented by 2)."""
    path = tmp_path / name
    path.write_text(HEADER + steps, encoding="utf-8")
    return path


def scenario(tmp_path: Path, steps: str) -> Scenario:
    """The loaded scenario."""
    return load_scenario(write(tmp_path, steps))


def run(tmp_path: Path, steps: str, registry: PluginRegistry, seed: int = 0) -> SimulationResult:
    """The result of running the scenario."""
    return run_scenario(scenario(tmp_path, steps), load_config("default", registry), registry, seed=seed)


def pods(result: SimulationResult, prefix: str = "") -> list[PodResult]:
    """The result's pods whose name starts with ``prefix``."""
    return [p for p in result.pods if p.name.startswith(prefix)]


def placed(result: SimulationResult, prefix: str = "") -> list[tuple[str, str | None]]:
    """(name, node) of the bound pods starting with ``prefix``, by name."""
    return sorted((p.name, p.node) for p in pods(result, prefix) if p.phase == "Bound")


def times(result: SimulationResult, reason: str, kind: str = "") -> list[float]:
    """The times of the events of ``reason`` (about objects of ``kind``, when given)."""
    return [e.time for e in result.events if e.reason == reason and kind in ("", e.kind)]

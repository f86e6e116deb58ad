"""Specification of ``kubesched simulate`` facing failing plugins: summary on stderr, --strict, unsettled runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kubesched.cli.main import main
from kubesched.framework._plugin import Plugin
from kubesched.io.load import ClusterInput
from kubesched.profiles import SchedulerConfiguration
from kubesched.runtime import Explainer, PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.simulate import Simulation, SimulationProgress, SimulationResult
from tests.conftest import write
from tests.sim.test_keeps_going import ExitInFilter, RefuseBind

MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p0, namespace: default}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec: {containers: [{name: c, image: x}]}
"""


def simulate_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: type[Plugin], point: str,
                  *options: str) -> Result:
    """Run ``kubesched simulate`` in-process with ``plugin`` installed and alone at ``point``."""
    installed = PluginRegistry.discover().with_plugins(plugin)
    monkeypatch.setattr(PluginRegistry, "discover", classmethod(lambda cls: installed))
    profile = write(tmp_path / "p.toml", f'[[profiles]]\n[profiles.plugins.{point}]\n'
                                         f'enabled = [{{ name = "{plugin.name}" }}]\ndisabled = [{{ name = "*" }}]\n')
    cluster = write(tmp_path / "cluster.yaml", MANIFESTS)
    return CliRunner().invoke(main, ["simulate", str(cluster), "--profile", str(profile), "-o", "json", *options])


def test_plugin_errors_are_summarised_once_on_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin calling sys.exit fails its pod; the run prints its result and one summary line per plugin."""
    done = simulate_with(tmp_path, monkeypatch, ExitInFilter, "filter")
    assert done.exit_code == 0, done.stderr
    phases = {p["name"]: p["phase"] for p in json.loads(done.stdout)["pods"]}
    assert phases == {"p0": "Pending", "p1": "Bound"}
    summary = [line for line in done.stderr.splitlines() if line.startswith("warning: plugin error: ")]
    assert len(summary) == 1
    assert summary[0].startswith('warning: plugin error: Filter plugin "ExitInFilter" failed 5 time(s) on 1 pod(s); '
                                 'first: Filter plugin "ExitInFilter" on pod default/p0, node n0: SystemExit: 3')


def test_strict_makes_a_plugin_error_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --strict any plugin error exits 1, after the result and the summary."""
    done = simulate_with(tmp_path, monkeypatch, ExitInFilter, "filter", "--strict")
    assert done.exit_code == 1
    assert json.loads(done.stdout)["kind"] == "SimulationResult"
    assert done.stderr.splitlines()[-1] == "error: 5 plugin error(s) (--strict)"


def test_an_unsettled_run_prints_the_partial_result_then_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that hits the attempt bound prints what it has, then one error line naming the cycling pods; exit 1."""
    def bounded(cluster_input: ClusterInput, config: SchedulerConfiguration, registry: PluginRegistry, *,
                seed: int = 0, progress: SimulationProgress | None = None,
                explainer: Explainer | None = None, storage: StorageSettings | None = None) -> SimulationResult:
        return Simulation(cluster_input, config, registry, seed=seed, progress=progress,
                          explainer=explainer, storage=storage).run(max_attempts=3)

    monkeypatch.setattr("kubesched.cli.main.run_simulation", bounded)
    done = simulate_with(tmp_path, monkeypatch, RefuseBind, "bind")
    assert done.exit_code == 1
    assert [p["phase"] for p in json.loads(done.stdout)["pods"]] == ["Pending", "Pending"]
    assert done.stderr.splitlines()[-1].startswith(
        "error: the simulation did not settle after 3 scheduling attempts; pods still being retried: default/p0 (")

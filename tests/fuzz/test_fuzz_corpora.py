"""The fuzz corpora as tests (issue 24): seeded mutants of the repository's own manifests, profiles,
KubeSchedulerConfiguration files and scenarios, each run through the CLI in-process. Whatever the mutant, the
command ends with exit 0 or 1 (a result, or located errors), never a traceback, and within a time bound.

The corpora are small (a few hundred inputs per kind, the lot in well under a minute) and fixed by their seeds, so
a failure names the mutant that caused it and reruns the same; the larger campaigns use other seeds and sizes.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.profiles import load_config, render, shipped_profiles
from kubesched.runtime import PluginRegistry
from tests.fuzz.mutate import Mutator, dump_toml, dump_yaml, parse_yaml

REPO = Path(__file__).parents[2]
PROFILES = REPO / "kubesched" / "profiles"
MANIFESTS = [REPO / "examples" / name for name in (
    "quickstart.yaml", "compare/cluster.yaml", "explain/cluster.yaml", "explain-workloads/cluster.yaml",
    "preemption/cluster.yaml", "sweep/cluster.yaml", "scenarios/day-cluster.yaml")]
TINY_CLUSTER = """\
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}
---
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
"""
#: A scenario with a CronJob, a Job, a drain, a delete and a run-until: every kind of time a scenario holds.
TIMED_SCENARIO = """\
apiVersion: kubesched.io/v1alpha1
kind: Scenario
metadata: {name: timed}
spec:
  settings: {controllerDelay: 1s, jobDuration: 2m, provisioningDelay: 5s}
  steps:
  - create:
      objects:
      - {kind: Node, metadata: {name: n1}, status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}}
      - {kind: Node, metadata: {name: n2}, status: {capacity: {cpu: '4', memory: 8Gi, pods: '110'}}}
      - {kind: Pod, metadata: {name: p}, spec: {terminationGracePeriodSeconds: 30, containers: [{name: c}]}}
      - apiVersion: batch/v1
        kind: CronJob
        metadata: {name: tick, creationTimestamp: '2026-01-01T00:00:00Z'}
        spec:
          schedule: '*/30 * * * *'
          startingDeadlineSeconds: 60
          jobTemplate:
            spec:
              activeDeadlineSeconds: 600
              template:
                metadata: {annotations: {kubesched.io/duration: 1m}}
                spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  - {at: 10m, drain-node: {name: n1, timeout: 1m}}
  - {at: 20m, delete: [{kind: Pod, name: p}]}
  - run-until: 2h
"""
#: How long one input may take; well above the slowest seed (about a second), far below a hang.
BOUND_SECONDS = 20


@pytest.fixture(autouse=True)
def discovered_once(monkeypatch: pytest.MonkeyPatch, registry: PluginRegistry) -> None:
    """Every command finds the plugins already discovered: discovery (reading the entry points, over a tenth of a
    second) is the same for every mutant and would be most of the time spent."""
    monkeypatch.setattr(PluginRegistry, "discover", classmethod(lambda cls, *args, **kwargs: registry))


class Hang(BaseException):
    """A mutant ran past the bound (a BaseException, so neither the CLI nor click catches it)."""


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the block once ``seconds`` of wall-clock time have passed."""
    def ring(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def write(path: Path, mutant: str) -> None:
    """The mutant as UTF-8, a lone surrogate as the invalid bytes it stands for (the reader must refuse them)."""
    path.write_bytes(mutant.encode("utf-8", "surrogatepass"))


def run(arguments: list[str], mutant: str) -> None:
    """Run ``kubesched ARGUMENTS`` and check its ending: exit 0 or 1, no traceback, within the bound."""
    with bounded(BOUND_SECONDS):
        result = CliRunner().invoke(main, arguments, env={"COLUMNS": "120"})
    shown = mutant if len(mutant) < 4000 else mutant[:4000] + "..."
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{result.exception!r} on kubesched {' '.join(arguments)} with:\n{shown}") \
            from result.exception
    assert result.exit_code in (0, 1), f"exit {result.exit_code}: {result.output[-2000:]}\n{shown}"
    assert "Traceback" not in result.output, f"{result.output[-4000:]}\n{shown}"


def corpus(seed: int, seeds: list[str], count: int, *, toml: bool = False) -> list[str]:
    """``count`` mutants of ``seeds`` (YAML streams, or TOML documents)."""
    import tomllib

    mutator = Mutator(seed, allow_none=not toml)
    parse: Callable[[str], Any] = tomllib.loads if toml else parse_yaml
    return list(mutator.mutants(seeds, count, parse, dump_toml if toml else dump_yaml))


def kube_configs(registry: PluginRegistry) -> list[str]:
    """The shipped profiles as KubeSchedulerConfiguration files."""
    return [render(load_config(name, registry), "kube-scheduler-config") for name in shipped_profiles()]


@pytest.mark.slow
def test_mutated_manifests_end_cleanly(tmp_path: Path) -> None:
    """300 mutants of the example clusters through ``kubesched simulate``."""
    path = tmp_path / "cluster.yaml"
    for mutant in corpus(24_1, [p.read_text(encoding="utf-8") for p in MANIFESTS], 300):
        write(path, mutant)
        run(["simulate", str(path)], mutant)


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    pytest.param(["profile", "check"], id="profile-check"),
    pytest.param(["profile", "show", "--format", "kube-scheduler-config"], id="profile-show"),
    pytest.param(["simulate", "--profile"], id="simulate"),
])
def test_mutated_profiles_end_cleanly(tmp_path: Path, command: list[str]) -> None:
    """200 mutants of the shipped TOML profiles through each command that reads a profile."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(TINY_CLUSTER, encoding="utf-8")
    path = tmp_path / "profile.toml"
    seeds = [p.read_text(encoding="utf-8") for p in sorted(PROFILES.glob("*.toml"))]
    for mutant in corpus(24_2, seeds, 200, toml=True):
        write(path, mutant)
        run([*command, str(path), *([str(cluster)] if command[0] == "simulate" else [])], mutant)


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    pytest.param(["profile", "check"], id="profile-check"),
    pytest.param(["simulate", "--profile"], id="simulate"),
])
def test_mutated_kube_scheduler_configurations_end_cleanly(tmp_path: Path, registry: PluginRegistry,
                                                           command: list[str]) -> None:
    """200 mutants of the shipped profiles written as KubeSchedulerConfiguration files."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(TINY_CLUSTER, encoding="utf-8")
    path = tmp_path / "config.yaml"
    for mutant in corpus(24_3, kube_configs(registry), 200):
        write(path, mutant)
        run([*command, str(path), *([str(cluster)] if command[0] == "simulate" else [])], mutant)


@pytest.mark.slow
def test_mutated_scenarios_end_cleanly(tmp_path: Path) -> None:
    """200 mutants of the example day (its cluster beside it) and of a scenario holding every kind of time."""
    (tmp_path / "day-cluster.yaml").write_text((REPO / "examples/scenarios/day-cluster.yaml").read_text())
    path = tmp_path / "scenario.yaml"
    seeds = [(REPO / "examples/scenarios/day.yaml").read_text(encoding="utf-8"), TIMED_SCENARIO]
    for mutant in corpus(24_4, seeds, 200):
        write(path, mutant)
        run(["simulate", str(path)], mutant)

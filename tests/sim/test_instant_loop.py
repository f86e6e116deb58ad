"""A run stuck at one instant ends: work that keeps making work while the clock stays put (a Job of endless
completions whose pods run for 0 s under a controller delay of 0) fails naming the busiest objects, with the partial
result, instead of running for ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.runtime import PluginRegistry
from kubesched.sim import instant
from kubesched.sim.simulate import SimulationError, SimulationResult
from tests.sim.scenario import helpers


def endless_job(settings: str, until: str) -> str:
    """A Job of 2147483647 completions on one node, under these scenario settings, run until ``until``."""
    return (f"  - create:\n      objects:\n      - {helpers.node('n1')}\n"
            "      - {apiVersion: batch/v1, kind: Job, metadata: {name: forever}, spec: {completions: 2147483647, "
            "template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}}\n"
            f"  - run-until: {until}\n")


@pytest.fixture(autouse=True)
def few_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 rounds at one instant rather than 10,000: the same bound, reached in a fraction of a second."""
    monkeypatch.setattr(instant, "FREE_ROUNDS", 200)


def run_with(tmp_path: Path, registry: PluginRegistry, monkeypatch: pytest.MonkeyPatch, settings: str,
             until: str) -> SimulationResult:
    """The endless Job's run under ``settings`` until ``until``."""
    monkeypatch.setattr(helpers, "HEADER", helpers.HEADER.replace("spec:\n", f"spec:\n  settings: {settings}\n"))
    return helpers.run(tmp_path, endless_job(settings, until), registry)


def test_a_loop_at_one_instant_fails_naming_what_cycles_with_the_partial_result(
        tmp_path: Path, registry: PluginRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs of 0 s under a controller delay of 0: the completions never let the clock move; past the rounds allowed
    at one instant the run fails naming the Job, and the error carries what was done."""
    with pytest.raises(SimulationError) as raised:
        run_with(tmp_path, registry, monkeypatch, "{controllerDelay: 0s, jobDuration: 0s}", "1h")
    assert str(raised.value) == (
        "the simulation did not move past 0s: 203 rounds of work at that instant without the clock moving; busiest: "
        "Job default/forever (202 events: SuccessfulCreate), Scenario test (2 events: ScenarioStep)")
    assert raised.value.result is not None
    assert len(raised.value.result.pods) == 202


def test_work_that_moves_the_clock_is_not_a_loop(tmp_path: Path, registry: PluginRegistry,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs of 1 s: the same endless Job moves the clock each completion, far more rounds than the bound in all,
    and the run reaches run-until."""
    result = run_with(tmp_path, registry, monkeypatch, "{controllerDelay: 0s, jobDuration: 1s}", "10m")
    assert result.scenario is not None
    assert result.scenario["endTime"] == 600.0
    assert len(result.pods) > 2 * instant.FREE_ROUNDS

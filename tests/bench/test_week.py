"""benchmarks/week.py at a tiny size: the scenario it generates is valid, it runs through the scenario runner with
the run metrics on, and the same options give the same scenario and the same decisions."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import pytest

from tests.conftest import REPO


def load_week() -> ModuleType:
    """benchmarks/week.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("week_benchmark", REPO / "benchmarks" / "week.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WEEK = load_week()


def kinds(doc: dict[str, object]) -> dict[str, int]:
    """How many steps of each action the scenario document has, and how many Jobs its steps create."""
    counts: dict[str, int] = {}
    spec = doc["spec"]
    assert isinstance(spec, dict)
    for step in spec["steps"]:
        action = next(k for k in step if k != "at")
        counts[action] = counts.get(action, 0) + 1
        for obj in step.get(action, {}).get("objects", []) if action in ("create", "apply") else []:
            counts[obj["kind"]] = counts.get(obj["kind"], 0) + 1
    return counts


@pytest.mark.parametrize(("action", "per_day"), [
    pytest.param("drain-node", 1, id="a-drain-a-day"),
    pytest.param("patch-node", 1, id="an-uncordon-a-day"),
    pytest.param("delete-node", 1, id="a-node-failure-a-day"),
    pytest.param("apply", 10, id="a-rollout-of-a-quarter-of-the-deployments-a-day"),
])
def test_the_week_has_its_daily_events(action: str, per_day: int) -> None:
    """At 100 nodes (1% drained, 0.2% failing: at least one each), every day brings its share of each event."""
    assert kinds(WEEK.build(100, 7, 1.0, 0))[action] == 7 * per_day


def test_jobs_arrive_as_a_stream_and_deployments_follow_the_curve() -> None:
    """Jobs arrive at their own times, scale steps move the Deployments every hour the curve changes them."""
    counts = kinds(WEEK.build(500, 1, 1.0, 0))
    assert counts["Job"] > 100
    assert counts["scale"] % WEEK.DEPLOYMENTS == 0  # every Deployment at each hour the curve moves them
    assert counts["scale"] // WEEK.DEPLOYMENTS >= 12
    assert counts["CronJob"] == 1


@pytest.mark.parametrize(("hour", "share"), [pytest.param(2, 0.5, id="trough"), pytest.param(14, 1.0, id="peak"),
                                             pytest.param(8, 0.75, id="morning")])
def test_daily_curve(hour: float, share: float) -> None:
    """Half the peak at 02:00, the peak at 14:00."""
    assert WEEK.daily_curve(hour) == pytest.approx(share)


def test_the_same_options_build_the_same_scenario() -> None:
    """The generator is seeded: the document is the same twice, and another seed changes it."""
    first = json.dumps(WEEK.build(50, 2, 1.0, 3), sort_keys=True)
    assert json.dumps(WEEK.build(50, 2, 1.0, 3), sort_keys=True) == first
    assert json.dumps(WEEK.build(50, 2, 1.0, 4), sort_keys=True) != first


@pytest.mark.parametrize(("flag", "value"), [pytest.param("--nodes", "0", id="nodes"),
                                             pytest.param("--days", "-1", id="days"),
                                             pytest.param("--scale", "0", id="scale")])
def test_a_size_that_is_not_positive_is_an_error(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit status 1 and the flag named, nothing run."""
    assert WEEK.main([flag, value]) == 1
    assert f"error: {flag}: must be positive, got" in capsys.readouterr().err


@pytest.mark.slow
def test_a_tiny_week_runs_and_decides_the_same_twice() -> None:
    """Two days of 10 nodes: every arriving pod is placed, the run metrics are on, and the digest repeats."""
    first = WEEK.run(10, 2, 0.5, 0)
    second = WEEK.run(10, 2, 0.5, 0)
    assert first["podArrivals"] > 200
    assert first["decisions"] >= first["podArrivals"]
    assert first["seriesSamples"] > 0
    assert second["decisionDigest"] == first["decisionDigest"]
    assert WEEK.run(10, 2, 0.5, 1)["decisionDigest"] != first["decisionDigest"]

"""Long scenario runs end: pods that can never be scheduled are retried every five minutes for as long as the
run lasts (as kube-scheduler retries them), which is progress in time, not a run that cannot settle."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.runtime import PluginRegistry
from tests.sim.scenario.helpers import node, pods, run

CRON = ("  - create:\n      objects:\n      - " + node("n1") + "\n"
        "      - {apiVersion: batch/v1, kind: CronJob, metadata: {name: tick}, spec: {schedule: '*/5 * * * *', "
        "jobTemplate: {spec: {template: {metadata: {annotations: {kubesched.io/duration: 1m}}, spec: "
        "{restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}}}}}}\n")


@pytest.mark.slow
def test_jobs_pending_for_a_day_and_a_half_are_retried_until_the_run_ends(tmp_path: Path,
                                                                            registry: PluginRegistry) -> None:
    """The issue's reproducer: the only node deleted at 1h while a CronJob creates a Job every 5 minutes, run until
    36h. Some 420 pods pend, each retried every five minutes (about 88,000 attempts, past a bound of 200 per
    pod); the run reaches 36h instead of failing as if it could not settle."""
    result = run(tmp_path, CRON + "  - {at: 1h, delete-node: {name: n1}}\n  - run-until: 36h\n", registry)
    assert result.scenario is not None
    assert result.scenario["endTime"] == 36 * 3600.0
    pending = [p for p in pods(result, "tick-") if p.phase == "Pending"]
    assert len(pending) > 400
    assert result.analysis is not None
    assert result.analysis.metrics.attempts > 200 * (len(result.pods) + 10)


BLOCKED_DRAIN = (
    "  - create:\n      objects:\n      - " + node("n1") + "\n"
    "      - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 1, selector: "
    "{matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: "
    "[{name: c, image: i}]}}}}\n"
    "      - {apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web}, spec: {minAvailable: 1, "
    "selector: {matchLabels: {app: web}}}}\n"
    "  - {at: 10m, drain-node: {name: n1}}\n"
    "  - {at: 20m, patch-node: {name: n1, unschedulable: false}}\n")


@pytest.mark.slow
@pytest.mark.parametrize(("until", "end", "attempts"), [
    pytest.param("36h", 36 * 3600.0, (36 * 3600 - 600) // 5 + 1, id="until-36h-retried-every-5s-to-the-end"),
    pytest.param("quiescence", 1210.0, (1210 - 600) // 5 + 1, id="quiescence-soon-after-the-uncordon"),
])
def test_a_drain_a_budget_refuses_retries_every_five_seconds_after_an_uncordon(
        tmp_path: Path, registry: PluginRegistry, monkeypatch: pytest.MonkeyPatch, until: str, end: float,
        attempts: int) -> None:
    """The issue's second reproducer: a drain whose only pod a PodDisruptionBudget protects, the node uncordoned
    10 minutes later. The eviction is retried every 5 s, as kubectl drain retries (never twice at one instant, no
    storm); the retries keep time moving and the run ends at run-until, or, with nothing else to happen, two retries
    after the uncordon (the change it made is retried on, then the retries no longer keep the run going)."""
    from kubesched.sim.controllers.disruption import DisruptionController

    tried: list[float] = []
    evict = DisruptionController.evict

    def counted(self: DisruptionController, pod: object) -> str | None:
        tried.append(self.manager.cluster.clock.now())
        return evict(self, pod)  # type: ignore[arg-type]

    monkeypatch.setattr(DisruptionController, "evict", counted)
    result = run(tmp_path, BLOCKED_DRAIN + f"  - run-until: {until}\n", registry)
    assert result.scenario is not None
    assert result.scenario["endTime"] == end
    assert tried == [600.0 + 5 * i for i in range(attempts)]
    assert [p.phase for p in pods(result, "web-")] == ["Bound"]

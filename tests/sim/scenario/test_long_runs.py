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

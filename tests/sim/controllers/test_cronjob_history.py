"""CronJob history limits, as kube-controller-manager v1.32's cleanupFinishedJobs: after each sync the oldest
finished Jobs beyond successfulJobsHistoryLimit (default 3) Complete ones and failedJobsHistoryLimit (default 1)
Failed ones are deleted with their pods, so a long run holds a few Jobs, not one per schedule time."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList, load
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.job import JobController
from tests.sim.controllers.helpers import events, live, node, run


def cron(limits: str = "") -> str:
    """A CronJob every 10 minutes whose 1-minute Jobs succeed, with history ``limits`` (YAML lines of its spec)."""
    requests = "{cpu: 100m}"
    return f"""kind: CronJob
metadata: {{name: report}}
spec:
  schedule: "*/10 * * * *"
  {limits}
  jobTemplate:
    spec:
      backoffLimit: 0
      template:
        metadata: {{annotations: {{kubesched.io/duration: 1m}}}}
        spec: {{restartPolicy: Never, containers: [{{name: c, resources: {{requests: {requests}}}}}]}}
"""


def kept(sim: object) -> list[str]:
    """The names of the CronJob's Jobs still in the cluster."""
    controllers = sim.manager.controllers.values()  # type: ignore[attr-defined]
    return sorted(c.metadata.name for c in controllers if isinstance(c, JobController))


@pytest.mark.parametrize(("limits", "jobs"), [
    pytest.param("", ["report-40", "report-50", "report-60"], id="default-keeps-3-complete"),
    pytest.param("successfulJobsHistoryLimit: 1", ["report-60"], id="limit-1"),
    pytest.param("successfulJobsHistoryLimit: 0", [], id="limit-0-keeps-none"),
    pytest.param("successfulJobsHistoryLimit: 10", [f"report-{m}" for m in range(10, 61, 10)], id="limit-above-count"),
])
def test_finished_jobs_beyond_the_history_limit_are_deleted(tmp_path: Path, registry: PluginRegistry,
                                                            limits: str, jobs: list[str]) -> None:
    """Six Jobs run (600 s to 3600 s), each done a minute later; only the newest ``limit`` Complete ones remain
    once the run reaches 3700 s."""
    sim = run(tmp_path, node("n1") + cron(limits), registry, until=3700)
    assert kept(sim) == jobs


def test_deleting_an_old_job_is_reported_as_kube_does(tmp_path: Path, registry: PluginRegistry) -> None:
    """deleteJob's event on the CronJob: SuccessfulDelete "Deleted job <name>", oldest first, when the CronJob
    syncs after a Job finished (one controller delay after it)."""
    sim = run(tmp_path, node("n1") + cron("successfulJobsHistoryLimit: 1"), registry, until=1900)
    deleted = [(e.time, e.message) for e in events(sim, "SuccessfulDelete") if e.kind == "CronJob"]
    assert deleted == [(1261.0, "Deleted job report-10"), (1861.0, "Deleted job report-20")]


def test_active_jobs_are_never_deleted(tmp_path: Path, registry: PluginRegistry) -> None:
    """Jobs whose pods never fit stay active (pending pods do not fail them): only finished Jobs count against the
    limits, even limits of 0."""
    text = node("n1", cpu="0") + cron("successfulJobsHistoryLimit: 0\n  failedJobsHistoryLimit: 0")
    sim = run(tmp_path, text, registry, until=1900)
    assert kept(sim) == ["report-10", "report-20", "report-30"]


def test_a_yearly_cronjob_over_ten_thousand_years_keeps_three_jobs(tmp_path: Path,
                                                                   registry: PluginRegistry) -> None:
    """The lead's long run, shortened to 300 years (the cost per year is what matters): with the history limit
    the controller never holds more than three finished Jobs, so each year costs the same."""
    text = node("n1") + cron().replace("*/10 * * * *", "@yearly")
    sim = run(tmp_path, text, registry, until=300 * 366 * 86400)
    assert len(kept(sim)) == 3
    assert len([e for e in events(sim, "SuccessfulCreate") if e.kind == "CronJob"]) == 300


@pytest.mark.parametrize(("limits", "message"), [
    pytest.param("successfulJobsHistoryLimit: -1",
                 "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
                 id="negative"),
    pytest.param("failedJobsHistoryLimit: 2147483648",
                 "spec.failedJobsHistoryLimit: Invalid value: 2147483648: must be a 32-bit integer", id="int32"),
    pytest.param("failedJobsHistoryLimit: one", 'spec.failedJobsHistoryLimit: Invalid value: "one": must be an integer',
                 id="not-a-number"),
])
def test_bad_history_limits_are_located(tmp_path: Path, limits: str, message: str) -> None:
    """The API server's validation of the limits (int32, not negative), with the CronJob named."""
    path = tmp_path / "in.yaml"
    path.write_text(cron(limits), encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert [str(e) for e in caught.value.errors] == [f"{path}: cronjobs/default/report: {message}"]


@pytest.mark.parametrize(("limits", "jobs"), [
    pytest.param("", ["report-20"], id="default-keeps-1-failed"),
    pytest.param("failedJobsHistoryLimit: 0", [], id="limit-0"),
    pytest.param("failedJobsHistoryLimit: 2", ["report-10", "report-20"], id="limit-2"),
])
def test_failed_jobs_beyond_the_failed_history_limit_are_deleted(tmp_path: Path, registry: PluginRegistry,
                                                                 limits: str, jobs: list[str]) -> None:
    """The running pods of report-10 and report-20 are deleted (backoffLimit 0: each Job fails at once); the
    newest ``failedJobsHistoryLimit`` Failed Jobs remain."""
    sim = run(tmp_path, node("n1") + cron(limits), registry, until=605)
    for until in (1205, 1300):
        sim.cluster.delete_pod(next(p for p in live(sim) if p.metadata.deletion_timestamp is None))
        sim.settle(until=until)
    failed = [e.object for e in events(sim, "BackoffLimitExceeded")]
    assert failed == ["default/report-10", "default/report-20"]
    assert kept(sim) == jobs

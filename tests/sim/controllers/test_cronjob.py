"""The CronJob controller: Jobs on the virtual clock, named by their scheduled minute."""

from __future__ import annotations

from pathlib import Path

from kubesched.runtime import PluginRegistry
from tests.sim.controllers.helpers import events, node, run


def cron(schedule: str = "*/10 * * * *", policy: str = "Allow", duration: str = "15m") -> str:
    return f"""kind: CronJob
metadata: {{name: report}}
spec:
  schedule: "{schedule}"
  concurrencyPolicy: {policy}
  jobTemplate:
    spec:
      template:
        metadata: {{annotations: {{kubesched.io/duration: {duration}}}}}
        spec: {{restartPolicy: Never, containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
"""


def job_names(sim_events: list[str]) -> list[str]:
    return [m.removeprefix("Created job ") for m in sim_events]


def test_jobs_run_at_the_schedule_named_by_minute(tmp_path: Path, registry: PluginRegistry) -> None:
    """Every 10 minutes from time 0 (the epoch): Jobs report-10, report-20, report-30 at 600, 1200, 1800 s."""
    sim = run(tmp_path, node("n1") + cron(duration="1m"), registry, until=1800)
    made = [e for e in events(sim, "SuccessfulCreate") if (e.kind, e.object) == ("CronJob", "default/report")]
    assert [(e.time, e.message) for e in made] == [(600.0, "Created job report-10"), (1200.0, "Created job report-20"),
                                                  (1800.0, "Created job report-30")]


def test_schedule_alone_does_not_keep_a_run_going(tmp_path: Path, registry: PluginRegistry) -> None:
    """Without run-until a time, the run ends when nothing else is due, before the next schedule."""
    sim = run(tmp_path, node("n1") + cron(), registry)
    assert sim.clock.now() == 0.0
    assert events(sim, "SuccessfulCreate") == []


def test_forbid_holds_a_run_back_until_the_previous_job_finishes(tmp_path: Path, registry: PluginRegistry) -> None:
    """Forbid: a 15-minute job every 10 minutes. report-10 runs from 600 s to 1500 s, so 1200 s is skipped; that
    time stays unmet (lastScheduleTime is still 600 s), so report-20 starts as soon as the CronJob hears report-10
    finished (1501 s), as kube's controller does; then 1800 s is skipped in turn."""
    sim = run(tmp_path, node("n1") + cron(policy="Forbid"), registry, until=1800)
    assert [e.time for e in events(sim, "JobAlreadyActive")] == [1200.0, 1800.0]
    assert [(e.time, e.message) for e in events(sim, "SuccessfulCreate") if e.kind == "CronJob"] == [
        (600.0, "Created job report-10"), (1501.0, "Created job report-20")]


def test_replace_deletes_the_running_job(tmp_path: Path, registry: PluginRegistry) -> None:
    """Replace: the job of 600 s is deleted when the one of 1200 s starts."""
    sim = run(tmp_path, node("n1") + cron(policy="Replace"), registry, until=1200)
    deleted = [e for e in events(sim, "SuccessfulDelete") if (e.kind, e.object) == ("CronJob", "default/report")]
    assert [(e.time, e.message) for e in deleted] == [(1200.0, "Deleted job report-10")]


def test_time_zero_is_the_latest_timestamp_of_any_object(tmp_path: Path, registry: PluginRegistry) -> None:
    """A node created at 10:00 and a CronJob created at 10:25: the run starts at 10:25, so the every-10-minutes
    schedule first fires at 10:30 (report-28575990 at 300 s), never at 10:10 or 10:20, before the CronJob existed."""
    nodes = node("n1").replace("metadata: {name: n1,",
                               "metadata: {creationTimestamp: '2024-05-01T10:00:00Z', name: n1,")
    job = cron(duration="1m").replace("metadata: {name: report}",
                                      "metadata: {name: report, creationTimestamp: '2024-05-01T10:25:00Z'}")
    sim = run(tmp_path, nodes + job, registry, until=900)
    made = [(e.time, e.message) for e in events(sim, "SuccessfulCreate") if e.kind == "CronJob"]
    assert made == [(300.0, "Created job report-28575990"), (900.0, "Created job report-28576000")]

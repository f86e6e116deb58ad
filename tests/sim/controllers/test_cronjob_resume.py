"""A CronJob from a dump goes on from its status, as kube-controller-manager v1.32's cronjob controller does: the
next run is the first schedule time after lastScheduleTime; of the times missed before the run's time zero only the
most recent runs, within startingDeadlineSeconds; the active Jobs hold a Forbid run back until they finish."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from kubesched.api.timespec import parse_schedule
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.cronjob import InvalidScheduleError, most_recent_schedule
from tests.sim.controllers.helpers import run

#: Time zero of these runs: a node created at 10:25 UTC (minute 28575985 since the epoch).
NODE = """kind: Node
metadata: {name: n1, creationTimestamp: "2024-05-01T10:25:00Z"}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
"""
CRON_UID = "5f0c3c9e-0000-4000-8000-000000000001"


def cron(*, status: str = "", deadline: int | None = None, policy: str = "Allow", created: str = "08:00",
         duration: str = "1m") -> str:
    """CronJob ``report`` every 10 minutes, created at ``created`` on 2024-05-01, with this status."""
    spec_deadline = f"\n  startingDeadlineSeconds: {deadline}" if deadline is not None else ""
    return f"""kind: CronJob
metadata: {{name: report, uid: {CRON_UID}, creationTimestamp: "2024-05-01T{created}:00Z"}}
spec:
  schedule: "*/10 * * * *"
  concurrencyPolicy: {policy}{spec_deadline}
  jobTemplate:
    spec:
      template:
        metadata: {{annotations: {{kubesched.io/duration: {duration}}}}}
        spec: {{restartPolicy: Never, containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
status: {{{status}}}
---
"""


def job(name: str, duration: str = "15m") -> str:
    """A running Job of the CronJob, as a dump holds it (its ownerReference names the CronJob)."""
    return f"""kind: Job
metadata:
  name: {name}
  ownerReferences: [{{apiVersion: batch/v1, kind: CronJob, name: report, uid: {CRON_UID}, controller: true}}]
spec:
  template:
    metadata: {{annotations: {{kubesched.io/duration: {duration}}}}}
    spec: {{restartPolicy: Never, containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
---
"""


def cron_events(tmp_path: Path, text: str, registry: PluginRegistry, until: float) -> list[tuple[float, str, str]]:
    """(time, reason, message) of the CronJob's events in a run of ``text`` until ``until``."""
    sim = run(tmp_path, text, registry, until=until)
    return [(e.time, e.reason, e.message) for e in sim.cluster.events if e.kind == "CronJob"]


def created_jobs(tmp_path: Path, text: str, registry: PluginRegistry, until: float) -> list[tuple[float, str]]:
    """(time, message) of the CronJob's SuccessfulCreate events until ``until``."""
    return [(t, m) for t, r, m in cron_events(tmp_path, text, registry, until) if r == "SuccessfulCreate"]


@pytest.mark.parametrize(("status", "deadline", "expected"), [
    pytest.param('lastScheduleTime: "2024-05-01T10:20:00Z"', None,
                 [(300.0, "Created job report-28575990")], id="next-after-last-schedule-time"),
    pytest.param('lastScheduleTime: "2024-05-01T09:00:00Z"', None,
                 [(0.0, "Created job report-28575980"), (300.0, "Created job report-28575990")],
                 id="only-the-latest-missed-time-runs"),
    pytest.param("", None,
                 [(0.0, "Created job report-28575980"), (300.0, "Created job report-28575990")],
                 id="never-ran-reads-from-creation"),
    pytest.param('lastScheduleTime: "2024-05-01T09:00:00Z"', 200,
                 [(300.0, "Created job report-28575990")], id="missed-time-past-the-deadline"),
    pytest.param('lastScheduleTime: "2024-05-01T09:00:00Z"', 600,
                 [(0.0, "Created job report-28575980"), (300.0, "Created job report-28575990")],
                 id="missed-time-within-the-deadline"),
    pytest.param('lastScheduleTime: "2024-05-01T09:00:00Z"', 2**63 - 1,
                 [(0.0, "Created job report-28575980"), (300.0, "Created job report-28575990")],
                 id="deadline-beyond-any-timestamp"),
])
def test_a_cronjob_resumes_from_its_last_schedule_time(status: str, deadline: int | None,
                                                        expected: list[tuple[float, str]], tmp_path: Path,
                                                        registry: PluginRegistry) -> None:
    """Time zero is 10:25; every 10 minutes. Last run 10:20: the next is 10:30. Last run 09:00 (or never, created
    08:00): 09:10 to 10:20 were missed and only 10:20 runs, at once, unless it is more than startingDeadlineSeconds
    ago."""
    assert created_jobs(tmp_path, NODE + cron(status=status, deadline=deadline), registry, 300) == expected


def test_the_last_schedule_time_can_be_time_zero(tmp_path: Path, registry: PluginRegistry) -> None:
    """A dump's latest timestamp is the CronJob's lastScheduleTime (10:40, after the node's 10:25): the run starts
    there, and the next Job is 10:50's, 600 s later."""
    text = NODE + cron(status='lastScheduleTime: "2024-05-01T10:40:00Z"')
    assert created_jobs(tmp_path, text, registry, 600) == [(600.0, "Created job report-28576010")]


def test_too_many_missed_times_are_reported_and_the_latest_runs(tmp_path: Path, registry: PluginRegistry) -> None:
    """Two days without a run every 10 minutes is 288 missed times: a warning, and the latest time runs."""
    text = NODE + cron(status='lastScheduleTime: "2024-04-29T10:20:00Z"')
    assert cron_events(tmp_path, text, registry, 0) == [
        (0.0, "TooManyMissedTimes",
         "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"),
        (0.0, "SuccessfulCreate", "Created job report-28575980")]


def test_forbid_holds_the_run_until_the_active_job_from_the_dump_finishes(tmp_path: Path,
                                                                         registry: PluginRegistry) -> None:
    """The dump's active Job report-28575980 runs 12 minutes from time 0: 10:30 is skipped at 300 s and, still
    unmet, runs when that Job finishes (720 s) and the CronJob hears of it one controller delay later."""
    text = NODE + cron(policy="Forbid", status='lastScheduleTime: "2024-05-01T10:20:00Z", '
                                               "active: [{kind: Job, name: report-28575980}]"
                       ) + job("report-28575980", duration="12m")
    assert cron_events(tmp_path, text, registry, 721) == [
        (300.0, "JobAlreadyActive",
         "Not starting job because prior execution is running and concurrency policy is Forbid"),
        (721.0, "SawCompletedJob", "Saw completed job: report-28575980, condition: Complete"),
        (721.0, "SuccessfulCreate", "Created job report-28575990")]


def test_an_active_job_missing_from_the_input_leaves_the_active_list(tmp_path: Path,
                                                                     registry: PluginRegistry) -> None:
    """status.active names a Job the input lacks: MissingJob, and Forbid no longer holds the next run back."""
    text = NODE + cron(policy="Forbid", status='lastScheduleTime: "2024-05-01T10:20:00Z", '
                                               "active: [{kind: Job, name: report-28575980}]")
    assert cron_events(tmp_path, text, registry, 300)[:2] == [
        (0.0, "MissingJob", "Active job went missing: report-28575980"),
        (300.0, "SuccessfulCreate", "Created job report-28575990")]


def test_a_running_job_the_status_does_not_list_is_reported(tmp_path: Path, registry: PluginRegistry) -> None:
    """A Job controlled by the CronJob but not in status.active: UnexpectedJob, and (as in Kubernetes) it does
    not count as active for Forbid."""
    text = NODE + cron(policy="Forbid", status='lastScheduleTime: "2024-05-01T10:20:00Z"') + job("report-28575980")
    made = cron_events(tmp_path, text, registry, 300)
    assert made[0] == (0.0, "UnexpectedJob", "Saw a job that the controller did not create or forgot: report-28575980")
    assert created_jobs(tmp_path, text, registry, 300) == [(300.0, "Created job report-28575990")]


@pytest.mark.parametrize(("deadline", "created"), [
    pytest.param(None, [(1201.0, "Created job report-28576000"), (1500.0, "Created job report-28576010")],
                 id="no-deadline-runs-the-skipped-time-late"),
    pytest.param(120, [(1500.0, "Created job report-28576010")], id="deadline-drops-the-skipped-times"),
])
def test_a_skipped_forbid_run_waits_for_the_job_within_the_deadline(deadline: int | None,
                                                                    created: list[tuple[float, str]],
                                                                    tmp_path: Path, registry: PluginRegistry) -> None:
    """Forbid, the dump's Job running 20 minutes from time 0 (10:25): 10:30 and 10:40 are skipped. When it ends
    (the CronJob hears at 1201 s, 10:45:01), 10:40 runs at once; with startingDeadlineSeconds 120 it is too old by
    then, and the next Job is 10:50's."""
    text = NODE + cron(policy="Forbid", deadline=deadline,
                       status='lastScheduleTime: "2024-05-01T10:20:00Z", active: [{kind: Job, name: report-28575980}]'
                       ) + job("report-28575980", duration="20m")
    assert created_jobs(tmp_path, text, registry, 1500) == created


def at(minute: str) -> datetime:
    return datetime.fromisoformat(f"2024-05-01T{minute}:00+00:00")


@pytest.mark.parametrize(("earliest", "now", "expected"), [
    pytest.param("10:20", "10:25", (None, 0), id="none-due"),
    pytest.param("10:20", "10:30", (at("10:30"), 0), id="one-due-exactly-now"),
    pytest.param("10:20", "10:35", (at("10:30"), 0), id="one-due"),
    pytest.param("09:00", "10:25", (at("10:20"), 8), id="several-missed"),
])
def test_most_recent_schedule_time(earliest: str, now: str, expected: tuple[datetime | None, int]) -> None:
    """The latest time after ``earliest`` and at most ``now``, and the missed count (0 below two)."""
    assert most_recent_schedule(parse_schedule("*/10 * * * *"), None, at(earliest), at(now)) == expected


def test_a_schedule_naming_no_real_day_is_invalid() -> None:
    """February 30th never comes: the controller's "less than 1 second" error."""
    with pytest.raises(InvalidScheduleError, match="time difference between two schedules is less than 1 second"):
        most_recent_schedule(parse_schedule("0 0 30 2 *"), None, at("10:00"), at("10:25"))


def test_an_invalid_schedule_is_reported_on_the_cronjob(tmp_path: Path, registry: PluginRegistry) -> None:
    """The CronJob records InvalidSchedule and runs nothing."""
    text = NODE + cron().replace('"*/10 * * * *"', '"0 0 30 2 *"')
    assert cron_events(tmp_path, text, registry, 0) == [
        (0.0, "InvalidSchedule",
         "invalid schedule: 0 0 30 2 * : time difference between two schedules is less than 1 second")]


@pytest.mark.parametrize(("zone", "earliest", "message"), [
    pytest.param("Etc/GMT+12", datetime(1, 1, 1, tzinfo=UTC),
                 "the schedule times after 0001-01-01T00:00:00Z fall before year 1 or after year 9999 in time zone "
                 "Etc/GMT+12, which kubesched's timestamps cannot hold", id="year-0-in-the-zone"),
    pytest.param(None, datetime(9999, 12, 31, 23, 58, tzinfo=UTC),
                 "the schedule times after 9999-12-31T23:58:00Z fall before year 1 or after year 9999 in UTC, which "
                 "kubesched's timestamps cannot hold", id="past-year-9999"),
])
def test_schedule_times_a_timestamp_cannot_hold_are_named_as_such(zone: str | None, earliest: datetime,
                                                                  message: str) -> None:
    """A CronJob created in year 1 whose zone is still in year 0 (or one at the end of year 9999) can fire, but not
    at a time kubesched can hold: said so, not "less than 1 second" as for a schedule naming no real day."""
    with pytest.raises(InvalidScheduleError) as raised:
        most_recent_schedule(parse_schedule("*/5 * * * *"), ZoneInfo(zone) if zone else None, earliest,
                             earliest + timedelta(hours=1) if earliest.year == 1 else earliest)
    assert str(raised.value) == message

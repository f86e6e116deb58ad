"""The CronJob controller, as kube-controller-manager v1.32's (pkg/controller/cronjob): a Job
``<cronjob>-<scheduled time in minutes since the epoch>`` for the most recent schedule time not yet run, on the
virtual clock (simulated time 0 is the run's base instant).

Each sync first brings the active list up to date from the CronJob's Jobs: a finished one leaves it
(SawCompletedJob), one that is gone too (MissingJob), and a running one the list lacks is reported
(UnexpectedJob). Then it looks for the most recent schedule time after the last one that ran (status
``lastScheduleTime``, so a CronJob from a dump resumes there; its creation time when it never ran), and no earlier
than ``startingDeadlineSeconds`` ago. Only that time runs, however many were missed (more than 100 is a
TooManyMissedTimes warning). concurrencyPolicy Forbid skips it while a Job is active (JobAlreadyActive): the time
stays unmet, so it runs when the Job finishes, if still within the deadline, as in Kubernetes; Replace deletes the
active Jobs first. The CronJob syncs again at its next schedule time (a background timer: it fires while the run
goes on, or until a scenario's ``run-until`` time, but does not by itself keep a run going) and one controller
delay after one of its Jobs finishes. kube pads the timer by 100 ms against clock skew; kubesched fires on the dot.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import attrs

from kubesched.api.apps import CronJob
from kubesched.api.timespec import Schedule, parse_schedule
from kubesched.sim.agenda import EPOCH
from kubesched.sim.controllers.base import Controller
from kubesched.sim.controllers.job import JobController

if TYPE_CHECKING:
    from datetime import tzinfo

    from kubesched.sim.controllers.host import ControllerHost

#: More missed schedule times than this since the last run is reported (TooManyMissedTimes).
MANY_MISSED = 100


class InvalidScheduleError(ValueError):
    """A schedule that parses but names no two times a second apart (``0 0 30 2 *``: February has no 30th)."""


def most_recent_schedule(schedule: Schedule, zone: tzinfo | None, earliest: datetime,
                         now: datetime) -> tuple[datetime | None, int]:
    """The most recent schedule time after ``earliest`` and at most ``now`` (None when there is none), and roughly
    how many times were missed (0 when fewer than two), computed as the cronjob controller's
    mostRecentScheduleTime: from the gap between the first two times after ``earliest``, so irregular schedules
    are counted approximately, as in Kubernetes. :class:`InvalidScheduleError` when no such gap exists."""
    first = _next_in_range(schedule, zone, earliest)
    if first is not None and now < first:
        return None, 0
    second = None if first is None else _next_in_range(schedule, zone, first)
    if first is not None and second is not None and now < second:
        return first, 0
    if first is None or second is None or round((second - first).total_seconds()) < 1:
        raise InvalidScheduleError("time difference between two schedules is less than 1 second")
    between = round((second - first).total_seconds())
    missed = int((now - first).total_seconds()) // between + 1
    latest = None
    t = _next(schedule, zone, first + timedelta(seconds=(missed - 2) * between))
    while t is not None and t <= now:
        latest = t
        t = _next(schedule, zone, t)
    return latest, missed


def _next_in_range(schedule: Schedule, zone: tzinfo | None, after: datetime) -> datetime | None:
    """As :func:`_next`, but a time a timestamp cannot hold in the schedule's time zone (a CronJob created in year 1
    whose zone, Etc/GMT+12, is still in year 0 then) is :class:`InvalidScheduleError` saying so, not taken for a
    schedule that names no time."""
    try:
        found = schedule.next_after(after, zone)
    except OverflowError:
        where = f"in time zone {zone}" if zone is not None else "in UTC"
        raise InvalidScheduleError(f"the schedule times after {after.replace(tzinfo=None).isoformat()}Z fall "
                                   f"before year 1 or after year 9999 {where}, which kubesched's timestamps cannot "
                                   "hold") from None
    return None if found is None else found.astimezone(UTC)


def _next(schedule: Schedule, zone: tzinfo | None, after: datetime) -> datetime | None:
    """The first schedule time strictly after ``after``, in UTC; None when there is none within five years (or
    before the last instant a timestamp can hold)."""
    try:
        found = schedule.next_after(after, zone)
    except OverflowError:
        return None
    return None if found is None else found.astimezone(UTC)


def _shifted(when: datetime, seconds: int) -> datetime | None:
    """``when`` moved by ``seconds``; None past the range a timestamp can hold (a deadline of centuries)."""
    try:
        return when + timedelta(seconds=seconds)
    except OverflowError:
        return None


def _start_order(job: JobController) -> tuple[bool, datetime, str]:
    """Jobs oldest first, as byJobStartTime sorts them (a Job starts when created here; none known: last)."""
    created = job.metadata.creation_timestamp
    return created is None, created or EPOCH, job.metadata.name


def job_name(cron_job: str, scheduled: datetime) -> str:
    """``<cronjob>-<scheduled time in minutes since the epoch>``: one name per schedule time, so a time never runs
    twice."""
    return f"{cron_job}-{int(scheduled.timestamp()) // 60}"


class CronJobController(Controller):
    """A CronJob's controller; ``active`` names its running Jobs and ``last_schedule`` is its last run's time, as
    the CronJob's status holds them."""

    kind = "CronJob"
    api_version = "batch/v1"

    def __init__(self, manager: ControllerHost, workload: CronJob) -> None:
        super().__init__(manager, workload.metadata)
        self.workload = workload
        self.schedule = parse_schedule(workload.schedule)
        self.zone = ZoneInfo(workload.time_zone) if workload.time_zone else None
        self.active: list[str] = list(workload.active)
        last = workload.last_schedule_time
        self.last_schedule = None if last is None else last.astimezone(UTC)
        # The time the pending wake-up is for: an older timer that fires finds it changed and does nothing.
        self._wake_at: datetime | None = None

    def jobs(self) -> list[JobController]:
        """The Jobs this CronJob controls (it created them, or the input's Jobs name it their controller)."""
        return [c for c in self.manager.children(self.metadata.uid) if isinstance(c, JobController)]

    def sync(self) -> None:
        """Reconcile now: the active list, then the most recent unmet schedule time."""
        self._sync(self.manager.clock.timestamp())

    def _sync(self, now: datetime) -> None:
        """The active list, the schedule (unless suspended), then the finished Jobs past the history limits."""
        jobs = {job.metadata.name: job for job in self.jobs()}
        self._update_active(jobs)
        if not self.workload.suspend:
            self._run_schedule(now, jobs)
        self._clean_up(jobs)

    def _run_schedule(self, now: datetime, jobs: dict[str, JobController]) -> None:
        earliest = self._earliest()
        deadline = self.workload.starting_deadline_seconds
        floor = earliest if deadline is None else max(earliest, _shifted(now, -deadline) or earliest)
        try:
            scheduled, missed = most_recent_schedule(self.schedule, self.zone, floor, now)
        except InvalidScheduleError as exc:
            self.record_event("Warning", "InvalidSchedule", f"invalid schedule: {self.workload.schedule} : {exc}")
            return
        if scheduled is not None:
            if missed > MANY_MISSED:
                self.record_event("Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease "
                                  ".spec.startingDeadlineSeconds or check clock skew")
            self._start(scheduled, jobs)
        self._arm(now)

    def _clean_up(self, jobs: dict[str, JobController]) -> None:
        """Delete the oldest finished Jobs (by start, then name) beyond successfulJobsHistoryLimit Complete ones and
        failedJobsHistoryLimit Failed ones, with their pods, as cleanupFinishedJobs does: a long run keeps a few."""
        finished = sorted((job for job in jobs.values() if job.finished and not job.deleted), key=_start_order)
        for status, limit in (("Complete", self.workload.successful_jobs_history_limit),
                              ("Failed", self.workload.failed_jobs_history_limit)):
            done = [job for job in finished if job.status == status]
            for job in done[:max(len(done) - limit, 0)]:
                self.manager.remove(job)
                if job.metadata.name in self.active:
                    self.active.remove(job.metadata.name)
                self.record_event("Normal", "SuccessfulDelete", f"Deleted job {job.metadata.name}")

    def _earliest(self) -> datetime:
        """Where the schedule is read from: the last run's time, or the CronJob's creation."""
        if self.last_schedule is not None:
            return self.last_schedule
        created = self.metadata.creation_timestamp
        return created.astimezone(UTC) if created is not None else self.manager.clock.timestamp()

    def _update_active(self, jobs: dict[str, JobController]) -> None:
        """The active list follows the Jobs: finished ones leave it, gone ones too; unlisted running ones are
        reported (and, as in Kubernetes, not counted)."""
        for name, job in jobs.items():
            if name not in self.active and not job.finished:
                self.record_event("Warning", "UnexpectedJob",
                                  f"Saw a job that the controller did not create or forgot: {name}")
            elif name in self.active and job.finished:
                self.active.remove(name)
                self.record_event("Normal", "SawCompletedJob", f"Saw completed job: {name}, condition: {job.status}")
        for name in [n for n in self.active if n not in jobs]:
            self.active.remove(name)
            self.record_event("Normal", "MissingJob", f"Active job went missing: {name}")

    def _start(self, scheduled: datetime, jobs: dict[str, JobController]) -> None:
        """Run the Job of ``scheduled`` unless it already ran or the concurrency policy forbids it. (kube also checks
        that it is no more than startingDeadlineSeconds late, its MissSchedule event; the search, which starts that
        long ago, never finds such a time, so kubesched leaves the check out.)"""
        name = job_name(self.metadata.name, scheduled)
        if name in self.active or self.last_schedule == scheduled:
            return
        policy = self.workload.concurrency_policy
        if policy == "Forbid" and self.active:
            self.record_event("Normal", "JobAlreadyActive",
                              "Not starting job because prior execution is running and concurrency policy is Forbid")
            return
        if policy == "Replace":
            for running in list(self.active):
                job = jobs.get(running)
                if job is not None:
                    self.manager.remove(job)
                self.active.remove(running)
                self.record_event("Normal", "SuccessfulDelete", f"Deleted job {running}")
        template = self.workload.job_template
        spec = attrs.evolve(template, metadata=attrs.evolve(template.metadata, name=name,
                                                            namespace=self.metadata.namespace, uid=""))
        self.manager.add(spec, owner=self)
        self.record_event("Normal", "SuccessfulCreate", f"Created job {name}")
        self.active.append(name)
        self.last_schedule = scheduled

    def _arm(self, now: datetime) -> None:
        """Wake at the next schedule time after the most recent one (nextScheduleTimeDuration: the deadline aside;
        after the last run's time when none is due, or after now when some were missed and none found)."""
        earliest = self._earliest()
        try:
            latest, missed = most_recent_schedule(self.schedule, self.zone, earliest, now)
        except InvalidScheduleError:
            latest, missed = now, 0
        start = latest if latest is not None else (earliest if missed == 0 else now)
        upcoming = _next(self.schedule, self.zone, start)
        if upcoming is None or upcoming == self._wake_at:
            return
        self._wake_at = upcoming
        delay = max((upcoming - now).total_seconds(), 0.0)
        self.manager.cluster.after(delay, lambda: self._wake(upcoming), background=True)

    def _wake(self, at: datetime) -> None:
        if self.deleted or at != self._wake_at:
            return
        self._wake_at = None
        self._sync(max(self.manager.clock.timestamp(), at))

    def delete(self) -> None:
        """Deleting a CronJob deletes its Jobs and their pods."""
        self.deleted = True
        for job in self.jobs():
            if not job.deleted:
                self.manager.remove(job)

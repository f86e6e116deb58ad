"""The CronJob controller: a Job ``<cronjob>-<scheduled time in minutes since the epoch>`` at each time the
schedule names, on the virtual clock (simulated time 0 is the run's base instant).

concurrencyPolicy Allow starts each Job regardless; Forbid skips a run while a Job is still running; Replace
deletes the running Jobs first. The next schedule is a background timer: it fires while the run goes on (or
until a scenario's ``run-until`` time) but does not by itself keep a run going.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import attrs

from kubesched.api.apps import CronJob
from kubesched.api.timespec import parse_schedule
from kubesched.sim.controllers.base import Controller
from kubesched.sim.controllers.job import JobController

if TYPE_CHECKING:
    from datetime import datetime

    from kubesched.sim.controllers.host import ControllerHost


class CronJobController(Controller):
    """A CronJob's controller."""

    kind = "CronJob"
    api_version = "batch/v1"

    def __init__(self, manager: ControllerHost, workload: CronJob) -> None:
        super().__init__(manager, workload.metadata)
        self.workload = workload
        self.schedule = parse_schedule(workload.schedule)
        self.zone = ZoneInfo(workload.time_zone) if workload.time_zone else None
        self.jobs: list[JobController] = []
        self._armed = False

    def sync(self) -> None:
        """Arm the timer of the next scheduled run (once)."""
        if not self._armed:
            self._armed = True
            self._arm()

    def _arm(self) -> None:
        now = self.manager.clock.timestamp()
        upcoming = self.schedule.next_after(now, self.zone)
        if upcoming is None:
            return
        delay = max((upcoming - now).total_seconds(), 0.0)
        self.manager.cluster.after(delay, lambda: self._run(upcoming), background=True)

    def _run(self, scheduled: datetime) -> None:
        if self.deleted:
            return
        if not self.workload.suspend:
            self._start(scheduled)
        self._arm()

    def _start(self, scheduled: datetime) -> None:
        running = [j for j in self.jobs if not j.finished and not j.deleted]
        policy = self.workload.concurrency_policy
        if running and policy == "Forbid":
            self.record_event("Normal", "JobAlreadyActive",
                              "Not starting job because prior execution is running and concurrency policy is Forbid")
            return
        if running and policy == "Replace":
            for job in running:
                self.record_event("Normal", "SuccessfulDelete", f"Deleted job {job.metadata.name}")
                self.manager.remove(job)
        name = f"{self.metadata.name}-{int(scheduled.timestamp()) // 60}"
        template = self.workload.job_template
        spec = attrs.evolve(template, metadata=attrs.evolve(template.metadata, name=name,
                                                            namespace=self.metadata.namespace, uid=""))
        controller = self.manager.add(spec, owner=self)
        assert isinstance(controller, JobController)
        self.jobs.append(controller)
        self.record_event("Normal", "SuccessfulCreate", f"Created job {name}")

    def delete(self) -> None:
        """Deleting a CronJob deletes its Jobs and their pods."""
        self.deleted = True
        for job in self.jobs:
            if not job.deleted:
                self.manager.remove(job)

"""The Job controller: pods ``<job>-<5 random characters>``, at most ``parallelism`` active, until ``completions``
have succeeded.

A pod runs for its template's ``kubesched.io/duration`` (or the controller settings' default) from the moment it
is bound, then succeeds and frees its node. A pod that goes otherwise (preempted, evicted, lost with its node)
counts as failed and is replaced; past ``backoffLimit`` failures the Job fails and stops its pods. Replacements come
after the controller delay (kube's exponential pod-failure backoff is not modelled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesched.api.apps import Job
from kubesched.api.pod import Pod
from kubesched.sim.controllers.base import BURST_PODS, Controller, is_active

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

JOB_LABELS = ("batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name")


class JobController(Controller):
    """A Job's controller; ``status`` is Running, Complete or Failed."""

    kind = "Job"
    api_version = "batch/v1"

    def __init__(self, manager: ControllerHost, workload: Job) -> None:
        super().__init__(manager, workload.metadata)
        self.workload = workload
        # A Job from a dump goes on from its status: a complete one stays complete and starts no pod.
        self.succeeded = workload.succeeded
        self.failed = workload.failed
        done = workload.completions is not None and workload.succeeded >= workload.completions
        self.status = workload.finished or ("Complete" if done else "Running")
        uid, name = workload.metadata.uid, workload.metadata.name
        self._labels = dict(zip(JOB_LABELS, (uid, name, uid, name), strict=True))

    @property
    def duration(self) -> float:
        """How long each pod runs once bound."""
        duration = self.workload.template.duration
        return self.manager.settings.job_duration if duration is None else duration

    def sync(self) -> None:
        """Start pods up to parallelism while completions remain."""
        if self.status != "Running":
            return
        job = self.workload
        active = [p for p in self.pods() if is_active(p)]
        if job.completions is None:
            wanted = 0 if self.succeeded else job.parallelism
        else:
            wanted = min(job.parallelism, job.completions - self.succeeded)
        def make() -> Pod:
            name = self.manager.generate_name(self.metadata.namespace, f"{self.metadata.name}-")
            return self.make_pod(name, job.template, self._labels)

        self.create_in_batches([make] * min(max(wanted - len(active), 0), BURST_PODS))

    def on_owned_pod_change(self, old: Pod | None, new: Pod | None) -> None:
        """Start a pod's clock when it is bound; count successes and failures; sync after the controller delay."""
        cluster = self.manager.cluster
        if new is not None and new.spec.node_name and (old is None or not old.spec.node_name):
            cluster.after(self.duration, lambda: self._finish(new))
        terminated = old is not None and old.metadata.deletion_timestamp is None and (
            new is None or new.metadata.deletion_timestamp is not None)
        if terminated:
            assert old is not None
            if cluster.ended.get(old.uid) == "Succeeded":
                self._succeeded()
            elif self.status == "Running" and self.workload.completions is None and self.succeeded:
                self._complete_work_queue()  # after a success, a work queue's failures are ignored
            elif self.status == "Running":
                self.failed += 1
                if self.failed > self.workload.backoff_limit:
                    self._fail()
        self.manager.queue(self)

    def _finish(self, pod: Pod) -> None:
        live = self.manager.cluster.pods.get(pod.uid)
        if live is not None and live.metadata.deletion_timestamp is None:
            self.manager.cluster.complete_pod(live)

    def _succeeded(self) -> None:
        self.succeeded += 1
        job = self.workload
        if job.completions is None:
            self._complete_work_queue()
        elif self.succeeded >= job.completions and self.status == "Running":
            self._complete()

    def _complete_work_queue(self) -> None:
        """A work queue (no completions) is complete once a pod succeeded and the others have finished too (they
        run on, as the Job controller lets them: ``succeeded > 0 && active == 0``)."""
        if self.status == "Running" and self.succeeded and not any(is_active(p) for p in self.pods()):
            self._complete()

    def _complete(self) -> None:
        self.status = "Complete"
        self.record_event("Normal", "Completed", "Job completed")
        self.queue_owner()

    def _fail(self) -> None:
        self.status = "Failed"
        self.record_event("Warning", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
        self.queue_owner()
        for pod in self.pods():
            if is_active(pod):
                self.manager.delete_pod(pod, f"Deleted pod: {pod.name}", self)

    def delete(self) -> None:
        """The Job is deleted with its pods; its CronJob, if any, hears of it."""
        super().delete()
        self.queue_owner()

    @property
    def finished(self) -> bool:
        """Complete or Failed."""
        return self.status != "Running"

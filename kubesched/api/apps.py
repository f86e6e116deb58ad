"""The workload kinds whose controllers the simulator runs: apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet,
v1 ReplicationController and batch/v1 Job and CronJob, with the fields their controllers read."""

from __future__ import annotations

from datetime import datetime

import attrs

from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.api.pod import PodSpec
from kubesched.api.policy import IntOrPercent
from kubesched.api.volume import VolumeClaimTemplate, frozen_claim_templates

#: The annotation on a pod template that says how long its pods run (a Go duration such as ``90s``).
DURATION_ANNOTATION = "kubesched.io/duration"

ROLLING_UPDATE = "RollingUpdate"
RECREATE = "Recreate"
ORDERED_READY = "OrderedReady"
PARALLEL = "Parallel"
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
#: maxSurge and maxUnavailable when not given (the API server's default).
DEFAULT_ROLLING_LIMIT = IntOrPercent(25, is_percent=True)


@attrs.frozen(slots=True)
class PodTemplate:
    """spec.template: the metadata and spec every pod of a workload starts from; ``duration`` is the parsed
    :data:`DURATION_ANNOTATION` in seconds, or None."""

    metadata: ObjectMeta
    spec: PodSpec
    duration: float | None = None


@attrs.frozen(slots=True)
class ReplicaSet:
    """A ReplicaSet: keeps ``replicas`` pods from its template."""

    metadata: ObjectMeta
    replicas: int
    selector: LabelSelector
    template: PodTemplate

    kind = "ReplicaSet"
    api_version = "apps/v1"


@attrs.frozen(slots=True)
class ReplicationController(ReplicaSet):
    """A ReplicationController: the ReplicaSet's v1 predecessor (a selector of labels to equal, defaulted to the
    template's labels), kept by the same controller logic, as kube-controller-manager does."""

    kind = "ReplicationController"
    api_version = "v1"


@attrs.frozen(slots=True)
class Deployment:
    """A Deployment: a ReplicaSet per template revision, rolled by RollingUpdate (maxSurge, maxUnavailable) or
    Recreate."""

    metadata: ObjectMeta
    replicas: int
    selector: LabelSelector
    template: PodTemplate
    strategy: str = ROLLING_UPDATE
    max_surge: IntOrPercent = DEFAULT_ROLLING_LIMIT
    max_unavailable: IntOrPercent = DEFAULT_ROLLING_LIMIT

    kind = "Deployment"
    api_version = "apps/v1"


@attrs.frozen(slots=True)
class StatefulSet:
    """A StatefulSet: pods ``<name>-<ordinal>``, created in order (OrderedReady) or all at once (Parallel)."""

    metadata: ObjectMeta
    replicas: int
    selector: LabelSelector
    template: PodTemplate
    service_name: str = ""
    pod_management_policy: str = ORDERED_READY
    #: The claims each pod gets, created before it and kept when it is deleted (the Retain policy).
    volume_claim_templates: tuple[VolumeClaimTemplate, ...] = attrs.field(default=(),
                                                                          converter=frozen_claim_templates)

    kind = "StatefulSet"
    api_version = "apps/v1"


@attrs.frozen(slots=True)
class DaemonSet:
    """A DaemonSet: one pod on every node its template may run on."""

    metadata: ObjectMeta
    selector: LabelSelector
    template: PodTemplate

    kind = "DaemonSet"
    api_version = "apps/v1"


@attrs.frozen(slots=True)
class Job:
    """A Job: runs pods until ``completions`` succeed, at most ``parallelism`` at a time; ``completions`` None
    means a work queue (done once one pod succeeds)."""

    metadata: ObjectMeta
    template: PodTemplate
    parallelism: int = 1
    completions: int | None = 1
    backoff_limit: int = 6
    #: Where a Job read from a dump had got to (its status): pods succeeded and failed, and "Complete" or
    #: "Failed" when a condition of that type is True ("" while it runs). A new Job starts from nothing.
    succeeded: int = 0
    failed: int = 0
    finished: str = ""

    kind = "Job"
    api_version = "batch/v1"


@attrs.frozen(slots=True)
class CronJob:
    """A CronJob: a Job from ``job_template`` at each time its cron ``schedule`` names (in ``time_zone``, UTC by
    default), no later than ``starting_deadline_seconds`` after that time when set."""

    metadata: ObjectMeta
    schedule: str
    job_template: Job
    concurrency_policy: str = "Allow"
    suspend: bool = False
    time_zone: str = ""
    starting_deadline_seconds: int | None = None
    #: How many finished Jobs are kept, the oldest deleted first (the API server's defaults: 3 and 1).
    successful_jobs_history_limit: int = 3
    failed_jobs_history_limit: int = 1
    #: Where a CronJob read from a dump had got to (its status): the time of the last Job it started, and the
    #: names of the Jobs it counts as running. A new CronJob has neither.
    last_schedule_time: datetime | None = None
    active: tuple[str, ...] = ()

    kind = "CronJob"
    api_version = "batch/v1"


Workload = Deployment | ReplicaSet | StatefulSet | DaemonSet | Job | CronJob
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "DaemonSet", "Job",
                  "CronJob")

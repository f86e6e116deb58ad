"""Decode the workload kinds the simulator's controllers run: apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet
and batch/v1 Job and CronJob.

Pod templates decode through the pod decoder, so their problems name ``spec.template.spec...``; the rules the API
server adds for workloads (a selector matching the template's labels, the restart policy, the rollout limits) are
checked here.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import attrs

from kubesched.api import validation
from kubesched.api.apps import (
    CONCURRENCY_POLICIES,
    DURATION_ANNOTATION,
    ORDERED_READY,
    PARALLEL,
    RECREATE,
    ROLLING_UPDATE,
    CronJob,
    DaemonSet,
    Deployment,
    Job,
    PodTemplate,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
)
from kubesched.api.meta import LabelSelector, ObjectMeta
from kubesched.api.policy import IntOrPercent
from kubesched.api.timespec import TimeSpecError, parse_duration, parse_schedule
from kubesched.api.workload import WorkloadController
from kubesched.io import decode, decode_volumes
from kubesched.io import fields as f
from kubesched.io import pod_rules as rules
from kubesched.io.decode_pod import _pod_spec, with_volumes
from kubesched.io.meta import Obj, check_name, label_selector, object_meta
from kubesched.validation import key_path

_DEFAULT_SURGE = IntOrPercent(25, is_percent=True)
#: The most pods one workload may ask for at once (replicas, parallelism): a Kubernetes cluster holds at most
#: 150,000 pods (its documented scalability limit); past that a simulation would only create pods for ever.
MAX_WORKLOAD_PODS = 150_000


def too_many_pods(number: int) -> str:
    """The problem of a pod count past :data:`MAX_WORKLOAD_PODS`."""
    return (f"Invalid value: {number}: more pods than kubesched simulates for one workload (at most "
            f"{MAX_WORKLOAD_PODS}, the most pods a Kubernetes cluster holds)")


def _count(value: object, path: str, default: int, *, pods: bool = False) -> int:
    """A non-negative int32 (replicas, parallelism, ...); with ``pods``, a count of pods at once, at most
    :data:`MAX_WORKLOAD_PODS`."""
    number = f.integer(value, path, default, bits=32)
    if number is None:
        return default
    if number < 0:
        f.report(path, f"Invalid value: {number}: must be greater than or equal to 0")
        return default
    if pods and number > MAX_WORKLOAD_PODS:
        f.report(path, too_many_pods(number))
        return default
    return number


def template(obj: Obj, path: str, restart_policies: tuple[str, ...], default_policy: str | None, *,
             check_mounts: bool = True) -> PodTemplate:
    """spec.template at ``path``: labels, annotations (with the duration annotation parsed) and the pod spec,
    whose restartPolicy must be one of ``restart_policies`` (``default_policy`` when unset; None: required)."""
    raw = f.mapping(obj.get("template"), path)
    if not raw:
        f.report(path, "Required value")
    meta = f.mapping(raw.get("metadata"), f"{path}.metadata")
    labels = rules.labels(meta.get("labels"), f"{path}.metadata.labels")
    annotations = f.string_map(meta.get("annotations"), f"{path}.metadata.annotations")
    duration = None
    if DURATION_ANNOTATION in annotations:
        text = annotations[DURATION_ANNOTATION]
        try:
            duration = parse_duration(text)
        except TimeSpecError as exc:
            f.report(key_path(f"{path}.metadata.annotations", DURATION_ANNOTATION),
                     f"Invalid value: {f.quote(text)}: {exc}")
    spec_obj = f.mapping(raw.get("spec"), f"{path}.spec")
    policy = spec_obj.get("restartPolicy")
    if policy is None and default_policy is None:
        choices = ", ".join(f'"{p}"' for p in restart_policies)
        f.report(f"{path}.spec.restartPolicy", f"Required value: valid values: {choices}")
    elif policy is not None:
        f.one_of(policy, f"{path}.spec.restartPolicy", restart_policies)
    spec = with_volumes(_pod_spec(spec_obj, f"{path}.spec"), spec_obj, f"{path}.spec")
    if check_mounts:  # a StatefulSet's template may mount its volumeClaimTemplates: the API server checks its pods
        rules.check_volume_mounts(spec_obj, f"{path}.spec")
    rules.check_affinity_label_keys(spec.affinity, None, f"{path}.spec.affinity")
    return PodTemplate(ObjectMeta(name="", labels=f.shared_map(labels), annotations=f.shared_map(annotations)),
                       spec, duration)


def _selector(spec: Obj, template_: PodTemplate, kind: str) -> LabelSelector:
    """spec.selector: required, not empty, and matching the template's labels (ValidateDeploymentSpec & co.)."""
    selector = label_selector(spec.get("selector"), "spec.selector")
    if selector is None:
        f.report("spec.selector", "Required value")
        return LabelSelector()
    rules.check_selector_labels(selector, "spec.selector")
    if selector.is_empty():
        f.report("spec.selector", f"Invalid value: {{}}: empty selector is invalid for {kind}")
    elif not selector.matches(template_.metadata.labels):
        labels = ",".join(f"{k}={v}" for k, v in sorted(template_.metadata.labels.items()))
        f.report("spec.template.metadata.labels", f"Invalid value: {f.quote(labels)}: `selector` does not match "
                                                  "template `labels`")
    return selector


def _apps(obj: Obj, kind: str) -> tuple[ObjectMeta, Obj, PodTemplate, LabelSelector]:
    rule = validation.dns1123_label if kind == "StatefulSet" else validation.dns1123_subdomain
    meta = object_meta(obj, namespaced=True, name_rule=rule)
    spec = f.mapping(obj.get("spec"), "spec")
    template_ = template(spec, "spec.template", ("Always",), "Always", check_mounts=kind != "StatefulSet")
    return meta, spec, template_, _selector(spec, template_, kind.lower())


def deployment(obj: Obj) -> Deployment:
    """Decode a Deployment with its strategy (RollingUpdate maxSurge/maxUnavailable, or Recreate)."""
    meta, spec, template_, selector = _apps(obj, "Deployment")
    strategy = f.mapping(spec.get("strategy"), "spec.strategy")
    kind = f.one_of(strategy.get("type"), "spec.strategy.type", (RECREATE, ROLLING_UPDATE), ROLLING_UPDATE)
    rolling = strategy.get("rollingUpdate")
    surge, unavailable = _DEFAULT_SURGE, _DEFAULT_SURGE
    if kind == RECREATE and rolling is not None:
        f.report("spec.strategy.rollingUpdate", "Forbidden: may not be specified when strategy `type` is 'Recreate'")
    elif rolling is not None:
        limits = f.mapping(rolling, "spec.strategy.rollingUpdate")
        path = "spec.strategy.rollingUpdate"
        surge = decode.int_or_percent(limits.get("maxSurge"), f"{path}.maxSurge",
                                       at_most_100=False) or _DEFAULT_SURGE
        unavailable = (decode.int_or_percent(limits.get("maxUnavailable"), f"{path}.maxUnavailable")
                       or _DEFAULT_SURGE)
        if surge.value == 0 and unavailable.value == 0:
            shown = f.quote(str(unavailable)) if unavailable.is_percent else "0"
            f.report(f"{path}.maxUnavailable", f"Invalid value: {shown}: may not be 0 when `maxSurge` is 0")
    return Deployment(meta, _count(spec.get("replicas"), "spec.replicas", 1, pods=True), selector, template_,
                      kind or ROLLING_UPDATE, surge, unavailable)


def replica_set(obj: Obj) -> ReplicaSet:
    """Decode a ReplicaSet."""
    meta, spec, template_, selector = _apps(obj, "ReplicaSet")
    return ReplicaSet(meta, _count(spec.get("replicas"), "spec.replicas", 1, pods=True), selector, template_)


def replication_controller(obj: Obj) -> ReplicationController:
    """Decode a ReplicationController: its selector is a label map, defaulted to the template's labels
    (SetDefaults_ReplicationController) and required to match them (ValidateReplicationControllerSpec)."""
    meta = object_meta(obj, namespaced=True, name_rule=validation.dns1123_subdomain)
    spec = f.mapping(obj.get("spec"), "spec")
    template_ = template(spec, "spec.template", ("Always",), "Always")
    labels = f.string_map(spec.get("selector"), "spec.selector") or dict(template_.metadata.labels)
    selector = LabelSelector(match_labels=labels)
    rules.check_selector_labels(selector, "spec.selector")
    if not labels:
        f.report("spec.selector", "Required value")
    elif not selector.matches(template_.metadata.labels):
        shown = ", ".join(f"{f.quote(k)}:{f.quote(v)}" for k, v in sorted(template_.metadata.labels.items()))
        f.report("spec.template.metadata.labels", f"Invalid value: map[string]string{{{shown}}}: `selector` does "
                                                  "not match template `labels`")  # the v1.32 binary's words
    return ReplicationController(meta, _count(spec.get("replicas"), "spec.replicas", 1, pods=True), selector, template_)


def stateful_set(obj: Obj) -> StatefulSet:
    """Decode a StatefulSet (podManagementPolicy OrderedReady or Parallel)."""
    meta, spec, template_, selector = _apps(obj, "StatefulSet")
    policy = f.one_of(spec.get("podManagementPolicy"), "spec.podManagementPolicy", (ORDERED_READY, PARALLEL),
                      ORDERED_READY)
    service = f.string(spec.get("serviceName"), "spec.serviceName")
    if service:
        check_name(service, "spec.serviceName", validation.dns1123_label)
    claims = decode_volumes.volume_claim_templates(spec.get("volumeClaimTemplates"), "spec.volumeClaimTemplates")
    return StatefulSet(meta, _count(spec.get("replicas"), "spec.replicas", 1, pods=True), selector, template_, service,
                       policy or ORDERED_READY, claims)


def daemon_set(obj: Obj) -> DaemonSet:
    """Decode a DaemonSet."""
    meta, _spec, template_, selector = _apps(obj, "DaemonSet")
    return DaemonSet(meta, selector, template_)


def _job_spec(spec: Obj, path: str, meta: ObjectMeta) -> Job:
    template_ = template(spec, f"{path}.template", ("OnFailure", "Never"), None)
    completions = f.integer(spec.get("completions"), f"{path}.completions", bits=32)
    if completions is not None and completions < 0:
        f.report(f"{path}.completions", f"Invalid value: {completions}: must be greater than or equal to 0")
        completions = 1
    # Unset, both default to 1 (a non-parallel Job); unset completions with a parallelism is a work queue.
    parallel_raw = spec.get("parallelism")
    parallelism = _count(parallel_raw, f"{path}.parallelism", 1, pods=True)
    if completions is None and parallel_raw is None:
        completions = 1
    return Job(meta, template_, parallelism, completions, _count(spec.get("backoffLimit"), f"{path}.backoffLimit", 6))


def job(obj: Obj) -> Job:
    """Decode a Job: parallelism, completions, backoffLimit and a template with restartPolicy OnFailure or Never;
    and where it had got to, from its status (a Job complete in a dump stays complete)."""
    meta = object_meta(obj, namespaced=True, name_rule=validation.dns1123_subdomain)
    spec = _job_spec(f.mapping(obj.get("spec"), "spec"), "spec", meta)
    status = f.mapping(obj.get("status"), "status")
    counts = [_count(status.get(key), f"status.{key}", 0) for key in ("succeeded", "failed")]
    finished = ""
    for condition in f.items(status.get("conditions"), "status.conditions", _job_condition):
        if condition[1] == "True" and condition[0] in ("Complete", "Failed"):
            finished = condition[0]
    if not counts[0] and not counts[1] and not finished:
        return spec
    return attrs.evolve(spec, succeeded=counts[0], failed=counts[1], finished=finished)


def _job_condition(obj: Obj, path: str) -> tuple[str, str]:
    """A Job condition's (type, status)."""
    return f.string(obj.get("type"), f"{path}.type"), f.string(obj.get("status"), f"{path}.status")


def cron_job(obj: Obj) -> CronJob:
    """Decode a CronJob: its cron schedule (checked here), time zone, concurrencyPolicy, startingDeadlineSeconds,
    history limits and Job template; and where it had got to, from its status (lastScheduleTime and the active Jobs)."""
    meta = object_meta(obj, namespaced=True, name_rule=validation.dns1123_subdomain)
    spec = f.mapping(obj.get("spec"), "spec")
    schedule = f.string(spec.get("schedule"), "spec.schedule")
    if not schedule:
        f.report("spec.schedule", "Required value")
    else:
        try:
            parse_schedule(schedule)
        except TimeSpecError as exc:
            f.report("spec.schedule", f"Invalid value: {f.quote(schedule)}: {exc}")
    zone = f.string(spec.get("timeZone"), "spec.timeZone")
    if zone:
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            f.report("spec.timeZone", f"Invalid value: {f.quote(zone)}: unknown time zone {f.escape(zone)}")
            zone = ""
    deadline = f.integer(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
    if deadline is not None and deadline < 0:
        f.report("spec.startingDeadlineSeconds", f"Invalid value: {deadline}: must be greater than or equal to 0")
        deadline = None
    successful = _history_limit(spec, "successfulJobsHistoryLimit", 3)
    failed = _history_limit(spec, "failedJobsHistoryLimit", 1)
    job_template = f.mapping(spec.get("jobTemplate"), "spec.jobTemplate")
    job_meta = ObjectMeta(name=meta.name, namespace=meta.namespace)
    status = f.mapping(obj.get("status"), "status")
    return CronJob(meta, schedule, _job_spec(f.mapping(job_template.get("spec"), "spec.jobTemplate.spec"),
                                             "spec.jobTemplate.spec", job_meta),
                   f.one_of(spec.get("concurrencyPolicy"), "spec.concurrencyPolicy", CONCURRENCY_POLICIES, "Allow")
                   or "Allow", f.boolean(spec.get("suspend"), "spec.suspend"), zone, deadline, successful, failed,
                   f.timestamp(status.get("lastScheduleTime"), "status.lastScheduleTime"),
                   f.items(status.get("active"), "status.active", _reference_name))


def _history_limit(spec: Obj, key: str, default: int) -> int:
    """spec.successfulJobsHistoryLimit or spec.failedJobsHistoryLimit: a 32-bit count, not negative; unset, the
    API server's default."""
    path = f"spec.{key}"
    limit = f.integer(spec.get(key), path, bits=32)
    if limit is not None and limit < 0:
        f.report(path, f"Invalid value: {limit}: must be greater than or equal to 0")
        return default
    return default if limit is None else limit


def _reference_name(obj: Obj, path: str) -> str:
    """An ObjectReference's name (a CronJob's ``status.active`` entry names one of its Jobs)."""
    return f.string(obj.get("name"), f"{path}.name")


def replica_set_or_lookup(obj: Obj) -> ReplicaSet | WorkloadController:
    """A ReplicaSet with a template runs; one without (valid only as a selector for default spreading, as
    hand-written examples give them) is only looked up by plugins, as before."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("template") is not None:
        return replica_set(obj)
    return decode.workload_controller(obj)


def replication_controller_or_lookup(obj: Obj) -> ReplicationController | WorkloadController:
    """Like :func:`replica_set_or_lookup`, for ReplicationControllers."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("template") is not None:
        return replication_controller(obj)
    return decode.workload_controller(obj)


def stateful_set_or_lookup(obj: Obj) -> StatefulSet | WorkloadController:
    """Like :func:`replica_set_or_lookup`, for StatefulSets."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("template") is not None:
        return stateful_set(obj)
    return decode.workload_controller(obj)

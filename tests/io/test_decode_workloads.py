"""Decoding the workload kinds: apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job, CronJob."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from kubesched.api.apps import CronJob, DaemonSet, Deployment, Job, ReplicaSet, StatefulSet
from kubesched.api.policy import IntOrPercent
from kubesched.api.timespec import TimeSpecError, parse_duration, parse_schedule
from kubesched.io.load import ClusterInput, InputErrorList, load

TEMPLATE = "template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c}]}}"
JOB_TEMPLATE = ("template: {metadata: {labels: {app: a}, annotations: {kubesched.io/duration: 90s}}, "
                "spec: {restartPolicy: Never, containers: [{name: c}]}}")


def load_text(tmp_path: Path, text: str) -> ClusterInput:
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    return load([path])


def errors_of(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(InputErrorList) as caught:
        load_text(tmp_path, text)
    return [str(e) for e in caught.value.errors]


def test_every_workload_kind_decodes(tmp_path: Path) -> None:
    """All six kinds are read (not skipped) with the fields their controllers use."""
    text = f"""\
kind: Deployment
metadata: {{name: web}}
spec: {{replicas: 4, selector: {{matchLabels: {{app: a}}}},
  strategy: {{rollingUpdate: {{maxSurge: 1, maxUnavailable: 50%}}}}, {TEMPLATE}}}
---
kind: ReplicaSet
metadata: {{name: rs}}
spec: {{replicas: 2, selector: {{matchLabels: {{app: a}}}}, {TEMPLATE}}}
---
kind: StatefulSet
metadata: {{name: db}}
spec: {{replicas: 3, serviceName: db, podManagementPolicy: Parallel,
  selector: {{matchLabels: {{app: a}}}}, {TEMPLATE}}}
---
kind: DaemonSet
metadata: {{name: agent}}
spec: {{selector: {{matchLabels: {{app: a}}}}, {TEMPLATE}}}
---
kind: Job
metadata: {{name: batch}}
spec: {{parallelism: 2, completions: 5, backoffLimit: 1, {JOB_TEMPLATE}}}
---
kind: CronJob
metadata: {{name: nightly}}
spec: {{schedule: "0 2 * * *", concurrencyPolicy: Forbid, jobTemplate: {{spec: {{{JOB_TEMPLATE}}}}}}}
"""
    cluster = load_text(tmp_path, text)
    assert cluster.warnings == ()
    web, rs, db, agent, batch, nightly = cluster.workloads
    assert isinstance(web, Deployment)
    assert (web.replicas, web.max_surge, web.max_unavailable) == (
        4, IntOrPercent(1), IntOrPercent(50, is_percent=True))
    assert isinstance(rs, ReplicaSet)
    assert rs.replicas == 2
    assert isinstance(db, StatefulSet)
    assert (db.service_name, db.pod_management_policy) == ("db", "Parallel")
    assert isinstance(agent, DaemonSet)
    assert isinstance(batch, Job)
    assert (batch.parallelism, batch.completions, batch.backoff_limit) == (2, 5, 1)
    assert batch.template.duration == 90.0
    assert isinstance(nightly, CronJob)
    assert (nightly.schedule, nightly.concurrency_policy) == ("0 2 * * *", "Forbid")
    assert [(c.kind, c.metadata.name) for c in cluster.controllers] == [("ReplicaSet", "rs"), ("StatefulSet", "db")]


def test_cronjob_status_and_deadline_are_read(tmp_path: Path) -> None:
    """startingDeadlineSeconds, and the status a dump carries: lastScheduleTime and the active Jobs' names."""
    (cron,) = load_text(tmp_path, f"""kind: CronJob
metadata: {{name: nightly}}
spec: {{schedule: "0 2 * * *", startingDeadlineSeconds: 300, jobTemplate: {{spec: {{{JOB_TEMPLATE}}}}}}}
status:
  lastScheduleTime: "2024-05-01T02:00:00Z"
  active: [{{apiVersion: batch/v1, kind: Job, name: nightly-28576200, namespace: default, uid: j-1}}]
""").workloads
    assert isinstance(cron, CronJob)
    assert (cron.starting_deadline_seconds, cron.last_schedule_time, cron.active) == (
        300, datetime(2024, 5, 1, 2, tzinfo=UTC), ("nightly-28576200",))


def test_deployment_max_surge_may_exceed_100_percent(tmp_path: Path) -> None:
    """Only maxUnavailable is capped at 100% (IsNotMoreThan100Percent); a maxSurge of 200% is valid."""
    web = load_text(tmp_path, f"kind: Deployment\nmetadata: {{name: web}}\nspec: {{selector: {{matchLabels: "
                              f"{{app: a}}}}, strategy: {{rollingUpdate: {{maxSurge: 200%}}}}, {TEMPLATE}}}\n"
                    ).workloads[0]
    assert isinstance(web, Deployment)
    assert str(web.max_surge) == "200%"


def test_deployment_strategy_defaults_to_rolling_update_25_percent(tmp_path: Path) -> None:
    """Without a strategy, a Deployment rolls with maxSurge and maxUnavailable 25%, as the API server defaults."""
    web = load_text(tmp_path, f"kind: Deployment\nmetadata: {{name: web}}\nspec: {{selector: {{matchLabels: "
                              f"{{app: a}}}}, {TEMPLATE}}}\n").workloads[0]
    assert isinstance(web, Deployment)
    assert (web.strategy, web.replicas, str(web.max_surge), str(web.max_unavailable)) == (
        "RollingUpdate", 1, "25%", "25%")


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{{TEMPLATE}}}\n",
                 "deployments/default/w: spec.selector: Required value", id="selector-required"),
    pytest.param(f"kind: ReplicaSet\nmetadata: {{name: w}}\nspec: {{selector: {{matchLabels: {{app: b}}}}, "
                 f"{TEMPLATE}}}\n",
                 'replicasets/default/w: spec.template.metadata.labels: Invalid value: "app=a": `selector` does not '
                 "match template `labels`", id="selector-mismatch"),
    pytest.param("kind: DaemonSet\nmetadata: {name: w}\nspec: {selector: {matchLabels: {app: a}}, template: {metadata: "
                 "{labels: {app: a}}, spec: {restartPolicy: Never, containers: [{name: c}]}}}\n",
                 'daemonsets/default/w: spec.template.spec.restartPolicy: Unsupported value: "Never": supported '
                 'values: "Always"', id="apps-restart-policy"),
    pytest.param("kind: Job\nmetadata: {name: j}\nspec: {template: {spec: {containers: [{name: c}]}}}\n",
                 'jobs/default/j: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
                 '"Never"', id="job-restart-policy-required"),
    pytest.param(f"kind: Job\nmetadata: {{name: j}}\nspec: {{completions: -2, {JOB_TEMPLATE}}}\n",
                 "jobs/default/j: spec.completions: Invalid value: -2: must be greater than or equal to 0",
                 id="negative-completions"),
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{replicas: 2147483647, selector: {{matchLabels: "
                 f"{{app: a}}}}, {TEMPLATE}}}\n",
                 "deployments/default/w: spec.replicas: Invalid value: 2147483647: more pods than kubesched simulates "
                 "for one workload (at most 150000, the most pods a Kubernetes cluster holds)",
                 id="replicas-past-150000"),
    pytest.param(f"kind: Job\nmetadata: {{name: j}}\nspec: {{parallelism: 150001, {JOB_TEMPLATE}}}\n",
                 "jobs/default/j: spec.parallelism: Invalid value: 150001: more pods than kubesched simulates for one "
                 "workload (at most 150000, the most pods a Kubernetes cluster holds)", id="parallelism-past-150000"),
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{selector: {{matchLabels: {{app: a}}}}, strategy: "
                 f"{{type: Recreate, rollingUpdate: {{maxSurge: 1}}}}, {TEMPLATE}}}\n",
                 "deployments/default/w: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy "
                 "`type` is 'Recreate'", id="recreate-with-rolling-update"),
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{selector: {{matchLabels: {{app: a}}}}, strategy: "
                 f"{{rollingUpdate: {{maxSurge: 0, maxUnavailable: 0}}}}, {TEMPLATE}}}\n",
                 "deployments/default/w: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 "
                 "when `maxSurge` is 0", id="surge-and-unavailable-zero"),
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{selector: {{matchLabels: {{app: a}}}}, strategy: "
                 f"{{rollingUpdate: {{maxUnavailable: 120%}}}}, {TEMPLATE}}}\n",
                 'deployments/default/w: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not '
                 "be greater than 100%", id="unavailable-percent-over-100"),
    pytest.param(f"kind: Deployment\nmetadata: {{name: w}}\nspec: {{selector: {{matchLabels: {{app: a}}}}, strategy: "
                 f"{{rollingUpdate: {{maxSurge: 0%, maxUnavailable: 0%}}}}, {TEMPLATE}}}\n",
                 'deployments/default/w: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be '
                 "0 when `maxSurge` is 0", id="surge-and-unavailable-zero-percent"),
    pytest.param(f"kind: StatefulSet\nmetadata: {{name: s}}\nspec: {{podManagementPolicy: Any, selector: "
                 f"{{matchLabels: {{app: a}}}}, {TEMPLATE}}}\n",
                 'statefulsets/default/s: spec.podManagementPolicy: Unsupported value: "Any": supported values: '
                 '"OrderedReady", "Parallel"', id="pod-management-policy"),
    pytest.param(f"kind: CronJob\nmetadata: {{name: c}}\nspec: {{schedule: '*/0 * * * *', jobTemplate: {{spec: "
                 f"{{{JOB_TEMPLATE}}}}}}}\n",
                 "cronjobs/default/c: spec.schedule: Invalid value: \"*/0 * * * *\": minute: bad step '0'",
                 id="cron-bad-step"),
    pytest.param(f"kind: CronJob\nmetadata: {{name: c}}\nspec: {{schedule: '@daily', concurrencyPolicy: Sometimes, "
                 f"jobTemplate: {{spec: {{{JOB_TEMPLATE}}}}}}}\n",
                 'cronjobs/default/c: spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: '
                 '"Allow", "Forbid", "Replace"', id="concurrency-policy"),
    pytest.param(f"kind: CronJob\nmetadata: {{name: c}}\nspec: {{schedule: '@daily', startingDeadlineSeconds: -1, "
                 f"jobTemplate: {{spec: {{{JOB_TEMPLATE}}}}}}}\n",
                 "cronjobs/default/c: spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal "
                 "to 0", id="negative-starting-deadline"),
    pytest.param("kind: Job\nmetadata: {name: j}\nspec: {template: {metadata: {annotations: {kubesched.io/duration: "
                 "soon}}, spec: {restartPolicy: Never, containers: [{name: c}]}}}\n",
                 'jobs/default/j: spec.template.metadata.annotations.kubesched.io/duration: Invalid value: "soon": '
                 "must be a duration", id="bad-duration"),
    pytest.param("kind: ReplicaSet\nmetadata: {name: w}\nspec: {selector: {matchLabels: {app: a}}, "
                 "template: {metadata: {labels: {app: a}}, spec: {priorityClassName: gold, "
                 "containers: [{name: c}]}}}\n",
                 "replicasets/default/w: spec.template.spec.priorityClassName: pods \"w\" is forbidden: no "
                 "PriorityClass with name gold was found", id="unknown-priority-class"),
])
def test_bad_workload_is_reported_at_its_field(tmp_path: Path, text: str, expected: str) -> None:
    """Each workload rule the API server enforces is reported with the object and the field path."""
    assert any(expected in line for line in errors_of(tmp_path, text)), errors_of(tmp_path, text)


def test_template_errors_name_the_template_path_and_all_are_reported(tmp_path: Path) -> None:
    """Problems inside a pod template name spec.template.spec...; every problem of a run is reported at once."""
    errors = errors_of(tmp_path, "kind: Deployment\nmetadata: {name: w}\nspec: {selector: {matchLabels: {app: a}}, "
                                 "template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, resources: "
                                 "{requests: {cpu: lots}}}]}}}\n---\nkind: Job\nmetadata: {name: j}\nspec: "
                                 "{parallelism: -1, template: {spec: {restartPolicy: Never}}}\n")
    assert any("deployments/default/w: spec.template.spec.containers[0].resources.requests.cpu:" in e for e in errors)
    assert any("jobs/default/j: spec.parallelism: Invalid value: -1" in e for e in errors)
    assert any("jobs/default/j: spec.template.spec.containers: Required value" in e for e in errors)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("5m", 300), ("1h30m", 5400), ("1.5s", 1.5),
                                               ("250ms", 0.25), ("0", 0)])
def test_go_durations_parse(text: str, seconds: float) -> None:
    """kubesched.io/duration takes Go durations."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "5", "-1s", "1d", "s"])
def test_bad_go_durations_are_refused(text: str) -> None:
    """Durations without units, negative ones and unknown units are refused."""
    with pytest.raises(TimeSpecError):
        parse_duration(text)


@pytest.mark.parametrize(("schedule", "after", "expected"), [
    ("0 2 * * *", "2026-01-01T03:00", "2026-01-02T02:00"),
    ("*/15 * * * *", "2026-01-01T03:07", "2026-01-01T03:15"),
    ("@hourly", "2026-01-01T03:00", "2026-01-01T04:00"),
    ("0 0 1 * *", "2026-01-15T00:00", "2026-02-01T00:00"),
    ("30 9 * * mon-fri", "2026-01-02T10:00", "2026-01-05T09:30"),  # a Friday: next is Monday
    ("0 0 13 * 5", "2026-01-01T00:00", "2026-01-02T00:00"),  # day-of-month OR day-of-week, as cron
    ("0 12 * jan,jul 7", "2026-01-01T00:00", "2026-01-04T12:00"),  # 7 is Sunday
])
def test_cron_next_run(schedule: str, after: str, expected: str) -> None:
    """A CronJob's next run is the first instant after now that its schedule names."""
    from datetime import datetime

    got = parse_schedule(schedule).next_after(datetime.fromisoformat(after))
    assert got == datetime.fromisoformat(expected)

"""Durations a run waits are at most Go's longest (2562047h47m16.854775807s, about 292 years): a longer one is
refused with its file, object and field, as Go's time.ParseDuration refuses it, instead of a run that goes on for
millions of virtual years (a Job running 99999999999h beside a CronJob every 5 minutes never ended)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.api.timespec import MAX_DURATION, TimeSpecError, parse_duration
from kubesched.cli.main import main

LONGEST = "must be at most 2562047h47m16.854775807s (the longest Go duration, about 292 years)"
CONTAINER = "{restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}"
CLUSTER = f"""\
kind: Node
metadata: {{name: n1}}
status: {{capacity: {{cpu: '4', memory: 8Gi, pods: '110'}}}}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: long}}
spec: {{template: {{metadata: {{annotations: {{kubesched.io/duration: DURATION}}}}, spec: {CONTAINER}}}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {{name: tick}}
spec:
  schedule: '*/5 * * * *'
  jobTemplate: {{spec: {{template: {{metadata: {{annotations: {{kubesched.io/duration: 1m}}}}, spec: {CONTAINER}}}}}}}
"""
SCENARIO = """\
apiVersion: kubesched.io/v1alpha1
kind: Scenario
metadata: {name: far}
spec:
  settings: SETTINGS
  steps:
  - create: {objects: [{kind: Node, metadata: {name: n1}, status: {capacity: {cpu: '4', pods: '110'}}}]}
STEPS
"""


@pytest.mark.parametrize(("text", "seconds"), [
    pytest.param("2562047h47m16.854775807s", MAX_DURATION, id="the-longest"),
    pytest.param("2562047h", 2562047 * 3600.0, id="hours-below"),
    pytest.param("0", 0.0, id="zero"),
])
def test_durations_up_to_the_longest_go_duration_are_read(text: str, seconds: float) -> None:
    """Go's range, to the nanosecond it can hold."""
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", [
    pytest.param("2562048h", id="an-hour-more"),
    pytest.param("99999999999h", id="the-issue"),
    pytest.param("1e30s", id="exponent-is-not-go"),
    pytest.param("2562047h47m17s", id="a-second-more"),
])
def test_durations_past_the_longest_go_duration_are_refused(text: str) -> None:
    """time.ParseDuration's range: past 2^63-1 nanoseconds Go cannot read them either."""
    with pytest.raises(TimeSpecError):
        parse_duration(text)


def test_a_job_running_past_the_longest_duration_beside_a_cronjob_is_refused(tmp_path: Path) -> None:
    """The issue's run: the duration annotation is located (file, Job, field), exit 1, before anything runs."""
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.replace("DURATION", "99999999999h"), encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 1
    assert result.output == (f"error: {path}: jobs/default/long: spec.template.metadata.annotations."
                             f'kubesched.io/duration: Invalid value: "99999999999h": {LONGEST}\n')


def test_a_job_running_for_days_beside_a_cronjob_ends(tmp_path: Path) -> None:
    """In range, the run lasts as long as the Job (two days: 576 CronJob Jobs, three of them kept)."""
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER.replace("DURATION", "48h"), encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 0, result.output
    assert "0 bound, 0 pending, 0 evicted, 577 succeeded" in result.output


@pytest.mark.parametrize(("settings", "steps", "where"), [
    pytest.param("{jobDuration: 99999999999h}", "", "spec.settings.jobDuration", id="jobDuration"),
    pytest.param("{controllerDelay: 99999999999h}", "", "spec.settings.controllerDelay", id="controllerDelay"),
    pytest.param("{provisioningDelay: 99999999999h}", "", "spec.settings.provisioningDelay",
                 id="provisioningDelay"),
    pytest.param("{}", "  - {at: 99999999999h, delete-node: {name: n1}}", "spec.steps[1]: at", id="at"),
    pytest.param("{}", "  - run-until: 99999999999h", "spec.steps[1]: run-until", id="run-until"),
    pytest.param("{}", "  - drain-node: {name: n1, timeout: 99999999999h}", "spec.steps[1]: drain-node.timeout",
                 id="drain-timeout"),
])
def test_scenario_durations_past_the_longest_are_located(tmp_path: Path, settings: str, steps: str,
                                                         where: str) -> None:
    """Every scenario duration (a Go duration string) past the longest: file, step and field, exit 1."""
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO.replace("SETTINGS", settings).replace("STEPS", steps), encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 1
    assert f'{where}: Invalid value: "99999999999h": {LONGEST}' in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("seconds", [pytest.param("1.0e+300", id="1e300"), pytest.param("9223372037", id="2^63ns+")])
def test_scenario_seconds_past_the_longest_are_located(tmp_path: Path, seconds: str) -> None:
    """A time given as a number of seconds has the same range."""
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO.replace("SETTINGS", "{}").replace("STEPS", f"  - run-until: {seconds}"),
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 1
    assert "spec.steps[1]: run-until: Invalid value: " in result.output
    assert "must be at most 9223372036.854775807 seconds (the longest Go duration, about 292 years)" in result.output

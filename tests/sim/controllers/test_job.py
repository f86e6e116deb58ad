"""The Job controller: parallelism, completions, durations, failures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList, load
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import ControllerSettings
from tests.sim.controllers.helpers import created, events, live, node, run


def job(parallelism: int = 2, completions: int | str = 4, duration: str = "2m", backoff: int = 6) -> str:
    annotations = f"{{kubesched.io/duration: {duration}}}" if duration else "{}"
    return f"""kind: Job
metadata: {{name: batch, uid: job-uid}}
spec:
  parallelism: {parallelism}
  completions: {completions}
  backoffLimit: {backoff}
  template:
    metadata: {{annotations: {annotations}}}
    spec: {{restartPolicy: Never, containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}
"""


def test_runs_completions_at_most_parallelism_at_a_time(tmp_path: Path, registry: PluginRegistry) -> None:
    """Four completions, two at a time, each pod running its 2 minutes: pods start at 0 and 121 s."""
    sim = run(tmp_path, node("n1") + job(), registry)
    assert [t for t, _ in created(sim)] == [0.0, 0.0, 121.0, 121.0]
    assert all(re.fullmatch(r"batch-[bcdfghjklmnpqrstvwxz2456789]{5}", n) for _, n in created(sim))
    assert [e.time for e in events(sim, "Completed")] == [241.0]
    assert live(sim) == []
    assert [sim.cluster.ended[p.uid] for p in sim.pods] == ["Succeeded"] * 4


def test_job_pods_carry_the_job_labels(tmp_path: Path, registry: PluginRegistry) -> None:
    """Pods are labelled with the job's name and uid, as the Job controller labels them."""
    sim = run(tmp_path, node("n1") + job(), registry, until=10)
    labels = live(sim)[0].labels
    assert (labels["job-name"], labels["batch.kubernetes.io/job-name"], labels["controller-uid"]) == (
        "batch", "batch", "job-uid")


def test_succeeded_pod_frees_its_node(tmp_path: Path, registry: PluginRegistry) -> None:
    """On a node with room for one pod, the second pod binds when the first succeeds."""
    sim = run(tmp_path, node("n1", cpu="1") + job(parallelism=2, completions=2), registry)
    bound = sorted(e.time for e in events(sim, "Scheduled"))
    assert bound == [0.0, 120.0]


def test_default_duration_comes_from_the_settings(tmp_path: Path, registry: PluginRegistry) -> None:
    """Without the annotation a pod runs for the settings' job duration."""
    sim = run(tmp_path, node("n1") + job(1, 1, duration=""), registry,
              settings=ControllerSettings(job_duration=30.0))
    assert [e.time for e in events(sim, "Completed")] == [30.0]


def test_lost_pod_is_replaced_and_backoff_limit_fails_the_job(tmp_path: Path, registry: PluginRegistry) -> None:
    """A deleted pod counts as a failure and is replaced; past backoffLimit the Job fails."""
    sim = run(tmp_path, node("n1") + job(1, 1, backoff=1), registry, until=5)
    sim.cluster.delete_pod(live(sim)[0])
    sim.settle(until=40)
    assert len(created(sim)) == 2
    sim.cluster.delete_pod(next(p for p in live(sim) if p.metadata.deletion_timestamp is None))
    sim.settle()
    reasons = [e.reason for e in sim.cluster.events if (e.kind, e.object) == ("Job", "default/batch")]
    assert reasons[-1] == "BackoffLimitExceeded"
    assert len(created(sim)) == 2


def test_work_queue_completes_when_the_last_pod_finishes(tmp_path: Path, registry: PluginRegistry) -> None:
    """Without completions, the first success starts no more pods, the others run to their end, and the Job is
    complete once none is active (succeeded > 0 && active == 0)."""
    sim = run(tmp_path, node("n1") + job(parallelism=2, completions="null", duration=""), registry, until=1)
    first, second = live(sim)
    sim.cluster.complete_pod(first)
    sim.settle(until=30)
    assert sim.cluster.pods[second.uid].metadata.deletion_timestamp is None
    assert events(sim, "Completed") == []
    sim.settle()
    assert [e.time for e in events(sim, "Completed")] == [60.0]
    assert len(created(sim)) == 2
    assert sim.cluster.ended[second.uid] == "Succeeded"


def with_status(manifest: str, status: str) -> str:
    """``manifest`` with a ``status:`` block appended, as a dump prints it."""
    return manifest + f"status: {status}\n"


@pytest.mark.parametrize(("status", "pods"), [
    pytest.param("{succeeded: 4, conditions: [{type: Complete, status: 'True'}]}", 0, id="complete in the dump"),
    pytest.param("{succeeded: 4}", 0, id="all completions succeeded, condition not yet written"),
    pytest.param("{failed: 7, conditions: [{type: Failed, status: 'True'}]}", 0, id="failed in the dump"),
    pytest.param("{succeeded: 3}", 1, id="one completion left"),
    pytest.param("{succeeded: 1, conditions: [{type: Complete, status: 'False'}]}", 3, id="a False condition"),
])
def test_a_job_from_a_dump_goes_on_from_its_status(tmp_path: Path, registry: PluginRegistry, status: str,
                                                   pods: int) -> None:
    """A Job finished in a dump does not run again; a running one creates only the pods its completions lack."""
    sim = run(tmp_path, node("n1", cpu="8") + with_status(job(parallelism=4), status), registry)
    assert len(created(sim)) == pods


def test_a_negative_count_in_a_jobs_status_is_refused(tmp_path: Path) -> None:
    """status.succeeded is a non-negative int32, as the API server holds it."""
    path = tmp_path / "job.yaml"
    path.write_text(with_status(job(), "{succeeded: -1}"), encoding="utf-8")
    with pytest.raises(InputErrorList) as excinfo:
        load([path])
    assert [str(e) for e in excinfo.value.errors] == [
        f"{path}: jobs/default/batch: status.succeeded: Invalid value: -1: must be greater than or equal to 0"]

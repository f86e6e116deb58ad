"""Specification of the Prometheus text output: kube-scheduler's names, labels and buckets, parseable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import REGISTRY

from kubesched.metrics import SPECS, SchedulerMetrics, metrics_json
from kubesched.metrics._store import Histogram, exponential_buckets
from kubesched.metrics.prometheus import prometheus_text
from kubesched.runtime import PluginRegistry
from tests.conftest import REPO
from tests.metrics.scenario import run_known


@pytest.fixture
def families(registry: PluginRegistry) -> dict[str, object]:
    result = run_known(registry)
    assert result.metrics is not None
    return {f.name: f for f in text_string_to_metric_families(prometheus_text(result.metrics))}


def test_the_file_parses_with_kube_scheduler_names(families: dict[str, object]) -> None:
    """Every metric of the issue is there, typed as kube-scheduler types it (counters lose _total when parsed)."""
    types = {name: family.type for name, family in families.items()}  # type: ignore[attr-defined]
    assert types == {
        "scheduler_schedule_attempts": "counter",
        "scheduler_scheduling_attempt_duration_seconds": "histogram",
        "scheduler_preemption_attempts": "counter",
        "scheduler_preemption_victims": "histogram",
        "scheduler_pending_pods": "gauge",
        "scheduler_pod_scheduling_sli_duration_seconds": "histogram",
        "scheduler_plugin_execution_duration_seconds": "histogram",
        "scheduler_queue_incoming_pods": "counter",
    }


def test_counter_samples_carry_the_total_suffix_and_labels(families: dict[str, object]) -> None:
    """scheduler_schedule_attempts_total{profile, result} as Prometheus scrapes it."""
    samples = {(s.name, s.labels["result"]): s.value
               for s in families["scheduler_schedule_attempts"].samples}  # type: ignore[attr-defined]
    assert samples == {("scheduler_schedule_attempts_total", "scheduled"): 2.0,
                       ("scheduler_schedule_attempts_total", "unschedulable"): 4.0}


def test_wall_clock_histograms_are_in_the_file(families: dict[str, object]) -> None:
    """The attempt duration histogram counts every attempt by result (its values are wall-clock time)."""
    counts = {s.labels["result"]: s.value for s in families[  # type: ignore[attr-defined]
        "scheduler_scheduling_attempt_duration_seconds"].samples if s.name.endswith("_count")}
    assert counts == {"scheduled": 2.0, "unschedulable": 4.0}


@pytest.mark.parametrize(("name", "first", "factor", "count"), [
    ("scheduler_scheduling_attempt_duration_seconds", 0.001, 2, 15),
    ("scheduler_preemption_victims", 1, 2, 7),
    ("scheduler_pod_scheduling_sli_duration_seconds", 0.01, 2, 20),
    ("scheduler_plugin_execution_duration_seconds", 0.00001, 1.5, 20),
])
def test_buckets_are_kube_schedulers(name: str, first: float, factor: float, count: int) -> None:
    """Each histogram has kube-scheduler's ExponentialBuckets(first, factor, count), then +Inf."""
    spec = next(s for s in SPECS if s.name == name)
    assert spec.buckets == exponential_buckets(first, factor, count)
    assert len(spec.buckets) == count


def test_a_value_on_a_bound_falls_in_that_bucket() -> None:
    """Buckets are upper-inclusive, as Prometheus' ``le``."""
    histogram = Histogram((1.0, 2.0))
    for value in (1.0, 1.5, 2.0, 3.0):
        histogram.observe(value)
    assert histogram.cumulative() == [1, 3, 4]


def test_the_process_wide_registry_is_never_used(registry: PluginRegistry) -> None:
    """Each run has its own registry: nothing named scheduler_* reaches prometheus-client's global one."""
    run_known(registry)
    prometheus_text(SchedulerMetrics())
    assert not any(m.name.startswith("scheduler_") for m in REGISTRY.collect())


def test_json_bucket_keys_are_the_files_le_labels(registry: PluginRegistry) -> None:
    """The JSON output names each bucket exactly as the Prometheus file's ``le`` label."""
    result = run_known(registry)
    assert result.metrics is not None
    in_file = [s.labels["le"] for f in text_string_to_metric_families(prometheus_text(result.metrics))
               if f.name == "scheduler_pod_scheduling_sli_duration_seconds" for s in f.samples
               if s.name.endswith("_bucket")]
    [sample] = metrics_json(result.metrics)["scheduler_pod_scheduling_sli_duration_seconds"]
    assert list(sample["buckets"]) == in_file  # type: ignore[call-overload]


@pytest.mark.slow
def test_scheduling_does_not_import_prometheus_client() -> None:
    """prometheus-client is loaded only to write or serve the text format, not to schedule."""
    code = ("import sys; from kubesched.sim.simulate import simulate; "
            "print('prometheus_client' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.strip() == "False"

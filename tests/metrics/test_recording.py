"""Specification of the recording helpers: the SLI's attempts label and the status label of a timed plugin call."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework.status import Status
from kubesched.metrics import SchedulerMetrics, attempts_label
from kubesched.metrics._store import Histogram
from kubesched.runtime._metrics import metered


@pytest.mark.parametrize(("attempts", "label"), [(1, "1"), (14, "14"), (15, "15+"), (40, "15+")])
def test_attempts_label_caps_at_15(attempts: int, label: str) -> None:
    """As kube-scheduler's getAttemptsLabel: the count, then "15+" from 15 attempts on."""
    assert attempts_label(attempts) == label


@pytest.mark.parametrize(("hook", "result", "labels"), [
    ("filter", None, ("P", "Filter", "Success")),
    ("filter", Status.unschedulable("full"), ("P", "Filter", "Unschedulable")),
    ("post_filter", (None, Status.unresolvable("no")), ("P", "PostFilter", "UnschedulableAndUnresolvable")),
    ("score", 7, ("P", "Score", "Success")),
    ("normalize_scores", None, ("P", "ScoreExtensionNormalize", "Success")),
])
def test_a_timed_call_is_labelled_by_extension_point_and_returned_code(hook: str, result: Any,
                                                                       labels: tuple[str, ...]) -> None:
    """The call's result passes through; it is observed once under kube-scheduler's extension point and the code
    of the Status it returned (PostFilter returns it second), Success when it returned none."""
    metrics = SchedulerMetrics()
    assert metered(metrics, "P", hook, lambda *args: result)("state", "pod") is result
    family = next(f for f in metrics.families() if f.spec.name == "scheduler_plugin_execution_duration_seconds")
    assert [(key, value.count) for key, value in family.values.items() if isinstance(value, Histogram)] == \
        [(labels, 1)]

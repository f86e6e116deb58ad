"""The fault campaign's log checks (tests/kube/campaign_pods.py) catch what they are for: a pod logged bound by
two replicas, and a replica binding while another leads."""

from __future__ import annotations

import pytest

from tests.kube.campaign_pods import overlapping_binds, scheduled_lines

ACQUIRED = "INFO kubesched.kube.leader: successfully acquired lease kube-system/kubesched"


def _bind(name: str) -> str:
    return f"INFO kubesched.kube.cluster: Scheduled default/{name}: Successfully assigned default/{name} to node-00"


def _log(*lines: tuple[str, str]) -> str:
    return "".join(f"2026-01-01 12:00:{second},000 {text}\n" for second, text in lines)


@pytest.mark.parametrize(("logs", "problems"), [
    pytest.param({"a.log": _log(("01", ACQUIRED), ("02", _bind("p-1"))),
                  "b.log": _log(("10", ACQUIRED), ("11", _bind("p-2")))}, [], id="one-leader-after-another"),
    pytest.param({"a.log": _log(("01", ACQUIRED), ("12", _bind("p-1"))),
                  "b.log": _log(("10", ACQUIRED), ("11", _bind("p-2")))},
                 ["a.log logged a bind at 12:00:12.000000, after b.log acquired the Lease at 12:00:10.000000"],
                 id="bind-after-the-successor-acquired"),
    pytest.param({"a.log": _log(("01", ACQUIRED)), "b.log": _log(("02", _bind("p-1")))},
                 ["b.log logged 1 bind(s) without leading"], id="bind-without-leading"),
])
def test_overlapping_binds(logs: dict[str, str], problems: list[str]) -> None:
    """Binds are allowed only between a replica's acquisition and the next leader's."""
    assert overlapping_binds(logs) == problems


def test_scheduled_lines_count_a_pod_bound_by_two_replicas_twice() -> None:
    """Scheduled lines are counted per pod across every log (FailedScheduling lines are not binds)."""
    failed = "INFO kubesched.kube.cluster: FailedScheduling default/p-2: 0/1 nodes are available"
    counts = scheduled_lines([_log(("01", _bind("p-1")), ("02", failed)), _log(("03", _bind("p-1")))])
    assert counts == {"p-1": 2}

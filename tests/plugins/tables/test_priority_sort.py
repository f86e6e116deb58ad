"""kube-scheduler v1.32's PrioritySort table (pkg/scheduler/framework/plugins/queuesort/priority_sort_test.go:
TestLess), case by case with kube's names and expected values, written with the public testing kit only: the
profile's QueueSort order through the framework's queue_sort_less, and (for the priority rows) the order of the
scheduling queue's activeQ.
"""

from __future__ import annotations

import pytest

from kubesched.framework import PodInfo, QueuedPodInfo
from kubesched.testing import contents, make_pod, new_queue, place, plugin_framework

LOW, HIGH = 10, 100
T1, T2 = 0.0, 1.0

# (p1's priority and queue time, p2's, whether p1 goes first)
CASES = [
    pytest.param((LOW, T1), (HIGH, T1), False, id="p1.priority less than p2.priority"),
    pytest.param((HIGH, T1), (LOW, T1), True, id="p1.priority greater than p2.priority"),
    pytest.param((HIGH, T1), (HIGH, T2), True, id="equal priority. p1 is added to schedulingQ earlier than p2"),
    pytest.param((HIGH, T2), (HIGH, T1), False, id="equal priority. p2 is added to schedulingQ earlier than p1"),
]


def queued(name: str, priority: int, timestamp: float) -> QueuedPodInfo:
    """A pod with this priority that entered the queue at ``timestamp``."""
    return QueuedPodInfo(PodInfo.of(make_pod(name).priority(priority).obj()), timestamp)


@pytest.mark.parametrize(("p1", "p2", "want"), CASES)
def test_less(p1: tuple[int, float], p2: tuple[int, float], want: bool) -> None:
    """Less puts the higher priority first, then the pod that entered the queue earlier."""
    less = plugin_framework("PrioritySort").queue_sort_less
    assert less(queued("p1", *p1), queued("p2", *p2)) is want


@pytest.mark.parametrize(("p1", "p2", "want"), CASES[:2])
def test_queue_pops_in_less_order(p1: tuple[int, float], p2: tuple[int, float], want: bool) -> None:
    """activeQ, wired to the profile's QueueSort, holds pods of different priorities in Less's order whatever the
    order they came in. (The kit's queue stamps pods with its own clock, so the queue-time rows are Less's alone.)"""
    queue = new_queue("PrioritySort")
    place(queue, make_pod("p1").priority(p1[0]), "active")
    place(queue, make_pod("p2").priority(p2[0]), "active")
    assert contents(queue) == {"active": ["p1", "p2"] if want else ["p2", "p1"]}

"""PrioritySort: higher priority first; equal priority goes by the earlier queue timestamp."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._node_info import PodInfo
from kubesched.framework._types import QueuedPodInfo
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_pod


def queued(pod: Pod, timestamp: float) -> QueuedPodInfo:
    """The pod as queued at ``timestamp``."""
    return QueuedPodInfo(PodInfo.of(pod), timestamp)


def less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """PrioritySort's Less(a, b)."""
    return plugin_instance(PrioritySort).queue_sort_less(a, b)


CASES = [
    pytest.param(queued(make_pod("a").priority(10).obj(), 2.0), queued(make_pod("b").priority(5).obj(), 1.0),
                 id="higher-priority-first-despite-later-timestamp"),
    pytest.param(queued(make_pod("a").priority(5).obj(), 1.0), queued(make_pod("b").priority(5).obj(), 2.0),
                 id="equal-priority-earlier-timestamp-first"),
    pytest.param(queued(make_pod("a").obj(), 1.0), queued(make_pod("b").priority(-1).obj(), 0.0),
                 id="unset-priority-is-0"),
    pytest.param(queued(make_pod("a").obj(), 1.0), queued(make_pod("b").priority(0).obj(), 2.0),
                 id="unset-equals-explicit-0"),
    pytest.param(queued(make_pod("a").created(datetime(2024, 1, 2, tzinfo=UTC)).obj(), 1.0),
                 queued(make_pod("b").created(datetime(2024, 1, 1, tzinfo=UTC)).obj(), 2.0),
                 id="queue-timestamp-not-creation-time"),
]


@pytest.mark.parametrize(("first", "second"), CASES)
def test_queue_order(first: QueuedPodInfo, second: QueuedPodInfo) -> None:
    """``first`` sorts before ``second``, and not the other way round."""
    assert less(first, second)
    assert not less(second, first)


def test_equal_priority_and_timestamp_are_unordered() -> None:
    """Two pods with the same priority and queue timestamp: neither is less (the order is strict)."""
    a = queued(make_pod("a").priority(3).obj(), 1.0)
    b = queued(make_pod("b").priority(3).obj(), 1.0)
    assert not less(a, b)
    assert not less(b, a)

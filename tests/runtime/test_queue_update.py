"""An update of a queued pod refreshes its PodInfo: the derived requests are reused while the containers are the
same objects and worked out again when they change."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import SchedulingQueue
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import make_pod
from tests.framework.fakes import framework_of
from tests.runtime.test_queue_hints import Picky

POD = make_pod("p").req(cpu="1").obj()


def _queued(where: str) -> tuple[SchedulingQueue, QueuedPodInfo]:
    """A queue holding POD in activeQ, in flight, in backoffQ or among the unschedulable pods."""
    framework = framework_of({"filter": ["Picky"]}, Picky)
    queue = SchedulingQueue(framework.queue_sort_less, clock=VirtualClock(), hints=framework.queueing_hint_strategy,
                            interested=framework.plugins_interested_in)
    info = queue.add(POD)
    if where != "active":
        popped = queue.pop()
        assert popped is info
        if where != "in flight":
            info.unschedulable_plugins = {"Picky"} if where == "unschedulable" else set()
            queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    return queue, info


WHERE = ["active", "in flight", "backoff", "unschedulable"]


@pytest.mark.parametrize("where", WHERE)
def test_a_status_update_keeps_the_derived_requests(where: str) -> None:
    """A new version with the very same containers (a status write) reuses the requests worked out before."""
    queue, info = _queued(where)
    requests = info.pod_info.requests
    new: Pod = POD.with_status(nominated_node_name="n1")
    queue.update(POD, new)
    assert info.pod_info.pod is new
    assert info.pod_info.requests is requests


@pytest.mark.parametrize("where", WHERE)
def test_new_containers_are_derived_again(where: str) -> None:
    """A version with other containers (a resize) gets its own requests."""
    queue, info = _queued(where)
    queue.update(POD, make_pod("p").req(cpu="500m").obj())
    assert info.pod_info.requests.milli_cpu == 500

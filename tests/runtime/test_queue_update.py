"""An update of a queued pod refreshes its PodInfo: the derived requests are reused while the containers are the
same objects and worked out again when they change. An update of a pod the queue does not hold adds it, unless the
pod is being bound."""

from __future__ import annotations

import random

import pytest

from kubesched.api.pod import Pod
from kubesched.framework import ClusterEventWithHint, Plugin, Status, hookimpl
from kubesched.framework._types import QueuedPodInfo
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import PluginRegistry, Scheduler, SchedulingQueue
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import framework_of, profile_of
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


def test_an_update_of_a_pod_in_no_queue_adds_it_to_active_q() -> None:
    """kube-scheduler's Update: a pod in no queue and not in flight is put in activeQ as new (no attempt yet)."""
    queue = SchedulingQueue(PrioritySort(handle=None).queue_sort_less, clock=VirtualClock())  # type: ignore[arg-type]
    queue.update(POD, POD.with_status(nominated_node_name="n1"))
    (info,) = queue.active_pods()
    assert (info.pod.status.nominated_node_name, info.attempts) == ("n1", 0)
    assert queue.nominator.nominated_node_of(info.pod) == "n1"


def test_an_update_of_a_gated_pod_in_no_queue_leaves_it_gated() -> None:
    """The pod PreEnqueue gates goes to the unschedulable pods, and the nominator does not take it."""
    queue = SchedulingQueue(PrioritySort(handle=None).queue_sort_less, clock=VirtualClock(),  # type: ignore[arg-type]
                            pre_enqueue=lambda pod: Status.unresolvable("held").with_plugin("Hold"))
    queue.update(POD, POD.with_status(nominated_node_name="n1"))
    assert [info.gating_plugin for info in queue.unschedulable_pods()] == ["Hold"]
    assert queue.nominator.nominated_node_of(POD) == ""


class Patching(Plugin):
    """PreBind writes the pod's nominated node (a pod update while the pod is assumed), then fails."""

    name = "Patching"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def pre_bind(self, pod: Pod, node_name: str) -> Status | None:
        self.handle.client.set_nominated_node_name(pod, node_name)
        return Status.as_error("volume not ready")


def test_an_update_of_an_assumed_pod_leaves_the_queue_alone() -> None:
    """As kube-scheduler's updatePodInSchedulingQueue, a pod being bound (assumed) is not re-added when it changes:
    its failed binding then sends it to backoffQ, not straight back to activeQ."""
    cluster = InMemoryCluster(VirtualClock())
    scheduler = Scheduler([profile_of({"pre-bind": ["Patching"]})],
                          PluginRegistry.of(PrioritySort, DefaultBinder, Patching), client=cluster,
                          clock=cluster.clock, rng=random.Random(0))
    cluster.subscribe(scheduler.events)
    cluster.add_node(make_node("n1").obj())
    cluster.add_pod(POD)
    assert scheduler.schedule_one()
    assert (scheduler.queue.active_pods(), scheduler.queue.location(POD.uid)) == ([], "backoff")

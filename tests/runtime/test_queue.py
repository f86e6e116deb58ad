"""Specification of the scheduling queue: ordering, backoff, unschedulable pods, gating."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.api.replace import replaced
from kubesched.framework._events import NODE_ADD
from kubesched.framework._node_info import PodInfo
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import SchedulingQueue, backoff_duration
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import make_pod


def new_queue(clock: VirtualClock | None = None, gate: set[str] | None = None) -> tuple[SchedulingQueue, VirtualClock]:
    clock = clock or VirtualClock()
    sort = PrioritySort(handle=None)  # type: ignore[arg-type]

    def pre_enqueue(pod: Pod) -> Status | None:
        if gate and pod.name in gate:
            return Status.unresolvable("waiting for scheduling gates: [g]").with_plugin("Gates")
        return None

    return SchedulingQueue(sort.queue_sort_less, clock=clock, pre_enqueue=pre_enqueue), clock


def pop_all(queue: SchedulingQueue) -> list[str]:
    names = []
    while (info := queue.pop()) is not None:
        names.append(info.pod.name)
    return names


def fail(queue: SchedulingQueue, info: QueuedPodInfo, plugin: str = "NodeResourcesFit") -> None:
    info.unschedulable_plugins = {plugin} if plugin else set()
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)


class TestOrdering:
    """Tests for activeQ order (PrioritySort)."""

    def test_higher_priority_first_then_arrival(self) -> None:
        """Pods pop by priority, and in arrival order within a priority."""
        queue, clock = new_queue()
        for name, priority in (("a", 0), ("b", 10), ("c", 0), ("d", 10)):
            queue.add(make_pod(name).priority(priority).obj())
            clock.advance_to(clock.now() + 1)
        assert pop_all(queue) == ["b", "d", "a", "c"]

    def test_equal_pods_keep_insertion_order(self) -> None:
        """Pods added at the same instant with equal priority pop in insertion order."""
        queue, _ = new_queue()
        for name in ("x", "y", "z"):
            queue.add(make_pod(name).obj())
        assert pop_all(queue) == ["x", "y", "z"]

    def test_pop_counts_attempts(self) -> None:
        """Each pop is an attempt."""
        queue, _ = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        assert info.attempts == 1
        assert queue.scheduling_cycle == 1


@pytest.mark.parametrize(("attempts", "expected"), [(0, 0.0), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0),
                                                    (60, 10.0)])
def test_backoff_doubles_up_to_the_maximum(attempts: int, expected: float) -> None:
    """Backoff is initial * 2^(attempts-1), capped at the maximum; nothing before the first attempt."""
    assert backoff_duration(attempts, 1.0, 10.0) == expected


class TestFailures:
    """Tests for add_unschedulable_if_not_present and cluster events."""

    def test_rejected_pod_waits_for_an_event(self) -> None:
        """A rejected pod goes to the unschedulable pods when no event happened during its attempt."""
        queue, _ = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        fail(queue, info)
        assert [i.pod.name for i in queue.unschedulable_pods()] == ["p"]
        assert queue.pop() is None

    def test_event_during_attempt_sends_the_pod_to_backoff(self) -> None:
        """A move request during the attempt means the pod retries after backoff instead."""
        queue, _ = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        queue.move_all_to_active_or_backoff(NODE_ADD)
        fail(queue, info)
        assert [i.pod.name for i in queue.backoff_pods()] == ["p"]

    def test_error_without_rejecting_plugin_goes_to_backoff(self) -> None:
        """A failure with no rejecting plugin (an error) is retried after backoff."""
        queue, _ = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        fail(queue, info, plugin="")
        assert [i.pod.name for i in queue.backoff_pods()] == ["p"]

    def test_backoff_expiry_moves_the_pod_to_active(self) -> None:
        """flush_backoff_completed moves pods whose backoff ended into activeQ."""
        queue, clock = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        fail(queue, info, plugin="")
        assert queue.next_backoff_expiry() == 1.0
        clock.advance_to(0.5)
        assert queue.flush_backoff_completed() == 0
        clock.advance_to(1.0)
        assert queue.flush_backoff_completed() == 1
        assert pop_all(queue) == ["p"]

    def test_cluster_event_moves_unschedulable_pods(self) -> None:
        """A cluster event moves unschedulable pods to activeQ once their backoff is over."""
        queue, clock = new_queue()
        queue.add(make_pod("p").obj())
        info = queue.pop()
        assert info is not None
        fail(queue, info)
        clock.advance_to(5.0)
        assert queue.move_all_to_active_or_backoff(NODE_ADD) == 1
        assert pop_all(queue) == ["p"]

    def test_spec_update_retries(self) -> None:
        """A real change to an unschedulable pod gives it another attempt."""
        queue, clock = new_queue()
        pod = make_pod("p").obj()
        queue.add(pod)
        info = queue.pop()
        assert info is not None
        fail(queue, info)
        clock.advance_to(5.0)
        queue.update(pod, make_pod("p").label(tier="gold").obj())
        assert pop_all(queue) == ["p"]

    def test_delete_removes_the_pod_everywhere(self) -> None:
        """A deleted pod leaves the queue and the nominator."""
        queue, _ = new_queue()
        pod = make_pod("p").nominated("n1").obj()
        queue.add(pod)
        assert queue.nominator.nominated_node_of(pod) == "n1"
        queue.delete(pod)
        assert pod.uid not in queue
        assert queue.nominator.nominated_node_of(pod) == ""


class TestAddingAgain:
    """Tests for add of a pod the queue already holds (kube-scheduler's moveToActiveQ): no pod is in two queues."""

    def test_a_pod_in_active_q_is_there_once(self) -> None:
        """Adding a pod activeQ holds replaces its entry: it pops once."""
        queue, _ = new_queue()
        pod = make_pod("p").obj()
        queue.add(pod)
        queue.add(pod)
        assert pop_all(queue) == ["p"]

    def test_a_pod_in_backoff_q_leaves_it_for_active_q(self) -> None:
        """Adding a pod backoffQ holds moves it to activeQ, as a new pod."""
        queue, _ = new_queue()
        pod = make_pod("p").obj()
        queue.add(pod)
        info = queue.pop()
        assert info is not None
        fail(queue, info, plugin="")
        queue.add(pod)
        assert (queue.location(pod.uid), queue.backoff_pods(), queue.next_backoff_expiry()) == ("active", [], None)
        assert [i.attempts for i in queue.active_pods()] == [0]

    def test_an_unschedulable_pod_leaves_them_for_active_q(self) -> None:
        """Adding a pod the unschedulable pods hold moves it to activeQ."""
        queue, _ = new_queue()
        pod = make_pod("p").obj()
        queue.add(pod)
        info = queue.pop()
        assert info is not None
        fail(queue, info)
        queue.add(pod)
        assert (queue.location(pod.uid), queue.unschedulable_pods()) == ("active", [])

    def test_a_gated_pod_stays_in_backoff_q(self) -> None:
        """A pod PreEnqueue now gates stays in backoffQ when added again (its PreEnqueue runs when its backoff
        ends)."""
        gate: set[str] = set()
        queue, _ = new_queue(gate=gate)
        pod = make_pod("g").obj()
        queue.add(pod)
        info = queue.pop()
        assert info is not None
        fail(queue, info, plugin="")
        gate.add("g")
        queue.add(pod)
        assert queue.location(pod.uid) == "backoff"
        assert queue.unschedulable_pods() == []


class TestGating:
    """Tests for PreEnqueue gating."""

    def test_gated_pod_stays_out_of_active(self) -> None:
        """A pod PreEnqueue rejects is kept aside with its gating plugin and message."""
        queue, _ = new_queue(gate={"g"})
        queue.add(make_pod("g").obj())
        queue.add(make_pod("free").obj())
        assert pop_all(queue) == ["free"]
        (gated,) = queue.unschedulable_pods()
        assert gated.gating_plugin == "Gates"
        assert gated.gating_status is not None
        assert gated.gating_status.message() == "waiting for scheduling gates: [g]"

    def test_cluster_events_do_not_release_gated_pods(self) -> None:
        """An event re-runs PreEnqueue of a gated pod, which stays gated while its plugin says so."""
        queue, _ = new_queue(gate={"g"})
        queue.add(make_pod("g").obj())
        assert queue.move_all_to_active_or_backoff(NODE_ADD) == 0
        assert queue.active_count() == 0


class TestDerivedPodInfo:
    """Tests for the PodInfo the queue derives for each pod it takes in."""

    def test_pods_sharing_containers_share_the_derived_amounts(self) -> None:
        """A pod whose containers are the previous pod's very objects reuses its requests; the values are those
        the pod's own derivation gives."""
        queue, _ = new_queue()
        first = make_pod("a").req(cpu="250m", memory="1Gi").obj()
        second = replaced(first, metadata=replaced(first.metadata, name="b", uid="uid-b"))
        first_info, second_info = queue.add(first).pod_info, queue.add(second).pod_info
        assert second_info.requests is first_info.requests
        assert second_info.pod is second
        assert second_info.requests == PodInfo.of(second).requests

    def test_pods_with_their_own_containers_derive_their_own_amounts(self) -> None:
        """A pod built apart from the previous one gets the requests its own containers give."""
        queue, _ = new_queue()
        queue.add(make_pod("a").req(cpu="250m").obj())
        info = queue.add(make_pod("b").req(cpu="1").obj()).pod_info
        assert info.requests.milli_cpu == 1000

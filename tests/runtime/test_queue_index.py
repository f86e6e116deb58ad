"""The unschedulable pods are indexed by the plugins that rejected them, so an event none of those plugins registered
skips the scan; these tests pin that the index never changes which pods an event moves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.pod import Pod
from kubesched.framework._events import NODE_ADD, WILDCARD_EVENT
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import SchedulingQueue
from kubesched.sim.cluster import VirtualClock
from kubesched.testing import make_pod
from tests.framework.fakes import framework_of
from tests.runtime.test_queue_hints import BIG, NODE_LABEL, SMALL, Deaf, Legacy, Picky, where

GATED = "gated"


def new_queue(full_scan: bool = False, held: set[str] | None = None) -> tuple[SchedulingQueue, VirtualClock]:
    """A queue with hints and interested plugins from Picky, Deaf and Legacy; pods labelled gate=yes are gated by
    Picky, those labelled gate=anon or named in ``held`` by a gate that names no plugin. With ``full_scan``, the
    queue is not told which plugins registered an event, so every event looks at every unschedulable pod (the
    oracle)."""
    held = held if held is not None else set()
    framework = framework_of({"filter": ["Picky", "Deaf", "Legacy"]}, Picky, Deaf, Legacy)
    clock = VirtualClock()

    def pre_enqueue(pod: Pod) -> Status | None:
        gate = pod.labels.get("gate")
        if gate == "yes":
            return Status.unresolvable("held").with_plugin("Picky")
        if gate == "anon" or pod.name in held:
            return Status.unresolvable("held")
        return None

    queue = SchedulingQueue(framework.queue_sort_less, clock=clock, pre_enqueue=pre_enqueue,
                            hints=framework.queueing_hint_strategy,
                            interested=None if full_scan else framework.plugins_interested_in)
    return queue, clock


def index(queue: SchedulingQueue) -> tuple[dict[str, frozenset[str]], dict[str, int], int]:
    """The unschedulable pods' index: each pod's rejecting plugins, each plugin's count, the pods with none."""
    pods = queue._unschedulable
    return pods.rejectors_of, pods.rejector_counts, pods.unrejected


def fail(queue: SchedulingQueue, plugins: set[str], pending: set[str] = frozenset()) -> str | None:  # type: ignore[assignment]
    """Pop the next pod and fail it as rejected by ``plugins``; its name, or None when activeQ was empty."""
    info = queue.pop()
    if info is None:
        return None
    info.unschedulable_plugins = set(plugins)
    info.pending_plugins = set(pending)
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    return info.pod.name


@pytest.mark.parametrize("pending", [False, True])
def test_an_event_no_rejecting_plugin_registered_moves_nothing_and_skips_the_scan(pending: bool) -> None:
    """With only pods that Deaf rejected (Unschedulable or Pending) waiting, NodeAdd (which Deaf did not register)
    moves none and runs no hint."""
    queue, clock = new_queue()
    for name in ("a", "b"):
        queue.add(make_pod(name).obj())
        fail(queue, set(), {"Deaf"}) if pending else fail(queue, {"Deaf"})
    clock.advance_to(5.0)
    scanned: list[str] = []

    def pre_check(info: QueuedPodInfo) -> bool:
        scanned.append(info.pod.name)
        return True

    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG, pre_check) == 0
    assert scanned == []
    assert where(queue, "a") == where(queue, "b") == "unschedulable"


def test_a_skipped_event_is_still_replayed_for_the_pods_in_flight() -> None:
    """An event that no waiting pod cares about still counts for a pod in flight when its attempt fails."""
    queue, clock = new_queue()
    queue.add(make_pod("waiting").obj())
    fail(queue, {"Deaf"})
    queue.add(make_pod("p").obj())
    info = queue.pop()
    assert info is not None
    assert info.pod.name == "p"
    clock.advance_to(5.0)
    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG) == 0
    info.unschedulable_plugins = {"Picky"}
    queue.add_unschedulable_if_not_present(info, queue.scheduling_cycle)
    assert where(queue, "p") == "backoff"  # moved by the replayed event, after its own backoff


def test_a_pod_gated_without_a_plugin_name_is_rechecked_on_any_event() -> None:
    """A gate that names no plugin leaves the pod with no rejector: every event re-runs PreEnqueue."""
    held = {"g"}
    queue, _ = new_queue(held=held)
    queue.add(make_pod("g").obj())
    assert where(queue, "g") == "unschedulable"
    held.clear()
    assert queue.move_all_to_active_or_backoff(NODE_LABEL, SMALL, BIG) == 1
    assert where(queue, "g") == "active"


def test_the_index_forgets_pods_that_left() -> None:
    """After the only Picky-rejected pod is deleted, the index holds no Picky pod (so NodeAdd skips the scan)."""
    queue, _ = new_queue()
    pod = make_pod("a").obj()
    queue.add(pod)
    fail(queue, {"Picky"})
    queue.delete(pod)
    assert index(queue) == ({}, {}, 0)


OPS = st.lists(st.one_of(
    st.tuples(st.just("add"), st.integers(0, 5), st.sampled_from(["", "yes", "anon"])),
    st.tuples(st.just("fail"), st.sets(st.sampled_from(["Picky", "Deaf", "Legacy"])),
              st.sets(st.sampled_from(["Picky", "Deaf"]))),
    st.tuples(st.just("event"), st.sampled_from(["add-big", "add-small", "label"])),
    st.tuples(st.just("delete"), st.integers(0, 5)),
    st.tuples(st.just("ungate"), st.integers(0, 5)),
    st.tuples(st.just("activate"), st.integers(0, 5)),
    st.tuples(st.just("tick"), st.floats(0.1, 400.0)),
), max_size=40)


def _apply(queue: SchedulingQueue, clock: VirtualClock, ops: list[tuple[Any, ...]],
           after: Callable[[], None] | None = None) -> list[Any]:
    """Run ``ops`` on ``queue`` (calling ``after`` after each); what each step returned and where every pod is after
    it."""
    pods: dict[str, Pod] = {}
    trace: list[Any] = []
    for op in ops:
        kind = op[0]
        out: Any = None
        if kind == "add":
            name = f"p{op[1]}"
            if name not in pods and name not in queue:
                builder = make_pod(name)
                pods[name] = (builder.label(gate=op[2]) if op[2] else builder).obj()
                queue.add(pods[name])
        elif kind == "fail":
            out = fail(queue, op[1], op[2])
        elif kind == "event":
            event, old, new = {"add-big": (NODE_ADD, None, BIG), "add-small": (NODE_ADD, None, SMALL),
                               "label": (NODE_LABEL, SMALL, BIG)}[op[1]]
            out = queue.move_all_to_active_or_backoff(event, old, new)
        elif kind == "delete":
            pod = pods.pop(f"p{op[1]}", None)
            if pod is not None and pod.uid in queue:
                queue.delete(pod)
        elif kind == "ungate":
            pod = pods.get(f"p{op[1]}")
            if pod is not None and pod.labels.get("gate"):
                pods[pod.name] = ungated = make_pod(pod.name).obj()
                queue.update(pod, ungated)
        elif kind == "activate":
            pod = pods.get(f"p{op[1]}")
            if pod is not None:
                queue.activate([pod])
        else:
            clock.advance_to(clock.now() + op[1])
            out = (queue.flush_backoff_completed(), queue.flush_unschedulable_leftover())
        trace.append((out, sorted((name, where(queue, name)) for name in pods), queue.pending_counts()))
        if after is not None:
            after()
    return trace


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_the_index_moves_exactly_the_pods_a_full_scan_moves(ops: list[tuple[Any, ...]]) -> None:
    """Over any sequence of adds, failures, events, deletes, updates, activations and flushes, the indexed queue
    ends every step exactly where a queue scanning every pod on every event does."""
    indexed, indexed_clock = new_queue()
    scanning, scanning_clock = new_queue(full_scan=True)
    assert _apply(indexed, indexed_clock, ops) == _apply(scanning, scanning_clock, ops)


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_the_index_counts_exactly_the_rejectors_of_the_unschedulable_pods(ops: list[tuple[Any, ...]]) -> None:
    """After every step the index holds each unschedulable pod's rejecting and gating plugins once, and counts the
    pods with none, so no pod that left (moved, activated, updated, deleted) keeps an event from skipping the scan."""
    queue, clock = new_queue()

    def check() -> None:
        pods = queue.unschedulable_pods()
        plugins = {info.pod.uid: frozenset(info.unschedulable_plugins | info.pending_plugins) for info in pods}
        assert index(queue) == (plugins, dict(Counter(name for names in plugins.values() for name in names)),
                                sum(1 for names in plugins.values() if not names))

    _apply(queue, clock, ops, check)


def _leave_by_event(queue: SchedulingQueue) -> None:
    queue.add(make_pod("p").obj())
    fail(queue, {"Picky"})
    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG) == 1


def _leave_by_activation(queue: SchedulingQueue) -> None:
    pod = make_pod("p").obj()
    queue.add(pod)
    fail(queue, {"Picky"})
    queue.activate([pod])


def _leave_by_update(queue: SchedulingQueue) -> None:
    pod = make_pod("p").label(gate="anon").obj()
    queue.add(pod)
    queue.update(pod, make_pod("p").obj())


@pytest.mark.parametrize("leave", [_leave_by_event, _leave_by_activation, _leave_by_update],
                         ids=["event", "activation", "update"])
def test_a_pod_leaving_the_unschedulable_pods_leaves_the_index(leave: Callable[[SchedulingQueue], None]) -> None:
    """A pod an event moves, an activation takes or an update ungates is no longer counted among any plugin's
    unschedulable pods (nor among those without a rejector)."""
    queue, _ = new_queue()
    leave(queue)
    assert where(queue, "p") in ("active", "backoff")
    assert index(queue) == ({}, {}, 0)


def test_the_wildcard_event_moves_pods_whatever_plugin_rejected_them() -> None:
    """The wildcard event matches every registration: a pod rejected only by Deaf (which registered nothing) is
    moved by it, as by a full scan."""
    queue, clock = new_queue()
    queue.add(make_pod("a").obj())
    fail(queue, {"Deaf"})
    clock.advance_to(5.0)
    assert queue.move_all_to_active_or_backoff(WILDCARD_EVENT) == 1
    assert where(queue, "a") in ("active", "backoff")


def test_an_event_that_skips_the_scan_still_records_the_move_request_cycle() -> None:
    """An event no waiting pod's rejector registered moves nothing, yet (as any move request) sets
    move_request_cycle to the current scheduling cycle, as kube-scheduler's MoveAllToActiveOrBackoffQueue does."""
    queue, _ = new_queue()
    queue.add(make_pod("a").obj())
    fail(queue, {"Deaf"})
    assert queue.move_request_cycle < queue.scheduling_cycle
    assert queue.move_all_to_active_or_backoff(NODE_ADD, None, BIG) == 0
    assert queue.move_request_cycle == queue.scheduling_cycle


def test_a_gated_pod_added_again_is_indexed_once() -> None:
    """Adding a pod that a gate holds among the unschedulable pods a second time refreshes its entry: its gating
    plugin still counts it once, so once it leaves the index is empty."""
    queue, _ = new_queue()
    pod = make_pod("g").label(gate="yes").obj()
    queue.add(pod)
    queue.add(pod)
    assert where(queue, "g") == "unschedulable"
    assert index(queue)[1] == {"Picky": 1}
    queue.delete(pod)
    assert index(queue) == ({}, {}, 0)

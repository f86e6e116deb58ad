"""Specification of the scheduling loop (scheduleOne), its messages and its host selection."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, NodeToStatus, fit_error_message
from kubesched.runtime import CycleRecord, PluginRegistry, ScoreTable, select_host
from kubesched.runtime._node_search import num_feasible_nodes_to_find
from kubesched.runtime._scheduler import Scheduler, SchedulerSettings
from kubesched.runtime._scores import _thresholds
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.sim.settling import SettlingPolicy
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import profile_of


class TestFitErrorMessage:
    """Tests for the FitError message (kube-scheduler's reason histogram)."""

    def test_reasons_are_counted_and_sorted_as_strings(self) -> None:
        """Each reason is counted per node and the "<count> <reason>" entries are sorted as strings."""
        statuses = NodeToStatus({
            "n1": Status.unschedulable("Insufficient cpu"),
            "n2": Status.unresolvable("node(s) had untolerated taint {dedicated: gpu}"),
            "n3": Status.unresolvable("node(s) had untolerated taint {dedicated: gpu}"),
        })
        message = fit_error_message(3, Diagnosis(statuses))
        assert message == ("0/3 nodes are available: 1 Insufficient cpu, "
                           "2 node(s) had untolerated taint {dedicated: gpu}.")

    def test_string_sort_puts_10_before_9(self) -> None:
        """The sort is on the whole string, so "10 ..." comes before "9 ..." (as in Go's sort.Strings)."""
        statuses = {f"a{i}": Status.unschedulable("Insufficient cpu") for i in range(10)}
        statuses |= {f"b{i}": Status.unschedulable("Insufficient memory") for i in range(9)}
        message = fit_error_message(19, Diagnosis(NodeToStatus(statuses)))
        assert message == "0/19 nodes are available: 10 Insufficient cpu, 9 Insufficient memory."

    def test_every_reason_of_a_status_counts(self) -> None:
        """A status with two reasons counts each reason once for the node."""
        statuses = NodeToStatus({"n1": Status.unschedulable("Insufficient cpu", "Insufficient memory")})
        assert fit_error_message(1, Diagnosis(statuses)) == (
            "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.")

    def test_absent_nodes_count_with_the_absent_status(self) -> None:
        """Nodes without an explicit status count under the absent-nodes status."""
        statuses = NodeToStatus({"n1": Status.unschedulable("Too many pods")},
                                absent=Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"))
        assert fit_error_message(4, Diagnosis(statuses)) == (
            "0/4 nodes are available: 1 Too many pods, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].")

    def test_pre_filter_message_replaces_the_histogram(self) -> None:
        """A PreFilter rejection is reported once, not per node."""
        diagnosis = Diagnosis(NodeToStatus(absent=Status.unresolvable("pod affinity terms conflict")),
                              pre_filter_msg="pod affinity terms conflict")
        assert fit_error_message(5, diagnosis) == "0/5 nodes are available: pod affinity terms conflict."

    def test_post_filter_message_is_appended_without_a_dot(self) -> None:
        """The PostFilter (preemption) message follows after a space, with no extra dot."""
        statuses = NodeToStatus({"n1": Status.unschedulable("Insufficient cpu")})
        diagnosis = Diagnosis(statuses, post_filter_msg="preemption: 0/1 nodes are available: 1 No preemption "
                                                        "victims found for incoming pod.")
        assert fit_error_message(1, diagnosis) == (
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.")


@pytest.mark.parametrize(("percentage", "nodes", "expected"), [
    (0, 10, 10), (0, 99, 99), (0, 100, 100), (0, 1000, 420), (0, 5000, 500), (0, 6000, 300),
    (0, 100_000, 5000), (50, 1000, 500), (1, 1000, 100), (100, 1000, 1000),
], ids=lambda v: str(v))
def test_num_feasible_nodes_to_find(percentage: int, nodes: int, expected: int) -> None:
    """Small clusters check every node; large ones stop early (adaptive when the percentage is 0)."""
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


class TestSelectHost:
    """Tests for select_host."""

    @staticmethod
    def scores(*totals: int) -> ScoreTable:
        return ScoreTable([f"n{i}" for i in range(len(totals))], totals=list(totals))

    def test_highest_total_wins(self) -> None:
        """The node with the highest total score is chosen."""
        assert select_host(self.scores(10, 30, 20), random.Random(0)) == "n1"

    def test_ties_are_broken_by_the_seeded_rng(self) -> None:
        """Equal scores are decided by the RNG: the same seed always picks the same node."""
        picks = {select_host(self.scores(5, 5, 5, 1), random.Random(seed)) for seed in range(40)}
        assert picks == {"n0", "n1", "n2"}
        assert select_host(self.scores(5, 5, 5), random.Random(7)) == select_host(self.scores(5, 5, 5),
                                                                                  random.Random(7))

    def test_ties_are_uniform(self) -> None:
        """Reservoir sampling gives each tied node the same chance."""
        rng = random.Random(1)
        counts = Counter(select_host(self.scores(9, 9, 9), rng) for _ in range(3000))
        assert all(900 < counts[n] < 1100 for n in ("n0", "n1", "n2"))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.integers(0, 3), min_size=1, max_size=600), st.integers(0, 2**32))
    def test_array_totals_pick_the_same_node_and_leave_the_same_rng_state(self, totals: list[int],
                                                                           seed: int) -> None:
        """The batch path's one-call replay of the reservoir draws picks the per-node path's node, and the RNG
        stream continues from the same point."""
        per_node, batch = random.Random(seed), random.Random(seed)
        as_list = select_host(self.scores(*totals), per_node)
        as_array = select_host(ScoreTable([f"n{i}" for i in range(len(totals))],
                                          totals=np.array(totals, dtype=np.int64)), batch)
        assert as_array == as_list
        assert batch.random() == per_node.random()

    @pytest.mark.parametrize("count", [pytest.param(c, id=f"count-{c}") for c in (2, 3, 7, 100, 499, 4097, 14999)])
    def test_the_integer_draw_test_is_the_float_one_at_its_boundary(self, count: int) -> None:
        """The array path's ``X < ceil(2**53 / count)`` decides each draw as ``X / 2**53 * count < 1.0`` does,
        on both sides of the threshold (where float rounding could differ)."""
        threshold = int(_thresholds(count - 1)[-1])
        for x in (threshold - 2, threshold - 1, threshold, threshold + 1):
            assert (x < threshold) == (x * (1.0 / 9007199254740992.0) * count < 1.0)

    def test_array_replay_is_sensitive_to_the_draws(self) -> None:
        """Guard for the property above: different seeds do pick different tied nodes on the array path."""
        table = ScoreTable([f"n{i}" for i in range(50)], totals=np.full(50, 7, dtype=np.int64))
        assert len({select_host(table, random.Random(seed)) for seed in range(30)}) > 5


class Hold(Plugin):
    """Permit: every pod waits up to 30 seconds."""

    name = "Hold"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait(), 30.0


def scheduler_on(cluster: InMemoryCluster, *extra: type[Plugin], points: dict[str, list[str]] | None = None,
                 settings: SchedulerSettings | None = None) -> Scheduler:
    """A Scheduler with NodeResourcesFit (plus ``extra`` plugins) subscribed to ``cluster``."""
    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.noderesources.fit import NodeResourcesFit
    from kubesched.plugins.priority_sort import PrioritySort

    registry = PluginRegistry.of(PrioritySort, DefaultBinder, NodeResourcesFit, *extra)
    base: dict[str, list[str]] = {"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"],
                                  "pre-score": ["NodeResourcesFit"], "score": ["NodeResourcesFit"]}
    base.update(points or {})
    scheduler = Scheduler([profile_of(base)], registry, client=cluster, clock=cluster.clock,
                          rng=random.Random(0), settings=settings)
    cluster.subscribe(scheduler.events)
    return scheduler


def run(scheduler: Scheduler) -> int:
    attempts = 0
    while scheduler.schedule_one():
        attempts += 1
    return attempts


class TestScheduleOne:
    """Tests for Scheduler.schedule_one against an in-memory cluster."""

    def test_binds_to_the_feasible_node_and_records_the_event(self) -> None:
        """A pod that fits one node is bound there, with kube-scheduler's Scheduled event."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        cluster.add_node(make_node("small").capacity(cpu="1").obj())
        cluster.add_node(make_node("big").capacity(cpu="8").obj())
        cluster.add_pod(make_pod("p").req(cpu="2").obj())
        assert run(scheduler) == 1
        assert cluster.pods["default/p-uid"].spec.node_name == "big"
        assert [(e.reason, e.message) for e in cluster.events] == [
            ("Scheduled", "Successfully assigned default/p to big")]

    def test_failure_sets_condition_event_and_requeues_as_unschedulable(self) -> None:
        """A pod that fits nowhere gets FailedScheduling, PodScheduled=False/Unschedulable, and waits."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        cluster.add_node(make_node("n1").capacity(cpu="1").obj())
        cluster.add_pod(make_pod("p").req(cpu="2").obj())
        run(scheduler)
        pod = cluster.pods["default/p-uid"]
        condition = next(c for c in pod.status.conditions if c.type == "PodScheduled")
        assert (condition.status, condition.reason) == ("False", "Unschedulable")
        assert condition.message == "0/1 nodes are available: 1 Insufficient cpu."
        assert cluster.events[-1].reason == "FailedScheduling"
        assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["p"]
        assert scheduler.queue.unschedulable_pods()[0].unschedulable_plugins == {"NodeResourcesFit"}

    def test_pod_with_unknown_scheduler_name_is_left_alone(self) -> None:
        """Pods naming no profile are never queued; the scheduler reports them as ignored."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("other").scheduler_name("my-scheduler").obj())
        assert run(scheduler) == 0
        assert list(scheduler.ignored) == ["default/other-uid"]

    def test_terminating_pod_is_skipped_with_an_event(self) -> None:
        """A pod being deleted is not scheduled; kube-scheduler's event says so."""
        from datetime import UTC, datetime

        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("p").terminating(datetime(2026, 1, 1, tzinfo=UTC)).obj())
        run(scheduler)
        assert cluster.pods["default/p-uid"].spec.node_name == ""
        assert cluster.events[-1].message == "skip schedule deleting pod: default/p"

    def test_no_nodes_is_unresolvable(self) -> None:
        """With no nodes at all the pod fails with "no nodes available to schedule pods"."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        cluster.add_pod(make_pod("p").obj())
        run(scheduler)
        assert cluster.events[-1].message == "no nodes available to schedule pods"

    def test_reserve_failure_unreserves_and_forgets_the_assumed_pod(self) -> None:
        """A Reserve rejection rolls back: Unreserve runs and the node's resources are free again."""
        log: list[str] = []

        class Gate(Plugin):
            name = "Gate"

            @hookimpl
            def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
                log.append("reserve")
                return Status.unschedulable("quota exceeded")

            @hookimpl
            def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
                log.append("unreserve")

        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, Gate, points={"reserve": ["Gate"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("p").req(cpu="1").obj())
        run(scheduler)
        assert log == ["reserve", "unreserve"]
        assert scheduler.cache.node_info("n1") is not None
        assert scheduler.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
        assert cluster.events[-1].message == "0/1 nodes are available: 1 quota exceeded."

    def test_plugin_error_is_reported_and_the_scheduler_keeps_going(self) -> None:
        """A Filter that raises fails only that pod (SchedulerError); the next pod is scheduled."""
        class Picky(Plugin):
            name = "Picky"

            @hookimpl
            def filter(self, state: CycleState, pod: Pod, node_info: object) -> Status | None:
                if pod.name == "bad":
                    raise RuntimeError("cannot parse annotation")
                return None

        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, Picky, points={"filter": ["NodeResourcesFit", "Picky"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("bad").obj())
        cluster.add_pod(make_pod("good").obj())
        run(scheduler)
        bad = cluster.pods["default/bad-uid"]
        condition = next(c for c in bad.status.conditions if c.type == "PodScheduled")
        assert condition.reason == "SchedulerError"
        assert condition.message == 'running "Picky" filter plugin: RuntimeError: cannot parse annotation'
        assert cluster.pods["default/good-uid"].spec.node_name == "n1"
        assert [i.pod.name for i in scheduler.queue.backoff_pods()] == ["bad"]

    def test_permit_wait_binds_once_allowed(self) -> None:
        """A pod held by Permit binds after the waiting plugin allows it."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, Hold, points={"permit": ["Hold"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("p").obj())
        run(scheduler)
        assert cluster.pods["default/p-uid"].spec.node_name == ""
        framework = scheduler.frameworks["default-scheduler"]
        waiting = framework.handle.get_waiting_pod("default/p-uid")
        assert waiting is not None
        waiting.allow("Hold")
        scheduler.process_waiting_pods()
        assert cluster.pods["default/p-uid"].spec.node_name == "n1"

    def test_permit_timeout_unreserves_and_fails_the_pod(self) -> None:
        """A Permit wait that times out frees the node and reports the timeout."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, Hold, points={"permit": ["Hold"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("p").req(cpu="1").obj())
        run(scheduler)
        assert scheduler.next_wakeup() == 30.0
        cluster.clock.advance_to(30.0)
        scheduler.process_waiting_pods()
        assert cluster.events[-1].message == (
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Hold.")
        assert scheduler.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]

    def test_round_robin_start_moves_past_checked_nodes(self) -> None:
        """Filtering starts where the previous cycle stopped (nextStartNodeIndex)."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, points={"score": []})  # no scoring: stop at the first feasible node
        for name in ("n0", "n1", "n2"):
            cluster.add_node(make_node(name).capacity(cpu="4").obj())
        for i in range(4):
            cluster.add_pod(make_pod(f"p{i}").obj())
        run(scheduler)
        placed = [cluster.pods[f"default/p{i}-uid"].spec.node_name for i in range(4)]
        assert placed == ["n0", "n1", "n2", "n0"]

    def test_cycle_observer_sees_filter_statuses_and_scores(self) -> None:
        """The cycle record holds each node's Filter status and each plugin's weighted score."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster)
        records: list[CycleRecord] = []
        scheduler.cycle_observer = records.append
        cluster.add_node(make_node("tiny").capacity(cpu="1").obj())
        cluster.add_node(make_node("a").capacity(cpu="4").obj())
        cluster.add_node(make_node("b").capacity(cpu="8").obj())
        cluster.add_pod(make_pod("p").req(cpu="2").obj())
        run(scheduler)
        (record,) = records
        assert record.diagnosis.node_to_status.get("tiny").reasons == ("Insufficient cpu",)
        assert record.feasible_nodes == ["a", "b"]
        assert record.scores is not None
        assert {s.name: s.scores[0].score for s in record.scores.node_scores()} == {"a": 50, "b": 75}
        assert record.suggested_host == "b"


def test_pre_filter_rejection_is_one_message_for_all_nodes() -> None:
    """A PreFilter rejection becomes the absent status of every node and the FitError's only reason."""
    class Reject(Plugin):
        name = "Reject"

        @hookimpl
        def events_to_register(self) -> list[ClusterEventWithHint]:
            return []

        @hookimpl
        def pre_filter(self, state: CycleState, pod: Pod, nodes: object) -> Status | None:
            return Status.unresolvable("pod affinity terms conflict")

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Reject, points={"pre-filter": ["Reject"]})
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_node(make_node("n2").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").obj())
    run(scheduler)
    assert cluster.events[-1].message == "0/2 nodes are available: pod affinity terms conflict."
    unschedulable = scheduler.queue.unschedulable_pods()[0]
    assert unschedulable.unschedulable_plugins == {"Reject"}
    assert Code.UNSCHEDULABLE_AND_UNRESOLVABLE.label == "UnschedulableAndUnresolvable"


def test_permit_rejection_waits_in_unschedulable_not_backoff() -> None:
    """A pod rejected while waiting on Permit is requeued as unschedulable; its own forget does not move it."""
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Hold, points={"permit": ["Hold"]})
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").obj())
    policy = SettlingPolicy()
    scheduler.attempt_observer = policy
    cluster.subscribe(policy)
    run(scheduler)
    cluster.clock.advance_to(30.0)
    scheduler.process_waiting_pods()
    assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["p"]
    assert scheduler.queue.backoff_pods() == []
    assert not policy.worth_retrying(scheduler.queue.unschedulable_pods()[0])


def test_error_on_the_nominated_node_falls_back_to_all_nodes() -> None:
    """An Error while checking the nominated node is not fatal: every node is checked next."""
    class BrokenOnN1(Plugin):
        name = "BrokenOnN1"

        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            if node_info.name == "n1":
                raise RuntimeError("flaky")
            return None

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, BrokenOnN1, points={"filter": ["BrokenOnN1"], "score": []})
    cluster.add_node(make_node("n0").capacity(cpu="4").obj())
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").nominated("n1").obj())
    run(scheduler)
    assert cluster.pods["default/p-uid"].spec.node_name == "n0"


@pytest.mark.parametrize(("point", "message"), [
    ("filter", 'running "Odd" filter plugin: returned tuple, expected a Status or None'),
    ("pre-filter", 'running PreFilter plugin "Odd": returned tuple, expected a PreFilterResult, a Status or None'),
    ("reserve", 'running Reserve plugin "Odd": returned tuple, expected a Status or None'),
], ids=["filter", "pre-filter", "reserve"])
def test_wrong_return_type_is_that_plugins_error(point: str, message: str) -> None:
    """A hook returning something that is not a Status is reported as the plugin's error, not a crash."""
    class Odd(Plugin):
        name = "Odd"

        @hookimpl
        def pre_filter(self, state: CycleState, pod: Pod, nodes: object) -> object:
            return (None, None) if point == "pre-filter" else None

        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> object:
            return (None, None) if point == "filter" else None

        @hookimpl
        def reserve(self, state: CycleState, pod: Pod, node_name: str) -> object:
            return (None, None)

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Odd, points={point: ["Odd"]})
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").obj())
    run(scheduler)
    assert cluster.events[-1].message == message


def test_pre_enqueue_runs_again_when_an_event_moves_a_pod() -> None:
    """A pod moved out of the unschedulable pods by a cluster event passes PreEnqueue before activeQ."""
    gate = {"on": False}

    class Gate(Plugin):
        name = "Gate"

        @hookimpl
        def pre_enqueue(self, pod: Pod) -> Status | None:
            return Status.unresolvable("closed") if gate["on"] else None

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Gate, points={"pre-enqueue": ["Gate"]})
    cluster.add_node(make_node("small").capacity(cpu="1").obj())
    cluster.add_pod(make_pod("p").req(cpu="2").obj())
    run(scheduler)
    gate["on"] = True
    cluster.clock.advance_to(60.0)
    cluster.add_node(make_node("big").capacity(cpu="8").obj())
    run(scheduler)
    assert cluster.pods["default/p-uid"].spec.node_name == ""
    (gated,) = scheduler.queue.unschedulable_pods()
    assert gated.gating_plugin == "Gate"


class RefuseBind(Plugin):
    """Bind: always an Error."""

    name = "RefuseBind"

    @hookimpl
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.as_error("refused")


class TestBindingFailure:
    """Tests for a failed binding cycle (kube-scheduler's handleBindingCycleError)."""

    def test_failed_bind_requeues_only_that_pod_with_backoff(self) -> None:
        """A pod whose bind fails goes to backoff; a pod that failed before its reservation stays unschedulable."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, RefuseBind, points={"bind": ["RefuseBind"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("huge").req(cpu="8").obj())
        run(scheduler)
        cluster.add_pod(make_pod("p").req(cpu="1").obj())
        run(scheduler)
        assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["huge"]
        assert [i.pod.name for i in scheduler.queue.backoff_pods()] == ["p"]
        assert scheduler.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]

    def test_failed_bind_wakes_pods_refused_while_it_held_its_room(self) -> None:
        """A pod refused while another held its room on Permit is moved when that pod's reservation is dropped."""
        cluster = InMemoryCluster(VirtualClock())
        scheduler = scheduler_on(cluster, Hold, points={"permit": ["Hold"]})
        cluster.add_node(make_node("n1").capacity(cpu="4").obj())
        cluster.add_pod(make_pod("holder").req(cpu="3").obj())
        run(scheduler)
        cluster.add_pod(make_pod("late").req(cpu="2").obj())
        run(scheduler)
        assert [i.pod.name for i in scheduler.queue.unschedulable_pods()] == ["late"]
        cluster.clock.advance_to(30.0)
        scheduler.process_waiting_pods()
        assert "late" not in [i.pod.name for i in scheduler.queue.unschedulable_pods()]


def _helper_added(pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
    return QueueingHint.QUEUE if new is not None and new.labels.get("helper") == "yes" else QueueingHint.QUEUE_SKIP


class Hinted(Plugin):
    """Filter: rejects pods labelled wait=yes; its hint says an assigned pod labelled helper=yes may help them."""

    name = "Hinted"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD), _helper_added)]

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("waiting") if pod.labels.get("wait") == "yes" else None


@pytest.mark.parametrize(("helper", "moved"), [("yes", True), ("no", False)])
def test_an_assigned_pod_wakes_the_pods_its_rejecting_plugin_says_it_may_help(helper: str, moved: bool) -> None:
    """The rejecting plugin's queueing hint decides whether a new assigned pod moves a rejected pod."""
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Hinted, points={"filter": ["Hinted"]})
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").label(wait="yes").obj())
    run(scheduler)
    cluster.add_pod(make_pod("other").label(helper=helper).node("n1").obj())
    assert (scheduler.queue.unschedulable_pods() == []) is moved


def _raising_hint(pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
    raise LookupError("no index")


def _wrong_answer_hint(pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
    return "Queue"  # type: ignore[return-value]


@pytest.mark.parametrize(("hint", "message"), [
    pytest.param(_raising_hint, "LookupError: no index", id="a hint that raises"),
    pytest.param(_wrong_answer_hint, "returned str, expected a QueueingHint", id="a hint answering a str"),
])
def test_a_broken_queueing_hint_counts_as_queue(hint: QueueingHintFn, message: str) -> None:
    """A hint that raises or answers other than a QueueingHint moves the pod (as kube-scheduler does for an error)
    and is reported as that plugin's error, naming what went wrong."""
    class BrokenHint(Hinted):
        name = "BrokenHint"

        @hookimpl
        def events_to_register(self) -> list[ClusterEventWithHint]:
            return [ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD), hint)]

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, BrokenHint, points={"filter": ["BrokenHint"]})
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").label(wait="yes").obj())
    run(scheduler)
    cluster.add_pod(make_pod("other").node("n1").obj())
    assert scheduler.queue.unschedulable_pods() == []
    assert [(f.point, f.plugin, f.message) for f in scheduler.plugin_failures()] == [
        ("QueueingHint", "BrokenHint", message)]


def test_the_runtime_names_no_built_in_plugin(registry: PluginRegistry) -> None:
    """The scheduling machinery decides through plugin hooks and hints, never by a built-in plugin's name."""
    import pathlib

    import kubesched.runtime

    names = [name for name in registry if registry[name].source == "builtin"]
    assert "PodTopologySpread" in names
    for source in sorted(pathlib.Path(kubesched.runtime.__file__).parent.glob("*.py")):
        text = source.read_text(encoding="utf-8")
        assert [n for n in names if f'"{n}"' in text or f"'{n}'" in text] == [], source.name


def test_the_scheduler_keeps_no_settling_policy() -> None:
    """When to stop retrying is the simulator's business: the scheduler has no epochs or retry caps."""
    import kubesched.runtime._scheduler as loop

    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster)
    assert not hasattr(loop, "MAX_ERROR_RETRIES")
    assert not any(hasattr(scheduler, name) for name in ("epoch", "worth_retrying"))


@pytest.mark.parametrize("fast_path", [True, False])
def test_the_handle_offers_the_preemption_accelerator_on_the_fast_path_only(fast_path: bool) -> None:
    """SchedulerSettings.fast_path decides whether every profile's handle offers the preemption accelerator, so the
    Evaluator's dry run follows --reference; no other mode reaches the plugins."""
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, settings=SchedulerSettings(fast_path=fast_path))
    offered = [framework.handle.preemption_accelerator is not None for framework in scheduler.frameworks.values()]
    assert offered == [fast_path] * len(scheduler.frameworks)
    assert not any(hasattr(framework.handle, "fast_path") for framework in scheduler.frameworks.values())

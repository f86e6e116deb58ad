"""Specification of Evaluator.preempt and prepare_candidate: what a preemption does to the cluster."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

import pytest

from kubesched.api.pod import Pod, PodCondition
from kubesched.framework import Candidate
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus, PostFilterResult
from kubesched.sim.cluster import InMemoryCluster, RecordedPreemption, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import NOW, T0, preemption_cluster

HIGH, MID, LOW = 1000, 100, 1
PREEMPTED_CONDITION = PodCondition("DisruptionTarget", "True", "PreemptionByScheduler",
                                   "default-scheduler: preempting to accommodate a higher priority pod")


def on_n1(name: str, priority: int = LOW, cpu: str = "1") -> Pod:
    """A pod running on n1."""
    return make_pod(name).node("n1").priority(priority).req(cpu=cpu).start_time(T0).obj()


def remove_pod_error(name: str, error_on: Callable[[str], str]) -> type[Plugin]:
    """A PreFilter plugin whose RemovePod extension fails with Error ``error_on(node)`` (no error when empty)."""
    class _Broken(Plugin):
        @hookimpl
        def pre_filter(self, state: CycleState, pod: Pod, nodes: object) -> None:
            return None

        @hookimpl
        def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: object,
                                  node_info: NodeInfo) -> Status | None:
            message = error_on(node_info.name)
            return Status.as_error(message) if message else None

        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: object) -> Status | None:
            return None

    _Broken.name = name
    return _Broken


def preempt_on_two_full_nodes(extra: type[Plugin]) -> tuple[PostFilterResult | None, Status]:
    """Preempt for a HIGH pod while n1 and n2 each run one LOW pod filling them, ``extra`` at PreFilter."""
    nodes = [make_node(n).capacity(cpu="1").obj() for n in ("n1", "n2")]
    pods = [make_pod(f"v{i}").node(n).priority(LOW).req(cpu="1").obj() for i, n in enumerate(("n1", "n2"))]
    pod = make_pod("p").priority(HIGH).req(cpu="1").obj()
    setup = preemption_cluster(nodes, [*pods, pod], extra=[extra],
                               points={"pre-filter": ["NodeResourcesFit", extra.name]})
    statuses = NodeToStatus({n: Status.unschedulable("Insufficient cpu") for n in ("n1", "n2")})
    return setup.evaluator.preempt(setup.pre_filter(pod), pod, statuses)


class TestPrepareCandidate:
    """Tests for Evaluator.prepare_candidate."""

    def test_victims_get_the_condition_and_event_and_terminate(self) -> None:
        """Each victim gets DisruptionTarget, is deleted gracefully, and a Preempted event names the preemptor."""
        a, b = on_n1("a"), on_n1("b")
        pod = make_pod("p").uid("p-uid").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj()], [a, b, pod])
        status = setup.evaluator.prepare_candidate(Candidate("n1", (a, b)), pod)
        assert status == Status.success()
        for victim in (a, b):
            live = setup.cluster.pods[victim.uid]
            assert live.metadata.deletion_timestamp == NOW + timedelta(seconds=30)  # after the default grace
            assert live.status.conditions == (PREEMPTED_CONDITION,)
        assert [(e.type, e.reason, e.object, e.message) for e in setup.cluster.events] == [
            ("Normal", "Preempted", "default/a", "Preempted by pod p-uid on node n1"),
            ("Normal", "Preempted", "default/b", "Preempted by pod p-uid on node n1"),
        ]
        assert setup.cluster.preemptions == [
            RecordedPreemption("default/p", "n1", ("default/a", "default/b"), (False, False), "p-uid",
                               ("default/a-uid", "default/b-uid"))]

    def test_condition_names_the_preemptors_scheduler(self) -> None:
        """The DisruptionTarget message starts with the preemptor's schedulerName."""
        victim = on_n1("v")
        pod = make_pod("p").priority(HIGH).scheduler_name("batch-scheduler").obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj()], [victim, pod])
        setup.evaluator.prepare_candidate(Candidate("n1", (victim,)), pod)
        (condition,) = setup.cluster.pods[victim.uid].status.conditions
        assert condition.message == "batch-scheduler: preempting to accommodate a higher priority pod"

    def test_victims_already_terminating_are_preempted_again(self) -> None:
        """As kube-scheduler v1.32: a victim with a deletionTimestamp gets the condition and an event again, keeps
        its deletion time, and is recorded as already terminating."""
        ends = NOW + timedelta(hours=1)
        going = make_pod("going").node("n1").priority(LOW).terminating(ends).obj()
        fresh = on_n1("fresh")
        pod = make_pod("p").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj()], [going, fresh, pod])
        setup.evaluator.prepare_candidate(Candidate("n1", (going, fresh)), pod)
        live = setup.cluster.pods[going.uid]
        assert (live.status.conditions, live.metadata.deletion_timestamp) == ((PREEMPTED_CONDITION,), ends)
        assert [e.object for e in setup.cluster.events] == ["default/going", "default/fresh"]
        assert setup.cluster.preemptions == [
            RecordedPreemption("default/p", "n1", ("default/going", "default/fresh"), (True, False), "default/p-uid",
                               ("default/going-uid", "default/fresh-uid"))]

    def test_waiting_pod_is_rejected_instead_of_deleted(self) -> None:
        """A victim held by Permit is rejected with "preempted" on behalf of the plugin, not deleted."""
        class Hold(Plugin):
            name = "Hold"

            @hookimpl
            def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
                return Status.wait(), 30.0

        waiting = make_pod("waiting").priority(LOW).obj()
        pod = make_pod("p").uid("p-uid").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj()], [waiting, pod], extra=[Hold],
                                   points={"permit": ["Hold"]})
        assumed = waiting.with_node_name("n1")
        assert setup.framework.run_permit_plugins(CycleState(), assumed, "n1") is not None
        setup.evaluator.prepare_candidate(Candidate("n1", (assumed,)), pod)
        held = setup.framework.handle.get_waiting_pod(waiting.uid)
        assert held is not None
        assert held.outcome == Status(Code.UNSCHEDULABLE, ("preempted",), "DefaultPreemption")
        assert setup.cluster.pods[waiting.uid].metadata.deletion_timestamp is None
        assert [(e.object, e.message) for e in setup.cluster.events] == [
            ("default/waiting", "Preempted by pod p-uid on node n1")]

    def test_lower_priority_nominations_on_the_node_are_cleared(self) -> None:
        """Pods nominated to the node with lower priority lose their nomination; equal or higher keep it."""
        victim = on_n1("v")
        lower = make_pod("lower").priority(MID).nominated("n1").obj()
        equal = make_pod("equal").priority(HIGH).nominated("n1").obj()
        elsewhere = make_pod("elsewhere").priority(LOW).nominated("n2").obj()
        pod = make_pod("p").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj(), make_node("n2").obj()],
                                   [victim, lower, equal, elsewhere, pod])
        setup.evaluator.prepare_candidate(Candidate("n1", (victim,)), pod)
        nominated = {p.name: p.status.nominated_node_name for p in setup.cluster.pods.values()
                     if not p.spec.node_name}
        assert nominated == {"lower": "", "equal": "n1", "elsewhere": "n2", "p": ""}

    def test_delete_failure_is_an_error(self) -> None:
        """An API error while deleting a victim makes prepare_candidate return an Error."""
        class Refusing(InMemoryCluster):
            def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
                raise ConnectionError("apiserver unavailable")

        victim = on_n1("v")
        pod = make_pod("p").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="2").obj()], [victim, pod],
                                   cluster=Refusing(VirtualClock(NOW)))
        status = setup.evaluator.prepare_candidate(Candidate("n1", (victim,)), pod)
        assert (status.code, status.reasons) == (Code.ERROR, ("apiserver unavailable",))
        assert setup.cluster.preemptions == []


class TestPreempt:
    """Tests for Evaluator.preempt: the decision and the nomination it returns."""

    def test_success_nominates_the_chosen_node(self) -> None:
        """The pod is nominated to the best node after its victims there were deleted."""
        nodes = [make_node("n1").capacity(cpu="2").obj(), make_node("n2").capacity(cpu="2").obj()]
        pods = [make_pod("a").node("n1").priority(MID).req(cpu="2").obj(),
                make_pod("b").node("n2").priority(LOW).req(cpu="2").obj()]
        pod = make_pod("p").priority(HIGH).req(cpu="2").obj()
        setup = preemption_cluster(nodes, [*pods, pod])
        state = setup.pre_filter(pod)
        result, status = setup.evaluator.preempt(state, pod, setup.filter_statuses(pod, state))
        assert (result, status) == (PostFilterResult.nominate("n2"), Status.success())
        assert [(p.preemptor, p.node, p.victims) for p in setup.cluster.preemptions] == [
            ("default/p", "n2", ("default/b",))]

    def test_uses_the_latest_version_of_the_pod(self) -> None:
        """The preemptor is re-read from the cluster: a nomination written since counts."""
        victim = make_pod("v").node("n1").priority(LOW).req(cpu="1").terminating(NOW + timedelta(hours=1)).obj()
        victim = victim.with_status(conditions=(PREEMPTED_CONDITION,))
        stale = make_pod("p").priority(HIGH).req(cpu="2").obj()
        setup = preemption_cluster([make_node("n1").capacity(cpu="1").obj()], [victim, stale])
        setup.cluster.set_nominated_node_name(stale, "n1")
        state = setup.pre_filter(stale)
        result, status = setup.evaluator.preempt(state, stale, setup.filter_statuses(stale, state))
        assert (result, status) == (None, Status.unschedulable(
            "not eligible due to a terminating pod on the nominated node."))

    def test_pod_gone_from_the_cluster_is_an_error(self) -> None:
        """A preemptor that no longer exists cannot preempt (kube's lister error)."""
        pod = make_pod("p").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").obj()])
        result, status = setup.evaluator.preempt(CycleState(), pod, NodeToStatus())
        assert (result, status.code, status.reasons) == (None, Code.ERROR, ('pod "p" not found',))

    def test_no_candidate_clears_the_nomination_with_a_fit_error(self) -> None:
        """Without candidates the nomination is cleared and the message is a FitError over the dry run."""
        nodes = [make_node(n).capacity(cpu="1").obj() for n in ("n1", "n2", "n3", "n4")]
        pods = [make_pod("vip").node("n1").priority(HIGH).req(cpu="1").obj(),
                make_pod("tiny").node("n2").priority(LOW).req(cpu="1").obj()]
        pod = make_pod("p").priority(HIGH).req(cpu="2").nominated("n2").obj()
        setup = preemption_cluster(nodes, [*pods, pod])
        statuses = NodeToStatus({"n1": Status.unschedulable("Insufficient cpu"),
                                 "n2": Status.unschedulable("Insufficient cpu"),
                                 "n4": Status.unresolvable("node(s) had untolerated taint {a: b}")})
        result, status = setup.evaluator.preempt(setup.pre_filter(pod), pod, statuses)
        assert result == PostFilterResult.nominate("")
        assert status == Status.unschedulable(
            "0/4 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, "
            "2 Preemption is not helpful for scheduling.")

    def test_no_potential_node_at_all(self) -> None:
        """When no node was Unschedulable, every node counts as "Preemption is not helpful"."""
        pod = make_pod("p").priority(HIGH).obj()
        setup = preemption_cluster([make_node("n1").obj(), make_node("n2").obj()], [pod])
        result, status = setup.evaluator.preempt(CycleState(), pod, NodeToStatus())
        assert (result, status) == (PostFilterResult.nominate(""), Status.unschedulable(
            "0/2 nodes are available: 2 Preemption is not helpful for scheduling."))

    @pytest.mark.parametrize("per_node", [False, True], ids=["same message", "one message per node"])
    def test_errors_on_every_node_are_aggregated(self, per_node: bool) -> None:
        """If every potential node fails with an Error, preempt returns them as one Error: a repeated message
        once, different messages as "[a, b]" in dry-run order."""
        broken = remove_pod_error("Broken", lambda node: f"state lost on {node}" if per_node else "state lost")
        result, status = preempt_on_two_full_nodes(broken)
        assert (result, status.code) == (None, Code.ERROR)
        if not per_node:
            assert status.reasons == ('running RemovePod on PreFilter plugin "Broken": state lost',)
            return
        first = random.Random(0).randrange(2)  # the dry run's offset with the setup's seed
        order = ["n1", "n2"][first:] + ["n1", "n2"][:first]
        assert status.reasons == ("[" + ", ".join(f'running RemovePod on PreFilter plugin "Broken": state lost on {n}'
                                                  for n in order) + "]",)

    def test_an_error_on_one_node_does_not_hide_a_candidate_on_another(self) -> None:
        """A dry-run Error on one node is ignored when another node is a candidate."""
        broken = remove_pod_error("BrokenOnN1", lambda node: "state lost" if node == "n1" else "")
        result, status = preempt_on_two_full_nodes(broken)
        assert (result, status) == (PostFilterResult.nominate("n2"), Status.success())

"""Specification of the preemption Evaluator: victims on a node, candidate nodes, the pick, eligibility, prepare."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import timedelta

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.framework import Candidate, DisruptionBudgets, Evaluator, ScoreFunc, pick_one_node_for_preemption
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus
from kubesched.framework.preemption._candidates import PRIORITY_OFFSET
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import NOW, T0, names, pdb, preemption_cluster

HIGH, MID, LOW = 1000, 100, 1


def victims_on_node(running: Sequence[Pod], preemptor: Pod, pdbs: Sequence[PodDisruptionBudget] = (),
                    cpu: str = "4", evaluator_class: type[Evaluator] = Evaluator) -> tuple[list[str], int, Status]:
    """SelectVictimsOnNode on one node ``n1`` holding ``running``, for ``preemptor``."""
    setup = preemption_cluster([make_node("n1").capacity(cpu=cpu).obj()], [*running, preemptor])
    evaluator = evaluator_class("DefaultPreemption", setup.framework.handle)
    budgets = DisruptionBudgets.of(pdbs, list(running))
    victims, violations, status = evaluator.select_victims_on_node(
        setup.pre_filter(preemptor), preemptor, setup.node("n1").clone(), budgets)
    return names(victims), violations, status


def on_n1(name: str, priority: int, cpu: str = "1", start: int | None = 0, **labels: str) -> Pod:
    """A pod running on n1 with this priority and cpu request, started ``start`` hours after T0 (None: unset)."""
    builder = make_pod(name).node("n1").priority(priority).req(cpu=cpu).label(**labels)
    if start is not None:
        builder = builder.start_time(T0 + timedelta(hours=start))
    return builder.obj()


def preemptor(cpu: str = "2", priority: int = HIGH) -> Pod:
    """The pending pod that preempts."""
    return make_pod("p").priority(priority).req(cpu=cpu).obj()


class TestSelectVictimsOnNode:
    """Tests for Evaluator.select_victims_on_node."""

    @pytest.mark.parametrize(("running", "pod", "victims"), [
        pytest.param([on_n1("a", 1), on_n1("b", 2), on_n1("c", 3, cpu="2")], preemptor(), ["b", "a"],
                     id="most important reprieved first, the rest are victims"),
        pytest.param([on_n1("big", LOW, cpu="3"), on_n1("small", LOW, start=1)], preemptor(cpu="1"), ["small"],
                     id="minimal set: the pod that must go is the only victim"),
        pytest.param([on_n1("old", LOW, cpu="2", start=0), on_n1("new", LOW, cpu="2", start=1)], preemptor(),
                     ["new"], id="equal priority: the earlier started pod is more important"),
        pytest.param([on_n1("unstarted", LOW, cpu="2", start=None), on_n1("started", LOW, cpu="2", start=5)],
                     preemptor(), ["unstarted"], id="no start time counts as now"),
        pytest.param([on_n1("equal", HIGH, cpu="2"), on_n1("low", LOW, cpu="2")], preemptor(), ["low"],
                     id="pods of equal priority are never victims"),
    ])
    def test_victims(self, running: list[Pod], pod: Pod, victims: list[str]) -> None:
        """All lower-priority pods are removed, then reprieved most important first while the pod still fits."""
        assert victims_on_node(running, pod) == (victims, 0, Status.success())

    def test_no_lower_priority_pod_means_no_victims(self) -> None:
        """A node with only equal or higher priority pods gives UnschedulableAndUnresolvable."""
        running = [on_n1("equal", HIGH, cpu="2"), on_n1("higher", HIGH + 1, cpu="2")]
        assert victims_on_node(running, preemptor(cpu="1"), cpu="4") == (
            [], 0, Status.unresolvable("No preemption victims found for incoming pod"))

    def test_pod_that_does_not_fit_even_with_all_victims_gone(self) -> None:
        """When removing every lower-priority pod is not enough, the Filter rejection is returned."""
        running = [on_n1("higher", HIGH + 1, cpu="3"), on_n1("low", LOW)]
        _victims, _violations, status = victims_on_node(running, preemptor())
        assert (status.code, status.reasons, status.plugin) == (Code.UNSCHEDULABLE, ("Insufficient cpu",),
                                                                "NodeResourcesFit")
        assert _victims == []

    def test_more_important_nominated_pod_holds_its_room_in_the_dry_run(self) -> None:
        """A pod nominated to the node with higher priority than the preemptor keeps its room while victims
        are chosen: on 4 CPUs, vip (2, nominated) and p (1) leave room for one of a and b; b started later."""
        running = [on_n1("a", LOW, cpu="1", start=0), on_n1("b", LOW, cpu="1", start=1)]
        nominee = make_pod("vip").priority(HIGH + 1).req(cpu="2").nominated("n1").obj()
        pod = preemptor(cpu="1")
        setup = preemption_cluster([make_node("n1").capacity(cpu="4").obj()], [*running, nominee, pod])
        victims, _violations, status = setup.evaluator.select_victims_on_node(
            setup.pre_filter(pod), pod, setup.node("n1").clone(), DisruptionBudgets.of((), running))
        assert (names(victims), status) == (["b"], Status.success())

    def test_pdb_violating_pods_are_reprieved_first(self) -> None:
        """A pod whose eviction would break a PDB is reprieved before a more important one that would not."""
        running = [on_n1("guarded", LOW, cpu="2", app="db"), on_n1("free", MID, cpu="2")]
        assert victims_on_node(running, preemptor()) == (["guarded"], 0, Status.success())
        assert victims_on_node(running, preemptor(), [pdb("db", 0, app="db")]) == (["free"], 0, Status.success())

    def test_pdb_violations_are_counted_and_victims_sorted_by_importance(self) -> None:
        """The budget is spent in importance order; victims past it count as violations; victims are re-sorted."""
        running = [on_n1("a1", LOW, cpu="2", start=0, app="a"), on_n1("a2", LOW, cpu="2", start=1, app="a")]
        assert victims_on_node(running, preemptor(cpu="4"), [pdb("a", 1, app="a")]) == (
            ["a1", "a2"], 1, Status.success())
        assert victims_on_node(running, preemptor(cpu="4"), [pdb("a", 0, app="a")]) == (
            ["a1", "a2"], 2, Status.success())
        assert victims_on_node(running, preemptor(cpu="4"), [pdb("a", 2, app="a")]) == (
            ["a1", "a2"], 0, Status.success())

    def test_pods_already_disrupted_do_not_spend_the_budget(self) -> None:
        """A pod listed in the PDB's disruptedPods is not counted against it (the API server already did)."""
        running = [on_n1("a1", LOW, cpu="2", start=0, app="a"), on_n1("a2", LOW, cpu="2", start=1, app="a")]
        budget = pdb("a", 0, disrupted=["a1"], app="a")
        assert victims_on_node(running, preemptor(cpu="4"), [budget]) == (["a1", "a2"], 1, Status.success())

    def test_is_eligible_pod_hook_protects_victims(self) -> None:
        """An Evaluator overriding is_eligible_pod keeps the pods it refuses out of the victims."""
        class SparingDaemons(Evaluator):
            def is_eligible_pod(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
                return victim.pod.labels.get("role") != "daemon"

        running = [on_n1("daemon", LOW, cpu="2", role="daemon"), on_n1("batch", MID, cpu="2")]
        assert victims_on_node(running, preemptor(), evaluator_class=SparingDaemons) == (
            ["batch"], 0, Status.success())

    def test_more_important_pod_hook_changes_the_reprieve_order(self) -> None:
        """An Evaluator overriding more_important_pod decides which pods are reprieved first."""
        class YoungestFirst(Evaluator):
            def more_important_pod(self, a: Pod, b: Pod) -> bool:
                return (a.status.start_time or T0) > (b.status.start_time or T0)

        running = [on_n1("old", LOW, cpu="2", start=0), on_n1("new", LOW, cpu="2", start=1)]
        assert victims_on_node(running, preemptor(), evaluator_class=YoungestFirst) == (
            ["old"], 0, Status.success())


def candidate(node: str, *priorities: int, violations: int = 0, starts: Sequence[int | None] = ()) -> Candidate:
    """A candidate on ``node`` whose victims have these priorities (and start hours after T0, default T0)."""
    victims = []
    for i, priority in enumerate(priorities):
        start = starts[i] if i < len(starts) else 0
        builder = make_pod(f"{node}-v{i}").node(node).priority(priority)
        if start is not None:
            builder = builder.start_time(T0 + timedelta(hours=start))
        victims.append(builder.obj())
    return Candidate(node, tuple(victims), violations)


def pick(*candidates: Candidate, evaluator_class: type[Evaluator] = Evaluator) -> str | None:
    """The node Evaluator.select_candidate picks."""
    setup = preemption_cluster([make_node("n1").obj()])
    chosen = evaluator_class("DefaultPreemption", setup.framework.handle).select_candidate(candidates)
    return chosen.name if chosen is not None else None


class TestSelectCandidate:
    """Tests for Evaluator.select_candidate (pickOneNodeForPreemption): each criterion decides on its own."""

    @pytest.mark.parametrize(("candidates", "expected"), [
        pytest.param([candidate("n1", LOW, violations=1), candidate("n2", HIGH)], "n2",
                     id="1 fewest PDB violations beats lower priorities"),
        pytest.param([candidate("n1", MID), candidate("n2", LOW, LOW, LOW)], "n2",
                     id="2 lowest highest-priority victim beats fewer victims"),
        pytest.param([candidate("n1", MID, 50), candidate("n2", MID, 10)], "n2", id="3 smallest priority sum"),
        pytest.param([candidate("n1", -5, -5, -5), candidate("n2", -5)], "n2",
                     id="3 the 2^31 offset keeps fewer negative-priority victims preferable"),
        pytest.param([candidate("n1", MID, -PRIORITY_OFFSET), candidate("n2", MID)], "n2",
                     id="4 fewest victims when the offset sums tie"),
        pytest.param([candidate("n1", MID, LOW, starts=[0, 5]), candidate("n2", MID, LOW, starts=[3, -48])], "n2",
                     id="5 latest start among the highest-priority victims"),
        pytest.param([candidate("n1", MID, starts=[None]), candidate("n2", MID, starts=[23])], "n1",
                     id="5 no start time counts as now"),
        pytest.param([candidate("n1", MID, MID, starts=[0, 3]), candidate("n2", MID, MID, starts=[2, 2])], "n2",
                     id="5 compares the earliest start of each node's top-priority victims"),
        pytest.param([candidate("n2", MID), candidate("n1", MID)], "n2", id="6 first in candidate order"),
        pytest.param([candidate("n1", MID)], "n1", id="a single candidate"),
        pytest.param([], None, id="no candidate"),
    ])
    def test_pick(self, candidates: list[Candidate], expected: str | None) -> None:
        """The criteria apply in kube's order; a criterion that separates the nodes decides."""
        assert pick(*candidates) == expected

    def test_ordered_score_funcs_hook_replaces_the_defaults(self) -> None:
        """An Evaluator returning its own score functions picks by them (here: the most victims)."""
        class MostVictims(Evaluator):
            def ordered_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc]:
                return [lambda node: len(victims_map[node].victims)]

        assert pick(candidate("n1", LOW), candidate("n2", HIGH, HIGH), evaluator_class=MostVictims) == "n2"

    def test_pick_one_node_keeps_every_tied_node_for_the_next_function(self) -> None:
        """Only the nodes tied at the top of one function go on to the next; the first remaining one wins."""
        scores = {"a": (1, 0), "b": (2, 5), "c": (2, 7), "d": (2, 7)}
        funcs: list[ScoreFunc] = [lambda n: scores[n][0], lambda n: scores[n][1]]
        assert pick_one_node_for_preemption(["a", "b", "c", "d"], funcs) == "c"
        assert pick_one_node_for_preemption([], funcs) == ""


def crowded(count: int, *, guarded: Sequence[int] = ()) -> tuple[list[Node], list[Pod]]:
    """``count`` one-cpu nodes n0.. each full with a low-priority pod (labelled app=db on ``guarded`` nodes)."""
    nodes = [make_node(f"n{i}").capacity(cpu="1").obj() for i in range(count)]
    pods = [make_pod(f"v{i}").node(f"n{i}").priority(LOW).req(cpu="1").label(**({"app": "db"} if i in guarded
                                                                                   else {})).obj()
            for i in range(count)]
    return nodes, pods


class TestCandidates:
    """Tests for find_candidates and dry_run_preemption: which nodes, from which offset, how many."""

    def test_only_unschedulable_nodes_are_tried(self) -> None:
        """Nodes Filter rejected as UnschedulableAndUnresolvable, or never checked, are not candidates."""
        nodes, pods = crowded(4)
        pod = preemptor(cpu="1")
        setup = preemption_cluster(nodes, [*pods, pod])
        statuses = NodeToStatus({"n0": Status.unschedulable("Insufficient cpu"),
                                 "n1": Status.unresolvable("node(s) had untolerated taint {a: b}"),
                                 "n3": Status.unschedulable("Insufficient cpu")})
        candidates, _statuses, error = setup.evaluator.find_candidates(
            setup.pre_filter(pod), setup.framework.handle.snapshot.list(), pod, statuses)
        assert sorted(c.name for c in candidates) == ["n0", "n3"]
        assert error is None

    def test_absent_unschedulable_status_makes_every_absent_node_potential(self) -> None:
        """After a PreFilter Unschedulable rejection every node is absent with that status, so all are tried."""
        nodes, pods = crowded(3)
        pod = preemptor(cpu="1")
        setup = preemption_cluster(nodes, [*pods, pod])
        statuses = NodeToStatus(absent=Status.unschedulable("rejected by PreFilter"))
        candidates, _statuses, _error = setup.evaluator.find_candidates(
            setup.pre_filter(pod), setup.framework.handle.snapshot.list(), pod, statuses)
        assert sorted(c.name for c in candidates) == ["n0", "n1", "n2"]

    @pytest.mark.parametrize("seed", [0, 1, 7])
    def test_offset_comes_from_the_seeded_rng(self, seed: int) -> None:
        """The dry run starts at a random offset drawn from the run's RNG, so a seed replays it."""
        nodes, pods = crowded(5)
        setup = preemption_cluster(nodes, pods, seed=seed)
        expected = random.Random(seed).randrange(5)
        assert setup.evaluator.get_offset_and_num_candidates(5) == (expected, 5)

    def test_dry_run_walks_the_nodes_from_the_offset_and_wraps(self) -> None:
        """Candidates come in the order the nodes were tried: offset, offset + 1, ..., wrapping around."""
        nodes, pods = crowded(4)
        pod = preemptor(cpu="1")
        setup = preemption_cluster(nodes, [*pods, pod])
        candidates, _statuses, _error = setup.evaluator.dry_run_preemption(
            setup.pre_filter(pod), pod, setup.framework.handle.snapshot.list(), DisruptionBudgets(), 2, 4)
        assert [c.name for c in candidates] == ["n2", "n3", "n0", "n1"]

    @pytest.mark.parametrize(("percentage", "absolute", "nodes", "expected"), [
        (10, 100, 50, 50), (10, 100, 2000, 200), (0, 5, 50, 5), (50, 1, 10, 5), (100, 0, 7, 7),
        (10, 0, 5, 0),  # as in kube: 5 * 10 // 100 == 0 candidates are wanted
    ])
    def test_number_of_candidates(self, percentage: int, absolute: int, nodes: int, expected: int) -> None:
        """max(nodes * percentage // 100, absolute), capped at the number of potential nodes."""
        evaluator = Evaluator("DefaultPreemption", preemption_cluster([]).framework.handle,
                              min_candidate_nodes_percentage=percentage, min_candidate_nodes_absolute=absolute)
        assert evaluator.calculate_num_candidates(nodes) == expected

    def test_dry_run_stops_once_enough_candidates_are_found(self) -> None:
        """With a non-violating candidate among them, the dry run stops at the wanted number of candidates."""
        nodes, pods = crowded(5)
        pod = preemptor(cpu="1")
        setup = preemption_cluster(nodes, [*pods, pod])
        candidates, _statuses, _error = setup.evaluator.dry_run_preemption(
            setup.pre_filter(pod), pod, setup.framework.handle.snapshot.list(), DisruptionBudgets(), 1, 2)
        assert [c.name for c in candidates] == ["n1", "n2"]

    def test_early_stop_waits_for_a_non_violating_candidate(self) -> None:
        """PDB-violating candidates alone do not stop the dry run; each kind is capped at the wanted number."""
        nodes, pods = crowded(5, guarded=(0, 1, 2))
        pod = preemptor(cpu="1")
        setup = preemption_cluster(nodes, [*pods, pod])
        budgets = DisruptionBudgets.of([pdb("db", 0, app="db")], pods)
        candidates, _statuses, _error = setup.evaluator.dry_run_preemption(
            setup.pre_filter(pod), pod, setup.framework.handle.snapshot.list(), budgets, 0, 2)
        assert [(c.name, c.num_pdb_violations) for c in candidates] == [("n3", 0), ("n0", 1), ("n1", 1)]

    def test_nodes_that_cannot_help_keep_their_dry_run_status(self) -> None:
        """A node without victims or where the pod never fits is recorded with why; absent ones stay absent."""
        nodes = [make_node("busy").capacity(cpu="1").obj(), make_node("small").capacity(cpu="1").obj()]
        pods = [make_pod("vip").node("busy").priority(HIGH).req(cpu="1").obj(),
                make_pod("tiny").node("small").priority(LOW).req(cpu="1").obj()]
        pod = preemptor(cpu="2")
        setup = preemption_cluster(nodes, [*pods, pod])
        candidates, statuses, error = setup.evaluator.dry_run_preemption(
            setup.pre_filter(pod), pod, setup.framework.handle.snapshot.list(), DisruptionBudgets(), 0, 2)
        assert (candidates, error) == ([], None)
        assert statuses.get("busy").reasons == ("No preemption victims found for incoming pod",)
        assert statuses.get("small").reasons == ("Insufficient cpu",)
        assert statuses.get("elsewhere").code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def terminating_victim(name: str, priority: int = LOW, *, reason: str = "PreemptionByScheduler",
                       condition_status: str = "True") -> Pod:
    """A pod on n1 being deleted (its grace period ends after now), with a DisruptionTarget condition."""
    builder = make_pod(name).node("n1").priority(priority).req(cpu="1").terminating(NOW + timedelta(seconds=30))
    pod = builder.obj()
    condition = PodCondition("DisruptionTarget", condition_status, reason, "default-scheduler: preempting")
    return pod.with_status(conditions=(condition,))


class TestPodEligibleToPreemptOthers:
    """Tests for Evaluator.pod_eligible_to_preempt_others."""

    @pytest.mark.parametrize(("pod", "running", "nominated_status", "expected"), [
        pytest.param(make_pod("p").priority(HIGH).preemption_policy("Never").obj(), [], Status.unschedulable(),
                     (False, "not eligible due to preemptionPolicy=Never."), id="preemptionPolicy Never"),
        pytest.param(make_pod("p").priority(HIGH).obj(), [terminating_victim("v")], Status.unschedulable(),
                     (True, ""), id="no nominated node"),
        pytest.param(make_pod("p").priority(HIGH).nominated("n1").obj(), [terminating_victim("v")],
                     Status.unschedulable(), (False, "not eligible due to a terminating pod on the nominated node."),
                     id="a victim still terminating on the nominated node"),
        pytest.param(make_pod("p").priority(HIGH).nominated("n1").obj(), [terminating_victim("v")],
                     Status.unresolvable("node(s) had untolerated taint {a: b}"), (True, ""),
                     id="nominated node UnschedulableAndUnresolvable: eligible again"),
        pytest.param(make_pod("p").priority(HIGH).nominated("n1").obj(), [terminating_victim("v", HIGH)],
                     Status.unschedulable(), (True, ""), id="terminating pod of equal priority"),
        pytest.param(make_pod("p").priority(HIGH).nominated("n1").obj(),
                     [terminating_victim("v", reason="EvictionByEvictionAPI")], Status.unschedulable(), (True, ""),
                     id="terminating for another reason"),
        pytest.param(make_pod("p").priority(HIGH).nominated("n1").obj(),
                     [terminating_victim("v", condition_status="False")], Status.unschedulable(), (True, ""),
                     id="DisruptionTarget not True"),
        pytest.param(make_pod("p").priority(HIGH).nominated("gone").obj(), [terminating_victim("v")],
                     Status.unschedulable(), (True, ""), id="nominated node no longer exists"),
    ])
    def test_eligibility(self, pod: Pod, running: list[Pod], nominated_status: Status,
                         expected: tuple[bool, str]) -> None:
        """Never, or an earlier preemption still in progress on the nominated node, make the pod wait."""
        setup = preemption_cluster([make_node("n1").capacity(cpu="1").obj()], [*running, pod])
        assert setup.evaluator.pod_eligible_to_preempt_others(pod, nominated_status) == expected

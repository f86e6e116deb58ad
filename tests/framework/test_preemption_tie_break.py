"""Evaluator.tie_break_reasons (what explain shows for each losing preemption candidate): the criterion of
pickOneNodeForPreemption each candidate lost on, in kube-scheduler's order, with the loser's and the best value."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kubesched.framework import Candidate, CandidateChoice, Evaluator, ResourceShortcut
from kubesched.framework.preemption._candidates import PRIORITY_OFFSET, TIED_ON_EVERY_CRITERION
from kubesched.runtime import QuietObserver
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import preemption_cluster
from tests.framework.test_preemption import HIGH, LOW, MID, candidate

TWO = 2 * PRIORITY_OFFSET


def reasons(*candidates: Candidate) -> dict[str, str]:
    """Why each candidate but the one select_candidate chose lost."""
    evaluator = Evaluator("DefaultPreemption", preemption_cluster([make_node("n1").obj()]).framework.handle)
    return evaluator.tie_break_reasons(candidates, evaluator.select_candidate(candidates))


@pytest.mark.parametrize(("candidates", "expected"), [
    pytest.param([candidate("n1", LOW, violations=1), candidate("n2", HIGH)],
                 {"n1": "more PDB violations (1 against 0)"}, id="1 PDB violations"),
    pytest.param([candidate("n1", MID), candidate("n2", LOW, LOW, LOW)],
                 {"n1": f"higher highest victim priority ({MID} against {LOW})"}, id="2 highest victim priority"),
    pytest.param([candidate("n1", MID, 50), candidate("n2", MID, 10)],
                 {"n1": f"larger sum of victim priorities ({MID + 50 + TWO} against {MID + 10 + TWO})"},
                 id="3 sum of priorities, each plus 2^31"),
    pytest.param([candidate("n1", MID, -PRIORITY_OFFSET), candidate("n2", MID)],
                 {"n1": "more victims (2 against 1)"}, id="4 number of victims"),
    pytest.param([candidate("n1", MID, LOW, starts=[0, 5]), candidate("n2", MID, LOW, starts=[3, -48])],
                 {"n1": "earlier start of its highest-priority victims (2026-01-01T00:00:00Z against "
                        "2026-01-01T03:00:00Z)"}, id="5 start time of the highest-priority victims"),
    pytest.param([candidate("n2", MID), candidate("n1", MID)], {"n1": TIED_ON_EVERY_CRITERION},
                 id="6 tied: the first in dry-run order wins"),
    pytest.param([candidate("n1", MID, violations=1), candidate("n2", HIGH), candidate("n3", LOW, LOW)],
                 {"n1": "more PDB violations (1 against 0)",
                  "n2": f"higher highest victim priority ({HIGH} against {LOW})"},
                 id="each loser named at the criterion that dropped it"),
    pytest.param([candidate("n1", MID)], {}, id="a single candidate lost nothing"),
])
def test_each_loser_is_named_at_the_criterion_it_lost_on(candidates: list[Candidate],
                                                          expected: dict[str, str]) -> None:
    """Criteria apply in kube-scheduler's order; a candidate drops out at the first one where it is not best."""
    assert reasons(*candidates) == expected


def test_tied_text_names_the_rule() -> None:
    """Candidates tied on all five criteria lose to the first in dry-run order, and the text says so."""
    assert TIED_ON_EVERY_CRITERION == "tied on every criterion; the first candidate in dry-run order wins"


def test_an_overridden_choice_is_not_explained_by_criteria_that_did_not_decide() -> None:
    """An Evaluator choosing by its own select_candidate: the others were "not chosen" by it, no criterion named."""
    class LastWins(Evaluator):
        def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
            return candidates[-1] if candidates else None

    evaluator = LastWins("DefaultPreemption", preemption_cluster([make_node("n1").obj()]).framework.handle)
    candidates = [candidate("n1", LOW), candidate("n2", MID), candidate("n3", HIGH)]
    assert evaluator.tie_break_reasons(candidates, candidates[-1]) == {
        "n1": "not chosen by LastWins.select_candidate", "n2": "not chosen by LastWins.select_candidate"}


class Seeing(QuietObserver):
    """A cycle observer keeping the preemption's candidate choices, reading why each loser lost."""

    def __init__(self, seen: list[CandidateChoice]) -> None:
        self.seen = seen

    def preemption(self, choice: CandidateChoice) -> None:
        self.seen.append(choice)
        assert choice.lost is not None


class CountingReasons(Evaluator):
    """An Evaluator counting how often the tie-break reasons are worked out."""

    calls = 0

    def tie_break_reasons(self, candidates: Sequence[Candidate], chosen: Candidate | None) -> dict[str, str]:
        CountingReasons.calls += 1
        return super().tie_break_reasons(candidates, chosen)


@pytest.mark.parametrize("recorded", [False, True], ids=["nobody records", "explain records"])
def test_the_reasons_are_worked_out_only_when_a_preemption_is_recorded(recorded: bool) -> None:
    """The candidate choice reaches the handle's sink; its reasons cost nothing unless something reads them."""
    nodes = [make_node(f"n{i}").capacity(cpu="2").obj() for i in (1, 2)]
    running = [make_pod(f"low{i}").node(f"n{i}").req(cpu="2").priority(LOW).obj() for i in (1, 2)]
    pod = make_pod("p").req(cpu="2").priority(HIGH).obj()
    pc = preemption_cluster(nodes, [*running, pod])
    pc.plugin.evaluator = evaluator = CountingReasons("DefaultPreemption", pc.framework.handle)
    evaluator.resource_shortcut = ResourceShortcut("NodeResourcesFit")
    seen: list[CandidateChoice] = []
    if recorded:
        pc.framework.handle.observer = Seeing(seen)
    CountingReasons.calls = 0
    _result, status = pc.post_filter(pod)
    assert status is not None
    assert status.is_success()
    if recorded:
        first, second = seen[0].candidates  # in dry-run order, from the seeded offset: the first one wins the tie
        assert seen[0].chosen is first
        assert seen[0].lost == {second.name: TIED_ON_EVERY_CRITERION}
    assert CountingReasons.calls == int(recorded)


def test_a_choice_given_its_reasons_reads_them_back() -> None:
    """CandidateChoice with the reasons as a mapping gives them as they are."""
    candidates = [candidate("n1", LOW), candidate("n2", MID)]
    choice = CandidateChoice(candidates, candidates[0], {"n2": "more victims (2 against 1)"})
    assert choice.lost == {"n2": "more victims (2 against 1)"}


def test_reasons_given_as_a_function_are_worked_out_once_when_first_read() -> None:
    """The function runs on the first read of ``lost`` (not before), and later reads give the same answer."""
    calls: list[int] = []

    def work_out() -> dict[str, str]:
        calls.append(1)
        return {"n2": TIED_ON_EVERY_CRITERION}

    candidates = [candidate("n1", MID), candidate("n2", MID)]
    choice = CandidateChoice(candidates, candidates[0], work_out)
    assert calls == []
    assert choice.lost == choice.lost == {"n2": TIED_ON_EVERY_CRITERION}
    assert calls == [1]

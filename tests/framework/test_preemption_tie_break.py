"""Evaluator.tie_break_reasons (what explain shows for each losing preemption candidate): the criterion of
pickOneNodeForPreemption each candidate lost on, in kube-scheduler's order, with the loser's and the best value."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kubesched.framework import Candidate, Evaluator
from kubesched.framework.preemption._candidates import PRIORITY_OFFSET, TIED_ON_EVERY_CRITERION
from kubesched.testing import make_node
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

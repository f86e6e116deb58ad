"""Specification of the PodDisruptionBudget helpers used by preemption: budgets and PDB violations."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import pytest

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.pod import Pod
from kubesched.api.policy import IntOrPercent, PodDisruptionBudget, PodDisruptionBudgetStatus
from kubesched.framework.preemption._pdb import disruptions_allowed, filter_pods_with_pdb_violation
from kubesched.testing import PodBuilder, make_pod

T0 = datetime(2024, 1, 1, tzinfo=UTC)
WEB = LabelSelector(match_labels={"app": "web"})


def make_pdb(name: str = "pdb", namespace: str = "default", selector: LabelSelector | None = WEB, *,
             min_available: IntOrPercent | None = None, max_unavailable: IntOrPercent | None = None,
             allowed: int | None = None, disrupted: Mapping[str, str] | None = None) -> PodDisruptionBudget:
    """A PDB selecting app=web unless told otherwise, with the given spec and status."""
    return PodDisruptionBudget(
        ObjectMeta(name=name, namespace=namespace),
        selector=selector,
        min_available=min_available,
        max_unavailable=max_unavailable,
        status=PodDisruptionBudgetStatus(disruptions_allowed=allowed, disrupted_pods=dict(disrupted or {})),
    )


def web(name: str, namespace: str = "default") -> PodBuilder:
    """An app=web pod bound to n1 and Running."""
    return make_pod(name, namespace).label(app="web").node("n1").phase("Running")


def running(count: int) -> list[Pod]:
    """``count`` healthy app=web pods."""
    return [web(f"p{i}").obj() for i in range(count)]


def names(pods: list[Pod]) -> list[str]:
    return [p.name for p in pods]


def pct(value: int) -> IntOrPercent:
    return IntOrPercent(value, is_percent=True)


# --- disruptions_allowed -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "healthy"), [
    pytest.param(0, 10, id="zero-in-status-is-used-although-pods-would-allow-five"),
    pytest.param(3, 5, id="three-in-status-is-used-although-min-available-forbids-any"),
])
def test_status_disruptions_allowed_is_used_as_is_when_present(status: int, healthy: int) -> None:
    pdb = make_pdb(min_available=IntOrPercent(5), allowed=status)
    assert disruptions_allowed(pdb, running(healthy)) == status


@pytest.mark.parametrize(("min_available", "max_unavailable", "healthy", "expected"), [
    pytest.param(IntOrPercent(2), None, 5, 3, id="int-min-available-allows-healthy-minus-min-available"),
    pytest.param(IntOrPercent(6), None, 5, 0, id="int-min-available-above-healthy-allows-none"),
    pytest.param(pct(50), None, 5, 2, id="percent-min-available-rounds-desired-up"),
    pytest.param(pct(100), None, 5, 0, id="hundred-percent-min-available-allows-none"),
    pytest.param(None, IntOrPercent(1), 5, 1, id="int-max-unavailable-allows-that-many"),
    pytest.param(None, pct(30), 5, 2, id="percent-max-unavailable-rounds-allowed-up"),
    pytest.param(None, IntOrPercent(10), 3, 3, id="max-unavailable-above-expected-clamps-desired-at-zero"),
    pytest.param(None, IntOrPercent(0), 5, 0, id="zero-max-unavailable-allows-none"),
    pytest.param(None, None, 5, 0, id="neither-set-has-no-expected-pods-and-allows-none"),
    pytest.param(IntOrPercent(0), None, 0, 0, id="no-matching-pods-allows-none"),
])
def test_computed_disruptions_allowed_follows_the_disruption_controller(
        min_available: IntOrPercent | None, max_unavailable: IntOrPercent | None, healthy: int, expected: int) -> None:
    pdb = make_pdb(min_available=min_available, max_unavailable=max_unavailable)
    assert disruptions_allowed(pdb, running(healthy)) == expected


@pytest.mark.parametrize(("extra", "counted"), [
    pytest.param(web("x"), True, id="bound-running-pod-is-healthy"),
    pytest.param(web("x").phase("Pending"), True, id="bound-pod-still-in-phase-pending-is-healthy"),
    pytest.param(make_pod("x").label(app="web"), False, id="unbound-pod-is-not-healthy"),
    pytest.param(web("x").phase("Succeeded"), False, id="succeeded-pod-is-not-healthy"),
    pytest.param(web("x").phase("Failed"), False, id="failed-pod-is-not-healthy"),
    pytest.param(web("x").terminating(T0), False, id="terminating-pod-is-not-healthy"),
])
def test_only_bound_running_non_terminating_pods_are_healthy(extra: PodBuilder, counted: bool) -> None:
    pdb = make_pdb(min_available=IntOrPercent(2))
    assert disruptions_allowed(pdb, [*running(2), extra.obj()]) == (1 if counted else 0)


def test_pods_in_disrupted_pods_are_not_healthy() -> None:
    pdb = make_pdb(min_available=IntOrPercent(1), disrupted={"p0": "2024-01-01T00:00:00Z"})
    assert disruptions_allowed(pdb, running(3)) == 1


def test_unhealthy_matching_pods_still_count_as_expected() -> None:
    """Four matching pods, two unbound: maxUnavailable 1 wants three healthy, so none may go."""
    pods = [*running(2), make_pod("u0").label(app="web").obj(), make_pod("u1").label(app="web").obj()]
    assert disruptions_allowed(make_pdb(max_unavailable=IntOrPercent(1)), pods) == 0


def test_pods_in_other_namespaces_are_ignored() -> None:
    pods = [*running(1), *(web(f"o{i}", "other").obj() for i in range(3))]
    assert disruptions_allowed(make_pdb(min_available=IntOrPercent(1)), pods) == 0


@pytest.mark.parametrize(("selector", "expected"), [
    pytest.param(None, 0, id="nil-selector-matches-no-pod"),
    pytest.param(LabelSelector(), 3, id="empty-selector-matches-every-pod-in-the-namespace"),
    pytest.param(LabelSelector(match_labels={"app": "db"}), 0, id="selector-matches-only-its-labels"),
])
def test_controller_selector_semantics(selector: LabelSelector | None, expected: int) -> None:
    pods = [web("a").obj(), make_pod("b").label(app="api").node("n1").obj(), make_pod("c").node("n1").obj(),
            make_pod("d", "other").node("n1").obj()]
    assert disruptions_allowed(make_pdb(selector=selector, max_unavailable=pct(100)), pods) == expected


# --- filter_pods_with_pdb_violation --------------------------------------------------------------------------------


@pytest.mark.parametrize(("budget", "violating"), [
    pytest.param(0, ["p0", "p1", "p2", "p3"], id="no-budget-every-matching-pod-violates"),
    pytest.param(2, ["p2", "p3"], id="budget-spent-in-the-given-order"),
    pytest.param(4, [], id="enough-budget-no-pod-violates"),
])
def test_budget_is_decremented_cumulatively_in_order(budget: int, violating: list[str]) -> None:
    result = filter_pods_with_pdb_violation(running(4), [make_pdb()], [budget])
    assert names(result[0]) == violating


def test_pod_matching_two_pdbs_decrements_both() -> None:
    """Pod 'both' spends the only unit of each budget, so the later pods of either PDB violate."""
    pdbs = [make_pdb("by-app"), make_pdb("by-tier", selector=LabelSelector(match_labels={"tier": "front"}))]
    pods = [make_pod("both").label(app="web", tier="front").obj(), make_pod("app").label(app="web").obj(),
            make_pod("tier").label(tier="front").obj()]
    violating, non_violating = filter_pods_with_pdb_violation(pods, pdbs, [1, 1])
    assert (names(violating), names(non_violating)) == (["app", "tier"], ["both"])


def test_pod_without_labels_matches_no_pdb() -> None:
    """Even a selector a label-less pod would satisfy (app DoesNotExist) is not applied to it."""
    no_app = LabelSelector(match_expressions=(LabelSelectorRequirement("app", "DoesNotExist"),))
    pods = [make_pod("bare").obj(), make_pod("labelled").label(tier="x").obj()]
    violating, non_violating = filter_pods_with_pdb_violation(pods, [make_pdb(selector=no_app)], [0])
    assert (names(violating), names(non_violating)) == (["labelled"], ["bare"])


def test_pod_in_disrupted_pods_is_skipped_for_that_pdb() -> None:
    pdb = make_pdb(disrupted={"p0": "2024-01-01T00:00:00Z"})
    violating, non_violating = filter_pods_with_pdb_violation(running(2), [pdb], [0])
    assert (names(violating), names(non_violating)) == (["p1"], ["p0"])


@pytest.mark.parametrize("selector", [
    pytest.param(None, id="nil-selector"),
    pytest.param(LabelSelector(), id="empty-selector"),
])
def test_nil_or_empty_selector_matches_nothing(selector: LabelSelector | None) -> None:
    violating, _ = filter_pods_with_pdb_violation(running(2), [make_pdb(selector=selector)], [0])
    assert violating == []


def test_pdb_matches_only_pods_in_its_namespace() -> None:
    pods = [web("mine").obj(), web("theirs", "other").obj()]
    violating, non_violating = filter_pods_with_pdb_violation(pods, [make_pdb()], [0])
    assert (names(violating), names(non_violating)) == (["mine"], ["theirs"])


def test_both_lists_keep_the_given_order() -> None:
    pods = [web("m1").obj(), make_pod("x1").label(app="db").obj(), web("m2").obj(),
            make_pod("x2").label(app="db").obj(), web("m3").obj()]
    violating, non_violating = filter_pods_with_pdb_violation(pods, [make_pdb()], [1])
    assert (names(violating), names(non_violating)) == (["m2", "m3"], ["m1", "x1", "x2"])


def test_budgets_come_from_allowed_not_from_the_status() -> None:
    violating, _ = filter_pods_with_pdb_violation(running(1), [make_pdb(allowed=5)], [0])
    assert names(violating) == ["p0"]


def test_allowed_is_not_modified() -> None:
    allowed = [1]
    filter_pods_with_pdb_violation(running(3), [make_pdb()], allowed)
    assert allowed == [1]


def test_one_budget_per_pdb_is_required() -> None:
    with pytest.raises(ValueError, match="1 disruption budgets given for 2"):
        filter_pods_with_pdb_violation(running(1), [make_pdb("a"), make_pdb("b")], [0])

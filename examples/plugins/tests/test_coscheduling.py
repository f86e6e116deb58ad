"""Coscheduling's hooks, run by a Framework: Permit waits for the quorum, Unreserve rejects the gang."""

from __future__ import annotations

from kubesched import Code, CycleState, Status
from kubesched.testing import make_pod

from kubesched_examples.coscheduling import (
    ERR_REASON_MIN_AVAILABLE,
    NAME,
    CoschedulingArgs,
)

from support import GangHarness, bound, gang_pod


def test_pod_without_group_is_allowed_at_once() -> None:
    """Permit lets a pod outside any group through without waiting."""
    harness = GangHarness()
    assert harness.schedule(make_pod("solo").obj()) is None
    assert harness.framework.handle.waiting_pods() == []


def test_member_waits_with_the_default_timeout() -> None:
    """The first member of a group of 3 waits on Coscheduling for 60 s by default."""
    harness = GangHarness()
    pod = gang_pod("a", "g", 3)
    status = harness.schedule(pod)
    assert status is not None
    assert status.code is Code.WAIT
    waiting = harness.waiting(pod)
    assert (waiting.get_pending_plugins(), waiting.next_deadline()) == ([NAME], 60.0)


def test_member_waits_for_the_configured_timeout() -> None:
    """permit-waiting-time-seconds sets the wait."""
    harness = GangHarness(args=CoschedulingArgs(permit_waiting_time_seconds=15))
    pod = gang_pod("a", "g", 2)
    harness.schedule(pod)
    assert harness.waiting(pod).next_deadline() == 15.0


def test_member_completing_the_quorum_allows_the_waiting_ones() -> None:
    """The third member of a group of 3 is allowed at once and allows the two waiting members."""
    a, b, c = (gang_pod(n, "g", 3) for n in "abc")
    harness = GangHarness([bound(a, "n1"), bound(b, "n2")])  # waiting members are assumed on their nodes
    harness.schedule(a, "n1")
    harness.schedule(b, "n2")
    assert harness.schedule(c, "n3") is None
    assert [harness.waiting(p).outcome for p in (a, b)] == [Status.success(), Status.success()]


def test_bound_members_count_towards_the_quorum() -> None:
    """With two members already running, the third of a group of 3 binds without waiting."""
    harness = GangHarness([bound(gang_pod("a", "g", 3), "n1"), bound(gang_pod("b", "g", 3), "n2")])
    assert harness.schedule(gang_pod("c", "g", 3)) is None


def test_members_of_a_same_named_group_in_another_namespace_do_not_count() -> None:
    """Groups are namespaced: running pods of ``other/g`` do not complete ``default/g``."""
    harness = GangHarness([bound(gang_pod("a", "g", 2, namespace="other"))])
    status = harness.schedule(gang_pod("b", "g", 2))
    assert status is not None
    assert status.code is Code.WAIT


def test_invalid_min_available_is_rejected_at_pre_filter() -> None:
    """A member without a positive min-available is UnschedulableAndUnresolvable, naming the label."""
    status = GangHarness().pre_filter(gang_pod("a", "g", "many"))
    assert status == Status.unresolvable(ERR_REASON_MIN_AVAILABLE).with_plugin(NAME)
    assert ERR_REASON_MIN_AVAILABLE == ("pod group member needs label scheduling.x-k8s.io/min-available set to a "
                                        "positive integer")


def test_unreserve_rejects_the_waiting_members() -> None:
    """A member failing before its wait is over rejects the group's other waiting members."""
    a, b, other = gang_pod("a", "g", 3), gang_pod("b", "g", 3), gang_pod("x", "other", 3)
    harness = GangHarness()
    for pod in (a, b, other):
        harness.schedule(pod)
    harness.fail(a)
    assert harness.waiting(b).outcome == Status.unschedulable(
        "pod group default/g rejected: member default/a was unreserved").with_plugin(NAME)
    assert harness.waiting(other).outcome is None


def test_unreserve_without_reserve_twice_is_harmless() -> None:
    """Unreserve for a pod never reserved, twice over, neither fails nor changes the first outcome."""
    a, b = gang_pod("a", "g", 3), gang_pod("b", "g", 3)
    harness = GangHarness()
    harness.schedule(b)
    harness.states[a.uid] = CycleState()  # a never reached Reserve
    harness.fail(a)
    first = harness.waiting(b).outcome
    harness.fail(a)
    assert harness.waiting(b).outcome == first
    assert first is not None
    assert first.is_rejected()


def test_unreserve_of_a_pod_outside_any_group_rejects_nobody() -> None:
    """Only members of the unreserved pod's group are rejected; a pod without a group affects nobody."""
    solo, member = make_pod("solo").obj(), gang_pod("a", "g", 2)
    harness = GangHarness()
    harness.schedule(solo)
    harness.schedule(member)
    harness.fail(solo)
    assert harness.waiting(member).outcome is None
    assert harness.pre_filter(gang_pod("b", "g", 2)) is None


def test_allowed_members_stay_allowed_when_another_member_fails_later() -> None:
    """Once the quorum allowed the waiting members, a member failing to bind cannot take that back."""
    a, b = gang_pod("a", "g", 2), gang_pod("b", "g", 2)
    harness = GangHarness([bound(a)])
    harness.schedule(a)
    harness.schedule(b)
    harness.fail(b)
    assert harness.waiting(a).outcome == Status.success()


def test_group_backs_off_after_a_timeout_naming_the_cause() -> None:
    """After a member times out, the group's members are rejected at PreFilter with the timeout cause."""
    a = gang_pod("a", "g", 3)
    harness = GangHarness(args=CoschedulingArgs(permit_waiting_time_seconds=30))
    harness.schedule(a)
    harness.time_out(a)
    assert harness.pre_filter(gang_pod("b", "g", 3)) == Status.unresolvable(
        "pod group default/g is backing off: it did not reach min-available 3 within 30s").with_plugin(NAME)


def test_group_backs_off_after_a_rejection_naming_the_member() -> None:
    """A member rejected before its timeout backs the group off with the member's name as the cause."""
    a = gang_pod("a", "g", 3)
    harness = GangHarness()
    harness.schedule(a)
    harness.fail(a)
    status = harness.pre_filter(a)
    assert status is not None
    assert status.message() == "pod group default/g is backing off: member default/a was unreserved"


def test_backoff_ends_after_pod_group_backoff_seconds() -> None:
    """Members are accepted at PreFilter again once pod-group-backoff-seconds have passed."""
    a = gang_pod("a", "g", 3)
    harness = GangHarness(args=CoschedulingArgs(pod_group_backoff_seconds=20))
    harness.schedule(a)
    harness.fail(a)
    harness.clock.advance_to(19.9)
    assert harness.pre_filter(a) is not None
    harness.clock.advance_to(20.0)
    assert harness.pre_filter(a) is None


def test_zero_backoff_disables_the_backoff() -> None:
    """With pod-group-backoff-seconds 0 a failed group is retried at once."""
    a = gang_pod("a", "g", 3)
    harness = GangHarness(args=CoschedulingArgs(pod_group_backoff_seconds=0))
    harness.schedule(a)
    harness.fail(a)
    assert harness.pre_filter(a) is None


def test_waiting_members_of_other_groups_are_left_waiting_after_a_timeout() -> None:
    """A timeout in one group rejects nobody in another group."""
    a, x = gang_pod("a", "g", 3), gang_pod("x", "h", 3)
    harness = GangHarness()
    harness.schedule(a)
    harness.clock.advance_to(10)
    harness.schedule(x)
    harness.time_out(a)
    assert harness.waiting(x).outcome is None


def test_member_whose_wait_is_also_over_reports_its_own_timeout() -> None:
    """Members that timed out together each report the framework's timeout, not the first one's rejection."""
    a, b = gang_pod("a", "g", 3), gang_pod("b", "g", 3)
    harness = GangHarness()
    harness.schedule(a)
    harness.schedule(b)
    harness.time_out(a)
    assert harness.waiting(b).outcome == Status.unschedulable(
        "rejected due to timeout after waiting 1m0s at plugin Coscheduling").with_plugin(NAME)


def test_member_still_inside_its_wait_is_rejected_with_the_group_cause() -> None:
    """A member that joined later is rejected when the first member times out, with the timeout cause."""
    a, b = gang_pod("a", "g", 3), gang_pod("b", "g", 3)
    harness = GangHarness()
    harness.schedule(a)
    harness.clock.advance_to(10)
    harness.schedule(b)
    harness.time_out(a)
    assert harness.waiting(b).outcome == Status.unschedulable(
        "pod group default/g rejected: it did not reach min-available 3 within 1m0s").with_plugin(NAME)

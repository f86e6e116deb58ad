"""Specification of the nominator: which pods are nominated to which node."""

from __future__ import annotations

import pytest

from kubesched.framework._handle import go_duration
from kubesched.framework._node_info import PodInfo
from kubesched.framework._types import NominatingInfo, NominatingMode
from kubesched.runtime import Nominator
from kubesched.testing import make_pod


def names(nominator: Nominator, node: str) -> list[str]:
    return [p.pod.name for p in nominator.nominated_pods_for_node(node)]


def test_status_nomination_is_recorded() -> None:
    """Without nominating info, the pod's status.nominatedNodeName is used."""
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo.of(make_pod("a").nominated("n1").obj()))
    assert names(nominator, "n1") == ["a"]
    assert nominator.has_nominations()


def test_override_replaces_the_previous_nomination() -> None:
    """An Override nomination moves the pod; an empty node name clears it."""
    nominator = Nominator()
    pod = make_pod("a").nominated("n1").obj()
    nominator.add_nominated_pod(PodInfo.of(pod))
    nominator.add_nominated_pod(PodInfo.of(pod), NominatingInfo("n2", NominatingMode.OVERRIDE))
    assert (names(nominator, "n1"), names(nominator, "n2")) == ([], ["a"])
    nominator.add_nominated_pod(PodInfo.of(pod), NominatingInfo("", NominatingMode.OVERRIDE))
    assert nominator.nominated_node_of(pod) == ""
    assert not nominator.has_nominations()


def test_bound_pods_are_not_nominated() -> None:
    """A pod that already has spec.nodeName is never tracked as nominated."""
    nominator = Nominator()
    nominator.add_nominated_pod(PodInfo.of(make_pod("a").nominated("n1").node("n1").obj()))
    assert names(nominator, "n1") == []


def test_update_keeps_an_in_memory_nomination() -> None:
    """An update carrying no nomination keeps one the scheduler made in memory (UpdateNominatedPod)."""
    nominator = Nominator()
    pod = make_pod("a").obj()
    nominator.add_nominated_pod(PodInfo.of(pod), NominatingInfo("n3", NominatingMode.OVERRIDE))
    nominator.update_nominated_pod(pod, PodInfo.of(make_pod("a").label(x="y").obj()))
    assert names(nominator, "n3") == ["a"]


def test_delete_forgets_the_pod() -> None:
    """Deleting a pod removes its nomination and leaves the others."""
    nominator = Nominator()
    first, second = make_pod("a").nominated("n1").obj(), make_pod("b").nominated("n1").obj()
    for pod in (first, second):
        nominator.add_nominated_pod(PodInfo.of(pod))
    nominator.delete_nominated_pod_if_exists(first)
    assert names(nominator, "n1") == ["b"]


@pytest.mark.parametrize(("seconds", "text"), [(0, "0s"), (10, "10s"), (1.5, "1.5s"), (60, "1m0s"), (90, "1m30s"),
                                               (900, "15m0s"), (3600, "1h0m0s")])
def test_go_duration(seconds: float, text: str) -> None:
    """Durations in messages read as Go prints them."""
    assert go_duration(seconds) == text

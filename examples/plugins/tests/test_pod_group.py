"""Pod groups: the labels a pod declares its group with, and who counts as a member right now."""

from __future__ import annotations

import re

import pytest
from kubesched.testing import make_pod

from kubesched_examples.pod_group import InvalidPodGroupError, PodGroup, current_members, pod_group_of

from support import GangHarness, bound, gang_pod


def test_pod_without_group_label_has_no_group() -> None:
    """A pod without the pod-group label is outside any group."""
    assert pod_group_of(make_pod("p").obj()) is None


def test_group_is_read_from_the_labels_in_the_pod_namespace() -> None:
    """The group is the pod's namespace and pod-group label, with min-available parsed as an integer."""
    group = pod_group_of(gang_pod("p", "train", 3, namespace="ml"))
    assert group == PodGroup("ml", "train", 3)
    assert group.key == "ml/train"


@pytest.mark.parametrize("value", ["", "0", "-1", "two", "1.5", "²"])
def test_min_available_must_be_a_positive_integer(value: str) -> None:
    """A missing, zero, negative or non-decimal min-available label is an error naming the label."""
    with pytest.raises(InvalidPodGroupError, match=re.escape("scheduling.x-k8s.io/min-available")):
        pod_group_of(gang_pod("p", "train", value))


def test_same_group_name_in_another_namespace_is_another_group() -> None:
    """contains() matches the group label only within the group's namespace."""
    group = PodGroup("default", "train", 2)
    assert group.contains(gang_pod("a", "train", 2))
    assert not group.contains(gang_pod("b", "train", 2, namespace="other"))
    assert not group.contains(gang_pod("c", "sweep", 2))


def test_members_are_bound_and_waiting_pods_counted_once() -> None:
    """A member both waiting and in the snapshot (assumed) counts once; bound members count too."""
    running, waiting = gang_pod("running", "g", 5), gang_pod("waiting", "g", 5)
    harness = GangHarness([bound(running, "n1"), bound(waiting, "n2")])
    harness.schedule(waiting, "n2")
    group = PodGroup("default", "g", 5)
    assert current_members(harness.framework.handle, group) == {running.uid, waiting.uid}


def test_rejected_waiting_pods_are_not_members() -> None:
    """A waiting member already rejected, whose binding cycle has not run yet, no longer counts."""
    pod = gang_pod("a", "g", 3)
    harness = GangHarness([bound(pod)])
    harness.schedule(pod)
    harness.waiting(pod).reject("Other", "no")
    assert current_members(harness.framework.handle, PodGroup("default", "g", 3)) == set()

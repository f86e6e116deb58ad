"""Pod.with_node_name and Pod.with_status: copies with fields replaced, the original untouched."""

from __future__ import annotations

import pytest

from kubesched.api.pod import PodCondition
from kubesched.testing import make_pod


def test_with_node_name_assigns_a_copy_and_keeps_everything_else() -> None:
    """The copy differs only in spec.nodeName; the original stays unassigned."""
    pod = make_pod("web").req(cpu="1").label(app="web").toleration("k", "v", "NoSchedule").obj()
    bound = pod.with_node_name("n1")
    assert bound.spec.node_name == "n1"
    assert pod.spec.node_name == ""
    assert bound == pod.with_node_name("n1")
    assert bound.spec.containers is pod.spec.containers
    assert bound.metadata is pod.metadata


def test_with_status_converts_conditions_to_a_tuple() -> None:
    """Conditions given as a list are stored as a tuple, as the constructor would store them."""
    pod = make_pod("web").obj()
    updated = pod.with_status(conditions=[PodCondition("PodScheduled", "True")], nominated_node_name="n2")
    assert updated.status.conditions == (PodCondition("PodScheduled", "True"),)
    assert updated.status.nominated_node_name == "n2"
    assert pod.status.conditions == ()


def test_with_status_rejects_an_unknown_field() -> None:
    """A misspelt status field is an error, not a silently ignored change."""
    with pytest.raises(TypeError, match="nominated_node"):
        make_pod("web").obj().with_status(nominated_node="n1")

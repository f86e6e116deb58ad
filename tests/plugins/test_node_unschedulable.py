"""NodeUnschedulable: cordoned nodes take only pods tolerating node.kubernetes.io/unschedulable:NoSchedule."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._status import Code
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, verdict

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"
REJECTED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",))


def filter_verdict(pod: Pod, cordoned: bool) -> tuple[Code, tuple[str, ...]]:
    """The Filter verdict for the pod on a node that is (or is not) cordoned."""
    node = node_info(make_node("n1").unschedulable(cordoned).obj())
    return verdict(plugin_instance(NodeUnschedulable).filter(CycleState(), pod, node))


def test_schedulable_node_accepts_any_pod() -> None:
    """A node without spec.unschedulable passes every pod."""
    assert filter_verdict(make_pod("p").obj(), cordoned=False) == SUCCESS


def test_cordoned_node_rejects_pod_without_toleration() -> None:
    """A cordoned node is UnschedulableAndUnresolvable: "node(s) were unschedulable"."""
    assert filter_verdict(make_pod("p").obj(), cordoned=True) == REJECTED


TOLERATION_CASES = [
    pytest.param(make_pod("p").toleration(UNSCHEDULABLE_KEY, effect="NoSchedule", operator="Exists").obj(),
                 SUCCESS, id="exists-no-schedule"),
    pytest.param(make_pod("p").toleration(UNSCHEDULABLE_KEY, operator="Exists").obj(), SUCCESS,
                 id="exists-any-effect"),
    pytest.param(make_pod("p").toleration(operator="Exists").obj(), SUCCESS, id="tolerate-everything"),
    pytest.param(make_pod("p").toleration(UNSCHEDULABLE_KEY, effect="NoSchedule").obj(), SUCCESS,
                 id="equal-empty-value"),
    pytest.param(make_pod("p").toleration(UNSCHEDULABLE_KEY, "true", "NoSchedule").obj(), REJECTED,
                 id="equal-other-value"),
    pytest.param(make_pod("p").toleration(UNSCHEDULABLE_KEY, effect="NoExecute", operator="Exists").obj(), REJECTED,
                 id="other-effect"),
    pytest.param(make_pod("p").toleration("node.kubernetes.io/not-ready", operator="Exists").obj(), REJECTED,
                 id="other-key"),
]


@pytest.mark.parametrize(("pod", "expected"), TOLERATION_CASES)
def test_cordoned_node_accepts_pod_tolerating_unschedulable_taint(
        pod: Pod, expected: tuple[Code, tuple[str, ...]]) -> None:
    """Tolerating the taint node.kubernetes.io/unschedulable:NoSchedule (empty value) admits the pod."""
    assert filter_verdict(pod, cordoned=True) == expected

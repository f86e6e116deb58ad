"""The Handle's documented promises to plugins (docs/hooks.md): the nominator's list is a copy in nomination
order, a WaitingPod carries the assumed pod, and CycleState.get answers None for a missing key."""

from __future__ import annotations

from typing import ClassVar

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._node_info import PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.runtime import Nominator
from kubesched.testing import make_node, make_pod, run_plugin


def test_nominated_pods_for_node_is_a_copy_in_nomination_order() -> None:
    """The list holds the pods nominated to the node in the order they were nominated; changing it changes
    nothing."""
    nominator = Nominator()
    for name in ("b", "a", "c"):
        nominator.add_nominated_pod(PodInfo.of(make_pod(name).nominated("n1").obj()))
    listed = nominator.nominated_pods_for_node("n1")
    listed.clear()
    assert [p.pod.name for p in nominator.nominated_pods_for_node("n1")] == ["b", "a", "c"]


def test_state_get_answers_none_for_a_missing_key() -> None:
    """``get`` returns None where ``read`` would raise."""
    assert CycleState().get(StateKey[int]("absent")) is None


class _Waits(Plugin):
    """Holds every pod in Permit, noting the pods of the WaitingPods already held."""

    name = "Waits"
    seen: ClassVar[list[Pod]] = []

    @hookimpl
    def permit(self) -> tuple[Status | None, float]:
        _Waits.seen.extend(waiting.pod for waiting in self.handle.waiting_pods())
        return Status.wait("hold"), 10.0


def test_a_waiting_pod_carries_the_assumed_pod() -> None:
    """WaitingPod.pod is the pod Permit received: the assumed pod, whose spec.nodeName names the chosen node."""
    _Waits.seen.clear()
    run_plugin(_Waits, [make_node("n1")], [make_pod("p"), make_pod("q")])
    assert [(p.name, p.spec.node_name) for p in _Waits.seen][:1] == [("p", "n1")]

"""TaintToleration: Filter on NoSchedule/NoExecute taints; Score against PreferNoSchedule taints."""

from __future__ import annotations

from kubesched.api.node import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, Taint
from kubesched.api.pod import Pod, Toleration
from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.status import Code, Status
from kubesched.framework.types import NodeScore
from kubesched.plugins.helpers import default_normalize_score

NAME = "TaintToleration"
_PREFER_TOLERATIONS = StateKey[tuple[Toleration, ...]]("PreScoreTaintToleration")


def tolerated(taint: Taint, tolerations: tuple[Toleration, ...]) -> bool:
    """Whether any toleration tolerates the taint."""
    return any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)


def find_untolerated_taint(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule or NoExecute taint, in node order, that no toleration tolerates."""
    for taint in taints:
        if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not tolerated(taint, tolerations):
            return taint
    return None


class TaintToleration(Plugin):
    """Keeps pods off nodes whose hard taints they do not tolerate; prefers nodes with fewer soft ones."""

    name = NAME

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """UnschedulableAndUnresolvable naming the first untolerated NoSchedule/NoExecute taint."""
        node = node_info.node
        if node is None or not node.spec.taints:
            return None
        taint = find_untolerated_taint(node.spec.taints, pod.spec.tolerations)
        if taint is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      (f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}",), NAME)

    @hookimpl
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Keep the tolerations that can tolerate PreferNoSchedule taints (effect empty or PreferNoSchedule)."""
        prefer = tuple(t for t in pod.spec.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))
        state.write(_PREFER_TOLERATIONS, prefer)
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """The number of PreferNoSchedule taints the pod does not tolerate (fewer is better)."""
        node = node_info.node
        if node is None or not node.spec.taints:
            return 0
        tolerations = state.get(_PREFER_TOLERATIONS)
        if tolerations is None:
            tolerations = tuple(t for t in pod.spec.tolerations if t.effect in ("", PREFER_NO_SCHEDULE))
        return sum(1 for taint in node.spec.taints
                   if taint.effect == PREFER_NO_SCHEDULE and not tolerated(taint, tolerations))

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Reverse-normalise: the node with the most untolerated taints scores 0, none scores 100."""
        default_normalize_score(scores, reverse=True)
        return None

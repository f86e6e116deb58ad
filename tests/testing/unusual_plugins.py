"""Correct plugins that do unusual but legitimate things; the suite must pass them."""

from __future__ import annotations

from typing import Any

import attrs

from kubesched.api.pod import Pod
from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.plugin import Plugin, hookimpl
from kubesched.framework.status import Status
from kubesched.framework.types import PreFilterResult


class UsesRng(Plugin):
    """Scores with the handle's seeded random generator, as plugins should for random choices."""

    name = "UsesRng"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return self.handle.rng.randrange(101)


CHOSEN_KEY = StateKey[str]("Narrows")


class Narrows(Plugin):
    """PreFilter narrows the nodes to the first one; Filter relies on never seeing the others."""

    name = "Narrows"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterResult | None:
        state.write(CHOSEN_KEY, nodes[0].name)
        return PreFilterResult(frozenset({nodes[0].name}))

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.name != state.read(CHOSEN_KEY):
            raise AssertionError(f"Filter called on {node_info.name}, which PreFilter excluded")
        return None


@attrs.frozen
class PodRef:
    """Read-only references into the snapshot, as kube-style state keeps them."""

    pod: Pod
    node_infos: tuple[NodeInfo, ...]
    pod_infos: tuple[PodInfo, ...]


REF_KEY = StateKey[PodRef]("KeepsReferences")


class KeepsReferences(Plugin):
    """PreFilter state holds the pod, NodeInfos and PodInfos (shared read-only data, not aliasing)."""

    name = "KeepsReferences"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(REF_KEY, PodRef(pod, tuple(nodes), tuple(pi for n in nodes for pi in n.pods)))
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if state.read(REF_KEY).pod is pod else Status.unschedulable("state lost")


class PermitNeedsReserve(Plugin):
    """Permit waits for pods that Reserve recorded; it is only ever called after Reserve."""

    name = "PermitNeedsReserve"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.reserved: dict[str, str] = {}

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.reserved[pod.uid] = node_name
        return None

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.reserved.pop(pod.uid, None)

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        assert self.reserved[pod.uid] == node_name
        return Status.wait(), 30.0


class ScoresFeasibleOnly(Plugin):
    """Filter keeps pods off node-c; Score divides by a quantity only feasible nodes have."""

    name = "ScoresFeasibleOnly"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("not node-c") if node_info.name == "node-c" else None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 100 // (0 if node_info.name == "node-c" else 1)

"""Correct plugins that do unusual but legitimate things; the suite must pass them."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._events import NODE_ADD, ClusterEventWithHint
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import PreFilterResult
from tests.testing.broken_plugins import Counts, UnreserveKeepsTheNode  # Counts: properly cloned


class EventsDeclared(Plugin):
    """Declares the NodeAdd event, so each fixture fails only the check of its own defect (declares-events aside)."""

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(NODE_ADD)]


class UsesRng(EventsDeclared):
    """Scores with the handle's seeded random generator, as plugins should for random choices."""

    name = "UsesRng"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return self.handle.rng.randrange(101)


CHOSEN_KEY = StateKey[str]("Narrows")


class Narrows(EventsDeclared):
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


ZONE = "topology.kubernetes.io/zone"
REF_KEY = StateKey[PodRef]("KeepsReferences")


class KeepsReferences(EventsDeclared):
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


class PermitNeedsReserve(EventsDeclared):
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


class ScoresFeasibleOnly(EventsDeclared):
    """Filter keeps pods off node-c; Score divides by a quantity only feasible nodes have."""

    name = "ScoresFeasibleOnly"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("not node-c") if node_info.name == "node-c" else None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 100 // (0 if node_info.name == "node-c" else 1)


@attrs.frozen
class Team:
    """What PreFilter learnt about the pod."""

    name: str


TEAM_KEY = StateKey[Team]("ReserveReadsPreFilter")


class ReserveReadsPreFilter(EventsDeclared):
    """PreFilter rejects pods without an app label; Reserve and Permit read what PreFilter wrote and expect the
    assumed pod (bound to the chosen node)."""

    name = "ReserveReadsPreFilter"

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.held: dict[str, str] = {}

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        if "app" not in pod.labels:
            return Status.unresolvable("pod has no app label")
        state.write(TEAM_KEY, Team(pod.labels["app"]))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        assert pod.spec.node_name == node_name, "Reserve gets the assumed pod"
        self.held[pod.uid] = state.read(TEAM_KEY).name
        return None

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.held.pop(pod.uid, None)
        self.handle_log.debug("released %s", pod.name)

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return (None, 0.0) if state.read(TEAM_KEY).name else (Status.unschedulable("no team"), 0.0)

    @property
    def handle_log(self) -> logging.Logger:
        """A logger; loggers are services, not plugin state."""
        return LOG


LOG = logging.getLogger("tests.unusual")


@attrs.define
class LabelsState:
    """Cloneable state holding the pod's own labels mapping (input data, read-only by contract)."""

    labels: Mapping[str, str]
    seen: dict[str, int]

    def clone(self) -> LabelsState:
        return LabelsState(self.labels, dict(self.seen))


LABELS_KEY = StateKey[LabelsState]("KeepsPodLabels")


class KeepsPodLabels(EventsDeclared):
    """PreFilter state references the pod's labels dict; AddPod/RemovePod change only the state's own dict."""

    name = "KeepsPodLabels"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(LABELS_KEY, LabelsState(pod.labels, {}))
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        seen = state.read(LABELS_KEY).seen
        seen[node_info.name] = seen.get(node_info.name, 0) + 1
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        seen = state.read(LABELS_KEY).seen
        seen[node_info.name] = seen.get(node_info.name, 0) - 1
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


PER_NODE_KEY = StateKey[Counts]("NarrowsWithAddPod")


class NarrowsWithAddPod(EventsDeclared):
    """PreFilter narrows to zone-1 and counts pods there; AddPod/RemovePod only expect those nodes."""

    name = "NarrowsWithAddPod"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterResult | None:
        allowed = [n for n in nodes if n.node is not None and n.node.labels.get(ZONE) == "zone-1"]
        state.write(PER_NODE_KEY, Counts({n.name: len(n.pods) for n in allowed}))
        return PreFilterResult(frozenset(n.name for n in allowed))

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        state.read(PER_NODE_KEY).per_node[node_info.name] += 1
        return None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        state.read(PER_NODE_KEY).per_node[node_info.name] -= 1
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("crowded") if state.read(PER_NODE_KEY).per_node[node_info.name] > 5 else None


class ReserveHoldsTheNode(UnreserveKeepsTheNode):
    """Reserve holds a node for its pod and Filter keeps other pods off it until Unreserve releases it: the
    broken UnreserveKeepsTheNode with its Unreserve mended."""

    name = "ReserveHoldsTheNode"

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if self.holder.get(node_name) == pod.uid:
            del self.holder[node_name]


class ReadsAffinityNodes(EventsDeclared):
    """Filter reads the snapshot's public lists of nodes with affinity pods (built lazily on first read)."""

    name = "ReadsAffinityNodes"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        snapshot = self.handle.snapshot
        with_affinity = len(snapshot.have_pods_with_affinity) + len(snapshot.have_pods_with_required_anti_affinity)
        if node_info.name == snapshot.list()[0].name:
            return Status.unschedulable(f"the first node is kept ({with_affinity} node(s) hold affinity pods)")
        return None

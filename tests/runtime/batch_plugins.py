"""Third-party plugins for the batch-path tests: with and without batch forms, one returning Pending.

Each batch form reads only the public columns (label codes, resource arrays) and gives exactly the answers of
its per-node hook, as the hookspecs require; the per-node-only plugin has no batch form at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kubesched import Code, CycleState, NodeInfo, NodeScore, Plugin, Pod, Status, hookimpl
from kubesched.framework._columns import NodeBatch

TIER = "example.com/tier"
WARMING = "example.com/warming"
GATE_REASON = "node(s) were in the bronze tier"
WARM_REASON = "node(s) were still warming up"
CAP_REASON = "node(s) already ran two pods of the app"
HEADROOM_REASON = "node(s) had less than 500m of CPU to spare"
#: A node needs this much unrequested CPU (millicores) for a pod labelled ``headroom=yes``.
HEADROOM = 500


def _label_code(node_batch: NodeBatch, key: str, value: str) -> npt.NDArray[np.bool_]:
    """Per node of the batch, whether label ``key`` equals ``value``."""
    codes, values = node_batch.columns.label_values(key)
    if value not in values:
        return np.zeros(len(node_batch), dtype=np.bool_)
    matches: npt.NDArray[np.bool_] = node_batch.column(codes) == values.index(value)
    return matches


class LabelGate(Plugin):
    """Pods labelled ``gate=strict`` avoid bronze nodes (UnschedulableAndUnresolvable), ``gate=soft`` ones too
    (Unschedulable). Batch and per-node forms; placed between built-ins in the filter order."""

    name = "LabelGate"

    @staticmethod
    def _code(pod: Pod) -> Code | None:
        gate = pod.labels.get("gate")
        if gate == "strict":
            return Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        if gate == "soft":
            return Code.UNSCHEDULABLE
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject a bronze node for a gated pod."""
        code = self._code(pod)
        node = node_info.node
        if code is None or node is None or node.labels.get(TIER) != "bronze":
            return None
        return Status(code, (GATE_REASON,))

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """The same codes from the tier label's codes."""
        code = self._code(pod)
        if code is None:
            return None
        return np.where(_label_code(node_batch, TIER, "bronze"), int(code), 0)


class Warmup(Plugin):
    """Pods labelled ``wait=yes`` are Pending on nodes labelled warming. Batch and per-node forms."""

    name = "Warmup"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Pending on a warming node for a waiting pod."""
        node = node_info.node
        if pod.labels.get("wait") != "yes" or node is None or node.labels.get(WARMING) != "true":
            return None
        return Status(Code.PENDING, (WARM_REASON,))

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """The same codes from the warming label's codes."""
        if pod.labels.get("wait") != "yes":
            return None
        return np.where(_label_code(node_batch, WARMING, "true"), int(Code.PENDING), 0)


def _cpu_request(pod: Pod) -> int:
    return sum(c.requests["cpu"].milli_value() for c in pod.spec.containers if "cpu" in c.requests)


class FreeCpu(Plugin):
    """Filter: a pod labelled ``headroom=yes`` needs 500m of unrequested CPU besides its own request. Score: the
    node's unrequested CPU in tenths of a core, scaled so the freest node scores 100. Batch and per-node forms."""

    name = "FreeCpu"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable when the node has too little CPU to spare."""
        if pod.labels.get("headroom") != "yes":
            return None
        free = node_info.allocatable.milli_cpu - node_info.requested.milli_cpu
        return Status.unschedulable(HEADROOM_REASON) if free - _cpu_request(pod) < HEADROOM else None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """The same comparison over the cpu columns."""
        if pod.labels.get("headroom") != "yes":
            return None
        allocatable, requested = node_batch.columns.resource("cpu")
        free = node_batch.column(allocatable) - node_batch.column(requested)
        return np.where(free - _cpu_request(pod) < HEADROOM, int(Code.UNSCHEDULABLE), 0)

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """Unrequested CPU in tenths of a core (floored), never below 0."""
        return max(node_info.allocatable.milli_cpu - node_info.requested.milli_cpu, 0) // 100

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        """The same over the cpu columns."""
        allocatable, requested = node_batch.columns.resource("cpu")
        scores: npt.NDArray[np.int64] = np.maximum(node_batch.column(allocatable) - node_batch.column(requested), 0)
        return scores // 100

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Scale so the highest score becomes 100 (all 0 when every score is 0)."""
        highest = max((ns.score for ns in scores), default=0)
        for ns in scores:
            ns.score = ns.score * 100 // highest if highest else 0
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        """The same scaling over the array."""
        highest = int(batch_scores.max()) if len(batch_scores) else 0
        return batch_scores * 100 // highest if highest else np.zeros_like(batch_scores)


class AppCap(Plugin):
    """Per-node only: a node runs at most two pods with the pod's ``app`` label (Unschedulable); Score prefers
    nodes with fewer pods. No batch forms, so the runtime interleaves it with the batch plugins."""

    name = "AppCap"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Unschedulable when the node already runs two pods of the pod's app."""
        app = pod.labels.get("app")
        if app is None:
            return None
        same = sum(1 for p in node_info.pods if p.pod.labels.get("app") == app)
        return Status.unschedulable(CAP_REASON) if same >= 2 else None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """100 minus ten per pod on the node, never below 0."""
        return max(100 - 10 * len(node_info.pods), 0)


PLUGINS = (LabelGate, Warmup, FreeCpu, AppCap)
#: The default filter order with the test plugins mixed in: LabelGate (batch) between built-ins, AppCap (per
#: node) before NodeResourcesFit, FreeCpu and Warmup (batch) at the end.
FILTERS = ("NodeUnschedulable", "NodeName", "TaintToleration", "LabelGate", "NodeAffinity", "NodePorts", "AppCap",
           "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeZone", "PodTopologySpread",
           "InterPodAffinity", "FreeCpu", "Warmup")


def profile_document(*, scored: bool) -> dict[str, Any]:
    """A profile document with :data:`FILTERS`; the default Score plugins plus FreeCpu (weight 2) and AppCap when
    ``scored``, else no Score plugin at all (so a cycle stops at the first feasible node)."""
    score: dict[str, Any] = ({"enabled": [{"name": "FreeCpu", "weight": 2}, {"name": "AppCap"}]} if scored
                             else {"disabled": [{"name": "*"}]})
    return {"profiles": [{"plugins": {
        "filter": {"enabled": [{"name": name} for name in FILTERS], "disabled": [{"name": "*"}]},
        "score": score,
    }}]}

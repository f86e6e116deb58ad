"""Shared pieces of the resource plugins' batch-form tests: random clusters and pods as hypothesis strategies, and
the per-node versus batch answers of a plugin on a snapshot.

Amounts are drawn from a few small values (so ties and exact fits are common) and a few large ones (below the
2**53 the columns handle exactly, and below it when summed over a node's pods).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._resource import Resource
from kubesched.framework._status import Code, Status
from kubesched.runtime import NodeSnapshot
from kubesched.testing.builders import PodBuilder, make_node, make_pod

GPU = "nvidia.com/gpu"
FOO = "example.com/foo"
HUGEPAGES = "hugepages-2Mi"
#: Resources nodes and pods use; scoring configurations also name ``pods`` and an unknown resource.
RESOURCES = ("cpu", "memory", "ephemeral-storage", FOO, GPU, HUGEPAGES)
SCORABLE = (*RESOURCES, "pods", "example")


class FitLike(Protocol):
    """A plugin with PreFilter, Filter and its batch form."""

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Any:
        """PreFilter."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Filter."""

    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Any:
        """Filter's batch form."""


class ScoreLike(Protocol):
    """A plugin with PreScore, Score and its batch form."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """Score."""

    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> Any:
        """Score's batch form."""


def amounts() -> st.SearchStrategy[int]:
    """A resource amount: mostly tiny, sometimes large."""
    return st.one_of(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3).map(lambda n: n * 1000),
                     st.integers(2**40, 2**50))


def quantity(name: str, value: int) -> str | int:
    """``value`` as a quantity of ``name``: millicores for cpu, whole units otherwise."""
    return f"{value}m" if name == "cpu" else value


@st.composite
def requests(draw: st.DrawFn) -> dict[str, str | int | float]:
    """Requests for up to two of :data:`RESOURCES` (possibly none, possibly explicit zeros)."""
    names = draw(st.lists(st.sampled_from(RESOURCES), unique=True, max_size=2))
    result: dict[str, str | int | float] = {name: quantity(name, draw(amounts())) for name in names}
    return result


@st.composite
def pods(draw: st.DrawFn, name: str, infos: Sequence[NodeInfo] = ()) -> Pod:
    """A pod with one to two containers, maybe an init container or sidecar, maybe overhead; given ``infos``,
    often one more container asking for exactly (or one unit off) what one of them has left of a resource."""
    builder: PodBuilder = make_pod(name)
    if draw(st.booleans()) and infos:
        info = draw(st.sampled_from(list(infos)))
        resource = draw(st.sampled_from(RESOURCES))
        free = _amount(info.allocatable, resource) - _amount(info.requested, resource) + draw(st.integers(-1, 1))
        if free >= 0:
            builder.container({resource: quantity(resource, free)})
    for _ in range(draw(st.integers(1, 2))):
        builder.container(draw(requests()))
    if draw(st.booleans()):
        builder.init_req(sidecar=draw(st.booleans()), **draw(requests()))
    if draw(st.integers(0, 4)) == 0:
        builder.overhead(**draw(requests()))
    return builder.obj()


@st.composite
def nodes(draw: st.DrawFn, name: str) -> Node:
    """A node with allocatable for most resources and 0 to 5 pod slots."""
    names = [n for n in RESOURCES if draw(st.integers(0, 4))]  # most nodes have most resources
    builder = make_node(name).capacity(pods=draw(st.integers(0, 5)),
                                       **{n: quantity(n, draw(amounts())) for n in names})
    return builder.obj()


@st.composite
def node_infos(draw: st.DrawFn, max_nodes: int = 6) -> list[NodeInfo]:
    """One to ``max_nodes`` NodeInfos, each with zero to two pods already on it."""
    infos = []
    for i in range(draw(st.integers(1, max_nodes))):
        running = [draw(pods(f"e{i}-{j}")) for j in range(draw(st.integers(0, 2)))]
        infos.append(NodeInfo.of(draw(nodes(f"n{i}")), [PodInfo.of(p) for p in running]))
    return infos


def _amount(resource: Resource, name: str) -> int:
    """One amount of ``resource`` by name (cpu in millicores)."""
    return resource.get(name)


def batches(infos: Sequence[NodeInfo]) -> list[NodeBatch]:
    """Batches over a snapshot of ``infos``: every node, and every other node in reverse order."""
    snapshot = NodeSnapshot.of(list(infos))
    columns = snapshot.columns
    return [NodeBatch.of(snapshot.node_info_list, columns), NodeBatch.of(snapshot.node_info_list[::-2], columns)]


def code_of(status: Status | None) -> int:
    """A Filter answer as its status code (0 for success)."""
    return int(Code.SUCCESS if status is None else status.code)


def filter_codes(plugin: FitLike, pod: Pod, batch: NodeBatch) -> tuple[list[int], list[int]]:
    """(per-node Filter codes, the batch form's codes) for ``pod`` on the nodes of ``batch``, after PreFilter."""
    state = CycleState()
    plugin.pre_filter(state, pod, list(batch.columns.infos))
    per_node = [code_of(plugin.filter(state, pod, info)) for info in batch]
    out = plugin.filter_nodes(state, pod, batch)
    return per_node, [0] * len(batch) if out is None else out.tolist()


def score_values(plugin: ScoreLike, pod: Pod, batch: NodeBatch) -> tuple[list[int], list[int]]:
    """(per-node Score, the batch form's scores) for ``pod`` on the nodes of ``batch``, after PreScore if any."""
    state = CycleState()
    pre_score: Any = getattr(plugin, "pre_score", None)
    if pre_score is not None:
        pre_score(state, pod, list(batch))
    return [plugin.score(state, pod, info) for info in batch], plugin.score_nodes(state, pod, batch).tolist()


@st.composite
def clusters(draw: st.DrawFn, max_nodes: int = 6) -> tuple[list[NodeInfo], Pod]:
    """Random NodeInfos and a pod to place on them (often asking for exactly what a node has left)."""
    infos = draw(node_infos(max_nodes))
    return infos, draw(pods("p", infos))

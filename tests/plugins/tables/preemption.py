"""Shorthands for the preemption tables (DefaultPreemption and the preemption package), on the public testing kit
alone: kube-scheduler's priorities, request sizes and start times, nodes and pods as its tests write them, the Filter
plugins its tests register, and what a preemption leaves in the kit's in-memory cluster.

kube's ``epochTime<n>`` are n nanoseconds after the Unix epoch; here they are n seconds after it (a pod's startTime
has second precision in the API, and Python's datetime has microseconds). The cases compare start times only by
their order, which is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from kubesched.api import Pod
from kubesched.framework import (
    Candidate,
    Code,
    CycleState,
    DisruptionBudgets,
    Evaluator,
    FilterReads,
    NodeInfo,
    NodeToStatus,
    Plugin,
    Status,
    hookimpl,
)
from kubesched.testing import NodeBuilder, PluginFramework, PodBuilder, make_node, make_pod

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
MAX_INT32 = 2**31 - 1
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PREEMPTION = "DefaultPreemption"
FIT = "NodeResourcesFit"
#: The condition a victim gets (kube's expectedPodCondition), for pods of the default scheduler.
DISRUPTION_TARGET = ("DisruptionTarget", "True", "PreemptionByScheduler",
                     "default-scheduler: preempting to accommodate a higher priority pod")
#: kube's node label keys, in the order its tests split "name/zone/region" node specs.
LABEL_KEYS = ("hostname", "zone", "region")


def epoch(n: int) -> datetime:
    """kube's ``epochTime<n>`` (see the module docstring)."""
    return EPOCH + timedelta(seconds=n)


def pod(name: str, node: str = "", priority: int | None = None, req: Mapping[str, str] | None = None,
        start: int | None = None, **labels: str) -> PodBuilder:
    """``st.MakePod().Name(name).UID(name).Node(node).Priority(priority).Req(req).StartTime(epochTime<start>)``
    with these labels (in namespace "default")."""
    built = make_pod(name).uid(name).label(**labels)
    if node:
        built.node(node)
    if priority is not None:
        built.priority(priority)
    if req is not None:
        built.req(**req)
    if start is not None:
        built.start_time(epoch(start))
    return built


def node(spec: str, capacity: Mapping[str, str | int] | None = None) -> NodeBuilder:
    """A node as kube's preemption tests make one: ``"name/zone/region"`` gives the name and the ``hostname``,
    ``zone`` and ``region`` labels (as many as given); capacity ``veryLargeRes`` unless given."""
    parts = spec.split("/")
    return make_node(parts[0]).label(**dict(zip(LABEL_KEYS, parts, strict=False))).capacity(
        **(capacity if capacity is not None else VERY_LARGE))


def nodes(*specs: str, capacity: Mapping[str, str | int] | None = None) -> list[NodeBuilder]:
    """:func:`node` for each spec."""
    return [node(spec, capacity) for spec in specs]


def statuses(codes: Mapping[str, Code], absent: Code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE) -> NodeToStatus:
    """kube's ``NewNodeToStatus(map[node]NewStatus(code), NewStatus(absent))``: statuses without reasons."""
    return NodeToStatus({name: Status(code) for name, code in codes.items()}, Status(absent))


def pre_filter(fw: PluginFramework, pod: Pod) -> CycleState:
    """A cycle state after PreFilter for ``pod`` on the framework's path, which must let the pod through (kube's
    ``RunPreFilterPlugins`` to populate the state)."""
    state = CycleState()
    _result, status = fw.run_pre_filter(pod, state)
    assert status is None or status.is_success(), status
    return state


def filtered(fw: PluginFramework, pod: Pod) -> tuple[CycleState, NodeToStatus]:
    """PreFilter and Filter for ``pod`` over every node on the framework's path, as a scheduling cycle runs them
    before PostFilter: the cycle state and the nodes' statuses (nodes that fit have none)."""
    state = CycleState()
    found = fw.run_filter(pod, state)
    return state, NodeToStatus({name: status for name, status in found.items() if status is not None})


def budgets(fw: PluginFramework) -> DisruptionBudgets:
    """The cluster's PDBs with the disruptions each allows, as a preemption attempt reads them."""
    running = [pod_info.pod for info in fw.handle.snapshot.list() for pod_info in info.pods]
    return DisruptionBudgets.of(fw.handle.client.list_pdbs(), running)


def evaluator(fw: PluginFramework) -> Evaluator:
    """The DefaultPreemption plugin's Evaluator."""
    found: Evaluator = fw.plugins[PREEMPTION].evaluator
    return found


def dry_run(fw: PluginFramework, pod: Pod, state: CycleState, found: NodeToStatus, offset: int | None = None,
            ev: Evaluator | None = None) -> list[Candidate]:
    """kube's ``DryRunPreemption`` over every node of the snapshot (kube's tests pass them all), with the cycle state
    and Filter statuses of :func:`filtered`: from ``offset`` (the Evaluator's own random start when None), for as
    many candidates as ``GetOffsetAndNumCandidates`` says. The statuses go along so that the batch path's
    accelerator may answer."""
    ev = ev if ev is not None else evaluator(fw)
    infos = fw.handle.snapshot.list()
    start, count = ev.get_offset_and_num_candidates(len(infos))
    candidates, _statuses, _error = ev.dry_run_preemption(state, pod, infos, budgets(fw),
                                                          start if offset is None else offset, count,
                                                          node_to_status=found)
    return candidates


def by_name(candidates: Sequence[Candidate]) -> list[tuple[str, list[str], int]]:
    """Candidates as kube's tests compare them: sorted by node, each with its victims' names sorted and its PDB
    violations."""
    return sorted((c.name, sorted(v.name for v in c.victims), c.num_pdb_violations) for c in candidates)


def preempted(fw: PluginFramework) -> set[str]:
    """The pods a preemption deleted in the kit's cluster: terminating, with the DisruptionTarget condition."""
    return {p.name for p in fw.handle.client.list_pods()
            if p.metadata.deletion_timestamp is not None
            and any((c.type, c.status, c.reason) == DISRUPTION_TARGET[:3] for c in p.status.conditions)}


class CountingFilter(Plugin):
    """kube's FakeFilterPlugin: counts its Filter calls and rejects a node with the code ``codes`` gives it (Success:
    accepts). It reads only the node's name."""

    name = "FakeFilter"
    filter_reads = FilterReads.NODE
    #: The code per node name (kube's FailedNodeReturnCodeMap); nodes not in it pass.
    codes: ClassVar[Mapping[str, Code]] = {}

    def __init__(self, handle: Any, args: Any = None) -> None:
        super().__init__(handle, args)
        self.calls = 0

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Count the call; reject with the node's code, if any."""
        self.calls += 1
        code = self.codes.get(node_info.name, Code.SUCCESS)
        return None if code is Code.SUCCESS else Status(code, (f"injecting failure for pod {pod.name}",))


def counting_filter(code: Code, node_names: Sequence[str]) -> type[CountingFilter]:
    """A :class:`CountingFilter` rejecting every one of ``node_names`` with ``code`` (kube's ``fakeFilterRC``)."""
    return type("FakeFilter", (CountingFilter,), {"codes": dict.fromkeys(node_names, code)})


class TrueFilter(Plugin):
    """kube's TrueFilterPlugin: every node passes."""

    name = "TrueFilter"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Accept."""
        return None


class FalseFilter(Plugin):
    """kube's FalseFilterPlugin: every node is rejected (Unschedulable)."""

    name = "FalseFilter"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject."""
        return Status.unschedulable("Nodes failed the fake plugin")


class MatchFilter(Plugin):
    """kube's MatchFilterPlugin: only the node named as the pod passes."""

    name = "MatchFilter"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Accept the node named as the pod."""
        return None if node_info.name == pod.name else Status.unschedulable("Nodes failed the fake plugin")

"""The two-pass filter on the batch path: nominated pods' requests overlaid on the columns decide as the per-node path.

Each case schedules one pod on a small cluster where other pods are nominated to nodes, once with the fast path and
once without, and compares what the attempt saw (statuses with their codes, reasons and plugins, feasible nodes,
host, message) and what a PostFilter plugin read. The overlay must run where it is exact and step aside (the
per-node two-pass filter) where a PreFilter AddPod extension or a third-party Filter plugin runs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar
from unittest.mock import patch

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus, PostFilterResult
from kubesched.profiles import load_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import CycleRecord, PluginRegistry
from kubesched.runtime._batch_filter import BatchFilter
from kubesched.runtime._scheduler import Scheduler, SchedulerSettings
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import profile_of
from tests.runtime.test_batch_equivalence import Example, digest, examples, simulate

BUILT_IN_FILTERS = ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodeResourcesFit"]


class Recorder(Plugin):
    """A PostFilter plugin that keeps what it read: the codes, then every status."""

    name = "Recorder"
    seen: ClassVar[list[tuple[object, ...]]] = []

    @hookimpl
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        codes = sorted(filtered_node_status.codes().items())
        statuses = sorted((name, s.code, s.reasons, s.plugin) for name, s in filtered_node_status.statuses.items())
        Recorder.seen.append((codes, statuses))
        return None, Status.unschedulable("recorded")


class PerNodeOnly(Plugin):
    """A third-party Filter plugin without a batch form: accepts every node."""

    name = "PerNodeOnly"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class DeclaredNodeOnly(Plugin):
    """A third-party Filter plugin with a batch form that declares it reads only the Node object: accepts every
    node not labelled ``blocked``."""

    name = "DeclaredNodeOnly"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("blocked") if _blocked(node_info) else None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> IntArray | None:
        blocked = [int(Code.UNSCHEDULABLE) if _blocked(ni) else 0 for ni in node_batch]
        return np.array(blocked, dtype=np.int64)


class UndeclaredBatch(Plugin):
    """A third-party Filter plugin with a batch form that declares nothing about what it reads: accepts every
    node."""

    name = "UndeclaredBatch"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> IntArray | None:
        return np.zeros(len(node_batch), dtype=np.int64)


class NodeOnlyWithAddPod(DeclaredNodeOnly):
    """DeclaredNodeOnly plus a PreFilter AddPod extension that runs (its PreFilter does not skip)."""

    name = "NodeOnlyWithAddPod"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return None

    @hookimpl
    def pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                           node_info: NodeInfo) -> Status | None:
        return None


def _blocked(node_info: NodeInfo) -> bool:
    return node_info.node is not None and "blocked" in node_info.node.metadata.labels


@attrs.frozen
class Case:
    """Nodes (name, cpu), running pods (node, cpu, priority), nominated pods (node, cpu, priority), the pod."""

    nodes: tuple[tuple[str, str], ...]
    running: tuple[tuple[str, str, int], ...]
    nominated: tuple[tuple[str, str, int], ...]
    cpu: str
    priority: int = 10
    own_nomination: str = ""
    anti_affinity: bool = False
    #: Whether some node holds a nominated pod that counts (else no node needs the two-pass filter).
    counted: bool = True
    #: An extended resource every node has one of and every nominated pod asks one of ("": none).
    extended: str = ""
    #: The only nodes the pod's node affinity names (PreFilter narrows the search to them; empty: every node).
    only: tuple[str, ...] = ()


def build(case: Case, *, fast: bool, extra: Sequence[str] = ()) -> tuple[Scheduler, InMemoryCluster]:
    """A scheduler with the built-in node/resource filters (plus ``extra``), NodeResourcesFit scoring and the
    Recorder, on ``case``'s cluster with its nominated pods known to the nominator only."""
    cluster = InMemoryCluster(VirtualClock())
    registry = PluginRegistry.discover().with_plugins(Recorder, PerNodeOnly, DeclaredNodeOnly,
                                                         UndeclaredBatch, NodeOnlyWithAddPod)
    points = {"pre-filter": ["NodeAffinity", "NodeResourcesFit", *[e for e in extra if e != "PerNodeOnly"]],
              "filter": [*BUILT_IN_FILTERS, *extra], "post-filter": ["Recorder"],
              "pre-score": ["NodeResourcesFit"], "score": ["NodeResourcesFit"]}
    scheduler = Scheduler([profile_of(points)], registry, client=cluster, clock=cluster.clock, rng=random.Random(0),
                          settings=SchedulerSettings(fast_path=fast))
    cluster.subscribe(scheduler.events)
    extended = {case.extended: "1"} if case.extended else {}
    for name, cpu in case.nodes:
        cluster.add_node(make_node(name).capacity(cpu=cpu, pods=10, **extended).obj())
    for i, (node, cpu, priority) in enumerate(case.running):
        cluster.add_pod(make_pod(f"r{i}").node(node).req(cpu=cpu).priority(priority).obj())
    for i, (node, cpu, priority) in enumerate(case.nominated):
        waiting = make_pod(f"w{i}").req(cpu=cpu, **extended).priority(priority).nominated(node).obj()
        scheduler.nominator.add_nominated_pod(PodInfo.of(waiting))
    return scheduler, cluster


def attempt(case: Case, *, fast: bool, extra: Sequence[str] = ()) -> tuple[object, ...]:
    """Schedule ``case``'s pod once: what the attempt saw and what the Recorder read."""
    scheduler, cluster = build(case, fast=fast, extra=extra)
    builder = make_pod("p").req(cpu=case.cpu).priority(case.priority)
    if case.anti_affinity:
        builder = builder.label(app="x").pod_affinity("kubernetes.io/hostname", anti=True, app="x")
    if case.only:
        builder = builder.node_affinity_names(*case.only)
    pod = builder.obj()
    if case.own_nomination:
        pod = make_pod("p").req(cpu=case.cpu).priority(case.priority).nominated(case.own_nomination).obj()
        scheduler.nominator.add_nominated_pod(PodInfo.of(pod))
    records: list[CycleRecord] = []
    scheduler.cycle_observer = records.append
    Recorder.seen = []
    cluster.add_pod(pod)
    scheduler.schedule_one()
    (record,) = records
    statuses = [(name, s.code, s.reasons, s.plugin) for name, s in record.diagnosis.node_to_status.statuses.items()]
    message = record.status.message() if record.status is not None else ""
    return (statuses, sorted(record.diagnosis.unschedulable_plugins), record.feasible_nodes, record.suggested_host,
            message, list(Recorder.seen))


@pytest.fixture
def overlay_runs(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The results of every BatchFilter.add_nominated_pods call (True: the overlay decided)."""
    results: list[bool] = []
    original = BatchFilter.add_nominated_pods

    def spy(self: BatchFilter, *args: object) -> bool:
        result = original(self, *args)  # type: ignore[arg-type]
        results.append(result)
        return result

    monkeypatch.setattr(BatchFilter, "add_nominated_pods", spy)
    return results


TWO_NODES = (("n0", "4"), ("n1", "4"))

CASES = {
    "equal priority takes the room": Case(TWO_NODES, (("n0", "1", 0),), (("n0", "2", 10),), cpu="2"),
    "higher priority takes the room": Case(TWO_NODES, (("n1", "1", 0),), (("n1", "2", 20),), cpu="2"),
    "lower priority is not counted": Case(TWO_NODES, (("n0", "1", 0),), (("n0", "2", 5),), cpu="2", counted=False),
    "the pod's own nomination is not counted": Case((("n0", "4"), ("n1", "4"), ("n2", "4")), (("n0", "3", 0),),
                                                    (("n1", "3", 10),), cpu="2", own_nomination="n0"),
    "fits only without the nominated pods": Case(TWO_NODES, (("n0", "1", 0), ("n1", "1", 0)),
                                                 (("n0", "2", 10), ("n1", "1", 30), ("n1", "1", 10)), cpu="2"),
    "several pods on one node, some lower": Case((("n0", "4"), ("n1", "4"), ("n2", "2")), (),
                                                 (("n0", "1", 10), ("n0", "1", 0), ("n0", "2", 20), ("n1", "3", 0)),
                                                 cpu="1500m"),
    "too many pods with them": Case((("n0", "40"), ("n1", "40")),
                                    tuple((node, "100m", 0) for node in ("n0", "n1") for _ in range(9)),
                                    (("n0", "100m", 10),), cpu="100m"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_overlay_decides_and_reports_as_the_per_node_two_pass_filter(case: Case, overlay_runs: list[bool]) -> None:
    """With only built-in node/resource filters, the overlay runs and every status, the host and the message equal
    the per-node path's."""
    fast = attempt(case, fast=True)
    assert overlay_runs == ([True] if case.counted else [])
    assert fast == attempt(case, fast=False)


def test_nominated_pods_reject_a_node_the_pod_fits_without_them(overlay_runs: list[bool]) -> None:
    """A node with room only if the equal-priority nominated pod is ignored is rejected with its reason."""
    statuses, _plugins, feasible, host, _message, _seen = attempt(CASES["equal priority takes the room"], fast=True)
    assert statuses == [("n0", Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")]
    assert (feasible, host) == (["n1"], "n1")


def test_nominated_pods_asking_an_extended_resource_are_counted_node_by_node(overlay_runs: list[bool]) -> None:
    """A nominated pod asking for an extended resource is not overlaid on the columns: the nodes it is nominated to
    take the per-node two-pass filter, so the node it takes the room of is rejected, as on the per-node path."""
    case = attrs.evolve(CASES["equal priority takes the room"], extended="example.com/gpu")
    fast = attempt(case, fast=True)
    statuses, _plugins, feasible, host, _message, _seen = fast
    assert overlay_runs == []
    assert statuses == [("n0", Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")]
    assert (feasible, host) == (["n1"], "n1")
    assert fast == attempt(case, fast=False)


def test_nominated_pods_asking_an_extended_resource_are_counted_on_the_nodes_pre_filter_left(
        overlay_runs: list[bool]) -> None:
    """The same with the pod's node affinity naming n1 and n2 only: the nomination to n2 is found among the nodes
    PreFilter left, so n2 is rejected and n1 chosen, as on the per-node path."""
    case = Case((("n0", "4"), ("n1", "4"), ("n2", "4")), (("n2", "1", 0),), (("n2", "2", 10),), cpu="2",
                extended="example.com/gpu", only=("n1", "n2"))
    fast = attempt(case, fast=True)
    statuses, _plugins, feasible, host, _message, _seen = fast
    assert statuses == [("n2", Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")]
    assert (feasible, host) == (["n1"], "n1")
    assert fast == attempt(case, fast=False)


def test_post_filter_reads_the_same_codes_and_messages_on_both_paths(overlay_runs: list[bool]) -> None:
    """A PostFilter plugin reading codes, then statuses, sees what the per-node path gives it."""
    case = CASES["fits only without the nominated pods"]
    fast_seen = attempt(case, fast=True)[-1]
    assert fast_seen == attempt(case, fast=False)[-1]
    assert fast_seen == [([("n0", (Code.UNSCHEDULABLE, "NodeResourcesFit")),
                           ("n1", (Code.UNSCHEDULABLE, "NodeResourcesFit"))],
                          [("n0", Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"),
                           ("n1", Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")])]


def test_an_add_pod_extension_falls_back_to_the_per_node_two_pass_filter(overlay_runs: list[bool]) -> None:
    """InterPodAffinity's AddPod extension runs for a pod with anti-affinity: the overlay steps aside."""
    case = attrs.evolve(CASES["equal priority takes the room"], anti_affinity=True)
    fast = attempt(case, fast=True, extra=["InterPodAffinity"])
    assert not any(overlay_runs)
    assert fast == attempt(case, fast=False, extra=["InterPodAffinity"])


def test_a_third_party_filter_falls_back_to_the_per_node_two_pass_filter(overlay_runs: list[bool]) -> None:
    """A Filter plugin outside the built-in node/resource set runs: the overlay steps aside."""
    case = CASES["fits only without the nominated pods"]
    fast = attempt(case, fast=True, extra=["PerNodeOnly"])
    assert not any(overlay_runs)
    assert fast == attempt(case, fast=False, extra=["PerNodeOnly"])


def test_a_third_party_filter_declaring_node_reads_keeps_the_overlay(overlay_runs: list[bool]) -> None:
    """A Filter plugin declaring ``filter_reads = FilterReads.NODE`` (with a batch form) keeps the overlay, which
    decides and reports as the per-node two-pass filter."""
    case = CASES["fits only without the nominated pods"]
    fast = attempt(case, fast=True, extra=["DeclaredNodeOnly"])
    assert overlay_runs == [True]
    assert fast == attempt(case, fast=False, extra=["DeclaredNodeOnly"])


@pytest.mark.parametrize("plugin", ["UndeclaredBatch", "NodeOnlyWithAddPod"])
def test_a_batch_filter_without_a_node_only_declaration_or_with_an_add_pod_extension_falls_back(
        plugin: str, overlay_runs: list[bool]) -> None:
    """A Filter plugin with a batch form but no ``filter_reads`` declaration, or one declaring node reads whose
    PreFilter AddPod extension runs: the overlay steps aside, and the per-node two-pass filter decides as without
    the fast path."""
    case = CASES["fits only without the nominated pods"]
    fast = attempt(case, fast=True, extra=[plugin])
    assert not any(overlay_runs)
    assert fast == attempt(case, fast=False, extra=[plugin])


@pytest.fixture(scope="module")
def default_configs() -> tuple[PluginRegistry, SchedulerConfiguration, SchedulerConfiguration]:
    """The installed plugins and the shipped default profile with the fast path on, then off."""
    registry = PluginRegistry.discover()
    config = load_config("default", registry)
    return (registry, attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=True)),
            attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=False)))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=6, max_pending=8))
def test_default_profile_decides_as_the_per_node_path_with_nominations(
        default_configs: tuple[PluginRegistry, SchedulerConfiguration, SchedulerConfiguration],
        example: Example) -> None:
    """Random clusters on the default profile (preemption nominates pods, some pods arrive nominated): every
    decision, event and attempt of the fast path, overlay included, equals the per-node path's."""
    registry, fast, reference = default_configs
    original = BatchFilter.add_nominated_pods
    with patch.object(BatchFilter, "add_nominated_pods", autospec=True, side_effect=original) as spy:
        fast_result, fast_cycles = simulate(example, fast, registry)
    event(f"overlay runs: {min(spy.call_count, 1)}")
    reference_result, reference_cycles = simulate(example, reference, registry)
    event(f"preemptions: {min(len(reference_result.preemptions), 2)}")
    assert digest(fast_result) == digest(reference_result)
    assert fast_cycles == reference_cycles

"""Specification of the runtime's batch path (kubesched/runtime/_batch.py) as the scheduler drives it.

Plugins here are configured per test: a node predicate gives both the per-node ``filter`` and, for the batch
plugins, ``filter_nodes``; counters record which forms ran. Where a behaviour must match the per-node path, the
test runs with ``fast_path`` True and False and expects the same.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeScore, NominatingInfo, NominatingMode
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import CycleRecord, PluginRegistry
from kubesched.runtime._scheduler import Scheduler, SchedulerSettings
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.framework.fakes import profile_of

Verdict = Callable[[NodeInfo], Code | None]
BOTH_PATHS = pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "per-node"])


def _index(node_info: NodeInfo) -> int:
    """The number in a node's name (``n12`` -> 12)."""
    return int(node_info.name[1:])


class Gate(Plugin):
    """Per-node Filter rejecting where ``verdict`` gives a code, with reason ``node(s) rejected by <name>``."""

    name = "Gate"
    verdict: ClassVar[Verdict] = staticmethod(lambda _ni: None)
    calls: ClassVar[Counter[str]]

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """No event: a rejected pod waits (with queueing hints, a Pending plugin interested in every event would
        send the pod straight back on its own status write)."""
        return []

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls[f"{self.name}.filter"] += 1
        code = type(self).verdict(node_info)
        return None if code is None else Status(code, (f"node(s) rejected by {self.name}",))


class BatchGate(Gate):
    """:class:`Gate` with a batch form giving the same codes (or ``batch_result``'s answer when set)."""

    name = "BatchGate"
    batch_result: ClassVar[Callable[[Pod, NodeBatch], Any] | None] = None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        self.calls[f"{self.name}.filter_nodes"] += 1
        result = type(self).batch_result
        if result is not None:
            return result(pod, node_batch)  # type: ignore[no-any-return]
        verdict = type(self).verdict
        return np.array([int(verdict(ni) or 0) for ni in node_batch], dtype=np.int64)


def gate(name: str, verdict: Verdict, calls: Counter[str], *, batch: bool,
         batch_result: Callable[[Pod, NodeBatch], Any] | None = None) -> type[Gate]:
    """A :class:`Gate` (or :class:`BatchGate` when ``batch``) named ``name``."""
    attributes: dict[str, Any] = {"name": name, "verdict": staticmethod(verdict), "calls": calls}
    if batch:
        attributes["batch_result"] = staticmethod(batch_result) if batch_result is not None else None
    return type(name, (BatchGate if batch else Gate,), attributes)


class EvenScore(Plugin):
    """Score: every node scores ``value``; a batch form and a NormalizeScore that leaves scores alone."""

    name = "EvenScore"
    value: ClassVar[int] = 5
    calls: ClassVar[Counter[str]] = Counter()
    score_result: ClassVar[Callable[[NodeBatch], Any] | None] = None
    normalize_result: ClassVar[Callable[[NodeBatch], Any] | None] = None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        self.calls["score"] += 1
        return self.value

    @hookimpl
    def score_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
        self.calls["score_nodes"] += 1
        result = type(self).score_result
        return result(node_batch) if result is not None else np.full(len(node_batch), self.value, dtype=np.int64)

    @hookimpl
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return None

    @hookimpl
    def normalize_scores(self, state: CycleState, pod: Pod, node_batch: NodeBatch,
                         batch_scores: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        self.calls["normalize_scores"] += 1
        result = type(self).normalize_result
        return result(node_batch) if result is not None else batch_scores


def even_score(*, score_result: Callable[[NodeBatch], Any] | None = None,
               normalize_result: Callable[[NodeBatch], Any] | None = None) -> type[EvenScore]:
    """An :class:`EvenScore` with fresh counters and the given batch answers."""
    attributes: dict[str, Any] = {
        "calls": Counter(), "score_result": staticmethod(score_result) if score_result else None,
        "normalize_result": staticmethod(normalize_result) if normalize_result else None}
    return type("EvenScore", (EvenScore,), attributes)


def nodes(count: int, cpu: str = "8") -> list[Node]:
    """``count`` nodes ``n0``, ``n1``, ... with ``cpu`` CPUs each."""
    return [make_node(f"n{i}").capacity(cpu=cpu, memory="32Gi").obj() for i in range(count)]


def scheduler(cluster_nodes: Sequence[Node], *plugins: type[Plugin], filters: Sequence[str],
              scores: Sequence[str] = (), pre_filters: Sequence[str] = (),
              fast_path: bool = True) -> tuple[InMemoryCluster, Scheduler]:
    """A Scheduler over an in-memory cluster holding ``cluster_nodes``, with the given PreFilter, Filter and
    Score plugins (NodeResourcesFit available by name; its PreFilter runs when it filters)."""
    cluster = InMemoryCluster(VirtualClock())
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, NodeResourcesFit, *plugins)
    points: dict[str, list[str]] = {"filter": list(filters), "score": list(scores), "pre-filter": list(pre_filters)}
    if "NodeResourcesFit" in filters:
        points["pre-filter"].append("NodeResourcesFit")
    sched = Scheduler([profile_of(points)], registry, client=cluster, clock=cluster.clock, rng=random.Random(7),
                      settings=SchedulerSettings(fast_path=fast_path))
    cluster.subscribe(sched.events)
    for node in cluster_nodes:
        cluster.add_node(node)
    return cluster, sched


def schedule(cluster: InMemoryCluster, sched: Scheduler, *pods: Pod) -> list[str]:
    """Add ``pods`` one at a time and schedule each; per pod its node, or its last event's message."""
    outcomes = []
    for pod in pods:
        cluster.add_pod(pod)
        while sched.schedule_one():
            pass
        live = cluster.pods[pod.uid]
        outcomes.append(live.spec.node_name or cluster.events[-1].message)
    return outcomes


# -- a batch form that fails -------------------------------------------------------------------------------
def _as_floats(pod: Pod, batch: NodeBatch) -> Any:
    return np.zeros(len(batch), dtype=np.float64)


@pytest.mark.parametrize(("answer", "detail"), [
    pytest.param(lambda pod, batch: np.zeros(len(batch) + 1, dtype=np.int64),
                 "returned ndarray, expected an integer array of 3 status codes or None", id="wrong-length"),
    pytest.param(lambda pod, batch: np.zeros((len(batch), 1), dtype=np.int64),
                 "returned ndarray, expected an integer array of 3 status codes or None", id="two-dimensional"),
    pytest.param(_as_floats, "returned ndarray, expected an integer array of 3 status codes or None", id="floats"),
    pytest.param(lambda pod, batch: [0] * len(batch),
                 "returned list, expected an integer array of 3 status codes or None", id="a-list"),
    pytest.param(lambda pod, batch: np.full(len(batch), int(Code.ERROR)),
                 "returned status code 1, which Filter may not return", id="error-code"),
    pytest.param(lambda pod, batch: np.array([0, 0, 9]),
                 "returned status code 9, which Filter may not return", id="unknown-code"),
    pytest.param(lambda pod, batch: np.array([2, 0, -1]),
                 "returned status code -1, which Filter may not return", id="negative-code"),
    pytest.param(lambda pod, batch: np.array([2, int(Code.WAIT), 3]),
                 "returned status code 4, which Filter may not return", id="permit-only-code-among-allowed-ones"),
    pytest.param(lambda pod, batch: np.array([int(Code.UNSCHEDULABLE), 9, int(Code.PENDING)]),
                 "returned status code 9, which Filter may not return", id="unknown-among-allowed-codes"),
    pytest.param(lambda pod, batch: np.array([-4, int(Code.UNSCHEDULABLE), 7]),
                 "returned status code -4, which Filter may not return", id="the-least-of-two-unknown-codes"),
])
def test_a_malformed_batch_filter_answer_is_that_plugins_error_for_the_pod(
        answer: Callable[[Pod, NodeBatch], Any], detail: str) -> None:
    """A filter_nodes answer of the wrong shape, type or code fails the pod with an Error naming the plugin; the
    next pod, for which the plugin answers well, is scheduled."""
    def misbehaving(pod: Pod, batch: NodeBatch) -> Any:
        return answer(pod, batch) if pod.name == "victim" else None

    calls: Counter[str] = Counter()
    plugin = gate("Bad", lambda _ni: None, calls, batch=True, batch_result=misbehaving)
    cluster, sched = scheduler(nodes(3), plugin, filters=["Bad"])
    outcomes = schedule(cluster, sched, make_pod("victim").obj(), make_pod("next").obj())
    assert outcomes == [f'running "Bad" filter plugin: {detail}', "n0"]
    assert [(f.point, f.plugin, f.pod) for f in sched.plugin_failures()] == [("Filter", "Bad", "default/victim")]


def test_a_raising_batch_filter_is_an_error_naming_the_plugin() -> None:
    """filter_nodes raising fails the pod with an Error naming the plugin and the exception."""
    def boom(pod: Pod, batch: NodeBatch) -> Any:
        raise RuntimeError("columns exploded")

    plugin = gate("Boom", lambda _ni: None, Counter(), batch=True, batch_result=boom)
    cluster, sched = scheduler(nodes(3), plugin, filters=["Boom"])
    assert schedule(cluster, sched, make_pod("p").obj()) == [
        'running "Boom" filter plugin: RuntimeError: columns exploded']


def _raise(batch: NodeBatch) -> Any:
    raise ValueError("no columns today")


@pytest.mark.parametrize(("plugin", "message"), [
    pytest.param(even_score(score_result=lambda batch: np.zeros(len(batch) - 1, dtype=np.int64)),
                 'running Score plugins: plugin "EvenScore" returned ndarray, expected an integer array of 3 scores',
                 id="score-wrong-length"),
    pytest.param(even_score(score_result=_raise),
                 'running Score plugins: plugin "EvenScore" failed with: ValueError: no columns today',
                 id="score-raises"),
    pytest.param(even_score(normalize_result=lambda batch: [0] * len(batch)),
                 'running Normalize on Score plugins: plugin "EvenScore" returned list, expected an integer array '
                 "of 3 scores", id="normalize-a-list"),
    pytest.param(even_score(normalize_result=_raise),
                 'running Normalize on Score plugins: plugin "EvenScore" failed with: ValueError: no columns today',
                 id="normalize-raises"),
    pytest.param(even_score(normalize_result=lambda batch: np.full(len(batch), 101, dtype=np.int64)),
                 'applying score defaultWeights on Score plugins: plugin "EvenScore" returns an invalid score 101, '
                 "it should in the range of [0, 100] after normalizing", id="normalize-out-of-range"),
    pytest.param(even_score(normalize_result=lambda batch: np.full(len(batch), -1, dtype=np.int64)),
                 'applying score defaultWeights on Score plugins: plugin "EvenScore" returns an invalid score -1, '
                 "it should in the range of [0, 100] after normalizing", id="normalize-negative"),
    pytest.param(even_score(normalize_result=lambda batch: np.full(len(batch), -(2**63), dtype=np.int64)),
                 'applying score defaultWeights on Score plugins: plugin "EvenScore" returns an invalid score '
                 f"{-(2**63)}, it should in the range of [0, 100] after normalizing", id="normalize-int64-min"),
])
def test_a_failing_batch_score_form_is_that_plugins_error(plugin: type[EvenScore], message: str) -> None:
    """score_nodes or normalize_scores answering badly or raising fails the pod with an Error naming the plugin."""
    passing = gate("Pass", lambda _ni: None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(3), passing, plugin, filters=["Pass"], scores=["EvenScore"])
    assert schedule(cluster, sched, make_pod("p").obj()) == [message]
    assert [f.plugin for f in sched.plugin_failures()] == ["EvenScore"]


def test_only_kubesched_s_own_batch_scorers_skip_the_shape_and_range_checks() -> None:
    """The batch Score pass trusts the [0, 100] range of built-in batch scorers (checked by the per-node path and
    the batch-forms conformance check) and keeps checking every plugin from outside kubesched."""
    cluster, sched = scheduler(nodes(3), even_score(), filters=["NodeResourcesFit"],
                               scores=["NodeResourcesFit", "EvenScore"])
    schedule(cluster, sched, make_pod("p").obj())
    plan = next(iter(sched.frameworks.values())).batch_score_plan
    assert plan is not None
    assert [(step.name, step.proven) for step in plan] == [("NodeResourcesFit", True), ("EvenScore", False)]


# -- which plugin a rejection is recorded for -----------------------------------------------------------------
@BOTH_PATHS
@pytest.mark.parametrize(("order", "first"), [
    pytest.param(("PerNode", "Batch"), "PerNode", id="per-node-first"),
    pytest.param(("Batch", "PerNode"), "Batch", id="batch-first"),
])
def test_a_rejection_is_recorded_for_the_first_rejecting_plugin_in_profile_order(
        fast_path: bool, order: tuple[str, str], first: str) -> None:
    """When a per-node and a batch plugin both reject every node, the FitError names the one configured first."""
    calls: Counter[str] = Counter()
    per_node = gate("PerNode", lambda _ni: Code.UNSCHEDULABLE, calls, batch=False)
    batch = gate("Batch", lambda _ni: Code.UNSCHEDULABLE, calls, batch=True)
    cluster, sched = scheduler(nodes(3), per_node, batch, filters=order, fast_path=fast_path)
    records: list[CycleRecord] = []
    sched.cycle_observer = records.append
    assert schedule(cluster, sched, make_pod("p").obj()) == [
        f"0/3 nodes are available: 3 node(s) rejected by {first}."]
    assert records[0].diagnosis.unschedulable_plugins == {first}


def test_a_per_node_plugin_after_a_rejecting_batch_plugin_is_not_called_on_that_node() -> None:
    """A per-node plugin configured after a batch plugin runs only on the nodes the batch plugin passed."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if _index(ni) % 2 else None, calls, batch=True)
    per_node = gate("PerNode", lambda _ni: None, calls, batch=False)
    cluster, sched = scheduler(nodes(6), batch, per_node, even_score(), filters=["Batch", "PerNode"],
                               scores=["EvenScore"])
    schedule(cluster, sched, make_pod("p").obj())
    assert calls["PerNode.filter"] == 3


# -- the node order and the stop rule -----------------------------------------------------------------------
@BOTH_PATHS
def test_nodes_are_tried_from_the_next_start_index_and_the_index_advances_past_the_processed_nodes(
        fast_path: bool) -> None:
    """Without Score plugins a cycle stops at the first feasible node from nextStartNodeIndex; the index moves
    past every node checked, rejected ones included."""
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if ni.name == "n1" else None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(4), batch, filters=["Batch"], fast_path=fast_path)
    placed = []
    for i in range(4):
        placed.append((*schedule(cluster, sched, make_pod(f"p{i}").obj()), sched.next_start_node_index))
    assert placed == [("n0", 1), ("n2", 3), ("n3", 0), ("n0", 1)]


@BOTH_PATHS
def test_the_search_stops_after_num_feasible_nodes_to_find(fast_path: bool) -> None:
    """With 120 nodes and Score plugins, 100 feasible nodes are looked for: every tenth node is rejected, so 112
    nodes are processed and scored nodes number 100."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if _index(ni) % 10 == 0 else None, calls, batch=True)
    score = even_score()
    cluster, sched = scheduler(nodes(120), batch, score, filters=["Batch"], scores=["EvenScore"],
                               fast_path=fast_path)
    records: list[CycleRecord] = []
    sched.cycle_observer = records.append
    schedule(cluster, sched, make_pod("p").obj())
    assert sched.next_start_node_index == 112
    assert len(records[0].feasible_nodes) == 100
    assert records[0].feasible_nodes[-1] == "n111"


@BOTH_PATHS
def test_when_every_node_passes_the_search_wraps_from_the_start_index_past_the_last_node(fast_path: bool) -> None:
    """With 150 nodes that all pass, each pod looks for 100: the first takes n0..n99, the second n100..n149 then
    n0..n49, and the start index goes 0 -> 100 -> 50."""
    batch = gate("Batch", lambda _ni: None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(150), batch, even_score(), filters=["Batch"], scores=["EvenScore"],
                               fast_path=fast_path)
    records: list[CycleRecord] = []
    sched.cycle_observer = records.append
    schedule(cluster, sched, make_pod("p0").obj(), make_pod("p1").obj())
    assert [len(r.feasible_nodes) for r in records] == [100, 100]
    assert records[0].feasible_nodes == [f"n{i}" for i in range(100)]
    assert records[1].feasible_nodes == [f"n{i}" for i in (*range(100, 150), *range(50))]
    assert sched.next_start_node_index == 50


@BOTH_PATHS
def test_a_pre_filter_narrowing_the_nodes_keeps_the_start_index_over_all_nodes(fast_path: bool) -> None:
    """When NodeAffinity's PreFilter keeps two of five nodes, nodes are tried from the start index modulo the two,
    and the index advances by the nodes checked, modulo all five."""
    batch = gate("Batch", lambda _ni: None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(5), batch, NodeAffinity, filters=["NodeAffinity", "Batch"],
                               pre_filters=["NodeAffinity"], fast_path=fast_path)
    placed = []
    for i in range(5):
        pod = make_pod(f"p{i}").node_affinity_names("n1", "n3").obj()
        placed.append((*schedule(cluster, sched, pod), sched.next_start_node_index))
    assert placed == [("n1", 1), ("n3", 2), ("n1", 3), ("n3", 4), ("n1", 0)]


@BOTH_PATHS
def test_the_pods_own_nominated_node_rejected_in_both_passes_counts_once_for_the_start_index(
        fast_path: bool) -> None:
    """A pod nominated to a node that rejects it checks that node first, then all nodes from the start index; the
    node, rejected twice, advances the index once."""
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if ni.name == "n0" else None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(4), batch, filters=["Batch"], fast_path=fast_path)
    assert schedule(cluster, sched, make_pod("p").nominated("n0").obj()) == ["n1"]
    assert sched.next_start_node_index == 2


@BOTH_PATHS
def test_a_nominated_node_unknown_to_the_nominator_rejected_in_both_passes_counts_once(fast_path: bool) -> None:
    """The same when the nominator has no entry for the pod (so the node is not filtered with nominated pods but
    by the batch forms): its first-pass status and its batch rejection count as one processed node."""
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if ni.name == "n0" else None, Counter(), batch=True)
    cluster, sched = scheduler(nodes(4), batch, filters=["Batch"], fast_path=fast_path)
    pod = make_pod("p").nominated("n0").obj()
    cluster.add_pod(pod)
    sched.nominator.delete_nominated_pod_if_exists(pod)
    assert sched.schedule_one()
    assert cluster.pods[pod.uid].spec.node_name == "n1"
    assert sched.next_start_node_index == 2


# -- statuses built only when read ---------------------------------------------------------------------------
def test_the_reasons_of_batch_rejections_are_not_built_when_the_pod_fits() -> None:
    """A batch plugin rejecting some nodes is not asked for its per-node reasons when the pod finds a node."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if ni.name != "n2" else None, calls, batch=True)
    cluster, sched = scheduler(nodes(3), batch, filters=["Batch"])
    assert schedule(cluster, sched, make_pod("p").obj()) == ["n2"]
    assert calls == Counter({"Batch.filter_nodes": 1})


@pytest.mark.parametrize("codes", [
    pytest.param({"n0": Code.UNSCHEDULABLE, "n1": Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "n2": Code.PENDING},
                 id="mixed-codes"),
    pytest.param(dict.fromkeys(("n0", "n1", "n2"), Code.UNSCHEDULABLE), id="all-unschedulable"),
])
def test_the_reasons_are_built_once_per_rejected_node_when_the_pod_fits_nowhere(codes: dict[str, Code]) -> None:
    """When no node fits, each rejected node's reason comes from the per-node filter, called once per node, and
    the FitError message is the per-node path's."""
    messages = []
    for fast_path in (True, False):
        calls: Counter[str] = Counter()
        batch = gate("Batch", lambda ni: codes[ni.name], calls, batch=True)
        cluster, sched = scheduler(nodes(3), batch, filters=["Batch"], fast_path=fast_path)
        messages.extend(schedule(cluster, sched, make_pod("p").obj()))
        assert calls["Batch.filter"] == 3
    assert messages[0] == messages[1] == "0/3 nodes are available: 3 node(s) rejected by Batch."


def test_a_batch_rejection_the_per_node_filter_denies_gets_a_status_saying_so() -> None:
    """A node filter_nodes rejects but filter accepts keeps the batch code, with a reason naming the mismatch."""
    calls: Counter[str] = Counter()
    batch = gate("Liar", lambda _ni: None, calls, batch=True,
                 batch_result=lambda pod, b: np.full(len(b), int(Code.UNSCHEDULABLE)))
    cluster, sched = scheduler(nodes(2), batch, filters=["Liar"])
    assert schedule(cluster, sched, make_pod("p").obj()) == [
        "0/2 nodes are available: 2 filter_nodes rejected the node but filter accepts it."]


# -- nominated pods -----------------------------------------------------------------------------------------
@BOTH_PATHS
@pytest.mark.parametrize(("priority", "node"), [
    pytest.param(0, "n1", id="lower-priority-keeps-off-the-nominated-room"),
    pytest.param(200, "n0", id="higher-priority-ignores-the-nomination"),
])
def test_nodes_with_nominated_pods_are_filtered_with_those_pods_counted(fast_path: bool, priority: int,
                                                                        node: str) -> None:
    """A pod does not take room nominated for a pod of higher or equal priority, on either path."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda _ni: None, calls, batch=True)
    cluster, sched = scheduler(nodes(3, cpu="2"), batch, filters=["Batch", "NodeResourcesFit"],
                               fast_path=fast_path)
    nominee = make_pod("nominee").req(cpu="2").priority(100).nominated("n0").scheduler_name("elsewhere").obj()
    sched.nominator.add_nominated_pod(PodInfo.of(nominee), NominatingInfo("n0", NominatingMode.OVERRIDE))
    assert schedule(cluster, sched, make_pod("p").req(cpu="1").priority(priority).obj()) == [node]


def test_a_node_with_nominated_pods_runs_the_per_node_filters_in_two_passes() -> None:
    """On the fast path the nominated node takes the per-node two-pass filter: the batch plugin's per-node
    filter runs twice there (with and without the nominated pod) and nowhere else."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda _ni: None, calls, batch=True)
    cluster, sched = scheduler(nodes(3), batch, even_score(), filters=["Batch"], scores=["EvenScore"])
    nominee = make_pod("nominee").priority(100).nominated("n1").scheduler_name("elsewhere").obj()
    sched.nominator.add_nominated_pod(PodInfo.of(nominee), NominatingInfo("n1", NominatingMode.OVERRIDE))
    schedule(cluster, sched, make_pod("p").obj())
    assert calls == Counter({"Batch.filter_nodes": 1, "Batch.filter": 2})


# -- selectHost --------------------------------------------------------------------------------------------
def test_ties_are_broken_by_the_same_draws_on_both_paths() -> None:
    """Equal scores on many nodes: the fast path picks the per-node path's node for every pod and leaves the
    random generator in the same state."""
    runs = []
    for fast_path in (True, False):
        batch = gate("Batch", lambda _ni: None, Counter(), batch=True)
        cluster, sched = scheduler(nodes(9), batch, even_score(), filters=["Batch"], scores=["EvenScore"],
                                   fast_path=fast_path)
        placed = schedule(cluster, sched, *(make_pod(f"p{i}").obj() for i in range(12)))
        runs.append((placed, sched.rng.random()))
    assert runs[0] == runs[1]
    assert len(set(runs[0][0])) > 1


# -- inexact columns ------------------------------------------------------------------------------------------
def test_amounts_beyond_exact_int64_arithmetic_take_the_per_node_path() -> None:
    """A node with more than 2**53 bytes of memory makes the columns inexact: no batch form runs, and the pod is
    still scheduled by the per-node hooks."""
    calls: Counter[str] = Counter()
    batch = gate("Batch", lambda ni: Code.UNSCHEDULABLE if ni.name == "n0" else None, calls, batch=True)
    score = even_score()
    huge = make_node("n2").capacity(cpu="8", memory="16Pi").obj()
    cluster, sched = scheduler([*nodes(2), huge], batch, score, filters=["Batch"], scores=["EvenScore"])
    placed = schedule(cluster, sched, make_pod("p").obj())
    assert not sched.snapshot.columns.exact
    assert placed[0] in {"n1", "n2"}
    assert calls["Batch.filter_nodes"] == 0
    assert score.calls["score_nodes"] == 0


# -- the plugin call budget ----------------------------------------------------------------------------------
def test_a_call_budget_times_the_batch_forms_under_their_extension_point() -> None:
    """With a plugin call budget, batch forms are timed like the per-node hooks and reported under their
    extension point (Filter, Score, NormalizeScore), and the pod is still scheduled."""
    batch = gate("Batch", lambda _ni: None, Counter(), batch=True)
    score = even_score()
    cluster = InMemoryCluster(VirtualClock())
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, batch, score)
    sched = Scheduler([profile_of({"filter": ["Batch"], "score": ["EvenScore"]})], registry, client=cluster,
                      clock=cluster.clock, rng=random.Random(7),
                      settings=SchedulerSettings(plugin_call_budget_seconds=0.0))
    cluster.subscribe(sched.events)
    for node in nodes(3):
        cluster.add_node(node)
    assert schedule(cluster, sched, make_pod("p").obj())[0] in {"n0", "n1", "n2"}
    assert {(record.point, record.plugin) for record in sched.slow_calls()} >= {
        ("Filter", "Batch"), ("Score", "EvenScore"), ("NormalizeScore", "EvenScore")}


def test_the_reference_path_never_reads_the_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """With fast_path off, spreading and inter-pod affinity pods are placed without one read of the columns'
    indexes or batch forms: --reference is the plain per-node path, an independent check of the fast one."""
    import attrs

    from kubesched.framework._columns import NodeColumns
    from kubesched.io.load import ClusterInput
    from kubesched.profiles import load_config
    from kubesched.sim.simulate import Simulation

    def forbidden(*_args: object, **_kwargs: object) -> Any:
        raise AssertionError("the reference path read the columns")

    for method in ("label_values", "categories", "pod_counts", "resource"):
        monkeypatch.setattr(NodeColumns, method, forbidden)
    nodes = [make_node(f"n{i}").zone(f"z{i % 2}").capacity(cpu="4", memory="8Gi", pods=10).obj() for i in range(4)]
    pods = [make_pod(f"s{i}").label(app="s").req(cpu="100m").spread(1, "topology.kubernetes.io/zone", app="s")
            .obj() for i in range(3)]
    pods += [make_pod(f"a{i}").label(app="a").req(cpu="100m")
             .pod_affinity("kubernetes.io/hostname", anti=True, app="a").obj() for i in range(3)]
    registry = PluginRegistry.discover()
    config = load_config("default", registry)
    config = attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=False))
    result = Simulation(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), config, registry).run()
    assert all(p.node for p in result.pods)

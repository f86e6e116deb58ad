"""The dry run's resource shortcut: when only NodeResourcesFit can change as pods leave a node, the Evaluator
decides by arithmetic, and must give exactly what running Filter on node copies gives (candidates, victims in
order, PDB violations, every status and error), which stays callable with ``Evaluator.fast_dry_run = False``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework import Candidate, DisruptionBudgets, Evaluator, ScoreFunc
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, Plugin, hookimpl
from kubesched.framework._status import Code, Status, is_success
from kubesched.framework._types import NodeToStatus
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.runtime._preemption import _rotated
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import T0, PreemptionCluster, pdb, preemption_cluster
from tests.framework.test_preemption_property import APPS, PRIORITIES, Workload, budgets, workloads

EXAMPLES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FILTERS = {"pre-filter": ["NodeResourcesFit"], "filter": ["NodeUnschedulable", "TaintToleration", "NodeResourcesFit"]}
EXTRA = (NodeUnschedulable, TaintToleration)
MEMORY = ["0", "512Mi", "1Gi"]


@st.composite
def nodes_and_pods(draw: st.DrawFn, most: int = 6, started: bool = False) -> tuple[list[Node], list[Pod]]:
    """One to ``most`` nodes (cpu, memory, pod count and storage limits; some tainted or cordoned) and up to five
    pods on each, of random priority, requests and start time (always one when ``started``); nodes may be
    overcommitted."""
    nodes: list[Node] = []
    pods: list[Pod] = []
    for i in range(draw(st.integers(1, most))):
        builder = make_node(f"n{i}").capacity(cpu=f"{draw(st.sampled_from([2000, 3000, 4000]))}m",
                                              memory=draw(st.sampled_from(["2Gi", "3Gi"])),
                                              pods=str(draw(st.sampled_from([2, 3, 4, 110]))),
                                              **{"ephemeral-storage": "2Gi"})
        if draw(st.integers(0, 7)) == 0:
            builder = builder.taint("dedicated", "x")
        if draw(st.integers(0, 7)) == 0:
            builder = builder.unschedulable()
        node = builder.obj()
        nodes.append(node)
        for _ in range(draw(st.integers(0, 5))):
            requests = {"cpu": f"{draw(st.sampled_from([0, 500, 1000, 1500]))}m",
                        "memory": draw(st.sampled_from(MEMORY))}
            if draw(st.integers(0, 5)) == 0:
                requests["ephemeral-storage"] = "1Gi"
            pod = (make_pod(f"{node.name}-p{len(pods)}").node(node.name).req(**requests)
                   .priority(draw(st.sampled_from(PRIORITIES))).label(app=draw(st.sampled_from(APPS))))
            start = draw(st.integers(0, 3) if started else st.one_of(st.none(), st.integers(0, 3)))
            if start is not None:  # few distinct hours, so equal start times (ties) are common
                pod = pod.start_time(T0 + timedelta(hours=start))
            pods.append(pod.obj())
    return nodes, pods


@st.composite
def preemptors(draw: st.DrawFn) -> Pod:
    """A pending pod asking for cpu, memory and storage (each possibly zero), of a priority among the running."""
    requests: dict[str, str] = {"cpu": f"{draw(st.sampled_from([0, 500, 1000, 2000, 3000]))}m",
                                "memory": draw(st.sampled_from(MEMORY))}
    if draw(st.booleans()):
        requests["ephemeral-storage"] = draw(st.sampled_from(["0", "1Gi", "2Gi"]))
    return make_pod("preemptor").req(**requests).priority(draw(st.sampled_from([0, 10, 15, 20, 30]))).obj()


@st.composite
def nominated_pods(draw: st.DrawFn, nodes: Sequence[Node]) -> list[Pod]:
    """Zero to two pods nominated to nodes, more or less important than the preemptor."""
    return [make_pod(f"nominee{i}").nominated(draw(st.sampled_from(nodes)).name)
            .req(cpu=f"{draw(st.sampled_from([500, 1000, 2000]))}m", memory=draw(st.sampled_from(MEMORY)))
            .priority(draw(st.sampled_from([0, 10, 20, 50]))).obj()
            for i in range(draw(st.integers(0, 2)))]


def both_dry_runs(pc: PreemptionCluster, state: CycleState, pod: Pod, statuses: NodeToStatus,
                  offset: int, num_candidates: int,
                  budget: DisruptionBudgets) -> list[tuple[list[Candidate], dict[str, Status], Status | None]]:
    """The dry run with the shortcut and without it, on the same nodes, offset and budgets."""
    potential = statuses.nodes_for_status_code(pc.framework.handle.snapshot.list(), Code.UNSCHEDULABLE)
    outcomes = []
    for fast in (True, False):
        pc.evaluator.fast_dry_run = fast
        candidates, found, error = pc.evaluator.dry_run_preemption(
            state.clone(), pod, potential, budget, offset % max(len(potential), 1), num_candidates,
            node_to_status=statuses)
        outcomes.append((candidates, dict(found.statuses), error))
    return outcomes


@pytest.mark.slow
@EXAMPLES
@given(st.data())
def test_shortcut_dry_run_gives_what_filter_on_node_copies_gives(data: st.DataObject) -> None:
    """Same candidates (victims in order, PDB violations), same statuses in the same order, same error, whatever
    the order of the Filter plugins (NODE-declared ones after NodeResourcesFit included)."""
    nodes, running = data.draw(nodes_and_pods())
    nominated = data.draw(nominated_pods(nodes))
    pdbs = [b.obj(i) for i, b in enumerate(data.draw(budgets(running)))]
    pod = data.draw(preemptors())
    order = data.draw(st.permutations(FILTERS["filter"]))
    pc = preemption_cluster(nodes, [*running, *nominated], pdbs=pdbs, points={**FILTERS, "filter": order},
                            extra=EXTRA)
    state = pc.pre_filter(pod)
    assert pc.shortcut_request(state, pod) is not None
    statuses = pc.filter_statuses(pod, state)
    assume(statuses.nodes_for_status_code(pc.framework.handle.snapshot.list(), Code.UNSCHEDULABLE))
    budget = DisruptionBudgets.of(pdbs, running)
    fast, slow = both_dry_runs(pc, state, pod, statuses, data.draw(st.integers(0, 5)),
                               data.draw(st.integers(1, 4)), budget)
    event(f"{len(slow[0])} candidate(s)")
    assert_same_dry_run(fast, slow)


def assert_same_dry_run(fast: tuple[list[Candidate], dict[str, Status], Status | None],
                        slow: tuple[list[Candidate], dict[str, Status], Status | None]) -> None:
    """Same candidates (victims in order, PDB violations), same statuses in the same order, same error."""
    assert fast[0] == slow[0]
    assert list(fast[1].items()) == list(slow[1].items())
    assert fast[2] == slow[2]


def post_filter_both_ways(nodes: list[Node], pods: list[Pod], pod: Pod, seed: int, pdbs: Sequence[Any] = (),
                          wanted: int | None = None) -> list[tuple[Any, ...]]:
    """A whole PostFilter for ``pod`` with the shortcut and without it: its result, status, the pods left (and
    whether terminating) and the RNG's next draw; ``wanted`` overrides min_candidate_nodes_absolute."""
    outcomes = []
    for fast in (True, False):
        pc = preemption_cluster(nodes, [*pods, pod], pdbs=list(pdbs), points=FILTERS, extra=EXTRA, seed=seed)
        pc.evaluator.fast_dry_run = fast
        if wanted is not None:
            pc.evaluator.min_candidate_nodes_absolute = wanted
        result, status = pc.post_filter(pod)
        left = sorted((p.name, p.metadata.deletion_timestamp is not None) for p in pc.cluster.list_pods())
        outcomes.append((result, status, left, pc.framework.handle.rng.random()))
    return outcomes


@pytest.mark.slow
@EXAMPLES
@given(st.data())
def test_shortcut_preemption_nominates_the_same_node_and_evicts_the_same_pods(data: st.DataObject) -> None:
    """A whole PostFilter (offset from the seeded RNG, candidate choice, evictions) is the same either way."""
    nodes, running = data.draw(nodes_and_pods())
    nominated = data.draw(nominated_pods(nodes))
    pdbs = [b.obj(i) for i, b in enumerate(data.draw(budgets(running)))]
    pod = data.draw(preemptors())
    outcomes = post_filter_both_ways(nodes, [*running, *nominated], pod, data.draw(st.integers(0, 2**16)), pdbs)
    event("preempted" if is_success(outcomes[1][1]) else "no preemption")
    assert outcomes[0] == outcomes[1]


@pytest.mark.slow
@EXAMPLES
@given(st.data())
def test_remembered_reprieves_give_what_filter_on_node_copies_gives(data: st.DataObject) -> None:
    """Where every answer depends only on the node (pods with start times, no PDB, no nominated pod), the answers
    kept per node in the columns' rows, fresh or read back by a second dry run, are those of Filter on copies."""
    nodes, running = data.draw(nodes_and_pods(most=12, started=True))
    pod = data.draw(preemptors())
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    statuses = pc.filter_statuses(pod, state)
    assume(statuses.nodes_for_status_code(pc.framework.handle.snapshot.list(), Code.UNSCHEDULABLE))
    offset, wanted = data.draw(st.integers(0, 11)), data.draw(st.integers(1, 4))
    first, slow = both_dry_runs(pc, state, pod, statuses, offset, wanted, DisruptionBudgets())
    again, _ = both_dry_runs(pc, state, pod, statuses, offset, wanted, DisruptionBudgets())
    event(f"{len(slow[0])} candidate(s)")
    assert_same_dry_run(first, slow)
    assert_same_dry_run(again, slow)


@pytest.mark.slow
@EXAMPLES
@given(st.data())
def test_candidate_chosen_from_remembered_scores_is_the_one_the_criteria_pick(data: st.DataObject) -> None:
    """Choosing among candidates by the rows' scores (fewest violations, lowest top priority, smallest sum, fewest
    victims, latest start; the first on a tie) picks the node the per-candidate criteria pick."""
    nodes, running = data.draw(nodes_and_pods(most=12, started=True))
    pod = data.draw(preemptors())
    seed, wanted = data.draw(st.integers(0, 2**16)), data.draw(st.integers(1, 12))
    outcomes = post_filter_both_ways(nodes, running, pod, seed, wanted=wanted)
    event("preempted" if is_success(outcomes[1][1]) else "no preemption")
    assert outcomes[0] == outcomes[1]


class OwnVictims(Evaluator):
    """An Evaluator choosing victims its own way: the shortcut must not replace that."""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               budgets: DisruptionBudgets) -> tuple[list[Pod], int, Status]:
        return super().select_victims_on_node(state, pod, node_info, budgets)


def _tweak(pc: PreemptionCluster, how: str) -> None:
    if how == "off":
        pc.evaluator.fast_dry_run = False
    elif how == "no accelerator":
        pc.framework.handle.accelerator = None  # what Scheduler(settings=SchedulerSettings(fast_path=False)) does
    elif how == "own victims":
        own = OwnVictims("DefaultPreemption", pc.framework.handle)
        own.resource_shortcut = pc.evaluator.resource_shortcut
        pc.plugin.evaluator = own


DECLINED: list[tuple[str, dict[str, Any], Any, str]] = [
    ("pod with host ports (NodePorts runs)", {"filter": ["NodePorts", "NodeResourcesFit"],
                                              "pre-filter": ["NodePorts", "NodeResourcesFit"]},
     make_pod("p").req(cpu="1").host_port(80).priority(10).obj(), ""),
    ("pod with anti-affinity (InterPodAffinity runs)",
     {"filter": ["NodeResourcesFit", "InterPodAffinity"], "pre-filter": ["NodeResourcesFit", "InterPodAffinity"]},
     make_pod("p").req(cpu="1").pod_affinity("kubernetes.io/hostname", anti=True, app="a").priority(10).obj(), ""),
    ("an extended resource request", {}, make_pod("p").req(cpu="1", **{"example.com/gpu": "1"}).priority(10).obj(),
     ""),
    ("the Evaluator's switch off", {}, make_pod("p").req(cpu="1").priority(10).obj(), "off"),
    ("no accelerator on the handle (the reference path)", {}, make_pod("p").req(cpu="1").priority(10).obj(),
     "no accelerator"),
    ("an Evaluator with its own victim selection", {}, make_pod("p").req(cpu="1").priority(10).obj(), "own victims"),
]


@pytest.mark.parametrize(("case", "points", "pod", "how"), DECLINED, ids=[c[0] for c in DECLINED])
def test_shortcut_is_declined_when_more_than_resources_can_change(case: str, points: dict[str, Any], pod: Pod,
                                                                    how: str) -> None:
    """Host ports, inter-pod terms, extended resources, the switches, overridden hooks."""
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()],
                            [make_pod("low").node("n0").req(cpu="2").obj()], points=points,
                            extra=(NodePorts, InterPodAffinity, TaintToleration))
    _tweak(pc, how)
    assert pc.shortcut_request(pc.pre_filter(pod), pod) is None


def test_shortcut_is_taken_for_a_plain_pod_under_the_built_in_filters() -> None:
    """NodeUnschedulable, TaintToleration, then NodeResourcesFit, and a pod asking for cpu and memory only."""
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()], points=FILTERS,
                            extra=EXTRA)
    pod = make_pod("p").req(cpu="1", memory="100Mi").priority(10).obj()
    shortcut = pc.shortcut_request(pc.pre_filter(pod), pod)
    assert shortcut is not None
    assert (shortcut.request.milli_cpu, shortcut.request.memory) == (1000, 100 * 2**20)
    assert shortcut.after == ()


class ZoneCheck(Plugin):
    """A third-party Filter plugin declaring it reads only the Node object."""

    name = "ZoneCheck"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class ZoneCheckReadingPods(ZoneCheck):
    """The same plugin redefining Filter: its declaration no longer holds."""

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if len(node_info.pods) < 5 else Status.unschedulable("busy")


@pytest.mark.parametrize("order", [["ZoneCheck", "NodeResourcesFit"], ["NodeResourcesFit", "ZoneCheck"]],
                         ids=["before NodeResourcesFit", "after NodeResourcesFit"])
@pytest.mark.parametrize(("plugin", "taken"), [(ZoneCheck, True), (ZoneCheckReadingPods, False)],
                         ids=["declared", "redefined below the declaration"])
def test_shortcut_follows_a_third_party_filter_reads_declaration(plugin: type[Plugin], taken: bool,
                                                                 order: list[str]) -> None:
    """A third-party plugin declaring FilterReads.NODE keeps the shortcut wherever it stands in the profile; one
    whose declaration no longer holds turns it off."""
    points = {"pre-filter": ["NodeResourcesFit"], "filter": order}
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()], points=points,
                            extra=(plugin,))
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    assert (pc.shortcut_request(pc.pre_filter(pod), pod) is not None) is taken


class BlocksLabelled(Plugin):
    """A third-party Filter plugin declaring it reads only the Node object: it rejects nodes labelled blocked."""

    name = "BlocksLabelled"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        blocked = node is not None and "blocked" in node.labels
        return Status.unresolvable("node is blocked") if blocked else None


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_a_node_a_filter_after_node_resources_fit_rejects_is_no_candidate(offset: int) -> None:
    """With a NODE-declared plugin after NodeResourcesFit, the shortcut reads that plugin's verdict on the nodes
    NodeResourcesFit rejected (it never ran there): a node it rejects is no candidate, with its own status, exactly
    as Filter on node copies decides."""
    nodes = [make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj(),
             make_node("n1").label(blocked="yes").capacity(cpu="2", memory="1Gi", pods="10").obj(),
             make_node("n2").capacity(cpu="2", memory="1Gi", pods="10").obj()]
    running = [make_pod(f"low{i}").node(f"n{i}").req(cpu="2").start_time(T0).obj() for i in range(3)]
    points = {"pre-filter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit", "BlocksLabelled"]}
    pc = preemption_cluster(nodes, running, points=points, extra=(BlocksLabelled,))
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    state = pc.pre_filter(pod)
    shortcut = pc.shortcut_request(state, pod)
    assert shortcut is not None
    assert [name for name, _hook in shortcut.after] == ["BlocksLabelled"]
    statuses = pc.filter_statuses(pod, state)
    fast, slow = both_dry_runs(pc, state, pod, statuses, offset, 3, DisruptionBudgets())
    assert_same_dry_run(fast, slow)
    assert sorted(c.name for c in fast[0]) == ["n0", "n2"]
    assert fast[1]["n1"] == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node is blocked",), "BlocksLabelled")


def test_statuses_of_nodes_without_room_are_built_when_read() -> None:
    """A node too small even without its lower-priority pods gets Filter's status, from the copy, on first read."""
    nodes = [make_node("small").capacity(cpu="1", memory="1Gi", pods="10").obj()]
    running = [make_pod("low").node("small").req(cpu="500m").obj()]
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    pod = make_pod("p").req(cpu="2").priority(10).obj()
    state = pc.pre_filter(pod)
    statuses = pc.filter_statuses(pod, state)
    candidates, found, error = pc.evaluator.dry_run_preemption(
        state, pod, [pc.node("small")], DisruptionBudgets(), 0, 1, node_to_status=statuses)
    assert (candidates, error) == ([], None)
    assert found.recorded_names() == []
    assert found.get("small") == Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads(), st.integers(0, 2**16))
def test_simulations_are_identical_with_and_without_the_shortcut(registry: PluginRegistry, workload: Workload,
                                                                seed: int) -> None:
    """Whole runs of the default profile (bindings, nominations, preemptions, events) do not depend on it."""
    config = load_config("default", registry)
    fast = Simulation(workload.cluster_input(), config, registry, seed=seed).run()
    Evaluator.fast_dry_run = False
    try:
        slow = Simulation(workload.cluster_input(), config, registry, seed=seed).run()
    finally:
        Evaluator.fast_dry_run = True
    assert fast.to_json() == slow.to_json()


def test_a_node_whose_pods_changed_is_reprieved_again() -> None:
    """The remembered reprieve of a node is dropped once its pods change (a new generation)."""
    pc = preemption_cluster([make_node("n0").capacity(cpu="4", memory="1Gi", pods="10").obj()],
                            [make_pod("low1").node("n0").req(cpu="2").start_time(T0).obj(),
                             make_pod("low2").node("n0").req(cpu="1").start_time(T0).obj()], points=FILTERS,
                            extra=EXTRA)
    pod = make_pod("p").req(cpu="3").priority(10).obj()
    dry_runs = []
    for step in ("before", "after"):
        if step == "after":
            info = pc.node("n0")
            info.add_pod(PodInfo.of(make_pod("low3").node("n0").req(cpu="1").start_time(T0).obj()))
            pc.framework.handle.snapshot.columns.update(info)
        state = pc.pre_filter(pod)
        fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
        assert fast == slow
        dry_runs.append([[v.name for v in c.victims] for c in fast[0]])
    assert dry_runs == [[["low1"]], [["low1", "low3"]]]


def test_start_times_beyond_int64_nanoseconds_are_compared_exactly() -> None:
    """Victims started after year 2262 (past int64 nanoseconds) are chosen among as the per-candidate criteria
    choose: the later start wins, on either path, without an error."""
    far = datetime(9000, 1, 1, tzinfo=UTC)
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="1Gi", pods="10").obj() for i in range(2)]
    running = [make_pod(f"low{i}").node(f"n{i}").req(cpu="1").start_time(far + timedelta(days=i)).obj()
               for i in range(2)]
    outcomes = post_filter_both_ways(nodes, running, make_pod("p").req(cpu="1").priority(10).obj(), seed=1)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0].nominating_info.nominated_node_name == "n1"


def nominated_by(evaluator: type[Evaluator]) -> str:
    """The node ``evaluator`` (with the default's resource shortcut) nominates for a priority-10 pod of 1 cpu, where
    n0 and n1 are each full with one started victim, of priority 1 and 5."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="1Gi", pods="10").obj() for i in range(2)]
    running = [make_pod(f"low{i}").node(f"n{i}").req(cpu="1").priority(1 + 4 * i).start_time(T0).obj()
               for i in range(2)]
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, [*running, pod], points=FILTERS, extra=EXTRA)
    own = evaluator("DefaultPreemption", pc.framework.handle)
    own.resource_shortcut = pc.evaluator.resource_shortcut
    pc.plugin.evaluator = own
    result, _status = pc.post_filter(pod)
    assert result is not None
    assert result.nominating_info is not None
    node: str = result.nominating_info.nominated_node_name
    return node


class ReversesCandidates(Evaluator):
    """Reverses the candidate list in place after finding it (as a subclass re-ranking candidates might)."""

    def find_candidates(self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod,
                        node_to_status: NodeToStatus) -> tuple[list[Candidate], NodeToStatus, Status | None]:
        candidates, statuses, error = super().find_candidates(state, all_nodes, pod, node_to_status)
        candidates.reverse()
        return candidates, statuses, error


def test_a_candidate_list_changed_after_the_dry_run_is_chosen_from_by_its_own_order() -> None:
    """select_candidate reads the remembered scores only for the very list the dry run returned, unchanged: after
    a subclass reorders it, the node with the lowest-priority victim is still the one chosen."""
    assert nominated_by(ReversesCandidates) == "n0"


def test_a_node_with_a_nominated_pod_is_reprieved_with_it_counted() -> None:
    """Two started victims (priority 2 and 1, 1 cpu each) on a 3-cpu node where a priority-20 pod of 1 cpu is
    nominated: a 2-cpu preemptor must evict both (with the nominated pod counted only one cpu is free after the
    reprieves), as Filter on node copies says; the node's remembered answer without nominations would evict one."""
    nodes = [make_node("n0").capacity(cpu="3", memory="4Gi", pods="10").obj()]
    running = [make_pod(f"v{priority}").node("n0").req(cpu="1").priority(priority).start_time(T0).obj()
               for priority in (2, 1)]
    nominated = [make_pod("nominee").nominated("n0").req(cpu="1").priority(20).obj()]
    pod = make_pod("preemptor").req(cpu="2").priority(10).obj()
    pc = preemption_cluster(nodes, [*running, *nominated], points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    statuses = pc.filter_statuses(pod, state)
    fast, slow = both_dry_runs(pc, state, pod, statuses, 0, 1, DisruptionBudgets())
    assert [(c.name, [v.name for v in c.victims]) for c in slow[0]] == [("n0", ["v2", "v1"])]
    assert fast == slow


def test_a_remembered_answer_is_not_used_once_a_pod_is_nominated_to_the_node() -> None:
    """The same node: a first dry run (no nomination) remembers that evicting v1 alone makes room; once the
    priority-20 pod is nominated there, the next dry run evicts both, as Filter on node copies says."""
    nodes = [make_node("n0").capacity(cpu="3", memory="4Gi", pods="10").obj()]
    running = [make_pod(f"v{priority}").node("n0").req(cpu="1").priority(priority).start_time(T0).obj()
               for priority in (2, 1)]
    pod = make_pod("preemptor").req(cpu="2").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    before, _ = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert [[v.name for v in c.victims] for c in before[0]] == [["v1"]]
    pc.nominator.add_nominated_pod(PodInfo.of(make_pod("nominee").nominated("n0").req(cpu="1").priority(20).obj()))
    state = pc.pre_filter(pod)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert [[v.name for v in c.victims] for c in slow[0]] == [["v2", "v1"]]
    assert fast == slow


def test_a_victim_under_a_pdb_counts_as_a_violation_with_the_shortcut() -> None:
    """A started victim whose PDB allows no disruption: the candidate reports one PDB violation, as Filter on node
    copies says (an answer that depends on the PDBs is not kept per node)."""
    nodes = [make_node("n0").capacity(cpu="2", memory="4Gi", pods="10").obj()]
    running = [make_pod("v").node("n0").req(cpu="2").priority(1).label(app="a").start_time(T0).obj()]
    budget_objects = [pdb("keep-a", 0, app="a")]
    pod = make_pod("preemptor").req(cpu="2").priority(10).obj()
    pc = preemption_cluster(nodes, running, pdbs=budget_objects, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    budget = DisruptionBudgets.of(budget_objects, running)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, budget)
    assert [(c.name, c.num_pdb_violations) for c in slow[0]] == [("n0", 1)]
    assert fast == slow


def test_preemptors_asking_different_storage_get_their_own_answers() -> None:
    """One node, two preemptors alike but for ephemeral storage: the one asking none keeps the storage-heavy pod
    of priority 5 and evicts the other, the one asking 1Gi must evict the storage-heavy pod (remembered answers
    are per request)."""
    nodes = [make_node("n0").capacity(cpu="4", memory="4Gi", pods="10", **{"ephemeral-storage": "2Gi"}).obj()]
    running = [make_pod("heavy").node("n0").req(cpu="1", **{"ephemeral-storage": "2Gi"}).priority(5)
               .start_time(T0).obj(),
               make_pod("light").node("n0").req(cpu="1").priority(1).start_time(T0).obj()]
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    chosen = []
    for storage in ("0", "1Gi"):
        pod = make_pod(f"asks-{storage}").req(cpu="3", **{"ephemeral-storage": storage}).priority(10).obj()
        state = pc.pre_filter(pod)
        fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
        assert fast == slow
        chosen.append([[v.name for v in c.victims] for c in fast[0]])
    assert chosen == [[["light"]], [["heavy"]]]


def past_outranked_nodes(outranked: int, lower: int
                         ) -> list[tuple[list[Candidate], dict[str, Status], Status | None]]:
    """Both dry runs (offset 0, one candidate wanted) for a priority-10 pod of 1 cpu over full 1-cpu nodes
    n00, n01...: the first ``outranked`` each hold a priority-20 pod, the next ``lower`` a priority-1 one."""
    count = outranked + lower
    nodes = [make_node(f"n{i:02}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(count)]
    running = [make_pod(f"p{i:02}").node(f"n{i:02}").req(cpu="1").priority(20 if i < outranked else 1)
               .start_time(T0).obj() for i in range(count)]
    pod = make_pod("preemptor").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    return both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())


def test_a_candidate_found_past_the_first_chunk_of_nodes_gets_no_status() -> None:
    """65 nodes whose only pod outranks the preemptor, then 5 with a lower-priority pod: the one candidate is found
    in the second chunk of nodes looked at, and the statuses list every node before it but that candidate, as
    Filter on node copies does."""
    fast, slow = past_outranked_nodes(65, 5)
    assert [c.name for c in slow[0]] == ["n65"]
    assert sorted(slow[1]) == [f"n{i:02}" for i in range(65)]
    assert fast == slow


def test_a_victim_without_a_start_time_is_scored_at_the_current_time() -> None:
    """Two nodes each needing one victim of priority 1: on n0 it started an hour after the clock's start, on n1 it
    has no start time (it counts as now). At the start the latest start is n0's; two hours on it is n1's, which is
    then chosen, as the criteria on the candidates say (an answer that depends on the time is not kept per node)."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(2)]
    base = preemption_cluster([], []).cluster.clock.base
    started = make_pod("v0").node("n0").req(cpu="1").priority(1).start_time(base + timedelta(hours=1)).obj()
    running = [started, make_pod("v1").node("n1").req(cpu="1").priority(1).obj()]
    pod = make_pod("preemptor").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    assert pc.cluster.clock.base == base
    chosen = []
    for later in (False, True):
        if later:
            pc.cluster.clock.advance_to(timedelta(hours=2).total_seconds())
        state = pc.pre_filter(pod)
        outcomes = []
        for fast in (True, False):
            pc.evaluator.fast_dry_run = fast
            candidates, _statuses, _error = pc.evaluator.dry_run_preemption(
                state.clone(), pod, pc.framework.handle.snapshot.list(), DisruptionBudgets(), 0, 2,
                node_to_status=pc.filter_statuses(pod, state))
            best = pc.evaluator.select_candidate(candidates)
            outcomes.append(best.name if best is not None else "")
        assert outcomes[0] == outcomes[1]
        chosen.append(outcomes[0])
    assert chosen == ["n0", "n1"]


class LatestFirst(Evaluator):
    """An Evaluator ranking, among pods of one priority, the later started as more important."""

    def more_important_pod(self, a: Pod, b: Pod) -> bool:
        if a.priority != b.priority:
            return a.priority > b.priority
        return (a.status.start_time or T0) > (b.status.start_time or T0)


class LatestFirstOrder(Evaluator):
    """An Evaluator whose victim order (importance_order, not more_important_pod) puts later starts first."""

    def importance_order(self, pod_infos: list[PodInfo]) -> None:
        pod_infos.sort(key=lambda pi: (-pi.pod.priority, -((pi.pod.status.start_time or T0) - T0).total_seconds()))


@pytest.mark.parametrize("evaluator_class", [
    pytest.param(LatestFirst, id="its own importance (more_important_pod)"),
    pytest.param(LatestFirstOrder, id="its own victim order (importance_order)"),
])
def test_an_evaluator_with_its_own_ranking_does_not_read_answers_kept_by_the_default_one(
        evaluator_class: type[Evaluator]) -> None:
    """Two priority-1 pods on a full node, started at T0 and an hour later: the default Evaluator evicts the later
    one; then an Evaluator ranking later starts first, on the same snapshot, evicts the earlier one, with the
    accelerator as on node copies (the default's answer, kept for the node, is not read)."""
    nodes = [make_node("n0").capacity(cpu="2", memory="4Gi", pods="10").obj()]
    running = [make_pod(f"v{hours}").node("n0").req(cpu="1").priority(1).start_time(T0 + timedelta(hours=hours)).obj()
               for hours in (0, 1)]
    pod = make_pod("preemptor").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    default, _ = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    own = evaluator_class("DefaultPreemption", pc.framework.handle)
    own.resource_shortcut = pc.evaluator.resource_shortcut
    pc.plugin.evaluator = own
    assert pc.shortcut_request(state, pod) is not None
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert ([[v.name for v in c.victims] for c in default[0]], [[v.name for v in c.victims] for c in slow[0]]) == \
        ([["v1"]], [["v0"]])
    assert fast == slow


AMOUNTS = [  # per resource: heavy's and light's requests, the two preemptors' requests, their victims
    ("cpu", {"cpu": "2"}, {"cpu": "2"}, ({"cpu": "2"}, {"cpu": "3"}), [[["light"]], [["heavy", "light"]]]),
    ("memory", {"cpu": "1", "memory": "2Gi"}, {"cpu": "3"}, ({"cpu": "1"}, {"cpu": "1", "memory": "1Gi"}),
     [[["light"]], [["heavy"]]]),
]


@pytest.mark.parametrize(("heavy", "light", "asks", "victims"), [a[1:] for a in AMOUNTS], ids=[a[0] for a in AMOUNTS])
def test_preemptors_asking_different_cpu_or_memory_get_their_own_answers(
        heavy: dict[str, str], light: dict[str, str], asks: tuple[dict[str, str], dict[str, str]],
        victims: list[list[list[str]]]) -> None:
    """One node, two preemptors alike but for one amount: the smaller asker keeps the priority-5 pod heavy in
    that resource, the larger must evict it (remembered answers are per request, amount by amount)."""
    nodes = [make_node("n0").capacity(cpu="4", memory="2Gi", pods="10").obj()]
    running = [make_pod("heavy").node("n0").req(**heavy).priority(5).start_time(T0).obj(),
               make_pod("light").node("n0").req(**light).priority(1).start_time(T0).obj()]
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    chosen = []
    for k, requests in enumerate(asks):
        pod = make_pod(f"asks-{k}").req(**requests).priority(10).obj()
        state = pc.pre_filter(pod)
        fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
        assert fast == slow
        chosen.append([[v.name for v in c.victims] for c in fast[0]])
    assert chosen == victims


def test_the_one_node_passed_over_before_the_candidate_gets_its_status() -> None:
    """n00 holds only a pod outranking the preemptor, n01 a lower-priority one: the candidate is n01 and n00, the
    one node looked at before it, has its Filter status, as on node copies."""
    fast, slow = past_outranked_nodes(1, 1)
    assert [c.name for c in slow[0]] == ["n01"]
    assert list(slow[1]) == ["n00"]
    assert fast == slow


def _two_victims_each(top: tuple[int, int], bottom: tuple[int, int], hours: tuple[int, int]) -> list[Pod]:
    """On n0 and n1 (2 cpu each) two 1-cpu pods: priorities ``top[i]`` and ``bottom[i]``, started ``hours[i]``
    after T0."""
    return [make_pod(f"{name}{i}").node(f"n{i}").req(cpu="1").priority(priority[i])
            .start_time(T0 + timedelta(hours=hours[i])).obj()
            for i in range(2) for name, priority in (("top", top), ("bottom", bottom))]


def test_among_remembered_candidates_the_lowest_top_victim_priority_wins() -> None:
    """n0's victims have priorities 5 and 1, n1's 3 and 3: equal priority sums and counts, n0's started later; the
    lowest top priority decides first, so n1 is nominated, on either path."""
    nodes = [make_node(f"n{i}").capacity(cpu="2", memory="4Gi", pods="10").obj() for i in range(2)]
    running = _two_victims_each((5, 3), (1, 3), (2, 0))
    outcomes = post_filter_both_ways(nodes, running, make_pod("p").req(cpu="2").priority(10).obj(), seed=1)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0].nominating_info.nominated_node_name == "n1"


def test_among_remembered_candidates_with_equal_priorities_the_fewest_victims_win() -> None:
    """n0's one victim has priority 0; n1's two have 0 and the lowest int32 priority, so the top priorities and the
    priority sums (each + 2^31) are equal and the count decides: n0 is nominated, on either path."""
    nodes = [make_node(f"n{i}").capacity(cpu="2", memory="4Gi", pods="10").obj() for i in range(2)]
    running = [make_pod("only0").node("n0").req(cpu="2").priority(0).start_time(T0).obj(),
               make_pod("top1").node("n1").req(cpu="1").priority(0).start_time(T0).obj(),
               make_pod("bottom1").node("n1").req(cpu="1").priority(-(2**31)).start_time(T0).obj()]
    outcomes = post_filter_both_ways(nodes, running, make_pod("p").req(cpu="2").priority(10).obj(), seed=1)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0].nominating_info.nominated_node_name == "n0"


class RejectsN0(Plugin):
    """A Filter plugin declaring Node-only reads that finds n0 Unschedulable."""

    name = "RejectsN0"
    filter_reads = FilterReads.NODE

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("not here") if node_info.name == "n0" else None


def test_remembered_candidates_beside_a_node_another_plugin_rejected_are_chosen_by_their_scores() -> None:
    """n0 rejected by another plugin (so it goes through Filter on a copy and stays no candidate), n1 and n2 with
    remembered answers evicting a priority-5 and a priority-1 pod: n2 is nominated, on either path."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(3)]
    running = [make_pod(f"v{i}").node(f"n{i}").req(cpu="1").priority((5, 5, 1)[i]).start_time(T0).obj()
               for i in range(3)]
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    points = {"pre-filter": ["NodeResourcesFit"], "filter": ["RejectsN0", "NodeResourcesFit"]}
    outcomes = []
    for fast in (True, False):
        pc = preemption_cluster(nodes, [*running, pod], points=points, extra=(RejectsN0,))
        pc.evaluator.fast_dry_run = fast
        result, _status = pc.post_filter(pod)
        assert result is not None
        outcomes.append(result.nominating_info.nominated_node_name)
    assert outcomes == ["n2", "n2"]


def test_a_reordered_candidate_list_breaks_ties_by_its_own_order() -> None:
    """Two candidates equal on every criterion: after the caller reverses the list the dry run returned, the first
    of the reversed list is chosen, not the first the dry run found."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="1Gi", pods="10").obj() for i in range(2)]
    running = [make_pod(f"low{i}").node(f"n{i}").req(cpu="1").priority(1).start_time(T0).obj() for i in range(2)]
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    candidates, _statuses, _error = pc.evaluator.find_candidates(state, pc.framework.handle.snapshot.list(), pod,
                                                                 pc.filter_statuses(pod, state))
    assert len(candidates) == 2
    candidates.reverse()
    assert pc.evaluator.select_candidate(candidates) is candidates[0]


class HighestVictimFirst(Evaluator):
    """Prefers the candidate whose top victim has the highest priority (the reverse of the default)."""

    def ordered_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc] | None:
        return [lambda node: victims_map[node].victims[0].priority]


def test_an_evaluator_with_its_own_score_functions_chooses_by_them() -> None:
    """Candidates n0 (victim of priority 1) and n1 (priority 5) with remembered answers: an Evaluator whose
    ordered_score_funcs prefer the higher victim nominates n1, not the default's n0."""
    assert nominated_by(HighestVictimFirst) == "n1"


def test_preemptors_of_different_priorities_count_their_own_lower_priority_pods() -> None:
    """A node full with a priority-20 pod: a priority-10 preemptor finds nothing to evict there, then a priority-30
    one (same request, same snapshot) evicts that pod, as Filter on node copies says."""
    nodes = [make_node("n0").capacity(cpu="2", memory="4Gi", pods="10").obj()]
    running = [make_pod("mid").node("n0").req(cpu="2").priority(20).start_time(T0).obj()]
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    found = []
    for priority in (10, 30):
        pod = make_pod(f"p{priority}").req(cpu="1").priority(priority).obj()
        state = pc.pre_filter(pod)
        fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
        assert fast == slow
        found.append([[v.name for v in c.victims] for c in fast[0]])
    assert found == [[], [["mid"]]]


def test_candidates_from_several_chunks_stop_at_the_number_wanted() -> None:
    """70 nodes, a lower-priority pod on n00 and on n64-n69 (the others' pods outrank the preemptor): three
    candidates wanted are n00, then n64 and n65 from the second chunk of nodes looked at, as on node copies."""
    nodes = [make_node(f"n{i:02}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(70)]
    running = [make_pod(f"p{i:02}").node(f"n{i:02}").req(cpu="1").priority(1 if i == 0 or i >= 64 else 20)
               .start_time(T0).obj() for i in range(70)]
    pod = make_pod("preemptor").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 3, DisruptionBudgets())
    assert [c.name for c in slow[0]] == ["n00", "n64", "n65"]
    assert fast == slow


def test_remembered_candidates_beside_a_node_another_plugin_rejected_stop_at_the_number_wanted() -> None:
    """n0 rejected by another plugin, n1 and n2 with remembered answers: one candidate wanted is n1 alone, with
    n0's status, as on node copies."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(3)]
    running = [make_pod(f"v{i}").node(f"n{i}").req(cpu="1").priority(1).start_time(T0).obj() for i in range(3)]
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    points = {"pre-filter": ["NodeResourcesFit"], "filter": ["RejectsN0", "NodeResourcesFit"]}
    pc = preemption_cluster(nodes, running, points=points, extra=(RejectsN0,))
    state = pc.pre_filter(pod)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert [c.name for c in slow[0]] == ["n1"]
    assert list(slow[1]) == ["n0"]
    assert fast == slow


def test_the_dry_run_starts_at_the_offset_and_wraps_around() -> None:
    """Nodes n0 and n2 hold a lower-priority pod, n1 only one outranking the preemptor: from offset 1 the dry run
    looks at n1, n2, then n0, so two candidates wanted are n2 and n0 and n1 has a status, as on node copies."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").obj() for i in range(3)]
    running = [make_pod(f"p{i}").node(f"n{i}").req(cpu="1").priority(20 if i == 1 else 1).start_time(T0).obj()
               for i in range(3)]
    pod = make_pod("preemptor").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 1, 2, DisruptionBudgets())
    assert [c.name for c in slow[0]] == ["n2", "n0"]
    assert list(slow[1]) == ["n1"]
    assert fast == slow


def test_rotated_nodes_are_read_from_the_offset_wrapping_around_and_end_where_the_nodes_do() -> None:
    """The dry run's order over the nodes from an offset: items, negative items, slices and iteration wrap around,
    and there are exactly as many as nodes (an index past the end raises IndexError)."""
    infos = [NodeInfo.of(make_node(f"n{i}").obj()) for i in range(3)]
    rotated = _rotated(infos, 1)
    assert [info.name for info in rotated] == ["n1", "n2", "n0"]
    assert rotated[-1] is infos[0]
    assert [info.name for info in rotated[1:]] == ["n2", "n0"]
    with pytest.raises(IndexError):
        rotated[3]

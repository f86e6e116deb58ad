"""Which preemptions the accelerator answers, and which of its answers it keeps: a PreFilter AddPod/RemovePod
extension, or an Evaluator naming no fit plugin or one that no longer declares resource reads, keeps the dry run on
node copies; an answer that depends on more than the node (the PDBs, the clock, nominated pods asking for an
extended resource) is worked out again, exactly as Filter on node copies."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kubesched.api.pod import Pod
from kubesched.framework import DisruptionBudgets, FilterReads, NodeInfo, PodInfo, ResourceShortcut, Status, hookimpl
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import Plugin
from kubesched.framework._status import Code
from kubesched.framework.preemption import DRY_RUN_RULES
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.runtime import DeferredNodeToStatus, ResourceAccelerator
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import T0, PreemptionCluster, pdb, preemption_cluster
from tests.runtime.test_preemption_shortcut import EXTRA, FILTERS, both_dry_runs


class PinsPods(Plugin):
    """A Filter plugin declaring Node-only reads whose PreFilter RemovePod extension refuses every eviction."""

    name = "PinsPods"
    filter_reads = FilterReads.NODE
    skips = False

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        return Status.skip() if self.skips else None

    @hookimpl
    def pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                              node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("pods are pinned")

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class SkipsPinsPods(PinsPods):
    """The same plugin, skipped for every pod by its PreFilter (so its extensions never run)."""

    skips = True


def pinned_cluster(plugin: type[PinsPods]) -> tuple[PreemptionCluster, Pod]:
    """One 2-cpu node full with a lower-priority pod, ``plugin`` at PreFilter and Filter beside NodeResourcesFit,
    and a priority-10 preemptor of 1 cpu."""
    points = {"pre-filter": ["NodeResourcesFit", "PinsPods"], "filter": ["NodeResourcesFit", "PinsPods"]}
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()],
                            [make_pod("low").node("n0").req(cpu="2").start_time(T0).obj()], points=points,
                            extra=(plugin,))
    return pc, make_pod("p").req(cpu="1").priority(10).obj()


def test_shortcut_is_declined_while_a_pre_filter_remove_pod_extension_runs() -> None:
    """A NODE-declared plugin with a RemovePod extension: the dry run must call it on node copies."""
    pc, pod = pinned_cluster(PinsPods)
    assert pc.shortcut_request(pc.pre_filter(pod), pod) is None


def test_shortcut_is_taken_when_the_extensions_plugin_skipped_pre_filter() -> None:
    """The same plugin returning Skip from PreFilter: its extensions do not run this cycle, so the shortcut holds."""
    pc, pod = pinned_cluster(SkipsPinsPods)
    assert pc.shortcut_request(pc.pre_filter(pod), pod) is not None


def test_a_remove_pod_extension_refusing_evictions_leaves_no_candidate() -> None:
    """With the accelerator on, the node whose RemovePod extension refuses is no candidate and gets that plugin's
    Error, as Filter on node copies says."""
    pc, pod = pinned_cluster(PinsPods)
    state = pc.pre_filter(pod)
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert slow[0] == []
    assert (slow[1]["n0"].code, slow[1]["n0"].message()) == (
        Code.ERROR, 'running RemovePod on PreFilter plugin "PinsPods": pods are pinned')
    assert fast == slow


class StricterFit(NodeResourcesFit):
    """A NodeResourcesFit subclass redefining Filter: the declaration it inherits no longer holds."""

    name = "StricterFit"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return super().filter(state, pod, node_info)


class RenamedFit(NodeResourcesFit):
    """A NodeResourcesFit subclass under another name, its Filter unchanged."""

    name = "RenamedFit"


@pytest.mark.parametrize(("fit", "taken"), [(RenamedFit, True), (StricterFit, False)],
                         ids=["keeping its Filter", "redefining its Filter"])
def test_the_plugin_the_evaluator_names_must_declare_resource_reads(fit: type[NodeResourcesFit],
                                                                    taken: bool) -> None:
    """An Evaluator naming a NodeResourcesFit subclass as its fit plugin keeps the shortcut only while that plugin
    still declares FilterReads.RESOURCES."""
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()],
                            [make_pod("low").node("n0").req(cpu="2").start_time(T0).obj()],
                            points={"pre-filter": [fit.name], "filter": [fit.name]}, extra=(fit,))
    pc.evaluator.resource_shortcut = ResourceShortcut(fit.name)
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    assert (pc.shortcut_request(pc.pre_filter(pod), pod) is not None) is taken


def test_an_evaluator_naming_no_fit_plugin_dry_runs_on_node_copies() -> None:
    """An Evaluator without a resource_shortcut (the base class's default): the accelerator declines the dry run,
    which finds what Filter on node copies finds."""
    pc = preemption_cluster([make_node("n0").capacity(cpu="2", memory="1Gi", pods="10").obj()],
                            [make_pod("low").node("n0").req(cpu="2").start_time(T0).obj()], points=FILTERS,
                            extra=EXTRA)
    pc.evaluator.resource_shortcut = None
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    state = pc.pre_filter(pod)
    assert pc.shortcut_request(state, pod) is None
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert [(c.name, [v.name for v in c.victims]) for c in slow[0]] == [("n0", ["low"])]
    assert fast == slow


def test_potential_nodes_are_read_from_the_statuses_codes_by_position() -> None:
    """Given the snapshot's own node list and the runtime's statuses, the accelerator answers the Unschedulable
    nodes itself, in snapshot order: the same nodes the statuses name, the UnschedulableAndUnresolvable left out."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="1Gi", pods="10").obj() for i in range(4)]
    pc = preemption_cluster(nodes, points=FILTERS, extra=EXTRA)
    statuses = DeferredNodeToStatus()
    statuses.set("n0", Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"))
    statuses.set("n1", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("tainted",), "TaintToleration"))
    statuses.set("n3", Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"))
    accelerator = pc.evaluator.accelerator(DRY_RUN_RULES)
    assert isinstance(accelerator, ResourceAccelerator)
    all_nodes = pc.framework.handle.snapshot.list()
    potential = accelerator.potential_nodes(pc.evaluator, all_nodes, statuses)
    assert potential is not None
    assert [ni.name for ni in potential] == ["n0", "n3"]
    assert list(potential) == statuses.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)


def test_a_remembered_answer_is_not_used_once_a_pdb_allows_the_disruption() -> None:
    """The same node twice: under a PDB allowing no disruption its victim is one violation; once the PDB allows
    one, the next dry run reports none, as Filter on node copies says (answers under PDBs are not kept)."""
    nodes = [make_node("n0").capacity(cpu="2", memory="4Gi", pods="10").obj()]
    running = [make_pod("v").node("n0").req(cpu="2").priority(1).label(app="a").start_time(T0).obj()]
    pod = make_pod("preemptor").req(cpu="2").priority(10).obj()
    pc = preemption_cluster(nodes, running, points=FILTERS, extra=EXTRA)
    violations = []
    for allowed in (0, 1):
        state = pc.pre_filter(pod)
        budget = DisruptionBudgets.of([pdb("keep-a", allowed, app="a")], running)
        fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, budget)
        assert fast == slow
        violations.append([(c.name, c.num_pdb_violations) for c in fast[0]])
    assert violations == [[("n0", 1)], [("n0", 0)]]


def test_victims_without_a_start_time_are_scored_at_the_time_of_each_preemption() -> None:
    """n0's victim has no start time (its start counts as now); a first dry run at t1 sees n0 alone. An hour
    later n1 holds an unstarted victim too: both count as started now, a tie, and the first in dry-run order, n0,
    is chosen, as the per-candidate criteria choose (an answer that depends on the clock is not remembered)."""
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="1Gi", pods="10").obj() for i in range(2)]
    pod = make_pod("p").req(cpu="1").priority(10).obj()
    pc = preemption_cluster(nodes, [make_pod("a").node("n0").req(cpu="1").priority(1).obj()], points=FILTERS,
                            extra=EXTRA)
    state = pc.pre_filter(pod)
    first, _ = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 2, DisruptionBudgets())
    assert [c.name for c in first[0]] == ["n0"]
    info = pc.node("n1")
    info.add_pod(PodInfo.of(make_pod("b").node("n1").req(cpu="1").priority(1).obj()))
    pc.framework.handle.snapshot.columns.update(info)
    pc.cluster.clock.advance_to(timedelta(hours=1).total_seconds())
    chosen = []
    for fast in (True, False):
        pc.evaluator.fast_dry_run = fast
        state = pc.pre_filter(pod)
        statuses = pc.filter_statuses(pod, state)
        potential = statuses.nodes_for_status_code(pc.framework.handle.snapshot.list(), Code.UNSCHEDULABLE)
        candidates, _statuses, _error = pc.evaluator.dry_run_preemption(
            state, pod, potential, DisruptionBudgets(), 0, 2, node_to_status=statuses)
        assert [c.name for c in candidates] == ["n0", "n1"]
        best = pc.evaluator.select_candidate(candidates)
        chosen.append(best.name if best is not None else None)
    assert chosen == ["n0", "n0"]


def test_nominated_pods_asking_an_extended_resource_count_on_their_node() -> None:
    """Two priority-20 pods of 1 cpu and a GPU each are nominated to a 4-cpu node holding three started victims of
    1 cpu: a 2-cpu preemptor must evict all three (with both nominated pods counted no reprieve leaves room), as
    Filter on node copies says, though the nominated pods' sums cannot be kept in integer columns."""
    nodes = [make_node("n0").capacity(cpu="4", memory="4Gi", pods="10", **{"example.com/gpu": "2"}).obj()]
    running = [make_pod(f"v{priority}").node("n0").req(cpu="1").priority(priority).start_time(T0).obj()
               for priority in (3, 2, 1)]
    nominated = [make_pod(f"nominee{i}").nominated("n0").req(cpu="1", **{"example.com/gpu": "1"}).priority(20).obj()
                 for i in range(2)]
    pod = make_pod("preemptor").req(cpu="2").priority(10).obj()
    pc = preemption_cluster(nodes, [*running, *nominated], points=FILTERS, extra=EXTRA)
    state = pc.pre_filter(pod)
    assert pc.shortcut_request(state, pod) is not None
    fast, slow = both_dry_runs(pc, state, pod, pc.filter_statuses(pod, state), 0, 1, DisruptionBudgets())
    assert [(c.name, [v.name for v in c.victims]) for c in slow[0]] == [("n0", ["v3", "v2", "v1"])]
    assert fast == slow

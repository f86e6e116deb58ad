"""kube-scheduler's DefaultPreemption tables for the dry run and the choice of candidate
(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go: TestDryRunPreemption,
TestSelectBestCandidate, and a later release's TestCustomSelection and TestCustomOrdering), case by case over the
public testing kit. Ids are kube's case names.

The v1.32 file is not in the reference store; these follow the closest stored one (v1.34 development), whose rows
for TestDryRunPreemption and TestSelectBestCandidate are v1.32's. TestCustomSelection and TestCustomOrdering came
after v1.32 with DefaultPreemption's IsEligiblePod and MoreImportantPod fields; kubesched's Evaluator has both as
overridable methods (``is_eligible_pod``, ``more_important_pod``), so they are here too, on an Evaluator subclass.

As in kube, the dry run gets every node of the snapshot, after PreFilter (and here Filter, whose statuses the batch
path's accelerator reads); candidates are compared sorted by node, victims sorted by name. kube's FakeFilterPlugin
(:class:`CountingFilter`) runs first and counts its calls in the dry run: the counts are the reference dry run's,
checked on the per-node path; the batch path's accelerator reaches the same candidates without most of those Filter
runs (docs/performance.md), which is what it is for. kube's dry runs with custom DefaultPreemptionArgs start at the
offsets its seeded generator gives (the case comments name them: 4, then 1, then 3); the others start where the
Evaluator's seeded generator says, which cannot change their candidates (they look at every node).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.framework import Code, Evaluator, NodeInfo, PodInfo
from kubesched.testing import PATHS, PodBuilder, make_affinity_term, make_pdb, make_selector, plugin_framework
from tests.plugins.tables.preemption import (
    FIT,
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    PREEMPTION,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    FalseFilter,
    MatchFilter,
    TrueFilter,
    budgets,
    by_name,
    counting_filter,
    dry_run,
    evaluator,
    filtered,
    nodes,
    pod,
)

NO = Code.UNSCHEDULABLE
IPA, PTS = "InterPodAffinity", "PodTopologySpread"
FIVE = ["node1", "node2", "node3", "node4", "node5"]
TWO = ["node1", "node2"]


def args(percentage: int, absolute: int) -> tuple[str, dict[str, int]]:
    """DefaultPreemption with these DefaultPreemptionArgs."""
    return PREEMPTION, {"min-candidate-nodes-percentage": percentage, "min-candidate-nodes-absolute": absolute}


def on(node_name: str, name: str, priority: int, req: dict[str, str] | None = None, start: int | None = None,
       **labels: str) -> PodBuilder:
    """A pod bound to ``node_name``."""
    return pod(name, node_name, priority, req, start, **labels)


def foo_pdb(allowed: int, *disrupted: str) -> Any:
    """kube's PDB selecting app=foo with status.disruptionsAllowed (and these disruptedPods)."""
    return make_pdb("pdb").match(app="foo").disruptions_allowed(allowed).disrupted(*disrupted)


def spread_pod(name: str) -> PodBuilder:
    """A HIGH pod labelled foo spread over zones and hostnames (maxSkew 1, DoNotSchedule, selecting foo)."""
    built = pod(name, priority=HIGH, foo="")
    for key in ("zone", "hostname"):
        built.spread(1, key, selector=make_selector().expression("foo", "Exists"))
    return built


ANTI_FOO = make_affinity_term("hostname").selector(make_selector().expression("foo", "Exists"))
PDB_PAIR = [on("node1", "p1.1", MID, MEDIUM, app="foo"), on("node1", "p1.2", MID, MEDIUM, app="foo")]
MID_LARGE_EACH = [on(f"node{i}", f"p{i}", MID, LARGE) for i in range(1, 6)]
HIGH_LARGE = pod("p", priority=HIGH, req=LARGE)


def candidate(node: str, *victims: str, violations: int = 0) -> tuple[str, list[str], int]:
    """An expected candidate: its node, its victims' names (sorted) and its PDB violations."""
    return node, sorted(victims), violations


# (plugins after FakeFilter, node specs, preemptors (one per cycle), existing pods, PDBs, FakeFilter's code, offsets
#  per cycle (None: the Evaluator's), candidates per cycle, FakeFilter calls per cycle)
DRY_RUN = [
    pytest.param([FalseFilter], TWO, [pod("p", priority=HIGH)], [on("node1", "p1", MID), on("node2", "p2", MID)], [],
                 Code.SUCCESS, None, [[]], [2], id="a pod that does not fit on any node"),
    pytest.param([TrueFilter], TWO, [pod("p", priority=HIGH)], [on("node1", "p1", MID), on("node2", "p2", MID)], [],
                 NO, None, [[]], [2], id="a pod that fits with no preemption"),
    pytest.param([MatchFilter], TWO, [pod("node1", priority=HIGH)], [on("node1", "p1", MID), on("node2", "p2", MID)],
                 [], NO, None, [[]], [2], id="a pod that fits on one node with no preemption"),
    pytest.param([FIT], TWO, [HIGH_LARGE], [on("node1", "p1", MID, LARGE), on("node2", "p2", MID, LARGE)], [],
                 Code.SUCCESS, None, [[candidate("node1", "p1"), candidate("node2", "p2")]], [4],
                 id="a pod that fits on both nodes when lower priority pods are preempted"),
    pytest.param([FIT], TWO, [pod("p", priority=LOW, req=LARGE)],
                 [on("node1", "p1", MID, LARGE), on("node2", "p2", MID, LARGE)], [], Code.SUCCESS, None, [[]], [0],
                 id="a pod that would fit on the nodes, but other pods running are higher priority, no preemption "
                    "would happen"),
    pytest.param([FIT], TWO, [HIGH_LARGE],
                 [on("node1", "p1.1", LOW, SMALL), on("node1", "p1.2", MID, LARGE), on("node2", "p2", MID, LARGE)], [],
                 Code.SUCCESS, None, [[candidate("node1", "p1.2"), candidate("node2", "p2")]], [5],
                 id="medium priority pod is preempted, but lower priority one stays as it is small"),
    pytest.param([FIT], TWO, [HIGH_LARGE],
                 [on("node1", "p1.1", MID, SMALL), on("node1", "p1.2", LOW, SMALL), on("node1", "p1.3", MID, MEDIUM),
                  on("node1", "p1.4", HIGH, SMALL), on("node2", "p2", HIGH, LARGE)], [],
                 Code.SUCCESS, None, [[candidate("node1", "p1.2", "p1.3")]], [4],
                 id="mixed priority pods are preempted"),
    pytest.param([FIT], TWO, [HIGH_LARGE],
                 [on("node1", "p1.1", LOW, SMALL, 5), on("node1", "p1.2", LOW, SMALL, 4),
                  on("node1", "p1.3", MID, MEDIUM, 3), on("node1", "p1.4", HIGH, SMALL, 2),
                  on("node2", "p2", HIGH, LARGE, 1)], [],
                 Code.SUCCESS, None, [[candidate("node1", "p1.1", "p1.3")]], [4],
                 id="mixed priority pods are preempted, pick later StartTime one when priorities are equal"),
    pytest.param([FIT, IPA], TWO, [pod("p", priority=HIGH, req=SMALL, foo="")],
                 [on("node1", "p1.1", LOW, SMALL, foo="").affinity_term(ANTI_FOO, anti=True),
                  on("node1", "p1.2", MID, SMALL), on("node1", "p1.3", HIGH, SMALL), on("node2", "p2", HIGH, SMALL)],
                 [], Code.SUCCESS, None, [[candidate("node1", "p1.1")]], [3], id="pod with anti-affinity is preempted"),
    pytest.param([PTS], ["node-a/zone1", "node-b/zone1", "node-x/zone2"], [spread_pod("p")],
                 [on("node-a", "pod-a1", MID, foo=""), on("node-a", "pod-a2", LOW, foo=""),
                  on("node-b", "pod-b1", LOW, foo=""), on("node-x", "pod-x1", HIGH, foo=""),
                  on("node-x", "pod-x2", HIGH, foo="")], [],
                 Code.SUCCESS, None, [[candidate("node-a", "pod-a2"), candidate("node-b", "pod-b1")]], [5],
                 id="preemption to resolve pod topology spread filter failure"),
    pytest.param([FIT], TWO, [HIGH_LARGE], [on("node1", "p1", MID, LARGE), on("node2", "p2", MID, LARGE)], [],
                 NO, None, [[]], [2],
                 id="get Unschedulable in the preemption phase when the filter plugins filtering the nodes"),
    pytest.param([FIT], ["node1"], [pod("p", priority=HIGH, req=VERY_LARGE)], PDB_PAIR, [foo_pdb(1)],
                 Code.SUCCESS, None, [[candidate("node1", "p1.1", "p1.2", violations=1)]], [3],
                 id="preemption with violation of same pdb"),
    pytest.param([FIT], ["node1"], [pod("p", priority=HIGH, req=VERY_LARGE)], PDB_PAIR, [foo_pdb(1, "p2")],
                 Code.SUCCESS, None, [[candidate("node1", "p1.1", "p1.2", violations=1)]], [3],
                 id="preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't "
                    "belong to DisruptedPods"),
    pytest.param([FIT], ["node1"], [pod("p", priority=HIGH, req=VERY_LARGE)], PDB_PAIR, [foo_pdb(1, "p1.2")],
                 Code.SUCCESS, None, [[candidate("node1", "p1.1", "p1.2", violations=0)]], [3],
                 id="preemption with violation of the pdb with pod whose eviction was processed, the victim belongs "
                    "to DisruptedPods"),
    pytest.param([FIT], ["node1"], [pod("p", priority=HIGH, req=VERY_LARGE)],
                 [*PDB_PAIR, on("node1", "p1.3", MID, MEDIUM, app="foo")], [foo_pdb(1, "p1.3")],
                 Code.SUCCESS, None, [[candidate("node1", "p1.1", "p1.2", "p1.3", violations=1)]], [4],
                 id="preemption with violation of the pdb with pod whose eviction was processed, the victim which "
                    "belongs to DisruptedPods is treated as 'nonViolating'"),
    pytest.param([FIT, args(40, 1)], FIVE, [HIGH_LARGE], MID_LARGE_EACH, [], Code.SUCCESS, [4],
                 [[candidate("node1", "p1"), candidate("node5", "p5")]], [4],
                 id="all nodes are possible candidates, but DefaultPreemptionArgs limits to 2"),
    pytest.param([FIT, args(40, 1)], FIVE, [HIGH_LARGE],
                 [on("node1", "p1", MID, LARGE), on("node2", "p2", VERY_HIGH, LARGE), on("node3", "p3", MID, LARGE),
                  on("node4", "p4", MID, LARGE), on("node5", "p5", VERY_HIGH, LARGE)], [],
                 Code.SUCCESS, [4], [[candidate("node1", "p1"), candidate("node3", "p3")]], [4],
                 id="some nodes are not possible candidates, DefaultPreemptionArgs limits to 2"),
    pytest.param([FIT, args(40, 1)], FIVE, [pod(f"tp{i}", priority=HIGH, req=LARGE) for i in (1, 2, 3)],
                 MID_LARGE_EACH, [], Code.SUCCESS, [4, 1, 3],
                 [[candidate("node1", "p1"), candidate("node5", "p5")],
                  [candidate("node2", "p2"), candidate("node3", "p3")],
                  [candidate("node4", "p4"), candidate("node5", "p5")]], [4, 4, 4],
                 id="preemption offset across multiple scheduling cycles and wrap around"),
    pytest.param([FIT, args(40, 2)], FIVE, [HIGH_LARGE],
                 [on("node1", "p1", MID, LARGE, app="foo"), on("node2", "p2", MID, LARGE, app="foo"),
                  on("node3", "p3", MID, LARGE), on("node4", "p4", MID, LARGE),
                  on("node5", "p5", MID, LARGE, app="foo")], [foo_pdb(0)],
                 Code.SUCCESS, [4],
                 [[candidate("node1", "p1", violations=1), candidate("node3", "p3"),
                   candidate("node5", "p5", violations=1)]], [8],
                 id="preemption looks past numCandidates until a non-PDB violating node is found"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("plugins", "specs", "preemptors", "existing", "pdbs", "fake_code", "offsets", "expected",
                          "filter_calls"), DRY_RUN)
def test_dry_run_preemption(path: Any, plugins: list[Any], specs: list[str], preemptors: list[PodBuilder],
                            existing: list[PodBuilder], pdbs: list[Any], fake_code: Code, offsets: list[int] | None,
                            expected: list[list[tuple[str, list[str], int]]], filter_calls: list[int]) -> None:
    """TestDryRunPreemption: each cycle's dry run finds kube's candidates (victims and PDB violations), calling
    Filter as often as kube's on the reference (per-node) path."""
    fake = counting_filter(fake_code, [s.split("/")[0] for s in specs])
    configured: list[Any] = [p for p in plugins if isinstance(p, tuple)]
    rest = [p for p in plugins if not isinstance(p, tuple)]
    pending = [b.obj() for b in preemptors]
    fw = plugin_framework(fake, *rest, *(configured or [PREEMPTION]), path=path, nodes=nodes(*specs),
                          pods=[*existing, *pending], pdbs=pdbs)
    counter = fw.plugins["FakeFilter"]
    for cycle, preemptor in enumerate(pending):
        state, found = filtered(fw, preemptor)
        before = counter.calls
        got = dry_run(fw, preemptor, state, found, offsets[cycle] if offsets else None)
        assert by_name(got) == expected[cycle], f"cycle {cycle}"
        if path == "per-node":
            assert counter.calls - before == filter_calls[cycle], f"cycle {cycle}"


def test_the_batch_dry_run_is_the_accelerators() -> None:
    """On the batch path the kit hands the Evaluator the runtime's preemption accelerator, which answers a dry run
    that only NodeResourcesFit decides (so the batch rows above check it against kube's expectations)."""
    pending = HIGH_LARGE.obj()
    fw = plugin_framework(FIT, PREEMPTION, path="batch", nodes=nodes(*TWO),
                          pods=[on("node1", "p1", MID, LARGE), on("node2", "p2", MID, LARGE), pending])
    state, found = filtered(fw, pending)
    accelerator = fw.handle.preemption_accelerator
    assert accelerator is not None
    infos = fw.handle.snapshot.list()
    outcome = accelerator.dry_run(evaluator(fw), state, pending, infos, budgets(fw), 0, 2, found)
    assert outcome is not None
    assert by_name(outcome[0]) == [candidate("node1", "p1"), candidate("node2", "p2")]


# -- TestSelectBestCandidate ---------------------------------------------------------------------------------------


def at0(node_name: str, name: str, priority: int, req: dict[str, str], start: int = 0) -> PodBuilder:
    """A pod bound to ``node_name`` started at kube's ``epochTime<start>``."""
    return on(node_name, name, priority, req, start)


VERY_LARGE_P = pod("p", priority=HIGH, req=VERY_LARGE)
THREE = ["node1", "node2", "node3"]

# (node names, preemptor, existing pods, the nodes any of which may be chosen)
SELECT_BEST = [
    pytest.param(TWO, HIGH_LARGE, [at0("node1", "p1", MID, LARGE), at0("node2", "p2", MID, LARGE)],
                 ["node1", "node2"], id="a pod that fits on both nodes when lower priority pods are preempted"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, MEDIUM), at0("node1", "p1.2", MID, LARGE),
                  at0("node2", "p2.1", MID, MEDIUM), at0("node2", "p2.2", LOW, MEDIUM),
                  at0("node3", "p3.1", LOW, MEDIUM), at0("node3", "p3.2", LOW, MEDIUM)], ["node3"],
                 id="node with min highest priority pod is picked"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, MEDIUM), at0("node1", "p1.2", MID, LARGE), at0("node2", "p2.1", MID, LARGE),
                  at0("node2", "p2.2", LOW, MEDIUM), at0("node3", "p3.1", MID, MEDIUM),
                  at0("node3", "p3.2", MID, MEDIUM)], ["node2"],
                 id="when highest priorities are the same, minimum sum of priorities is picked"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, SMALL), at0("node1", "p1.2", NEG, SMALL), at0("node1", "p1.3", MID, SMALL),
                  at0("node1", "p1.4", NEG, SMALL), at0("node2", "p2.1", MID, LARGE), at0("node2", "p2.2", NEG, MEDIUM),
                  at0("node3", "p3.1", MID, MEDIUM), at0("node3", "p3.2", NEG, SMALL),
                  at0("node3", "p3.3", LOW, SMALL)], ["node2"],
                 id="when highest priority and sum are the same, minimum number of pods is picked"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, SMALL), at0("node1", "p1.2", NEG, SMALL), at0("node1", "p1.3", NEG, SMALL),
                  at0("node2", "p2.1", MID, LARGE), at0("node2", "p2.2", NEG, MEDIUM),
                  at0("node3", "p3.1", MID, MEDIUM), at0("node3", "p3.2", NEG, SMALL),
                  at0("node3", "p3.3", LOW, SMALL)], ["node2"], id="sum of adjusted priorities is considered"),
    pytest.param(["node1", "node2", "node3", "node4"], pod("p", priority=VERY_HIGH, req=VERY_LARGE),
                 [at0("node1", "p1.1", MID, SMALL), at0("node1", "p1.2", LOW, SMALL), at0("node1", "p1.3", LOW, SMALL),
                  at0("node2", "p2.1", HIGH, LARGE), at0("node3", "p3.1", MID, MEDIUM),
                  at0("node3", "p3.2", LOW, SMALL), at0("node3", "p3.3", LOW, SMALL), at0("node3", "p3.4", LOW, MEDIUM),
                  at0("node4", "p4.1", MID, MEDIUM), at0("node4", "p4.2", MID, SMALL),
                  at0("node4", "p4.3", MID, SMALL), at0("node4", "p4.4", NEG, SMALL)], ["node1"],
                 id="non-overlapping lowest high priority, sum priorities, and number of pods"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, MEDIUM, 2), at0("node1", "p1.2", MID, MEDIUM, 2),
                  at0("node2", "p2.1", MID, MEDIUM, 3), at0("node2", "p2.2", MID, MEDIUM, 3),
                  at0("node3", "p3.1", MID, MEDIUM, 1), at0("node3", "p3.2", MID, MEDIUM, 1)], ["node2"],
                 id="same priority, same number of victims, different start time for each node's pod"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", MID, MEDIUM, 4), at0("node1", "p1.2", MID, MEDIUM, 2),
                  at0("node2", "p2.1", MID, MEDIUM, 5), at0("node2", "p2.2", MID, MEDIUM, 1),
                  at0("node3", "p3.1", MID, MEDIUM, 3), at0("node3", "p3.2", MID, MEDIUM, 6)], ["node3"],
                 id="same priority, same number of victims, different start time for all pods"),
    pytest.param(THREE, VERY_LARGE_P,
                 [at0("node1", "p1.1", LOW, MEDIUM, 4), at0("node1", "p1.2", MID, MEDIUM, 2),
                  at0("node2", "p2.1", MID, MEDIUM, 6), at0("node2", "p2.2", LOW, MEDIUM, 1),
                  at0("node3", "p3.1", LOW, MEDIUM, 3), at0("node3", "p3.2", MID, MEDIUM, 5)], ["node2"],
                 id="different priority, same number of victims, different start time for all pods"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("specs", "preemptor", "existing", "expected"), SELECT_BEST)
def test_select_best_candidate(path: Any, specs: list[str], preemptor: PodBuilder, existing: list[PodBuilder],
                               expected: list[str]) -> None:
    """TestSelectBestCandidate: among the dry run's candidates the choice takes fewest PDB violations, then the lowest
    highest victim priority, the smallest sum of priorities, the fewest victims, the latest start."""
    pending = preemptor.obj()
    fw = plugin_framework(FIT, PREEMPTION, path=path, nodes=nodes(*specs), pods=[*existing, pending])
    state, found = filtered(fw, pending)
    chosen = evaluator(fw).select_candidate(dry_run(fw, pending, state, found))
    assert chosen is not None
    assert chosen.name in expected


# -- TestCustomSelection and TestCustomOrdering (after v1.32) ------------------------------------------------------

Eligible = Callable[[NodeInfo, PodInfo, Pod], bool]


def custom(fw: Any, **methods: Callable[..., Any]) -> Evaluator:
    """The DefaultPreemption Evaluator with these methods overridden (kube's ``pl.IsEligiblePod = ...``,
    ``pl.MoreImportantPod = ...``), for the framework's plugins and its accelerator."""
    cls = type("CustomEvaluator", (Evaluator,), methods)
    ev: Evaluator = cls(PREEMPTION, fw.handle)
    ev.resource_shortcut = evaluator(fw).resource_shortcut
    return ev


def label_is(key: str, value: str) -> Eligible:
    """podLabelIsEligible: only victims with this label value."""
    return lambda node_info, victim, preemptor: victim.pod.labels.get(key) == value


def node_is(name: str) -> Eligible:
    """nodeNameIsEligible: only victims on this node."""
    return lambda node_info, victim, preemptor: node_info.name == name


def preemptor_at_least(priority: int) -> Eligible:
    """priorityBelowThresholdCannotPreempt: only preemptors of at least this priority preempt."""
    return lambda node_info, victim, preemptor: preemptor.priority >= priority


def victim_at_most(priority: int) -> Eligible:
    """priorityAboveThresholdCannotBePreempted: only victims of at most this priority."""
    return lambda node_info, victim, preemptor: victim.pod.priority <= priority


def v(node_name: str, name: str, priority: int, req: dict[str, str], **labels: str) -> PodBuilder:
    """A possible victim started at the epoch."""
    return on(node_name, name, priority, req, 0, **labels)


BY_LABEL = [v("node1", "v1", MID, LARGE, preemptible="no"), v("node2", "v2", MID, LARGE, preemptible="yes"),
            v("node3", "v3", LOW, LARGE, preemptible="yes"), v("node4", "v4", LOW, LARGE)]
FOUR = ["node1", "node2", "node3", "node4"]
ON_NODE1 = [v("node2", "v4", MID, LARGE), v("node3", "v5", LOW, LARGE)]
BY_PRIORITY = [v("node1", "v1", HIGH, LARGE), v("node2", "v2", MID, LARGE), v("node3", "v3", LOW, LARGE)]

# (eligibility, node names, preemptor, existing pods, victims by candidate node)
CUSTOM_SELECTION = [
    pytest.param(label_is("preemptible", "yes"), FOUR, pod("p1", priority=HIGH, req=LARGE), BY_LABEL,
                 {"node2": ["v2"], "node3": ["v3"]}, id="filter for matching pod label: high priority"),
    pytest.param(label_is("preemptible", "yes"), FOUR, pod("p2", priority=MID, req=LARGE), BY_LABEL,
                 {"node3": ["v3"]}, id="filter for matching pod label: mid priority"),
    pytest.param(label_is("preemptible", "yes"), FOUR, pod("p3", priority=LOW, req=LARGE), BY_LABEL, {},
                 id="filter for matching pod label: low priority"),
    pytest.param(node_is("node1"), THREE, pod("p3", priority=HIGH, req=LARGE),
                 [v("node1", "v1", HIGH, MEDIUM), v("node1", "v2", MID, SMALL), v("node1", "v3", LOW, SMALL),
                  *ON_NODE1],
                 {"node1": ["v2", "v3"]}, id="filter for matching victim node: high priority"),
    pytest.param(node_is("node1"), THREE, pod("p3", priority=MID, req=LARGE),
                 [v("node1", "v1", HIGH, SMALL), v("node1", "v2", MID, SMALL), v("node1", "v3", LOW, SMALL), *ON_NODE1],
                 {"node1": ["v3"]}, id="filter for matching victim node: mid priority"),
    pytest.param(node_is("node1"), THREE, pod("p3", priority=LOW, req=LARGE),
                 [v("node1", "v1", HIGH, SMALL), v("node1", "v2", MID, SMALL), v("node1", "v3", LOW, SMALL), *ON_NODE1],
                 {}, id="filter for matching victim node: low priority"),
    pytest.param(preemptor_at_least(HIGH), THREE, pod("p1", priority=HIGH, req=LARGE), BY_PRIORITY,
                 {"node2": ["v2"], "node3": ["v3"]},
                 id="only pods at or above specified priority can preempted: high priority"),
    pytest.param(preemptor_at_least(HIGH), THREE, pod("p2", priority=MID, req=LARGE), BY_PRIORITY, {},
                 id="only pods at or above specified priority can preempted: mid priority"),
    pytest.param(victim_at_most(MID), THREE, pod("p1", priority=HIGH, req=LARGE), BY_PRIORITY,
                 {"node2": ["v2"], "node3": ["v3"]},
                 id="only pods at or below specified priority can be preempted: high priority"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("eligible", "specs", "preemptor", "existing", "expected"), CUSTOM_SELECTION)
def test_custom_selection(path: Any, eligible: Eligible, specs: list[str], preemptor: PodBuilder,
                          existing: list[PodBuilder], expected: dict[str, list[str]]) -> None:
    """TestCustomSelection: an Evaluator whose is_eligible_pod narrows the victims finds only candidates made of
    eligible victims; choosing again and again among the rest gives each candidate's victims in kube's order."""
    pending = preemptor.obj()
    fw = plugin_framework(FIT, PREEMPTION, path=path, nodes=nodes(*specs), pods=[*existing, pending])
    ev = custom(fw, is_eligible_pod=lambda self, node_info, victim, pod: eligible(node_info, victim, pod))
    state, found = filtered(fw, pending)
    candidates = dry_run(fw, pending, state, found, ev=ev)
    assert sorted(c.name for c in candidates) == sorted(expected)
    while candidates:
        chosen = ev.select_candidate(candidates)
        assert chosen is not None
        assert [p.name for p in chosen.victims] == expected[chosen.name]
        candidates = [c for c in candidates if c.name != chosen.name]


def oldest_start(self: Evaluator, a: Pod, b: Pod) -> bool:
    """orderByOldestStart: the pod that started first is the more important."""
    assert a.status.start_time is not None
    assert b.status.start_time is not None
    return a.status.start_time < b.status.start_time


def name_order(self: Evaluator, a: Pod, b: Pod) -> bool:
    """orderByPodName: the pod whose name sorts first is the more important."""
    return a.name < b.name


# (more_important_pod, preemptor, existing pods, victims in order)
CUSTOM_ORDERING = [
    pytest.param(oldest_start, pod("p2", priority=HIGH, req=LARGE),
                 [on("node1", "v1", LOW, MEDIUM, 2), on("node1", "v2", LOW, MEDIUM, 0),
                  on("node1", "v3", MID, MEDIUM, 1)], ["v3", "v1"], id="select newest pods"),
    pytest.param(name_order, pod("p2", priority=HIGH, req=LARGE),
                 [on("node1", "foo", LOW, MEDIUM, 0).uid("v1"), on("node1", "bar", LOW, MEDIUM, 0).uid("v2"),
                  on("node1", "baz", MID, MEDIUM, 0).uid("v3")], ["baz", "foo"], id="select alphabetically-last pods"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("order", "preemptor", "existing", "victims"), CUSTOM_ORDERING)
def test_custom_ordering(path: Any, order: Callable[[Evaluator, Pod, Pod], bool], preemptor: PodBuilder,
                         existing: Sequence[PodBuilder], victims: list[str]) -> None:
    """TestCustomOrdering: an Evaluator whose more_important_pod orders the possible victims reprieves them in that
    order, whatever their priorities; the victims come in that order."""
    pending = preemptor.obj()
    fw = plugin_framework(FIT, PREEMPTION, path=path, nodes=nodes("node1"), pods=[*existing, pending])
    ev = custom(fw, more_important_pod=order)
    state, found = filtered(fw, pending)
    (only,) = dry_run(fw, pending, state, found, ev=ev)
    assert [p.name for p in only.victims] == victims

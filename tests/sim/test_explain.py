"""``--explain``: the worked example of docs/explain.md value by value, preemption and multi-attempt records, the
PreFilter and nominated-pod cases, and recording only the pods named (which pods the flags name:
tests/sim/test_explain_request.py)."""

from __future__ import annotations

import attrs
import pytest

from kubesched import CycleState, NodeInfo, Plugin, Pod, Status, hookimpl
from kubesched.framework._node_info import PodInfo
from kubesched.io.load import ClusterInput, load
from kubesched.profiles import load_config
from kubesched.profiles.parse import parse_config
from kubesched.runtime import Attempt, Explainer, Framework, PluginRegistry
from kubesched.runtime._explain import (
    NOT_TRIED_ENOUGH,
    NOT_TRIED_ERROR,
    NOT_TRIED_NARROWED,
    NOT_TRIED_NOMINATED,
    NOT_TRIED_PRE_FILTER,
    PASSED,
    AttemptRecorder,
    PluginScore,
)
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._score_runners import ScoreRunners
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import EXAMPLES

TAINTED = "node(s) had untolerated taint {dedicated: gpu}"
PASS3 = {"NodeUnschedulable": "passed", "NodeName": "passed", "TaintToleration": "passed"}


def explained(registry: PluginRegistry, cluster: ClusterInput, *pods: str) -> SimulationResult:
    return simulate(cluster, load_config("default", registry), registry,
                    explainer=Explainer(pods if pods else None))


def attempts(result: SimulationResult, key: str) -> tuple[Attempt, ...]:
    assert result.explain is not None
    return result.explain[key]


@pytest.fixture(scope="module")
def worked(registry: PluginRegistry) -> SimulationResult:
    """examples/explain with default/p and default/big explained."""
    return explained(registry, load([EXAMPLES / "explain"]), "default/p", "default/big")


@pytest.fixture(scope="module")
def preemption(registry: PluginRegistry) -> SimulationResult:
    """examples/preemption with every pod explained."""
    return explained(registry, load([EXAMPLES / "preemption"]))


def test_worked_example_filter_entries(worked: SimulationResult) -> None:
    """n1 is rejected by TaintToleration (later plugins never ran, so they are absent); n2 and n3 pass all four."""
    (attempt,) = attempts(worked, "default/p")
    assert attempt.filter == {
        "n1": {"NodeUnschedulable": "passed", "NodeName": "passed", "TaintToleration": TAINTED},
        "n2": {**PASS3, "NodeResourcesFit": "passed"},
        "n3": {**PASS3, "NodeResourcesFit": "passed"},
    }
    assert (attempt.time, attempt.attempt, attempt.profile) == (0.0, 1, "default-scheduler")
    assert attempt.pre_filter is not None
    assert attempt.pre_filter["skippedFilters"] == ["InterPodAffinity", "NodeAffinity", "NodePorts",
                                                    "NodeVolumeLimits", "PodTopologySpread", "VolumeBinding",
                                                    "VolumeRestrictions", "VolumeZone"]


def test_worked_example_scores(worked: SimulationResult) -> None:
    """Raw, normalised and weighted scores per plugin, the totals, and the selected node n2."""
    (attempt,) = attempts(worked, "default/p")
    assert attempt.score == {
        # TaintToleration counts intolerable PreferNoSchedule taints (0), normalises reversed (100), weight 3.
        # NodeResourcesFit LeastAllocated: n2 cpu (4-1)/4 = 75, memory (8-2)/8 = 75 -> 75.
        # Balanced allocation: n2 cpu 1/4 and memory 2/8 are equal -> 100.
        "n2": {"TaintToleration": PluginScore(0, 100, 300), "NodeResourcesFit": PluginScore(75, 75, 75),
               "NodeResourcesBalancedAllocation": PluginScore(100, 100, 100), "ImageLocality": PluginScore(0, 0, 0)},
        # n3 runs cache (2 CPUs, 1Gi): cpu (4-3)/4 = 25, memory (8-3)/8 = 62 -> (25+62)/2 = 43;
        # balanced: cpu 3/4 against memory 3/8, std 0.1875 -> 81.
        "n3": {"TaintToleration": PluginScore(0, 100, 300), "NodeResourcesFit": PluginScore(43, 43, 43),
               "NodeResourcesBalancedAllocation": PluginScore(81, 81, 81), "ImageLocality": PluginScore(0, 0, 0)},
    }
    assert attempt.total == {"n2": 475, "n3": 424}
    assert attempt.selected_node == "n2"
    assert (attempt.post_filter, attempt.fit_error, attempt.error) == (None, None, None)
    assert attempt.score_skipped == ["InterPodAffinity", "NodeAffinity", "PodTopologySpread"]


def test_worked_example_json_has_the_issue_shape(worked: SimulationResult) -> None:
    """The JSON attempt holds the issue's keys in its order, then the documented additions."""
    document = worked.to_json()["explain"]
    assert isinstance(document, dict)
    (attempt,) = document["default/p"]
    assert list(attempt)[:9] == ["time", "attempt", "profile", "filter", "score", "total", "selectedNode",
                                 "postFilter", "fitError"]
    assert attempt["score"]["n2"]["NodeResourcesFit"] == {"raw": 75, "normalized": 75, "weighted": 75}
    assert attempt["total"] == {"n2": 475, "n3": 424}


def test_unschedulable_pod_has_the_fit_error_and_post_filter(worked: SimulationResult) -> None:
    """big fits nowhere: the FitError message, no score, and DefaultPreemption's outcome without candidates."""
    (attempt,) = attempts(worked, "default/big")
    assert attempt.filter["n2"] == {**PASS3, "NodeResourcesFit": "Insufficient cpu"}
    assert (attempt.score, attempt.total, attempt.selected_node) == ({}, {}, None)
    preemption = ("preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
                  "2 No preemption victims found for incoming pod.")
    assert attempt.fit_error == ("0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
                                 f"2 Insufficient cpu. {preemption}")
    assert attempt.post_filter == {"plugin": "DefaultPreemption", "result": "Unschedulable", "message": preemption,
                                   "nominatedNode": None, "candidates": [], "chosenCandidate": None}


def test_preemption_candidates_and_why_each_lost(preemption: SimulationResult) -> None:
    """critical's first attempt: the three candidates in dry-run order, their victims, and the tie-break."""
    first = attempts(preemption, "default/critical")[0]
    assert first.post_filter is not None
    assert first.post_filter["nominatedNode"] == "node-c"
    assert first.post_filter["chosenCandidate"] == "node-c"
    assert first.post_filter["result"] == "Success"
    sum_a, sum_c = 2 * (100 + 2**31), 100 + 2**31
    assert first.post_filter["candidates"] == [
        {"node": "node-c", "victims": ["default/batch-big"], "pdbViolations": 0, "lostTieBreak": None},
        {"node": "node-a", "victims": ["default/batch-1", "default/batch-2"], "pdbViolations": 0,
         "lostTieBreak": f"larger sum of victim priorities ({sum_a} against {sum_c})"},
        {"node": "node-b", "victims": ["default/web-1", "default/batch-3"], "pdbViolations": 1,
         "lostTieBreak": "more PDB violations (1 against 0)"},
    ]
    assert first.fit_error == "0/3 nodes are available: 3 Insufficient cpu."


def test_multi_attempt_pod_has_one_record_per_attempt(preemption: SimulationResult) -> None:
    """critical fails and preempts at 0 s, then binds at 10 s on its nominated node, the only node tried."""
    first, second = attempts(preemption, "default/critical")
    assert [(a.attempt, a.time, a.selected_node) for a in (first, second)] == [(1, 0.0, None), (2, 10.0, "node-c")]
    assert second.filter == {"node-c": {**PASS3, "NodeResourcesFit": "passed"}}
    assert second.not_tried == {"node-a": NOT_TRIED_NOMINATED, "node-b": NOT_TRIED_NOMINATED}
    assert second.post_filter is None


def test_nominated_pods_counted_by_filter_are_listed(preemption: SimulationResult) -> None:
    """report (priority 5000) is filtered with critical (10000), nominated to node-c, counted there."""
    first = attempts(preemption, "default/report")[0]
    assert first.nominated_pods == {"node-c": ["default/critical"]}


def test_explained_run_places_every_pod_as_a_plain_run(registry: PluginRegistry,
                                                        preemption: SimulationResult) -> None:
    """Explaining pods changes no placement, preemption or event: on identical nodes (every choice a tie broken
    by the seeded RNG, so one extra or missing draw would move later pods) and with preemption."""
    nodes = tuple(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(4))
    cluster = ClusterInput(nodes=nodes, pods=tuple(make_pod(f"p{i}").req(cpu="1").obj() for i in range(8)))
    config = load_config("default", registry)
    for seed in (0, 1, 2):
        plain = simulate(cluster, config, registry, seed=seed)
        traced = simulate(cluster, config, registry, seed=seed, explainer=Explainer(["default/p0", "default/p3"]))
        assert attrs.evolve(traced, explain=None) == plain
    plain = simulate(load([EXAMPLES / "preemption"]), config, registry)
    assert attrs.evolve(preemption, explain=None) == plain


def test_pods_not_named_are_not_recorded(registry: PluginRegistry) -> None:
    """Only the pods named get an entry."""
    result = explained(registry, load([EXAMPLES / "explain"]), "default/big")
    assert result.explain is not None
    assert list(result.explain) == ["default/big"]


def small_cluster(*pods: object) -> ClusterInput:
    nodes = tuple(make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(1, 4))
    return ClusterInput(nodes=nodes, pods=tuple(p.obj() for p in pods))  # type: ignore[attr-defined]


def test_pre_filter_narrowing_marks_the_other_nodes(registry: PluginRegistry) -> None:
    """Required affinity to n2 by name: NodeAffinity's PreFilter narrows the nodes; the others are not tried."""
    result = explained(registry, small_cluster(make_pod("d").req(cpu="1").node_affinity_names("n2")))
    (attempt,) = attempts(result, "default/d")
    assert attempt.not_tried == {"n1": NOT_TRIED_NARROWED, "n3": NOT_TRIED_NARROWED}
    assert list(attempt.filter) == ["n2"]
    assert attempt.pre_filter is not None
    assert (attempt.pre_filter["narrowedBy"], attempt.pre_filter["nodes"]) == (["NodeAffinity"], ["n2"])
    assert attempt.selected_node == "n2"


def test_pre_filter_narrowing_to_no_existing_node_marks_every_node(registry: PluginRegistry) -> None:
    """Required affinity to a node that does not exist: NodeAffinity narrows to it, so no node is tried."""
    result = explained(registry, small_cluster(make_pod("d").req(cpu="1").node_affinity_names("gone")))
    (attempt,) = attempts(result, "default/d")
    assert (attempt.filter, attempt.not_tried) == (
        {}, {"n1": NOT_TRIED_NARROWED, "n2": NOT_TRIED_NARROWED, "n3": NOT_TRIED_NARROWED})
    assert attempt.fit_error is not None
    assert attempt.fit_error.startswith(
        "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity].")


class Refuse(Plugin):
    """PreFilter rejects every pod labelled refuse=yes."""

    name = "Refuse"

    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """UnschedulableAndUnresolvable for a refused pod."""
        if pod.labels.get("refuse") == "error":
            return Status.as_error("policy store unreachable")
        return Status.unresolvable("refused by policy") if pod.labels.get("refuse") == "yes" else None


def test_pre_filter_rejection_marks_every_node(registry: PluginRegistry) -> None:
    """A PreFilter plugin rejects the pod: no node is tried, and preFilter names the plugin and reason."""
    extended = registry.with_plugins(Refuse)
    config = parse_config({"profiles": [{"plugins": {"pre-filter": {"enabled": [{"name": "Refuse"}]}}}]},
                          extended, "refuse")
    cluster = small_cluster(make_pod("d").label(refuse="yes").req(cpu="1"))
    result = simulate(cluster, config, extended, explainer=Explainer(["default/d"]))
    (attempt,) = attempts(result, "default/d")
    assert (attempt.filter, attempt.not_tried) == (
        {}, {"n1": NOT_TRIED_PRE_FILTER, "n2": NOT_TRIED_PRE_FILTER, "n3": NOT_TRIED_PRE_FILTER})
    assert attempt.pre_filter is not None
    assert (attempt.pre_filter["rejectedBy"], attempt.pre_filter["reason"]) == ("Refuse", "refused by policy")
    assert attempt.fit_error is not None
    assert attempt.fit_error.startswith(
        "0/3 nodes are available: refused by policy.")


def test_pre_filter_error_ends_the_attempt_before_any_node(registry: PluginRegistry) -> None:
    """A PreFilter Error: no node tried (marked as stopped at an error), and the error message."""
    extended = registry.with_plugins(Refuse)
    config = parse_config({"profiles": [{"plugins": {"pre-filter": {"enabled": [{"name": "Refuse"}]}}}]},
                          extended, "refuse")
    cluster = small_cluster(make_pod("d").label(refuse="error").req(cpu="1"))
    result = simulate(cluster, config, extended, explainer=Explainer(["default/d"]))
    first = attempts(result, "default/d")[0]
    assert (first.filter, first.not_tried) == (
        {}, {"n1": NOT_TRIED_ERROR, "n2": NOT_TRIED_ERROR, "n3": NOT_TRIED_ERROR})
    assert first.fit_error is None
    assert first.error == 'running PreFilter plugin "Refuse": policy store unreachable'


class Crash(Plugin):
    """Filter raises on node n2."""

    name = "Crash"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Raise on n2, pass elsewhere."""
        if node_info.name == "n2":
            raise KeyError("zone")
        return None


def test_filter_plugin_that_raises_is_an_error_entry(registry: PluginRegistry) -> None:
    """A Filter plugin raising on a node: its entry says so, the nodes after it are not tried, the attempt errs."""
    extended = registry.with_plugins(Crash)
    config = parse_config({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Crash"}]}}}]},
                          extended, "crash")
    result = simulate(small_cluster(make_pod("d").req(cpu="1")), config, extended, explainer=Explainer(["default/d"]))
    first = attempts(result, "default/d")[0]
    assert first.filter["n1"]["Crash"] == "passed"
    assert first.filter["n2"]["Crash"] == "error: KeyError: 'zone'"
    assert first.not_tried == {"n3": NOT_TRIED_ERROR}
    assert first.error == "running \"Crash\" filter plugin: KeyError: 'zone'"


def test_nodes_beyond_the_feasible_nodes_to_find_are_not_tried(registry: PluginRegistry) -> None:
    """With 200 nodes kube-scheduler looks for 100 feasible ones (48% of 200, at least 100): 100 are not tried."""
    nodes = tuple(make_node(f"n{i:03}").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(200))
    result = explained(registry, ClusterInput(nodes=nodes, pods=(make_pod("w").req(cpu="1").obj(),)))
    (attempt,) = attempts(result, "default/w")
    assert len(attempt.filter) == len(attempt.score) == 100
    assert list(attempt.not_tried.values()) == [NOT_TRIED_ENOUGH] * 100
    assert sorted([*attempt.filter, *attempt.not_tried]) == [f"n{i:03}" for i in range(200)]


def test_a_second_pass_on_a_node_replaces_the_first() -> None:
    """The two-pass filter (nominated pods counted, then not): the pass that decided is the one kept."""
    recorder = AttemptRecorder(make_pod("p").obj(), Attempt("default/p", 0.0, 1, "default-scheduler"), Nominator())
    recorder.filter_result("A", "n1", None)
    recorder.filter_result("B", "n1", None)
    recorder.filter_result("A", "n1", None)
    assert recorder.attempt.filter == {"n1": {"A": "passed"}}


def test_a_pod_created_again_under_its_name_counts_attempts_from_one() -> None:
    """Attempts are numbered per pod object (uid): a re-created pod of the same name starts at 1 again."""
    explainer = Explainer(["default/p"])
    first, again = make_pod("p").uid("u1").obj(), make_pod("p").uid("u2").obj()
    numbers = []
    for pod in (first, first, again):
        recorder = explainer.start(pod, "default-scheduler", 0.0, Nominator())
        explainer.add(recorder.finish([], "", {}, None))
        numbers.append(recorder.attempt.attempt)
    assert numbers == [1, 2, 1]
    assert len(explainer.attempts["default/p"]) == 3


def test_marker_strings_are_the_documented_ones() -> None:
    """The verdict and "not tried" strings are part of the JSON contract (docs/explain.md): pinned literally."""
    assert [PASSED, NOT_TRIED_ENOUGH, NOT_TRIED_NOMINATED, NOT_TRIED_PRE_FILTER, NOT_TRIED_NARROWED,
            NOT_TRIED_ERROR] == [
        "passed",
        "not tried: enough feasible nodes were found",
        "not tried: the pod's nominated node fits",
        "not tried: PreFilter rejected the pod",
        "not tried: PreFilter narrowed the nodes to others",
        "not tried: the attempt stopped at an error",
    ]


def test_nominated_pods_of_equal_or_higher_priority_are_the_ones_counted() -> None:
    """As the two-pass filter: pods nominated with the pod's priority or more are listed, lower ones and the pod
    itself are not."""
    pod = make_pod("p").uid("self").priority(10).obj()
    nominator = Nominator()
    for name, priority in (("equal", 10), ("higher", 11), ("lower", 9)):
        nominator.add_nominated_pod(PodInfo.of(make_pod(name).uid(name).priority(priority).nominated("n1").obj()))
    nominator.add_nominated_pod(PodInfo.of(make_pod("p").uid("self").priority(10).nominated("n1").obj()))
    recorder = AttemptRecorder(pod, Attempt("default/p", 0.0, 1, "default-scheduler"), nominator)
    recorder.filter_result("A", "n1", None)
    recorder.filtering_done([NodeInfo.of(make_node("n1").obj())])
    assert recorder.attempt.nominated_pods == {"n1": ["default/equal", "default/higher"]}


def test_pods_not_explained_keep_the_fast_path(registry: PluginRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the explained pod is filtered and scored on the per-node path; the others run in batch, as without
    explain."""
    scored: list[str] = []
    filtered: set[str] = set()
    score, run_filter = ScoreRunners.score, Framework.run_filter_plugins

    def score_spy(self: ScoreRunners, state: CycleState, pod: Pod, nodes: list[NodeInfo], *args: object) -> object:
        scored.append(pod.key)
        return score(self, state, pod, nodes, *args)  # type: ignore[arg-type]

    def filter_spy(self: Framework, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        filtered.add(pod.key)
        return run_filter(self, state, pod, node_info)

    monkeypatch.setattr(ScoreRunners, "score", score_spy)
    monkeypatch.setattr(Framework, "run_filter_plugins", filter_spy)
    explained(registry, small_cluster(*(make_pod(f"p{i}").req(cpu="1") for i in range(4))), "default/p2")
    assert (scored, filtered) == (["default/p2"], {"default/p2"})


def test_attempt_names_the_profile_that_ran_it() -> None:
    """The ``profile`` key is the scheduler name of the profile that scheduled the pod."""
    recorder = Explainer(None).start(make_pod("p").obj(), "batch-scheduler", 12.5, Nominator())
    document = recorder.finish([], "", {}, None).to_json()
    assert (document["profile"], document["time"]) == ("batch-scheduler", 12.5)


class Veto(Plugin):
    """Reserve rejects every pod: the node was selected, the cycle then fails on it."""

    name = "Veto"

    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Unschedulable on the selected node."""
        return Status.unschedulable("volume claim taken")

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Nothing to undo."""


def test_reserve_failure_keeps_the_selected_node_and_says_why(registry: PluginRegistry) -> None:
    """A Reserve rejection after the choice: selectedNode is the node chosen, fitError the rejection on it."""
    extended = registry.with_plugins(Veto)
    config = parse_config({"profiles": [{"plugins": {"reserve": {"enabled": [{"name": "Veto"}]}}}]},
                          extended, "veto")
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).obj(),),
                           pods=(make_pod("d").req(cpu="1").obj(),))
    first = attempts(simulate(cluster, config, extended, explainer=Explainer(["default/d"])), "default/d")[0]
    assert (first.selected_node, first.fit_error) == ("n1", "0/1 nodes are available: 1 volume claim taken.")

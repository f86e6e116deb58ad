"""kube-scheduler's tables for the preemption package (pkg/scheduler/framework/preemption/preemption_test.go:
TestNodesWherePreemptionMightHelp, TestDryRunPreemption, TestSelectCandidate, TestPrepareCandidate), case by case
over the public testing kit, on the public :class:`~kubesched.framework.Evaluator`. Ids are kube's case names.

kube's tests drive the Evaluator through fake PostFilter plugins implementing its Interface; here they are Evaluator
subclasses overriding the same methods (``select_victims_on_node``, ``get_offset_and_num_candidates``,
``ordered_score_funcs``).

- TestNodesWherePreemptionMightHelp is v1.30's (the helper became ``NodeToStatus.NodesForStatusCode`` in v1.31).
  v1.30 took a plain map, in which a missing node (never filtered) was one where preemption might help; v1.32 says
  so with an Unschedulable absent-nodes status, which the rows here give. The nodes the Evaluator dry-runs are the
  ones it found: a spy overriding ``dry_run_preemption`` records them.
- TestDryRunPreemption, TestSelectCandidate and TestPrepareCandidate follow the closest stored file (v1.34
  development). kube runs TestPrepareCandidate with async preemption and async API calls on and off; kubesched's
  prepareCandidate is v1.32's synchronous one (SchedulerAsyncPreemption is alpha in v1.32), so the rows check what
  the synchronous run returns and deletes, not the async-only preempting map and activated pods. kube's fake
  clientset fails the status patch or the deletion of the pod named "fail-victim"; kubesched's backend patches the
  DisruptionTarget condition and deletes in one call (``delete_pod(victim, condition=...)``), so the fake client
  here (:class:`FailVictimClient`) refuses that call with kube's patch error when the victim still needs the
  condition and with its deletion error otherwise.

Not expressible with the kit (not translated): TestCallExtenders (8 rows) needs scheduler extenders, which kubesched
does not call; TestRemoveNominatedNodeName (2 rows) checks the JSON patch sent to the API server, which the kit's
in-memory cluster does not build (kubesched's API backend does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from kubesched.api import Pod, PodCondition
from kubesched.framework import (
    Candidate,
    Code,
    CycleState,
    DeletionError,
    DisruptionBudgets,
    Evaluator,
    NodeInfo,
    NodeToStatus,
    ScoreFunc,
    Status,
)
from kubesched.testing import PATHS, PodBuilder, RecordingClient, like, make_node, make_pod, plugin_framework
from tests.plugins.tables.preemption import DISRUPTION_TARGET, HIGH, MID, PREEMPTION, budgets, by_name, nodes, pod

NO, NEVER = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
FOUR = ["node1", "node2", "node3", "node4"]

# -- TestNodesWherePreemptionMightHelp -----------------------------------------------------------------------------

AFFINITY = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
NODE_NAME = "node(s) didn't match the requested node name"
SPREAD = "node(s) didn't match pod topology spread constraints"

# (Filter statuses by node, each (code, reason); nodes the dry run is tried on)
MIGHT_HELP = [
    pytest.param({"node1": (NEVER, "node(s) didn't match Pod's node affinity/selector"), "node2": (NEVER, NODE_NAME),
                  "node3": (NEVER, "node(s) had untolerated taint"), "node4": (NEVER, AFFINITY)}, set(),
                 id="No node should be attempted"),
    pytest.param({"node1": (NO, ANTI_AFFINITY), "node2": (NEVER, NODE_NAME),
                  "node3": (NEVER, "node(s) were unschedulable")}, {"node1", "node4"},
                 id="ErrReasonAntiAffinityRulesNotMatch should be tried as it indicates that the pod is unschedulable "
                    "due to inter-pod anti-affinity"),
    pytest.param({"node1": (NEVER, AFFINITY), "node2": (NO, ANTI_AFFINITY)}, {"node2", "node3", "node4"},
                 id="ErrReasonAffinityRulesNotMatch should not be tried as it indicates that the pod is unschedulable "
                    "due to inter-pod affinity, but ErrReasonAntiAffinityRulesNotMatch should be tried as it "
                    "indicates that the pod is unschedulable due to inter-pod anti-affinity"),
    pytest.param({"node1": (NEVER, "node(s) had no available disk"), "node2": (NO, "Insufficient memory")},
                 {"node2", "node3", "node4"}, id="Mix of failed predicates works fine"),
    pytest.param({"node1": (NEVER, "node(s) had unknown conditions")}, {"node2", "node3", "node4"},
                 id="Node condition errors should be considered unresolvable"),
    pytest.param({"node1": (NEVER, "node(s) had no available volume zone"),
                  "node2": (NEVER, "node(s) had volume node affinity conflict"),
                  "node3": (NEVER, "node(s) didn't find available persistent volumes to bind")}, {"node4"},
                 id="ErrVolume... errors should not be tried as it indicates that the pod is unschedulable due to no "
                    "matching volumes for pod on node"),
    pytest.param({"node1": (NO, SPREAD), "node2": (NEVER, NODE_NAME), "node3": (NO, SPREAD)},
                 {"node1", "node3", "node4"},
                 id="ErrReasonConstraintsNotMatch should be tried as it indicates that the pod is unschedulable due to "
                    "topology spread constraints"),
    pytest.param({"node2": (NEVER, ""), "node3": (NO, ""), "node4": (NEVER, "")}, {"node1", "node3"},
                 id="UnschedulableAndUnresolvable status should be skipped but Unschedulable should be tried"),
    pytest.param({"node2": (NEVER, SPREAD + " (missing required label)"), "node3": (NO, ""), "node4": (NEVER, "")},
                 {"node1", "node3"},
                 id="ErrReasonNodeLabelNotMatch should not be tried as it indicates that the pod is unschedulable due "
                    "to node doesn't have the required label"),
]


class DryRunSpy(Evaluator):
    """An Evaluator whose dry run only records the nodes it is given (and finds no candidate)."""

    tried: list[str]

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                           budgets: DisruptionBudgets, offset: int, num_candidates: int, *,
                           node_to_status: NodeToStatus | None = None,
                           ) -> tuple[list[Candidate], NodeToStatus, Status | None]:
        """Record the potential nodes."""
        self.tried = [info.name for info in potential_nodes]
        return [], NodeToStatus(), None


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("found", "expected"), MIGHT_HELP)
def test_nodes_where_preemption_might_help(path: Any, found: Mapping[str, tuple[Code, str]],
                                           expected: set[str]) -> None:
    """TestNodesWherePreemptionMightHelp: preemption dry-runs exactly the nodes Filter found Unschedulable (here also
    the unfiltered ones), never an UnschedulableAndUnresolvable one."""
    pending = pod("p", priority=HIGH).obj()
    fw = plugin_framework(PREEMPTION, path=path, nodes=[make_node(n) for n in FOUR], pods=[pending])
    spy = DryRunSpy(PREEMPTION, fw.handle)
    spy.tried = []
    filtered = NodeToStatus({n: Status(code, (reason,) if reason else ()) for n, (code, reason) in found.items()},
                            Status(NO))
    spy.find_candidates(CycleState(), fw.handle.snapshot.list(), pending, filtered)
    assert set(spy.tried) == expected


# -- TestDryRunPreemption and TestSelectCandidate ------------------------------------------------------------------


class FirstPodVictim(Evaluator):
    """kube's FakePostFilterPlugin: the victim on every node is its first pod, with ``violations`` PDB violations; the
    dry run starts at the first node and looks at every one."""

    violations = 0

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               budgets: DisruptionBudgets) -> tuple[list[Pod], int, Status]:
        """The node's first pod."""
        return [node_info.pods[0].pod], self.violations, Status.success()

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """Offset 0, every node."""
        return 0, num_nodes


class PdbViolatingVictim(FirstPodVictim):
    """kube's FakePostFilterPlugin with numViolatingVictim 1."""

    violations = 1


class FewestContainers(PdbViolatingVictim):
    """kube's FakePreemptionScorePostFilterPlugin: one PDB-violating victim per node (its first pod), and the
    candidate whose victims have the fewest containers (init containers included) wins."""

    def ordered_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc] | None:
        """Fewer containers, higher score."""
        def fewest_containers(node: str) -> int:
            return -sum(len(p.spec.containers) + len(p.spec.init_containers) for p in victims_map[node].victims)

        return [fewest_containers]


def dry_run_all(ev: Evaluator, fw: Any, preemptor: Pod) -> list[Candidate]:
    """kube's ``pe.DryRunPreemption(ctx, state, pod, nodeInfos, nil, 0, len(nodeInfos))``: every node, from the
    first."""
    infos = fw.handle.snapshot.list()
    offset, count = ev.get_offset_and_num_candidates(len(infos))
    candidates, _statuses, _error = ev.dry_run_preemption(CycleState(), preemptor, infos, budgets(fw), offset, count)
    return candidates


MID_ON_EACH = [pod("p1", "node1", MID), pod("p2", "node2", MID)]

# (Evaluator, existing pods, candidates)
DRY_RUN = [
    pytest.param(FirstPodVictim, MID_ON_EACH, [("node1", ["p1"], 0), ("node2", ["p2"], 0)], id="no pdb violation"),
    pytest.param(PdbViolatingVictim, MID_ON_EACH, [("node1", ["p1"], 1), ("node2", ["p2"], 1)],
                 id="pdb violation on each node"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("evaluator_class", "existing", "expected"), DRY_RUN)
def test_dry_run_preemption(path: Any, evaluator_class: type[Evaluator], existing: list[PodBuilder],
                            expected: list[tuple[str, list[str], int]]) -> None:
    """TestDryRunPreemption: the dry run makes a candidate of every node whose victim selection succeeds, with the
    victims and PDB violations it returned."""
    preemptor = pod("p", priority=HIGH).obj()
    fw = plugin_framework(PREEMPTION, path=path, nodes=nodes("node1", "node2"), pods=[*existing, preemptor])
    assert by_name(dry_run_all(evaluator_class(PREEMPTION, fw.handle), fw, preemptor)) == expected


def containers(built: PodBuilder, count: int) -> PodBuilder:
    """The pod with ``count`` containers named container1, container2..."""
    for i in range(1, count + 1):
        built.container(name=f"container{i}")
    return built


SELECT = [
    pytest.param(["node1", "node2", "node3"],
                 [containers(pod("p1.1", "node1", MID), 2), containers(pod("p2.1", "node2", MID), 1),
                  containers(pod("p3.1", "node3", MID), 3)], "node2",
                 id="pod has different number of containers on each node"),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("specs", "existing", "expected"), SELECT)
def test_select_candidate(path: Any, specs: list[str], existing: list[PodBuilder], expected: str) -> None:
    """TestSelectCandidate: the Evaluator's ordered_score_funcs decide among the candidates (for each of kube's pods
    as the preemptor)."""
    preemptor = pod("p", priority=HIGH).obj()
    fw = plugin_framework(PREEMPTION, path=path, nodes=nodes(*specs), pods=[*existing, preemptor])
    ev = FewestContainers(PREEMPTION, fw.handle)
    for each in existing:
        chosen = ev.select_candidate(dry_run_all(ev, fw, each.obj()))
        assert chosen is not None
        assert chosen.name == expected


# -- TestPrepareCandidate ------------------------------------------------------------------------------------------

PREEMPTED = PodCondition(*DISRUPTION_TARGET)


class FailVictimClient(RecordingClient):
    """kube's fake clientset for TestPrepareCandidate: deleting the pod named "fail-victim" fails, at the status patch
    (kube's "patch pod failed") when it still needs the DisruptionTarget condition, else at the deletion ("delete
    pod failed"); ``refused`` lists which."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
        """Refuse "fail-victim"; record and apply any other deletion."""
        if pod.name == "fail-victim":
            patch = condition is not None and condition not in pod.status.conditions
            self.refused.append("patch" if patch else "delete")
            raise DeletionError("patch pod failed" if patch else "delete pod failed")
        super().delete_pod(pod, condition=condition)


def victim(name: str, uid: str, priority: int = MID, preempted: bool = False) -> PodBuilder:
    """kube's victims: on node1, one container, the condition when ``preempted``."""
    built = containers(make_pod(name).uid(uid).node("node1").priority(priority), 1)
    return built.condition(*DISRUPTION_TARGET) if preempted else built


VICTIM1 = victim("victim1", "victim1")
FAIL_VICTIM = victim("fail-victim", "victim1")
VICTIM2 = victim("victim2", "victim2", 50000)
VICTIM1_PREEMPTED = victim("victim1", "victim1", preempted=True)
FAIL_VICTIM_PREEMPTED = victim("fail-victim", "victim1", preempted=True)
SUCCESS = like(None)

# (candidate's node, its victims, pods in the cluster, what may have been deleted (any of), refused writes, status)
PREPARE = [
    pytest.param("", [], [VICTIM1], [set()], [], SUCCESS, id="no victims"),
    pytest.param("node1", [VICTIM1], [VICTIM1], [{"victim1"}], [], SUCCESS, id="one victim without condition"),
    pytest.param("node1", [VICTIM1_PREEMPTED], [VICTIM1_PREEMPTED], [{"victim1"}], [], SUCCESS,
                 id="one victim with same condition"),
    pytest.param("node1", [VICTIM1_PREEMPTED], [], [{"victim1"}], [], SUCCESS,
                 id="one victim, not-found victim error is ignored when patching"),
    pytest.param("node1", [FAIL_VICTIM_PREEMPTED], [], [set()], ["delete"], like(Status.as_error("delete pod failed")),
                 id="one victim, but pod deletion failed"),
    pytest.param("node1", [VICTIM1], [], [{"victim1"}], [], SUCCESS,
                 id="one victim, not-found victim error is ignored when deleting"),
    pytest.param("node1", [FAIL_VICTIM], [], [set()], ["patch"], like(Status.as_error("patch pod failed")),
                 id="one victim, but patch pod failed"),
    pytest.param("node1", [FAIL_VICTIM, VICTIM2], [VICTIM1], [{"victim2"}, set()], ["patch"],
                 like(Status.as_error("patch pod failed")),
                 id="two victims without condition, one passes successfully and the second fails"),
]


@pytest.mark.parametrize(("node_name", "victims", "existing", "deleted", "refused", "want"), PREPARE)
def test_prepare_candidate(node_name: str, victims: list[PodBuilder], existing: list[PodBuilder],
                           deleted: list[set[str]], refused: list[str], want: object) -> None:
    """TestPrepareCandidate: preparing a candidate deletes its victims (with the DisruptionTarget condition), takes a
    victim already gone as deleted, and returns the backend's refusal as an Error."""
    client = FailVictimClient()
    preemptor = containers(make_pod("preemptor").uid("preemptor").priority(HIGH), 1).obj()
    fw = plugin_framework(PREEMPTION, nodes=nodes("node1"), pods=existing, client=client)
    ev = fw.plugins[PREEMPTION].evaluator
    status = ev.prepare_candidate(Candidate(node_name, tuple(v.obj() for v in victims)), preemptor)
    assert status == want
    assert {key.split("/")[1] for method, key, *_ in client.calls if method == "delete_pod"} in deleted
    assert client.refused == refused
    for name in set().union(*deleted) & {p.name for p in client.list_pods()}:
        live = client.get_pod("default", name)
        assert live is not None
        assert PREEMPTED in live.status.conditions

"""Specification of the DefaultPreemption plugin: its args and its PostFilter (kube's TestPostFilter cases)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api.pod import Pod
from kubesched.framework import Evaluator
from kubesched.framework._args import ArgsError, structure
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus, PostFilterResult
from kubesched.plugins.default_preemption import DefaultPreemption, DefaultPreemptionArgs
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import pdb, preemption_cluster

HIGH, MID, LOW = 1000, 100, 1


class TestArgs:
    """Tests for DefaultPreemptionArgs (kube's ValidateDefaultPreemptionArgs)."""

    def test_defaults(self) -> None:
        """At least 10% of the potential nodes and at least 100 of them."""
        assert structure(DefaultPreemptionArgs, {}) == DefaultPreemptionArgs(10, 100)

    def test_keys_are_kebab_case(self) -> None:
        """Both settings are read from the profile's plugin-config."""
        args = structure(DefaultPreemptionArgs, {"min-candidate-nodes-percentage": 50,
                                                 "min-candidate-nodes-absolute": 0})
        assert args == DefaultPreemptionArgs(50, 0)

    @pytest.mark.parametrize(("data", "message"), [
        ({"min-candidate-nodes-percentage": 101},
         "min-candidate-nodes-percentage: Invalid value: 101: not in valid range [0, 100]"),
        ({"min-candidate-nodes-percentage": -1},
         "min-candidate-nodes-percentage: Invalid value: -1: not in valid range [0, 100]"),
        ({"min-candidate-nodes-absolute": -1},
         "min-candidate-nodes-absolute: Invalid value: -1: not in valid range [0, inf)"),
        ({"min-candidate-nodes-percentage": 0, "min-candidate-nodes-absolute": 0},
         "min-candidate-nodes-percentage: Invalid value: 0: cannot be zero at the same time as "
         "min-candidate-nodes-absolute"),
        ({"min-candidate-nodes-absolute": "10"},
         'min-candidate-nodes-absolute: Invalid value: "10": must be an integer'),
    ], ids=["percentage above 100", "negative percentage", "negative absolute", "both zero", "wrong type"])
    def test_invalid_args(self, data: dict[str, Any], message: str) -> None:
        """Invalid values are ArgsErrors naming the key, worded as kube's field errors."""
        with pytest.raises(ArgsError) as caught:
            structure(DefaultPreemptionArgs, data)
        assert str(caught.value) == message

    def test_args_reach_the_evaluator(self) -> None:
        """The plugin's Evaluator looks for the configured number of candidates."""
        setup = preemption_cluster([make_node("n1").obj()], args=DefaultPreemptionArgs(50, 2))
        assert setup.evaluator.calculate_num_candidates(10) == 5
        assert setup.evaluator.calculate_num_candidates(3) == 2


def nodes(*cpus: str) -> list[Any]:
    """Nodes n1, n2, ... with these cpu capacities."""
    return [make_node(f"n{i + 1}").capacity(cpu=cpu).obj() for i, cpu in enumerate(cpus)]


def running(name: str, node: str, priority: int, cpu: str = "1") -> Pod:
    """A pod running on ``node``."""
    return make_pod(name).node(node).priority(priority).req(cpu=cpu).obj()


def pending(priority: int = HIGH, cpu: str = "2", **labels: str) -> Pod:
    """The preemptor ``p``."""
    return make_pod("p").priority(priority).req(cpu=cpu).label(**labels).obj()


class TestPostFilter:
    """Tests for DefaultPreemption.post_filter, run after Filter as the scheduler does."""

    @pytest.mark.parametrize(("cluster", "pod", "result", "status"), [
        pytest.param((nodes("2"), [running("v", "n1", LOW, "2")]), pending(),
                     PostFilterResult.nominate("n1"), Status.success(), id="preempts and nominates"),
        pytest.param((nodes("2"), [running("v", "n1", HIGH, "2")]), pending(),
                     PostFilterResult.nominate(""),
                     Status.unschedulable("preemption: 0/1 nodes are available: 1 No preemption victims found for "
                                          "incoming pod."), id="no lower-priority pod"),
        pytest.param((nodes("1", "1", "1"), [running("v", "n1", LOW)]), pending(),
                     PostFilterResult.nominate(""),
                     Status.unschedulable("preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption "
                                          "victims found for incoming pod."), id="too big for any node"),
        pytest.param((nodes("2"), [running("v", "n1", LOW, "2")]),
                     make_pod("p").priority(HIGH).req(cpu="2").preemption_policy("PreemptLowerPriority").obj(),
                     PostFilterResult.nominate("n1"), Status.success(), id="PreemptLowerPriority"),
    ])
    def test_post_filter(self, cluster: tuple[list[Any], list[Pod]], pod: Pod, result: PostFilterResult,
                         status: Status) -> None:
        """The result nominates the chosen node or clears the nomination; messages start with "preemption: "."""
        node_list, pods = cluster
        setup = preemption_cluster(node_list, [*pods, pod])
        got_result, got_status = setup.post_filter(pod)
        assert got_result == result
        assert got_status is not None
        assert (got_status.code, got_status.reasons) == (status.code, status.reasons)

    def test_preemption_policy_never_keeps_the_nomination(self) -> None:
        """A pod that may not preempt gets no result (its nomination stays) and says why."""
        pod = make_pod("p").priority(HIGH).req(cpu="2").preemption_policy("Never").obj()
        setup = preemption_cluster(nodes("2"), [running("v", "n1", LOW, "2"), pod])
        assert setup.post_filter(pod) == (None, Status.unschedulable(
            "preemption: not eligible due to preemptionPolicy=Never."))
        assert setup.cluster.preemptions == []

    def test_nodes_not_worth_it_are_reported_as_not_helpful(self) -> None:
        """kube's case: two nodes fail the dry run, one was UnschedulableAndUnresolvable, one never checked."""
        setup = preemption_cluster(nodes("1", "1", "1", "1"), [running("v", "n1", LOW), running("w", "n2", LOW),
                                                             pending()])
        statuses = NodeToStatus({"n1": Status.unschedulable("Insufficient cpu"),
                                 "n2": Status.unschedulable("Insufficient cpu"),
                                 "n4": Status.unresolvable("node(s) had untolerated taint {a: b}")})
        assert setup.post_filter(pending(), statuses) == (PostFilterResult.nominate(""), Status.unschedulable(
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for "
            "scheduling."))

    def test_error_keeps_its_code_with_the_prefix(self) -> None:
        """An Error from the Evaluator stays an Error, prefixed."""
        setup = preemption_cluster(nodes("1"))
        result, status = setup.plugin.post_filter(setup.pre_filter(pending()), pending(), NodeToStatus())
        assert result is None
        assert status is not None
        assert (status.code, status.reasons) == (Code.ERROR, ('preemption: pod "p" not found',))

    def test_pdb_decides_between_otherwise_equal_nodes(self) -> None:
        """A node whose victim would break a PDB loses to one whose victim would not."""
        pods = [make_pod("guarded").node("n1").priority(LOW).req(cpu="2").label(app="db").obj(),
                running("free", "n2", MID, "2")]
        setup = preemption_cluster(nodes("2", "2"), [*pods, pending()], pdbs=[pdb("db", 0, app="db")])
        assert setup.post_filter(pending())[0] == PostFilterResult.nominate("n2")
        unguarded = preemption_cluster(nodes("2", "2"), [*pods, pending()])
        assert unguarded.post_filter(pending())[0] == PostFilterResult.nominate("n1")

    def test_pdb_without_status_is_computed_from_the_pods(self) -> None:
        """A PDB without status.disruptionsAllowed counts from the running pods (minAvailable 1 of 1: none)."""
        pods = [make_pod("guarded").node("n1").priority(LOW).req(cpu="2").label(app="db").obj(),
                running("free", "n2", MID, "2")]
        budget = pdb("db", None, min_available=1, app="db")
        setup = preemption_cluster(nodes("2", "2"), [*pods, pending()], pdbs=[budget])
        assert setup.post_filter(pending())[0] == PostFilterResult.nominate("n2")

    def test_framework_runs_it_as_the_post_filter_plugin(self) -> None:
        """Through the framework the status is attributed to DefaultPreemption."""
        pod = pending()
        setup = preemption_cluster(nodes("2"), [running("v", "n1", HIGH, "2"), pod])
        state = setup.pre_filter(pod)
        result, status = setup.framework.run_post_filter_plugins(state, pod, setup.filter_statuses(pod, state))
        assert result == PostFilterResult.nominate("")
        assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "DefaultPreemption")

    def test_subclass_can_bring_its_own_evaluator(self) -> None:
        """A plugin subclass swaps in an Evaluator subclass, e.g. one that never preempts a labelled pod."""
        class Sparing(Evaluator):
            def pod_eligible_to_preempt_others(self, pod: Pod,
                                               nominated_node_status: Status | None) -> tuple[bool, str]:
                return (False, "batch pods do not preempt") if pod.labels.get("tier") == "batch" else (True, "")

        class SparingPreemption(DefaultPreemption):
            evaluator_class = Sparing

        setup = preemption_cluster(nodes("2"))
        plugin = SparingPreemption(setup.framework.handle)
        assert isinstance(plugin.evaluator, Sparing)
        batch = pending(tier="batch")
        setup.cluster.add_pod(batch)
        assert plugin.post_filter(setup.pre_filter(batch), batch, NodeToStatus()) == (
            None, Status.unschedulable("preemption: batch pods do not preempt"))

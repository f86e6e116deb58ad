"""The reason counts of a dry run by arithmetic, read without a status per node (what the FitError message of a
preemption that found no candidate counts): they must be those of the statuses Filter on node copies gives."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework import DisruptionBudgets
from kubesched.framework._status import Code
from kubesched.framework._types import NodeToStatus
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import T0, preemption_cluster
from tests.framework.test_preemption_property import budgets
from tests.runtime.test_preemption_shortcut import EXTRA, FILTERS, nodes_and_pods, nominated_pods, preemptors


def tallies(nodes: Sequence[Node], pods: Sequence[Pod], pod: Pod, offset: int, wanted: int,
            pdbs: Sequence[object] = ()) -> tuple[tuple[int, dict[str, int]], tuple[int, dict[str, int]], bool] | None:
    """The fast dry run's entry and reason counts read first, the reference dry run's from its built statuses, and
    whether the fast one built no status to count; None when no node is a potential one."""
    pc = preemption_cluster(nodes, pods, pdbs=list(pdbs), points=FILTERS, extra=EXTRA)  # type: ignore[arg-type]
    state = pc.pre_filter(pod)
    assert pc.shortcut_request(state, pod) is not None
    statuses = pc.filter_statuses(pod, state)
    potential = statuses.nodes_for_status_code(pc.framework.handle.snapshot.list(), Code.UNSCHEDULABLE)
    if not potential:
        return None
    running = [p for p in pods if p.spec.node_name]
    budget = DisruptionBudgets.of(list(pdbs), running)  # type: ignore[arg-type]
    found = []
    for fast in (True, False):
        pc.evaluator.fast_dry_run = fast
        _candidates, out, _error = pc.evaluator.dry_run_preemption(
            state.clone(), pod, potential, budget, offset % len(potential), wanted, node_to_status=statuses)
        found.append(out)
    counted = (len(found[0]), dict(found[0].reason_counts()))
    unbuilt = found[0].recorded_names() == []
    reference = NodeToStatus(dict(found[1].statuses))
    return counted, (len(reference), reference.reason_counts()), unbuilt


def full_nodes(count: int, cpu: str) -> list[Node]:
    """``count`` nodes n0, n1... of ``cpu`` CPU, 4Gi and 3 pods."""
    return [make_node(f"n{i}").capacity(cpu=cpu, memory="4Gi", pods="3").obj() for i in range(count)]


def on(node: str, name: str, cpu: str, priority: int) -> Pod:
    """A running pod started at T0."""
    return make_pod(name).node(node).req(cpu=cpu).priority(priority).start_time(T0).obj()


CASES = [
    pytest.param(full_nodes(3, "1"), [on("n0", "a", "1", 0), on("n1", "b", "1", 0)], "2", [],
                 id="too-small-with-and-without-victims"),
    pytest.param(full_nodes(3, "4"), [on(f"n{i}", f"p{i}{k}", "1", 20) for i in range(3) for k in range(3)], "1",
                 [], id="every-pod-outranks-the-preemptor"),
    pytest.param(full_nodes(2, "4"), [on("n0", "a", "1", 0), on("n0", "b", "1", 0), on("n0", "c", "2", 20),
                                      on("n1", "d", "4", 0)], "3",
                 [make_pod("nominee").nominated("n1").req(cpu="1").priority(50).obj()],
                 id="a-nominated-pod-counted-on-its-node"),
    pytest.param(full_nodes(2, "4"), [on("n0", "a", "1", 20), on("n0", "b", "1", 20), on("n0", "c", "1", 0),
                                      on("n1", "d", "1", 0)], "5",
                 [make_pod("nominee").nominated("n0").req(cpu="500m").priority(50).obj()],
                 id="different-shortfalls-counted-apart"),
]


@pytest.mark.parametrize(("nodes", "running", "cpu", "nominated"), CASES)
def test_reason_counts_are_those_of_the_built_statuses_without_building_them(
        nodes: list[Node], running: list[Pod], cpu: str, nominated: list[Pod]) -> None:
    """Nodes the dry run passes over (no room even emptied, no lower-priority pod) are counted by the amounts left
    on them: the counts equal those of every node's status built, and none is built."""
    pod = make_pod("preemptor").req(cpu=cpu).priority(10).obj()
    found = tallies(nodes, [*running, *nominated], pod, 0, 1)
    assert found is not None
    counted, reference, unbuilt = found
    assert counted == reference
    assert unbuilt


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_reason_counts_equal_the_reference_statuses_for_any_cluster(data: st.DataObject) -> None:
    """Any nodes, pods, nominations, PDBs, preemptor, offset and candidate count: the same entry and reason
    counts as the reference dry run's statuses."""
    nodes, running = data.draw(nodes_and_pods())
    nominated = data.draw(nominated_pods(nodes))
    pdbs = [b.obj(i) for i, b in enumerate(data.draw(budgets(running)))]
    pod = data.draw(preemptors())
    found = tallies(nodes, [*running, *nominated], pod, data.draw(st.integers(0, 5)), data.draw(st.integers(1, 4)),
                    pdbs)
    assume(found is not None)
    assert found is not None
    assert found[0] == found[1]

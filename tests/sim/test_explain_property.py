"""Explain reports the decision the scheduler made and changes none: random clusters (those of the fast-path
equivalence test: taints, affinity, spreading, host ports, PDBs, preemption, nominated pods, test plugins) are
scheduled with and without ``--explain-all``."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from kubesched.runtime import Attempt, CycleRecord, Explainer, PluginRegistry
from kubesched.runtime._explain import PASSED
from kubesched.sim.simulate import Simulation, SimulationResult
from tests.runtime.test_batch_equivalence import Example, configs, digest, examples, extended  # noqa: F401


def run(example: Example, registry: PluginRegistry, *, explain: bool,
        fast_path: bool = True) -> tuple[SimulationResult, list[CycleRecord]]:
    """The run's result and every attempt's cycle record."""
    fast, reference = configs(registry, scored=example.scored)
    config = fast if fast_path else reference
    simulation = Simulation(example.cluster, config, registry, seed=example.seed,
                            explainer=Explainer(None) if explain else None)
    records: list[CycleRecord] = []
    simulation.scheduler.cycle_observer = records.append
    return simulation.run(), records


def check_attempt(attempt: Attempt, record: CycleRecord, nodes: list[str]) -> None:
    """One explained attempt agrees with the cycle the scheduler ran."""
    assert sorted([*attempt.filter, *attempt.not_tried]) == sorted(nodes)
    statuses = record.diagnosis.node_to_status.statuses
    for node, reason in attempt.not_tried.items():
        assert reason.startswith("not tried")
        assert node not in statuses
    feasible = []
    for node, entry in attempt.filter.items():
        verdicts = list(entry.values())
        assert all(v == PASSED for v in verdicts[:-1])  # later plugins never ran after a rejection
        if verdicts and verdicts[-1] != PASSED:
            assert node in statuses
            assert statuses[node].plugin == list(entry)[-1]
        else:
            feasible.append(node)
    assert attempt.selected_node == (record.suggested_host or None)
    if record.status is None:
        assert sorted(feasible) == sorted(record.feasible_nodes)
    else:
        assert (attempt.fit_error or attempt.error) == record.status.message()
    if record.scores is not None:
        table = record.scores
        assert attempt.total == {n: int(t) for n, t in zip(table.nodes, table.totals, strict=True)}
        for node, plugins in attempt.score.items():
            assert sum(s.weighted for s in plugins.values()) == attempt.total[node]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=6, max_pending=6))
def test_explain_all_changes_no_decision_and_reports_each_cycle(extended: PluginRegistry,  # noqa: F811
                                                                 example: Example) -> None:
    """With --explain-all every pod lands as without it, and each attempt matches the cycle the scheduler ran."""
    plain, plain_records = run(example, extended, explain=False)
    explained, records = run(example, extended, explain=True)
    assert digest(attrs.evolve(explained, explain=None)) == digest(plain)
    assert [r.pod.key for r in records] == [r.pod.key for r in plain_records]
    assert explained.explain is not None
    nodes = [n.metadata.name for n in example.cluster.nodes]
    by_pod: dict[str, list[CycleRecord]] = {}
    for record in records:
        by_pod.setdefault(record.pod.key, []).append(record)
    assert {key: len(a) for key, a in explained.explain.items()} == {key: len(r) for key, r in by_pod.items()}
    for key, attempts in explained.explain.items():
        assert [a.attempt for a in attempts] == list(range(1, len(attempts) + 1))
        for attempt, record in zip(attempts, by_pod[key], strict=True):
            check_attempt(attempt, record, nodes)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=6, max_pending=6))
def test_explain_is_the_same_on_the_fast_and_per_node_paths(extended: PluginRegistry,  # noqa: F811
                                                             example: Example) -> None:
    """The explain output does not depend on --reference (fast_path off): both record the same attempts."""
    fast, _ = run(example, extended, explain=True)
    reference, _ = run(example, extended, explain=True, fast_path=False)
    assert fast.explain == reference.explain

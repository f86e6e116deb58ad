"""The FitError message counted without per-node statuses equals the per-node path's, byte for byte.

Without an observer reading the statuses, the batch path hands the message only reason counts: NodeResourcesFit's
from the columns (``filter_reason_counts``), other plugins' per group of equal resource rows or per node. Random
clusters (taints, cordons, node affinity, nodes full by pod count, several short resources, nominated pods) are
scheduled with the fast path and with the per-node path; every pod's message and every event must be the same.
"""

from __future__ import annotations

import attrs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, Plugin, hookimpl
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, fit_error_message
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.profiles import load_config
from kubesched.runtime import DeferredNodeToStatus, PluginRegistry
from kubesched.runtime._columns import ColumnStore
from kubesched.sim.simulate import Simulation, SimulationResult
from kubesched.testing import make_node, make_pod
from tests.runtime.test_batch_equivalence import Example, configs, examples, extended
from tests.runtime.test_batch_runtime import nodes, schedule, scheduler

__all__ = ["extended"]  # the fixture, shared with the equivalence tests

SHORT = Status(Code.UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory"), "NodeResourcesFit")


def run(example: Example, registry: PluginRegistry, *, default_profile: bool, fast: bool) -> SimulationResult:
    """``example`` scheduled with no cycle observer (so no status is built unless something reads it)."""
    if default_profile:
        config = load_config("default", registry)
        config = attrs.evolve(config, settings=attrs.evolve(config.settings, fast_path=fast))
    else:
        config = configs(registry, scored=example.scored)[0 if fast else 1]
    return Simulation(example.cluster, config, registry, seed=example.seed).run()


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=8, max_pending=6))
def test_messages_from_reason_counts_equal_the_per_node_paths(registry: PluginRegistry, example: Example) -> None:
    """The default profile: every pod's message and every event equal the per-node path's."""
    fast = run(example, registry, default_profile=True, fast=True)
    reference = run(example, registry, default_profile=True, fast=False)
    assert fast.pods == reference.pods
    assert fast.events == reference.events


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(example=examples(max_nodes=8, max_pending=6))
def test_messages_with_third_party_filters_equal_the_per_node_paths(extended: PluginRegistry,
                                                                     example: Example) -> None:
    """With Filter plugins lacking ``filter_reason_counts`` (counted per group or per node) the messages agree."""
    fast = run(example, extended, default_profile=False, fast=True)
    reference = run(example, extended, default_profile=False, fast=False)
    assert fast.pods == reference.pods
    assert fast.events == reference.events


def test_reason_counts_of_a_tallied_fill_build_no_status() -> None:
    """A deferred fill that knows its reason counts gives the histogram and the entry count without building."""
    statuses = DeferredNodeToStatus()
    statuses.defer(_never_built, None, lambda: (3, {"Insufficient cpu": 3, "Insufficient memory": 1}))
    assert len(statuses) == 3
    assert fit_error_message(3, Diagnosis(statuses)) == (
        "0/3 nodes are available: 1 Insufficient memory, 3 Insufficient cpu.")


def test_a_tallied_fill_beside_explicit_entries_is_built() -> None:
    """An explicit entry may name a node of the fill (the later one wins), so the statuses are built then."""
    statuses = DeferredNodeToStatus({"n0": SHORT})
    statuses.defer(lambda: [("n0", SHORT)], None, lambda: (1, {"wrong": 1}))
    assert statuses.reason_counts() == {"Insufficient cpu": 1, "Insufficient memory": 1}
    assert len(statuses) == 1


def test_the_histogram_is_the_same_when_read_twice() -> None:
    """Absent nodes are added to a copy: reading the message again does not count them twice."""
    statuses = DeferredNodeToStatus({"n0": SHORT}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("gone",)))
    diagnosis = Diagnosis(statuses)
    first = fit_error_message(3, diagnosis)
    assert fit_error_message(3, diagnosis) == first == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 2 gone.")


def test_node_resources_fit_counts_each_short_resource_once_per_node(registry: PluginRegistry) -> None:
    """filter_reason_counts gives, per reason, the nodes whose Filter status carries it."""
    nodes = [make_node("full").capacity(cpu="1", memory="1Gi", pods=1).obj(),
             make_node("small").capacity(cpu="1", memory="1Gi", pods=10).obj(),
             make_node("tiny").capacity(cpu="100m", memory="8Gi", pods=10).obj()]
    infos = [NodeInfo.of(node) for node in nodes]
    infos[0].add_pod(PodInfo.of(make_pod("x").node("full").req(cpu="100m").obj()))
    pod: Pod = make_pod("p").req(cpu="500m", memory="2Gi").obj()
    plugin = NodeResourcesFit(None)
    state = CycleState()
    plugin.pre_filter(state, pod, infos)
    statuses = [plugin.filter(state, pod, info) for info in infos]
    expected: dict[str, int] = {}
    for status in statuses:
        assert status is not None
        for reason in status.reasons:
            expected[reason] = expected.get(reason, 0) + 1
    columns = ColumnStore()
    columns.rebuild(infos)
    assert plugin.filter_reason_counts(state, pod, NodeBatch.of(infos, columns)) == expected == {
        "Too many pods": 1, "Insufficient memory": 2, "Insufficient cpu": 1}


def _never_built() -> list[tuple[str, Status]]:
    raise AssertionError("the deferred statuses were built")


class NeedsCompany(Plugin):
    """Rejects a node holding no pod ("lonely"), with batch forms, reason counts and a RESOURCES declaration: a
    verdict that nominated pods can turn from rejection to acceptance (not monotone, unlike NodeResourcesFit)."""

    name = "NeedsCompany"
    filter_reads = FilterReads.RESOURCES

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if node_info.pods else Status(Code.UNSCHEDULABLE, ("lonely",))

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[np.int64]:
        return np.where(node_batch.column(node_batch.columns.pod_count) == 0, int(Code.UNSCHEDULABLE), 0)

    def filter_reason_counts(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> dict[str, int]:
        lonely = int(np.count_nonzero(node_batch.column(node_batch.columns.pod_count) == 0))
        return {"lonely": lonely} if lonely else {}


@pytest.mark.parametrize("fast", [True, False])
def test_a_node_its_nominated_pods_let_pass_is_counted_by_its_plain_rejection(fast: bool) -> None:
    """n0's only pod is nominated there (gated, so it stays pending): with it n0 has company and passes, without it
    n0 is lonely, so the two-pass filter rejects n0 as lonely; n1 is lonely either way. Both count."""
    cluster, sched = scheduler(nodes(2), NeedsCompany, filters=["NeedsCompany"], fast_path=fast)
    cluster.add_pod(make_pod("waiting").priority(100).nominated("n0").scheduling_gates("hold").obj())
    assert schedule(cluster, sched, make_pod("p").obj()) == ["0/2 nodes are available: 2 lonely."]

"""The one seam for speed: how a scheduling cycle runs PreFilter, finds feasible nodes and scores them, with two
implementations behind one interface. :class:`PerNodeSearch` calls every plugin's per-node hook on each node, as
kube-scheduler does; :class:`BatchSearch` calls the plugins' batch forms over the snapshot's columns where they have
them, under the same rules (node order from nextStartNodeIndex, numFeasibleNodesToFind, the first rejecting plugin
in profile order, the two-pass filter for nodes with nominated pods), and decides exactly as the per-node path does.
The scheduler picks one per cycle (:meth:`NodeSearches.for_cycle`); plugins never know which runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import Diagnosis, PreFilterResult
from kubesched.runtime._batch_filter import BatchError, BatchFilter, nominated_overlay_exact
from kubesched.runtime._batch_score import score_batch
from kubesched.runtime._cycle_observer import CycleObserver
from kubesched.runtime._framework import Framework
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._scores import ScoreTable
from kubesched.runtime._snapshot import NodeSnapshot

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


class SearchError(Exception):
    """A plugin failed while nodes were searched or scored; ``status`` is its Error (already recorded)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (adaptive when ``percentage`` is 0)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


class NodeSearch(Protocol):
    """PreFilter, the search for feasible nodes and their scores, for one cycle's framework and pod."""

    #: ``"per-node"`` or ``"batch"``.
    path: str

    def pre_filter(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Run PreFilter over every node of the snapshot (``nodes``)."""

    def find_feasible(self, framework: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                      nodes: list[NodeInfo], start: int, to_find: int) -> tuple[list[NodeInfo], int]:
        """Try ``nodes`` from ``start`` (wrapping) until ``to_find`` pass Filter: (the feasible nodes in the order
        tried, how many rejections were recorded lazily beyond ``diagnosis``'s entries); rejections go to
        ``diagnosis``. Raises :class:`SearchError` when a plugin fails."""

    def prioritize(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                   observer: CycleObserver) -> ScoreTable:
        """PreScore, Score, NormalizeScore and the weights over the feasible ``nodes``. Raises
        :class:`SearchError` when a plugin fails."""


class PerNodeSearch:
    """Every plugin's per-node hooks, node by node: kube-scheduler's findNodesThatPassFilters and prioritizeNodes,
    sequentially. The reference the batch path is proven equal to."""

    path = "per-node"

    def __init__(self, nominator: Nominator) -> None:
        self._nominator = nominator

    def pre_filter(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Every PreFilter plugin's ``pre_filter`` over ``nodes``."""
        return framework.run_pre_filter_plugins(state, pod, nodes)

    def find_feasible(self, framework: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                      nodes: list[NodeInfo], start: int, to_find: int) -> tuple[list[NodeInfo], int]:
        """Filter each node in turn (with the nominated pods' two passes when any pod is nominated)."""
        count = len(nodes)
        if count == 0:
            return [], 0
        if not framework.has_filter_plugins():
            return [nodes[(start + i) % count] for i in range(min(to_find, count))], 0
        feasible: list[NodeInfo] = []
        # Without nominations the two-pass filter is a single pass: skip its wrapper on the hot path.
        run = (framework.run_filter_plugins_with_nominated_pods if self._nominator.has_nominations()
               else framework.run_filter_plugins)
        node_to_status = diagnosis.node_to_status
        for i in range(count):
            node_info = nodes[(start + i) % count]
            status = run(state, pod, node_info)
            if status is None:
                feasible.append(node_info)
                if len(feasible) >= to_find:
                    break
            elif status.code is Code.ERROR:
                raise SearchError(status)
            else:
                node_to_status.set(node_info.name, status)
                diagnosis.add_plugin_status(status)
        return feasible, 0

    def prioritize(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                   observer: CycleObserver) -> ScoreTable:
        """Every PreScore plugin's ``pre_score``, then each Score plugin node by node."""
        status = framework.scoring.pre_score(state, pod, nodes)
        if status is not None:
            raise SearchError(status)
        observer.score_skipped(state.skip_score_plugins)
        scores, status = framework.scoring.score(state, pod, nodes, observer.scored)
        if status is not None:
            raise SearchError(status)
        return scores


class BatchSearch:
    """The plugins' batch forms over the snapshot's columns, per-node hooks for plugins without one, under
    kube-scheduler's rules (see the module docstring and docs/performance.md)."""

    path = "batch"

    def __init__(self, snapshot: NodeSnapshot, nominator: Nominator, per_node: PerNodeSearch) -> None:
        self._snapshot = snapshot
        self._nominator = nominator
        self._per_node = per_node
        # The last feasible list found with the batch Filter and the nodes' snapshot positions, so scoring reads
        # the positions instead of looking every node up again.
        self._found: tuple[list[NodeInfo], IntArray] | None = None

    def pre_filter(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """``pre_filter_nodes`` where a plugin has it (over every node as a NodeBatch), else ``pre_filter``."""
        self._found = None
        return framework.run_pre_filter_plugins(state, pod, nodes, NodeBatch.of(nodes, self._snapshot.columns))

    def find_feasible(self, framework: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                      nodes: list[NodeInfo], start: int, to_find: int) -> tuple[list[NodeInfo], int]:
        """The batch Filter pass where some cycle filter has a batch form and two or more nodes are tried, else the
        per-node one."""
        batch_hooks = framework.batch_filter_hooks
        if len(nodes) < 2 or not batch_hooks or \
                not any(name in batch_hooks for name, _ in framework.cycle_filters(state)):
            return self._per_node.find_feasible(framework, state, pod, diagnosis, nodes, start, to_find)
        columns = self._snapshot.columns
        batch = NodeBatch.of(nodes, columns)
        full = batch.positions is columns.all_positions()
        index_of = columns.position if full else {ni.name: j for j, ni in enumerate(nodes)}
        already = [index_of[name] for name in diagnosis.node_to_status.recorded_names() if name in index_of]
        filters = framework.cycle_filters(state)
        runner = BatchFilter(framework, state, pod, batch, filters)
        special: dict[int, Callable[[NodeInfo], Status | None]] = {}
        nominator = self._nominator
        sums = nominator.nominated_sums(pod, columns) if nominator.has_nominations() else None
        if sums is not None:
            indexes = np.flatnonzero(batch.column(sums[1][0]))
        elif nominator.has_nominations():
            indexes = np.fromiter(self._relevant_nominated_nodes(pod, index_of), dtype=np.int64)
        else:
            indexes = np.zeros(0, dtype=np.int64)
        try:
            runner.run_batch_forms()
            if len(indexes) and not (sums is not None and nominated_overlay_exact(framework, state, filters)
                                     and runner.add_nominated_pods(indexes, sums[1], sums[0])):
                # Only nodes with nominated pods that count for this pod need the per-node two-pass filter.
                run = framework.run_filter_plugins_with_nominated_pods
                special = dict.fromkeys(indexes.tolist(), lambda info: run(state, pod, info))
            found, rejected = runner.find(start, to_find, diagnosis, special)
        except BatchError as error:
            raise SearchError(error.status) from None
        lazy = len(rejected) - sum(1 for j in already if bool((rejected == j).any()))
        positions = batch.positions[found]
        feasible = columns.infos_at(positions)
        self._found = (feasible, positions)
        return feasible, lazy

    def _relevant_nominated_nodes(self, pod: Pod, index_of: Mapping[str, int]) -> list[int]:
        """The batch indexes of the nodes where the two-pass filter adds pods for ``pod``: other pods of at least its
        priority are nominated there (the other nodes take the ordinary filter)."""
        priority, uid = pod.priority, pod.uid
        nominator = self._nominator
        found: list[int] = []
        for name in nominator.nominated_node_names():
            j = index_of.get(name)
            if j is not None and any(pi.pod.priority >= priority and pi.pod.uid != uid
                                     for pi in nominator.nominated_pods_for_node(name)):
                found.append(j)
        return found

    def prioritize(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                   observer: CycleObserver) -> ScoreTable:
        """``pre_score_nodes`` and ``score_nodes``/``normalize_scores`` where a plugin has them (over the feasible
        nodes as a NodeBatch), else the per-node hooks."""
        columns = self._snapshot.columns
        found = self._found
        batch = NodeBatch(nodes, found[1], columns) if found is not None and found[0] is nodes \
            else NodeBatch.of(nodes, columns)
        status = framework.scoring.pre_score(state, pod, nodes, batch)
        if status is not None:
            raise SearchError(status)
        if not framework.batch_score_hooks:
            scores, status = framework.scoring.score(state, pod, nodes)
            if status is not None:
                raise SearchError(status)
            return scores
        try:
            return score_batch(framework, state, pod, batch)
        except BatchError as error:
            raise SearchError(error.status) from None


class NodeSearches:
    """The two searches over one scheduler's snapshot, and the choice between them for a cycle."""

    def __init__(self, snapshot: NodeSnapshot, nominator: Nominator, *, batch: bool) -> None:
        self._snapshot = snapshot
        self.per_node = PerNodeSearch(nominator)
        #: The batch search, or None when the scheduler runs the per-node path only (``--reference``).
        self.batch = BatchSearch(snapshot, nominator, self.per_node) if batch else None

    def for_cycle(self, observer: CycleObserver) -> NodeSearch:
        """The search for this cycle: the batch one unless switched off, an observer needs every per-node verdict
        (explain), or the snapshot's amounts are too large for exact integer arrays."""
        if self.batch is None or observer.per_node or not self._snapshot.columns.exact:
            return self.per_node
        return self.batch

"""Reprieves by arithmetic: which lower-priority pods a preemptor would have to evict from a node when only
NodeResourcesFit's checks decide (the Evaluator's ``select_victims_on_node`` worked out on the node's resource sums),
with the answers kept per node (in the snapshot's columns' rows, and per node generation) while nothing they depend
on changes. The preemption accelerator's dry run asks these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.framework._columns import IntArray, NodeRows
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._resource import Resource
from kubesched.framework.preemption import (
    ORDER_RULES,
    PRIORITY_OFFSET,
    Candidate,
    DisruptionBudgets,
    Evaluator,
    earliest_start_of_top_priority,
)
from kubesched.framework.preemption._candidates import nanos, unix_nanos
from kubesched.runtime._columns import ColumnStore
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._snapshot import NodeSnapshot

# Prefix of the columns' pod-count indexes kept per preemptor priority and resource.
_LOWER_KEY = "kubesched.preemption.lower"
# Key of the columns' rows holding the reprieve answers per node, and the kinds of answer.
_REPRIEVE_KEY = "kubesched.preemption.reprieve"
ROW_NO_ROOM, ROW_CANDIDATE = 1, 2
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class Reprieves:
    """Reprieve answers over one snapshot, and the nominator's sums they count."""

    def __init__(self, snapshot: NodeSnapshot, nominator: Nominator) -> None:
        self._snapshot = snapshot
        self._nominator = nominator
        # The answers by node: (what they depend on, the answer); see cached.
        self._answers: dict[str, tuple[tuple[int, ...], tuple[tuple[Pod, ...], int] | None]] = {}

    @staticmethod
    def rows(evaluator: Evaluator, columns: ColumnStore, pod: Pod, request: Resource,
             budgets: DisruptionBudgets) -> NodeRows | None:
        """The columns' rows of this pod's reprieve answers (see :meth:`fill_row`), where an answer depends only on
        the node: no PDB and the reference victim order (``ORDER_RULES``); None otherwise."""
        if budgets.pdbs or not evaluator.keeps_reference(*ORDER_RULES):
            return None
        key = (_REPRIEVE_KEY, pod.priority, request.milli_cpu, request.memory, request.ephemeral_storage,
               request.is_zero())
        return columns.node_rows(key, 5)

    def fill_row(self, evaluator: Evaluator, rows: NodeRows, pod: Pod, request: Resource, node_info: NodeInfo,
                 at: int, budgets: DisruptionBudgets, now: datetime) -> None:
        """Work out the reprieve on a node without nominated pods into its row: (kind, then the default candidate
        scores of :meth:`_best_by_default_scores`) and the Candidate. Left unknown where the answer depends on more
        than the node (a lower-priority pod without a start time) or is no candidate for another reason."""
        priority = pod.priority
        if any(pi.pod.status.start_time is None for pi in node_info.pods if pi.pod.priority < priority):
            return
        found = self.by_resources(evaluator, pod, request, node_info, (), budgets)
        if found is None:
            rows.numbers[at, 0] = ROW_NO_ROOM
            rows.values[at] = None
        elif found[0]:
            victims = found[0]
            scores = (ROW_CANDIDATE, -victims[0].priority, -sum(v.priority + PRIORITY_OFFSET for v in victims),
                      -len(victims), nanos(earliest_start_of_top_priority(victims, now)))
            if not all(_INT64_MIN <= score <= _INT64_MAX for score in scores):
                return  # a start time past year 2262 (or a sum beyond int64): the per-node path compares it
            rows.numbers[at] = scores
            rows.values[at] = Candidate(node_info.name, victims, 0)
        else:
            return
        rows.known[at] = True

    def relevant_nominations(self, pod: Pod, columns: ColumnStore
                             ) -> tuple[Mapping[str, Sequence[PodInfo]], npt.NDArray[np.int64]]:
        """The pods nominated to each node that count for ``pod`` (other pods of at least its priority), and per
        node of ``columns`` their number, cpu, memory and ephemeral storage (rows 0-3)."""
        nominator = self._nominator
        extra = np.zeros((4, len(columns)), dtype=np.int64)
        found: dict[str, Sequence[PodInfo]] = {}
        if not nominator.has_nominations():
            return found, extra
        sums = nominator.nominated_sums(pod, columns)  # kept per priority, when the columns allow
        if sums is not None:
            return sums[0], sums[1][:4]
        names = nominator.nominated_node_names()
        priority, uid, position = pod.priority, pod.uid, columns.position
        rows: list[tuple[int, int, int, int, int]] = []
        for name in names:
            at = position.get(name)
            if at is None:
                continue
            relevant = [pi for pi in nominator.nominated_pods_for_node(name)
                        if pi.pod.uid != uid and pi.pod.priority >= priority]
            if not relevant:
                continue
            found[name] = relevant
            if len(relevant) == 1:
                used = relevant[0].requests
                rows.append((at, 1, used.milli_cpu, used.memory, used.ephemeral_storage))
            else:
                rows.append((at, len(relevant), sum(pi.requests.milli_cpu for pi in relevant),
                             sum(pi.requests.memory for pi in relevant),
                             sum(pi.requests.ephemeral_storage for pi in relevant)))
        if rows:
            table = np.array(rows, dtype=np.int64)
            extra[:, table[:, 0]] = table[:, 1:].T
        return found, extra

    @staticmethod
    def lower_priority_sums(columns: ColumnStore, priority: int) -> list[IntArray]:
        """Per node of ``columns``: how many pods of lower priority than ``priority`` it holds and the cpu, memory
        and ephemeral storage they request (one index of ``columns``, kept up to date incrementally)."""
        none = (0, 0, 0, 0)

        def below(pi: PodInfo) -> tuple[int, int, int, int]:
            if pi.pod.priority >= priority:
                return none
            used = pi.requests
            return 1, used.milli_cpu, used.memory, used.ephemeral_storage

        totals = columns.pod_totals((_LOWER_KEY, priority), below, 4)
        return [totals[:, 0], totals[:, 1], totals[:, 2], totals[:, 3]]

    def cached(self, evaluator: Evaluator, pod: Pod, request: Resource, node_info: NodeInfo,
               nominated: Sequence[PodInfo], budgets: DisruptionBudgets) -> tuple[tuple[Pod, ...], int] | None:
        """:meth:`by_resources`, remembered per node while the node's pods (its generation), the pod's
        priority and request and the nominated pods' sums stay the same. Only answers that depend on nothing else
        are kept: no PDB, the reference victim order (``ORDER_RULES``), every lower-priority pod with a start time."""
        if budgets.pdbs or not evaluator.keeps_reference(*ORDER_RULES):
            return self.by_resources(evaluator, pod, request, node_info, nominated, budgets)
        key: tuple[int, ...] = (node_info.generation, pod.priority, request.milli_cpu, request.memory,
                                request.ephemeral_storage, len(nominated),
                                sum(pi.requests.milli_cpu for pi in nominated),
                                sum(pi.requests.memory for pi in nominated),
                                sum(pi.requests.ephemeral_storage for pi in nominated)) if nominated else \
            (node_info.generation, pod.priority, request.milli_cpu, request.memory, request.ephemeral_storage)
        cache = self._answers
        hit = cache.get(node_info.name)
        if hit is not None and hit[0] == key:
            return hit[1]
        found = self.by_resources(evaluator, pod, request, node_info, nominated, budgets)
        priority = pod.priority
        if all(pi.pod.status.start_time is not None for pi in node_info.pods if pi.pod.priority < priority):
            if len(cache) > 2 * len(self._snapshot.columns) + 64:
                cache.clear()
            cache[node_info.name] = (key, found)
        return found

    def by_resources(self, evaluator: Evaluator, pod: Pod, request: Resource, node_info: NodeInfo,
                     nominated: Sequence[PodInfo], budgets: DisruptionBudgets) -> tuple[tuple[Pod, ...], int] | None:
        """The Evaluator's ``select_victims_on_node`` by arithmetic on NodeResourcesFit's checks, ``nominated`` (the
        higher-or-equal-priority pods nominated to the node) counted on it: (victims, PDB violations), or None
        when the pod does not fit even with every lower-priority pod gone."""
        priority = pod.priority
        potential = [pi for pi in node_info.pods if pi.pod.priority < priority]
        allocatable, requested = node_info.allocatable, node_info.requested
        pods = len(node_info.pods) - len(potential) + len(nominated)
        cpu, memory, storage = requested.milli_cpu, requested.memory, requested.ephemeral_storage
        for pi in nominated:
            cpu, memory, storage = cpu + pi.requests.milli_cpu, memory + pi.requests.memory, \
                storage + pi.requests.ephemeral_storage
        for pi in potential:
            cpu, memory, storage = cpu - pi.requests.milli_cpu, memory - pi.requests.memory, \
                storage - pi.requests.ephemeral_storage
        max_pods = allocatable.allowed_pod_number
        # NodeResourcesFit checks only the amounts the pod asks for (none but the pod count when it asks nothing);
        # an amount not asked for is checked against an unbounded capacity here.
        zero = request.is_zero()
        want_cpu, want_memory, want_storage = request.milli_cpu, request.memory, request.ephemeral_storage
        unbounded = 1 << 200
        cap_cpu = allocatable.milli_cpu - want_cpu if want_cpu > 0 and not zero else unbounded
        cap_memory = allocatable.memory - want_memory if want_memory > 0 and not zero else unbounded
        cap_storage = allocatable.ephemeral_storage - want_storage if want_storage > 0 and not zero else unbounded
        if not potential or pods >= max_pods or cpu > cap_cpu or memory > cap_memory or storage > cap_storage:
            return None
        _order_by_importance(evaluator, potential)
        victims: list[PodInfo] = []
        num_violations = 0
        if budgets.pdbs:
            by_uid = {pi.pod.uid: pi for pi in potential}
            violating, non_violating = budgets.split([pi.pod for pi in potential])
            groups = (([by_uid[p.uid] for p in violating], 1), ([by_uid[p.uid] for p in non_violating], 0))
        else:
            violating, non_violating = [], [pi.pod for pi in potential]
            groups = (([], 1), (potential, 0))
        for group, violates in groups:
            for pod_info in group:
                used = pod_info.requests
                if (pods + 1 < max_pods and cpu + used.milli_cpu <= cap_cpu and memory + used.memory <= cap_memory
                        and storage + used.ephemeral_storage <= cap_storage):
                    pods, cpu, memory, storage = (pods + 1, cpu + used.milli_cpu, memory + used.memory,
                                                  storage + used.ephemeral_storage)
                    continue
                victims.append(pod_info)
                num_violations += violates
        if violating and non_violating:
            _order_by_importance(evaluator, victims)
        return tuple(pi.pod for pi in victims), num_violations


def _order_by_importance(evaluator: Evaluator, pod_infos: list[PodInfo]) -> None:
    """The Evaluator's ``importance_order``, by a sort key when it and ``more_important_pod`` are the reference ones
    (the same order: priority, then start time with none counting as now)."""
    if not evaluator.keeps_reference(*ORDER_RULES):
        evaluator.importance_order(pod_infos)
        return
    if len(pod_infos) < 2:
        return
    now: list[int] = []

    def key(pi: PodInfo) -> tuple[int, int]:
        start = pi.pod.status.start_time
        if start is None:
            if not now:
                now.append(unix_nanos(evaluator.now()))
            return -pi.pod.priority, now[0]
        return -pi.pod.priority, nanos(start)

    pod_infos.sort(key=key)

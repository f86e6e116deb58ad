"""The runtime's preemption accelerator: the reference dry run's and choice's answers without Filter runs on node
copies, where resource arithmetic decides exactly as those runs would (see docs/performance.md, PreemptionBasic).

It stands in for a cycle only when every Filter plugin of the cycle declares what it reads: NodeResourcesFit (named
by the Evaluator's ``resource_shortcut``) declares ``FilterReads.RESOURCES`` and every other one
``FilterReads.NODE``, wherever it stands in the profile; no PreFilter AddPod/RemovePod extension runs; and the pod
asks for no extended or scalar resource. The Evaluator asks it only while it keeps the reference rules the
accelerator reproduces (``Evaluator.keeps_reference``). Answers are remembered in the snapshot's columns
(``NodeColumns.node_rows``, per node until it changes) and per node generation.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api.pod import Pod
from kubesched.api.resources import pod_requests
from kubesched.framework._columns import IntArray
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import FilterReads, declared_filter_reads
from kubesched.framework._resource import Resource
from kubesched.framework._status import Code, Status
from kubesched.framework._types import NodeToStatus
from kubesched.framework.preemption import (
    PRIORITY_OFFSET,
    Candidate,
    DisruptionBudgets,
    Evaluator,
    earliest_start_of_top_priority,
)
from kubesched.framework.preemption._candidates import nanos
from kubesched.framework.preemption._evaluator import aggregate
from kubesched.runtime._columns import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, PickedNodes
from kubesched.runtime._dry_run_tally import PassedOver
from kubesched.runtime._failures import Hook
from kubesched.runtime._framework import Framework
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._reprieve import ROW_CANDIDATE, Reprieves
from kubesched.runtime._snapshot import NodeSnapshot
from kubesched.runtime._statuses import CodeColumns, DeferredNodeToStatus

#: The PreFilter extensions a dry run calls; the arithmetic needs every one of them skipped or absent.
DRY_RUN_EXTENSION_HOOKS = ("pre_filter_add_pod", "pre_filter_remove_pod")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_name_of = operator.attrgetter("name")


def dry_run_reads(*, fit: bool) -> FilterReads:
    """The ``filter_reads`` declaration a Filter plugin of the cycle needs for the dry run by arithmetic: RESOURCES
    for the fit plugin the Evaluator's resource shortcut names (the arithmetic repeats its checks), NODE for every
    other one (its verdict ignores the pods that leave or join the node)."""
    return FilterReads.RESOURCES if fit else FilterReads.NODE


@attrs.frozen
class DryRunShortcut:
    """What a cycle's dry run by arithmetic needs: the pod's request, the fit plugin's name, and the Filter plugins
    after it (NODE-declared) whose verdict on a node NodeResourcesFit rejected is still to be read."""

    request: Resource
    fit_name: str
    after: tuple[tuple[str, Hook], ...]


class ResourceAccelerator:
    """A :class:`~kubesched.framework.PreemptionAccelerator` over one framework's snapshot and nominator."""

    def __init__(self, framework: Framework, snapshot: NodeSnapshot, nominator: Nominator) -> None:
        self._framework = framework
        self._snapshot = snapshot
        self._nominator = nominator
        # Default candidate scores (violations aside) of victim tuples, by identity; see _best_by_default_scores.
        self._victim_scores: dict[int, tuple[tuple[Pod, ...], tuple[int, int, int, int]]] = {}
        # The potential nodes of the current preemption with their column positions and the statuses' code columns.
        self._potential: tuple[PickedNodes, IntArray, CodeColumns] | None = None
        # The last dry run's candidates as returned and their default scores (rows of _fill_row), for the choice.
        self._scored: tuple[tuple[Candidate, ...], IntArray] | None = None
        self._reprieve = Reprieves(snapshot, nominator)

    # -- the protocol --------------------------------------------------------------------------------
    def potential_nodes(self, evaluator: Evaluator, all_nodes: Sequence[NodeInfo],
                        node_to_status: NodeToStatus) -> Sequence[NodeInfo] | None:
        """The Unschedulable nodes of ``all_nodes`` (the snapshot's own list) read from the statuses' codes by column
        position, without a name lookup per node; None where that does not apply. Starts a preemption: what the
        last one remembered is dropped, the positions kept for the dry run."""
        self._potential = None
        self._scored = None
        columns = self._snapshot.columns
        if not columns.exact or all_nodes is not columns.infos:
            return None
        if not isinstance(node_to_status, DeferredNodeToStatus):
            return None
        table = node_to_status.code_columns(columns.position, len(columns))
        if table is None:
            return None
        positions = np.flatnonzero(table[0] == int(Code.UNSCHEDULABLE))
        potential = PickedNodes(all_nodes, positions)
        self._potential = (potential, positions, table)
        return potential

    def dry_run(self, evaluator: Evaluator, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                budgets: DisruptionBudgets, offset: int, num_candidates: int, node_to_status: NodeToStatus,
                ) -> tuple[list[Candidate], NodeToStatus, Status | None] | None:
        """The reference dry run's answer by arithmetic, or None when :meth:`shortcut_request` refuses the cycle."""
        self._scored = None
        shortcut = self.shortcut_request(evaluator, state, pod)
        if shortcut is None:
            return None
        return self._dry_run_by_resources(evaluator, state, pod, shortcut, potential_nodes, budgets, offset,
                                          num_candidates, node_to_status)

    def select_candidate(self, evaluator: Evaluator, candidates: Sequence[Candidate]) -> Candidate | None:
        """The default criteria's pick: from the dry run's remembered scores when ``candidates`` is the very list it
        returned, else by comparing score tuples; None (the reference decides) when a candidate has no victims."""
        scored = self._scored
        if scored is not None and len(candidates) == len(scored[0]) \
                and all(map(operator.is_, candidates, scored[0])):  # the candidates the dry run returned, in order
            return scored[0][_first_best_row(scored[1])]
        victims_map = {c.name: c for c in candidates}
        if not all(c.victims for c in victims_map.values()):
            return None
        return self._best_by_default_scores(victims_map, evaluator.now())

    # -- which cycles --------------------------------------------------------------------------------
    def shortcut_request(self, evaluator: Evaluator, state: CycleState, pod: Pod) -> DryRunShortcut | None:
        """What the arithmetic needs for this cycle, when only NodeResourcesFit can change the pod's verdict as pods
        leave or join a node; None when the dry run must run Filter on node copies.

        Conservative: the Evaluator names the fit plugin, this cycle's Filter plugins declare what they read
        (NodeResourcesFit ``RESOURCES``, every other one ``NODE``), no PreFilter AddPod/RemovePod extension runs,
        and the pod requests no extended or scalar resource."""
        rule = evaluator.resource_shortcut
        if rule is None:
            return None
        framework = self._framework
        filters = framework.cycle_filters(state)
        if sum(1 for name, _hook in filters if name == rule.fit_name) != 1:
            return None
        after: list[tuple[str, Hook]] = []
        seen_fit = False
        for name, hook in filters:
            fit = name == rule.fit_name
            if declared_filter_reads(framework.plugins.get(name)) != dry_run_reads(fit=fit):
                return None
            if fit:
                seen_fit = True
            elif seen_fit:
                after.append((name, hook))
        skipped = state.skip_filter_plugins
        if any(name not in skipped for hook in DRY_RUN_EXTENSION_HOOKS for name in framework.plugins_at(hook)):
            return None
        request = Resource.from_amounts(pod_requests(pod))
        if any(request.scalar_resources.values()):
            return None
        return DryRunShortcut(request, rule.fit_name, tuple(after))

    def _check_after(self, after: Sequence[tuple[str, Hook]], state: CycleState, pod: Pod,
                     window: Sequence[NodeInfo], start: int, wanted: npt.NDArray[np.bool_],
                     by_fit: npt.NDArray[np.bool_]) -> None:
        """Clear ``by_fit`` where a Filter plugin after NodeResourcesFit rejects the node (at chunk indexes ``wanted``
        only: the nodes that could become candidates). Those plugins read only the Node object, so their verdict
        holds with the victims gone; such a node then takes the Evaluator's own dry run, which words its status."""
        run = self._framework.run_filters
        for j in np.flatnonzero(wanted).tolist():
            if run(after, state, pod, window[start + j]) is not None:
                by_fit[j] = False

    # -- the dry run by arithmetic -------------------------------------------------------------------
    def _dry_run_by_resources(self, evaluator: Evaluator, state: CycleState, pod: Pod, shortcut: DryRunShortcut,
                              potential_nodes: Sequence[NodeInfo], budgets: DisruptionBudgets, offset: int,
                              num_candidates: int, node_to_status: NodeToStatus,
                              ) -> tuple[list[Candidate], NodeToStatus, Status | None] | None:
        """The reference dry run for a pod :meth:`shortcut_request` accepted, or None when the snapshot's columns
        cannot serve it. The nodes are taken in chunks, in the dry run's order: nodes where the pod cannot fit even
        without every lower-priority pod are found in bulk and their statuses built only when read; the others are
        reprieved by arithmetic. A node whose Filter rejection did not come from NodeResourcesFit, or that a Filter
        plugin after NodeResourcesFit rejects, takes the Evaluator's ``select_victims_on_node``."""
        request = shortcut.request
        columns = self._snapshot.columns
        count = len(potential_nodes)
        self._scored = None
        if not columns.exact:
            return None
        position = columns.position
        lower = self._reprieve.lower_priority_sums(columns, pod.priority)
        # NodeResourcesFit checks only the amounts the pod asks for (none but the pod count when it asks nothing).
        checks = [(k, amount, columns.allocatable[name], columns.requested[name], lower[k])
                  for k, amount, name in ((1, request.milli_cpu, CPU), (2, request.memory, MEMORY),
                                          (3, request.ephemeral_storage, EPHEMERAL_STORAGE))
                  if amount > 0 and not request.is_zero()]
        fit_name = shortcut.fit_name
        fit_entry = (Code.UNSCHEDULABLE, fit_name)  # what NodeToStatus.codes holds for a NodeResourcesFit rejection
        known_potential = self._potential
        window_positions: IntArray | None = None
        fit_rejected: npt.NDArray[np.bool_] | None = None
        codes: Mapping[str, tuple[Code, str]] = {}
        window: Sequence[NodeInfo]
        if known_potential is not None and known_potential[0] is potential_nodes:
            positions_all, (code_column, plugin_column, plugin_names) = known_potential[1], known_potential[2]
            window_positions = np.concatenate((positions_all[offset:], positions_all[:offset]))
            window = PickedNodes(known_potential[0].infos, window_positions)  # the same order, read in one step
            fit_ids = [k for k, name in enumerate(plugin_names) if name == fit_name]
            by_plugin = plugin_column == fit_ids[0] if len(fit_ids) == 1 else np.isin(plugin_column, fit_ids)
            fit_rejected = (code_column == int(Code.UNSCHEDULABLE)) & by_plugin
        else:
            codes = node_to_status.codes()
            window = _rotated(potential_nodes, offset)
        # Pods nominated to a node with at least the pod's priority count on it in both Filter passes.
        nominated, extra = self._reprieve.relevant_nominations(pod, columns)
        rows = self._reprieve.rows(evaluator, columns, pod, request, budgets)
        now = evaluator.now() if rows is not None else _EPOCH
        nominated_here = extra[0]
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        known: dict[int, Status] = {}
        candidates: set[int] = set()
        # The candidates' column positions while every one came from a row (their scores are the rows' then).
        picked: list[int] | None = [] if rows is not None else None
        errors: list[Status] = []
        stop = count
        victims: Sequence[Pod]
        success = Status.success()
        chunk = max(2 * num_candidates, 64)
        passed_over = PassedOver.of(columns)
        for start in range(0, count, chunk):
            if window_positions is not None and fit_rejected is not None:
                positions = window_positions[start:start + chunk]
                by_fit = fit_rejected[positions]
            else:
                part = window[start:start + chunk]
                names = list(map(_name_of, part))
                try:
                    positions = np.fromiter(map(position.__getitem__, names), dtype=np.int64, count=len(part))
                except KeyError:
                    return None
                by_fit = np.fromiter(map(operator.eq, map(codes.get, names), itertools.repeat(fit_entry)),
                                     dtype=bool, count=len(part))
            removable = lower[0][positions]
            fits = columns.pod_count[positions] - removable + extra[0][positions] + 1 <= \
                columns.allocatable[PODS][positions]
            for k, amount, allocatable, requested, freed in checks:
                used = requested[positions] - freed[positions] + extra[k][positions]
                fits &= amount <= allocatable[positions] - used
            if shortcut.after:  # the NODE-declared plugins after NodeResourcesFit never ran where it rejected
                self._check_after(shortcut.after, state, pod, window, start, by_fit & fits & (removable > 0), by_fit)
            # Visit the nodes where removing the lower-priority pods may make room (nominated pods aside), and
            # those whose rejection the shortcut does not cover; the others fail as they are.
            visiting = (fits & (removable > 0)) | ~by_fit
            if passed_over is not None:
                passed_over.add(~visiting, positions, lower, extra)
            visit = np.flatnonzero(visiting)
            if rows is not None and picked is not None and len(visit):
                at = positions[visit]
                tabled = by_fit[visit] & (nominated_here[at] == 0)
                for j in visit[tabled & ~rows.known[at]].tolist():
                    self._reprieve.fill_row(evaluator, rows, pod, request, window[start + j], int(positions[j]),
                                            budgets, now)
                if tabled.all() and rows.known[at].all():
                    # Every node to visit has its answer in a row: take the chunk's candidates at once.
                    found = visit[rows.numbers[at, 0] == ROW_CANDIDATE]
                    need = num_candidates - len(non_violating)
                    taken = found[:need]
                    taken_at = positions[taken].tolist()
                    non_violating.extend(map(rows.values.__getitem__, taken_at))
                    candidates.update((taken + start).tolist())
                    picked.extend(taken_at)
                    if len(taken) == need:
                        stop = start + int(taken[-1]) + 1
                        break
                    continue
            for j in visit.tolist():
                i = start + j
                node_info = window[i]
                at_j = int(positions[j])
                if by_fit[j]:
                    if rows is not None and rows.known[at_j] and not nominated_here[at_j]:
                        if rows.numbers[at_j, 0] != ROW_CANDIDATE:
                            continue  # no room: a lazily built status
                        candidates.add(i)
                        non_violating.append(rows.values[at_j])
                        if picked is not None:
                            picked.append(at_j)
                        if len(non_violating) >= num_candidates:
                            stop = i + 1
                            break
                        continue
                    found_here = self._reprieve.cached(evaluator, pod, request, node_info,
                                                       nominated.get(node_info.name, ()), budgets)
                    if found_here is None:
                        continue  # no room with the nominated pods counted: a lazily built status
                    victims, num_violations = found_here
                    status = success
                else:
                    victims, num_violations, status = evaluator.select_victims_on_node(state.clone(), pod,
                                                                                       node_info.clone(), budgets)
                if status.is_success() and victims:
                    candidates.add(i)
                    picked = None
                    kind = non_violating if num_violations == 0 else violating
                    if len(kind) < num_candidates:
                        kind.append(Candidate(node_info.name, tuple(victims), num_violations))
                    if non_violating and len(non_violating) + len(violating) >= num_candidates:
                        stop = i + 1
                        break
                    continue
                if status.is_success():
                    status = Status.as_error(f'expected at least one victim pod on node "{node_info.name}"')
                if status.code is Code.ERROR:
                    errors.append(status)
                known[i] = status
            if stop < count:
                break
        out = DeferredNodeToStatus()
        if stop > len(candidates):
            saved = state.clone()

            def status_at(j: int) -> Status:
                return evaluator.select_victims_on_node(saved.clone(), pod, window[j].clone(), budgets)[2]

            def fill() -> Iterator[tuple[str, Status]]:
                for j in range(stop):
                    if j in candidates:
                        continue
                    status = known.get(j)
                    yield window[j].name, status if status is not None else status_at(j)

            out.defer(fill, reasons=None if passed_over is None else
                      lambda: passed_over.tally(stop, candidates, known, status_at))
        result = non_violating + violating
        if rows is not None and picked is not None and len(result) > 1:
            self._scored = (tuple(result), rows.numbers[np.array(picked, dtype=np.int64), 1:])
        return result, out, aggregate(errors)

    # -- the choice --------------------------------------------------------------------------------
    def _best_by_default_scores(self, victims_map: Mapping[str, Candidate], now: datetime) -> Candidate:
        """What :func:`pick_one_node_for_preemption` picks with :meth:`default_score_funcs`: narrowing by each
        score in turn keeps the candidates whose scores are the largest tuple, and the first of them wins."""
        best: Candidate | None = None
        best_score = (0, 0, 0, 0, 0)
        memo = self._victim_scores
        if len(memo) > 4 * len(self._snapshot.columns) + 256:
            memo.clear()
        for candidate in victims_map.values():
            victims = candidate.victims
            known = memo.get(id(victims))
            if known is not None and known[0] is victims:
                rest = known[1]
            else:
                rest = (-victims[0].priority, -sum(v.priority + PRIORITY_OFFSET for v in victims), -len(victims),
                        nanos(earliest_start_of_top_priority(victims, now)))
                if all(v.status.start_time is not None for v in victims):  # else it depends on now
                    memo[id(victims)] = (victims, rest)
            score = (-candidate.num_pdb_violations, *rest)
            if best is None or score > best_score:
                best, best_score = candidate, score
        return best if best is not None else next(iter(victims_map.values()))


def _rotated(nodes: Sequence[NodeInfo], offset: int) -> PickedNodes:
    """``nodes`` read from ``offset`` on, wrapping around: the dry run's order, without copying the list."""
    count = len(nodes)
    return PickedNodes(nodes, (np.arange(count, dtype=np.int64) + offset) % max(count, 1))


def _first_best_row(scores: IntArray) -> int:
    """The first row whose scores are the largest, compared column by column (pickOneNodeForPreemption's narrowing
    over score arrays)."""
    remaining = np.arange(len(scores))
    for k in range(scores.shape[1]):
        column = scores[remaining, k]
        remaining = remaining[column == column.max()]
        if len(remaining) == 1:
            break
    return int(remaining[0])

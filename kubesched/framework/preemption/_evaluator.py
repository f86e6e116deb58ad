"""The preemption Evaluator: kube-scheduler's framework/preemption, with the synchronous prepareCandidate.

``preempt`` checks that the pod may preempt, dry-runs victim selection on the nodes that Filter found
Unschedulable (a window starting at a random offset), picks the best candidate node, deletes its victims and
returns the nomination. Third-party preemption plugins subclass :class:`Evaluator` and override its hooks
(``pod_eligible_to_preempt_others``, ``is_eligible_pod``, ``more_important_pod``, ``ordered_score_funcs``,
``get_offset_and_num_candidates``, ``select_victims_on_node``), as plugins override the Go Evaluator's Interface.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api.pod import PREEMPT_NEVER, Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.resources import pod_requests
from kubesched.backend import DeletionError
from kubesched.framework._columns import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    IntArray,
    NodeColumns,
    NodeRows,
    PickedNodes,
)
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import Handle
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import FilterReads, declared_filter_reads
from kubesched.framework._resource import Resource
from kubesched.framework._status import Code, Status, is_success
from kubesched.framework._types import CodeColumns, Diagnosis, FitError, NodeToStatus, PostFilterResult
from kubesched.framework.preemption._accelerator import ResourceShortcut
from kubesched.framework.preemption._pdb import disruptions_allowed, filter_pods_with_pdb_violation

NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS_FOUND = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_CANDIDATE = "no candidate node for preemption"
NO_NODES_AVAILABLE = "no nodes available"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
# What a victim waiting on Permit is rejected with.
PREEMPTED = "preempted"
# pickOneNodeForPreemption adds MaxInt32+1 to each priority so that sums of negative priorities compare sanely.
PRIORITY_OFFSET = 2**31
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: A node score for picking among candidates: the highest wins, ties go to the next function.
ScoreFunc = Callable[[str], int]
# The PreFilter extensions a dry run calls; the resource shortcut needs every one of them skipped or absent.
_EXTENSION_HOOKS = ("pre_filter_add_pod", "pre_filter_remove_pod")
# Prefix of the NodeColumns pod-count indexes the shortcut keeps (per preemptor priority and resource).
_LOWER_KEY = "kubesched.preemption.lower"
# Key of the NodeColumns rows holding the shortcut's reprieve answers per node, and the kinds of answer.
_REPRIEVE_KEY = "kubesched.preemption.reprieve"
_ROW_NO_ROOM, _ROW_CANDIDATE = 1, 2
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_name_of = operator.attrgetter("name")


@attrs.frozen
class Candidate:
    """A node where the preemptor fits once ``victims`` are gone; ``num_pdb_violations`` of them break a PDB."""

    name: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int = 0


@attrs.frozen
class CandidateChoice:
    """The candidates a preemption considered, the one it chose, and why each other one lost (for explain)."""

    candidates: tuple[Candidate, ...]
    chosen: Candidate | None
    #: Per losing candidate's node, the tie-break criterion it lost on.
    lost: Mapping[str, str]


#: Why a candidate lost at each of kube-scheduler's default criteria (see :meth:`Evaluator.default_score_funcs`).
_LOST_AT = {
    "fewest_violations": "more PDB violations",
    "lowest_top_priority": "higher highest victim priority",
    "smallest_priority_sum": "larger sum of victim priorities",
    "fewest_victims": "more victims",
    "latest_start": "earlier start of its highest-priority victims",
}
TIED_ON_EVERY_CRITERION = "tied on every criterion; the first candidate in dry-run order wins"


@attrs.frozen
class DisruptionBudgets:
    """The PDBs and the disruptions each still allows, worked out once per preemption attempt."""

    pdbs: tuple[PodDisruptionBudget, ...] = ()
    allowed: tuple[int, ...] = ()

    @classmethod
    def of(cls, pdbs: Iterable[PodDisruptionBudget], pods: Sequence[Pod]) -> DisruptionBudgets:
        """Budgets from status.disruptionsAllowed, or computed from ``pods`` when the status lacks it."""
        pdbs = tuple(pdbs)
        return cls(pdbs, tuple(disruptions_allowed(pdb, pods) for pdb in pdbs))

    def split(self, pods: Sequence[Pod]) -> tuple[list[Pod], list[Pod]]:
        """(violating, non-violating) pods, each in the given order (filterPodsWithPDBViolation)."""
        return filter_pods_with_pdb_violation(pods, self.pdbs, self.allowed)


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Whether the pod is terminating because a scheduler preempted it (DisruptionTarget/PreemptionByScheduler)."""
    if pod.metadata.deletion_timestamp is None:
        return False
    for condition in pod.status.conditions:
        if condition.type == DISRUPTION_TARGET:
            return condition.status == "True" and condition.reason == REASON_PREEMPTION_BY_SCHEDULER
    return False


def unix_nanos(when: datetime) -> int:
    """A time as integer nanoseconds since the Unix epoch (naive times count as UTC), like Go's UnixNano."""
    aware = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return ((aware - _EPOCH) // timedelta(microseconds=1)) * 1000


_NANOS: dict[datetime, int] = {}


def _nanos(when: datetime) -> int:
    """:func:`unix_nanos`, remembered per instant (start times repeat across many comparisons)."""
    value = _NANOS.get(when)
    if value is None:
        if len(_NANOS) >= 1 << 16:
            _NANOS.clear()
        value = _NANOS[when] = unix_nanos(when)
    return value


def _aggregate(errors: Sequence[Status]) -> Status | None:
    """One Error for several, worded as Go's utilerrors aggregate: one message, or "[a, b]" without repeats."""
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    messages = list(dict.fromkeys(e.message() for e in errors))
    return Status.as_error(messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")


class Evaluator:
    """Runs preemption for one plugin: candidates by dry run, the best candidate, then its victims' deletion."""

    #: Whether the dry run may use :attr:`resource_shortcut`; False runs every node through
    #: :meth:`select_victims_on_node` (the reference path, also taken when the handle's ``fast_path`` is False).
    fast_dry_run: bool = True
    #: Set by DefaultPreemption for the built-in Filter plugins; None: never take the shortcut.
    resource_shortcut: ResourceShortcut | None = None

    def __init__(self, plugin_name: str, handle: Handle, *, min_candidate_nodes_percentage: int = 10,
                 min_candidate_nodes_absolute: int = 100) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.min_candidate_nodes_percentage = min_candidate_nodes_percentage
        self.min_candidate_nodes_absolute = min_candidate_nodes_absolute
        # Default candidate scores (violations aside) of victim tuples, by identity; see _best_by_default_scores.
        self._victim_scores: dict[int, tuple[tuple[Pod, ...], tuple[int, int, int, int]]] = {}
        # The potential nodes of the current preemption with their column positions and the statuses' code columns.
        self._potential: tuple[PickedNodes, IntArray, CodeColumns] | None = None
        # The last dry run's candidates as returned and their default scores (rows of _fill_row), for
        # select_candidate.
        self._scored: tuple[tuple[Candidate, ...], IntArray] | None = None
        # The shortcut's reprieves by node: (what they depend on, the answer); see _cached_reprieve.
        self._reprieves: dict[str, tuple[tuple[int, ...], tuple[tuple[Pod, ...], int] | None]] = {}

    # -- hooks ---------------------------------------------------------------------------------------
    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        """(False, why) for preemptionPolicy Never, or while an earlier victim still terminates on the nominated
        node (unless that node is now UnschedulableAndUnresolvable); else (True, ""). A None status is Success, as
        kube-scheduler's nil status."""
        if pod.spec.preemption_policy == PREEMPT_NEVER:
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.status.nominated_node_name
        if nominated:
            if nominated_node_status is not None and nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot.get(nominated)
            if node_info is not None:
                for pod_info in node_info.pods:
                    if self.is_preemption_allowed(node_info, pod_info, pod) and \
                            pod_terminating_by_preemption(pod_info.pod):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    def is_eligible_pod(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """Extra victim filtering on top of "lower priority" (kube v1.35's IsEligiblePod); allows every pod."""
        return True

    def more_important_pod(self, a: Pod, b: Pod) -> bool:
        """Whether ``a`` is more important than ``b``: higher priority, then earlier start (no start time = now)."""
        if a.priority != b.priority:
            return a.priority > b.priority
        start_a, start_b = a.status.start_time, b.status.start_time
        if start_a is None and start_b is None:
            return False
        if start_a is None or start_b is None:
            now = self.now()
            start_a, start_b = start_a or now, start_b or now
        return unix_nanos(start_a) < unix_nanos(start_b)

    def ordered_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc] | None:
        """Score functions for picking the candidate node, applied in turn to break ties; None (or empty) means
        the default sequence of :meth:`default_score_funcs`."""
        return None

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start in the potential nodes (the seeded RNG) and how many candidates to look for."""
        return self.handle.rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """max(num_nodes * percentage // 100, absolute), at most ``num_nodes``."""
        count = max(num_nodes * self.min_candidate_nodes_percentage // 100, self.min_candidate_nodes_absolute)
        return min(count, num_nodes)

    # -- Preempt -------------------------------------------------------------------------------------
    def preempt(self, state: CycleState, pod: Pod,
                node_to_status: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """(nominate(node), Success) after evicting victims; (nominate(""), Unschedulable) when no node can help;
        (None, Unschedulable or Error) to leave the nomination as it is."""
        current = self.handle.client.get_pod(pod.namespace, pod.name)
        if current is None:
            return None, Status.as_error(f'pod "{pod.name}" not found')
        pod = current
        eligible, message = self.pod_eligible_to_preempt_others(pod, node_to_status.get(pod.status.nominated_node_name))
        if not eligible:
            return None, Status.unschedulable(message)
        all_nodes = self.handle.snapshot.list()
        candidates, statuses, error = self.find_candidates(state, all_nodes, pod, node_to_status)
        if error is not None and not candidates:
            return None, error
        if not candidates:
            statuses.absent_nodes_status = Status.unresolvable(NOT_HELPFUL)
            fit_error = FitError(pod, len(all_nodes), Diagnosis(statuses))
            return PostFilterResult.nominate(""), Status.unschedulable(str(fit_error))
        best = self.select_candidate(candidates)
        observer = getattr(self.handle, "preemption_observer", None)  # set only while explain records the pod
        if observer is not None:
            observer(CandidateChoice(tuple(candidates), best, self.tie_break_reasons(candidates, best)))
        if best is None or not best.name:
            return None, Status.unschedulable(NO_CANDIDATE)
        status = self.prepare_candidate(best, pod)
        if not status.is_success():
            return None, status
        return PostFilterResult.nominate(best.name), Status.success()

    def find_candidates(self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod,
                        node_to_status: NodeToStatus) -> tuple[list[Candidate], NodeToStatus, Status | None]:
        """Dry-run preemption on the nodes Filter found Unschedulable (never UnschedulableAndUnresolvable): the
        candidates, the statuses of nodes that cannot become one, and the aggregated Error if any."""
        self._scored = None
        if not all_nodes:
            return [], NodeToStatus(), Status.as_error(NO_NODES_AVAILABLE)
        potential = self._potential_by_position(all_nodes, node_to_status)
        if potential is None:
            potential = node_to_status.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
        if not potential:
            return [], NodeToStatus(), None
        pdbs = list(self.handle.client.list_pdbs())
        # The running pods matter only to a PDB whose status lacks disruptionsAllowed.
        running = [pod_info.pod for node_info in all_nodes for pod_info in node_info.pods] \
            if any(pdb.status.disruptions_allowed is None for pdb in pdbs) else []
        budgets = DisruptionBudgets.of(pdbs, running)
        offset, num_candidates = self.get_offset_and_num_candidates(len(potential))
        if type(self).dry_run_preemption is Evaluator.dry_run_preemption:
            return self.dry_run_preemption(state, pod, potential, budgets, offset, num_candidates,
                                           node_to_status=node_to_status)
        return self.dry_run_preemption(state, pod, potential, budgets, offset, num_candidates)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                           budgets: DisruptionBudgets, offset: int, num_candidates: int, *,
                           node_to_status: NodeToStatus | None = None,
                           ) -> tuple[list[Candidate], NodeToStatus, Status | None]:
        """Select victims on copies of each node from ``offset`` on (wrapping); stop at ``num_candidates`` with one
        violating no PDB. Non-violating candidates first, each kind capped and in the order tried.

        Given the Filter statuses the nodes got (``node_to_status``) and a pod :meth:`shortcut_request` accepts, the
        same answer is worked out by resource arithmetic (:meth:`_dry_run_by_resources`)."""
        if node_to_status is not None and potential_nodes:
            request = self.shortcut_request(state, pod)
            if request is not None:
                outcome = self._dry_run_by_resources(state, pod, request, potential_nodes, budgets, offset,
                                                     num_candidates, node_to_status)
                if outcome is not None:
                    return outcome
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        errors: list[Status] = []
        count = len(potential_nodes)
        for i in range(count):
            node_info = potential_nodes[(offset + i) % count].clone()
            victims, num_violations, status = self.select_victims_on_node(state.clone(), pod, node_info, budgets)
            if status.is_success() and victims:
                found = non_violating if num_violations == 0 else violating
                if len(found) < num_candidates:
                    found.append(Candidate(node_info.name, tuple(victims), num_violations))
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if status.is_success():
                status = Status.as_error(f'expected at least one victim pod on node "{node_info.name}"')
            if status.code is Code.ERROR:
                errors.append(status)
            statuses.set(node_info.name, status)
        return non_violating + violating, statuses, _aggregate(errors)

    def _potential_by_position(self, all_nodes: Sequence[NodeInfo], node_to_status: NodeToStatus
                               ) -> Sequence[NodeInfo] | None:
        """The Unschedulable nodes of ``all_nodes`` (the snapshot's columns' own list) read from the statuses' codes
        by column position, without a name lookup per node; None where that does not apply. Remembers the
        positions for :meth:`_dry_run_by_resources`."""
        self._potential = None
        if not self.fast_dry_run or getattr(self.handle, "fast_path", True) is False:
            return None
        columns = self.handle.snapshot.columns
        if not columns.exact or all_nodes is not columns.infos:
            return None
        table = node_to_status.code_columns(columns.position, len(columns))
        if table is None:
            return None
        positions = np.flatnonzero(table[0] == int(Code.UNSCHEDULABLE))
        potential = PickedNodes(all_nodes, positions)
        self._potential = (potential, positions, table)
        return potential

    # -- the resource shortcut of the dry run ---------------------------------------------------------
    def shortcut_request(self, state: CycleState, pod: Pod) -> Resource | None:
        """The pod's request when only NodeResourcesFit can change its verdict as pods leave or join a node, so
        the dry run may decide by arithmetic; None when it must run Filter on node copies.

        Conservative: the switches are on, the hooks the shortcut replaces are not overridden, this cycle's Filter
        plugins declare they read only the Node object (or are :attr:`resource_shortcut`'s pod-independent ones,
        exact classes) and are followed by NodeResourcesFit (exact class),
        no PreFilter AddPod/RemovePod extension runs, and the pod requests no extended or scalar resource."""
        shortcut = self.resource_shortcut
        handle = self.handle
        if shortcut is None or not self.fast_dry_run or getattr(handle, "fast_path", True) is False:
            return None
        cls = type(self)
        if (cls.select_victims_on_node is not Evaluator.select_victims_on_node
                or cls.is_eligible_pod is not Evaluator.is_eligible_pod
                or cls.is_preemption_allowed is not Evaluator.is_preemption_allowed):
            return None
        cycle_filters = getattr(handle, "cycle_filters", None)
        plugins_at = getattr(handle, "plugins_at", None)
        plugins = getattr(handle, "plugins", None)
        if not callable(cycle_filters) or not callable(plugins_at) or not isinstance(plugins, Mapping):
            return None
        names = [name for name, _hook in cycle_filters(state)]
        if names.count(shortcut.fit_name) != 1 or names[-1] != shortcut.fit_name:
            return None
        for name in names:
            plugin = plugins.get(name)
            wanted = FilterReads.RESOURCES if name == shortcut.fit_name else FilterReads.NODE
            if declared_filter_reads(plugin) != wanted:
                return None
        skipped = state.skip_filter_plugins
        if any(name not in skipped for hook in _EXTENSION_HOOKS for name in plugins_at(hook)):
            return None
        request = Resource.from_amounts(pod_requests(pod))
        if any(request.scalar_resources.values()):
            return None
        return request

    def _dry_run_by_resources(self, state: CycleState, pod: Pod, request: Resource,
                              potential_nodes: Sequence[NodeInfo], budgets: DisruptionBudgets, offset: int,
                              num_candidates: int, node_to_status: NodeToStatus,
                              ) -> tuple[list[Candidate], NodeToStatus, Status | None] | None:
        """:meth:`dry_run_preemption` for a pod :meth:`shortcut_request` accepted, or None when the snapshot's
        columns cannot serve it. The nodes are taken in chunks, in the dry run's order: nodes where the pod cannot
        fit even without every lower-priority pod are found in bulk and their statuses built only when read; the
        others are reprieved by arithmetic. A node whose Filter rejection did not come from NodeResourcesFit
        takes :meth:`select_victims_on_node`."""
        columns = self.handle.snapshot.columns
        count = len(potential_nodes)
        self._scored = None
        if not columns.exact:
            return None
        position = columns.position
        lower = self._lower_priority_sums(columns, pod.priority)
        # NodeResourcesFit checks only the amounts the pod asks for (none but the pod count when it asks nothing).
        checks = [(k, amount, columns.allocatable[name], columns.requested[name], lower[k])
                  for k, amount, name in ((1, request.milli_cpu, CPU), (2, request.memory, MEMORY),
                                          (3, request.ephemeral_storage, EPHEMERAL_STORAGE))
                  if amount > 0 and not request.is_zero()]
        fit_name = self.resource_shortcut.fit_name if self.resource_shortcut is not None else ""
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
        nominated, extra = self._relevant_nominations(pod, columns)
        rows = self._reprieve_rows(columns, pod, request, budgets)
        now = self.now() if rows is not None else _EPOCH
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
            # Visit the nodes where removing the lower-priority pods may make room (nominated pods aside), and
            # those whose rejection the shortcut does not cover; the others fail as they are.
            visit = np.flatnonzero((fits & (removable > 0)) | ~by_fit)
            if rows is not None and picked is not None and len(visit):
                at = positions[visit]
                tabled = by_fit[visit] & (nominated_here[at] == 0)
                for j in visit[tabled & ~rows.known[at]].tolist():
                    self._fill_row(rows, pod, request, window[start + j], int(positions[j]), budgets, now)
                if tabled.all() and rows.known[at].all():
                    # Every node to visit has its answer in a row: take the chunk's candidates at once.
                    found = visit[rows.numbers[at, 0] == _ROW_CANDIDATE]
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
                        if rows.numbers[at_j, 0] != _ROW_CANDIDATE:
                            continue  # no room: a lazily built status
                        candidates.add(i)
                        non_violating.append(rows.values[at_j])
                        if picked is not None:
                            picked.append(at_j)
                        if len(non_violating) >= num_candidates:
                            stop = i + 1
                            break
                        continue
                    found_here = self._cached_reprieve(pod, request, node_info, nominated.get(node_info.name, ()),
                                                       budgets)
                    if found_here is None:
                        continue  # no room with the nominated pods counted: a lazily built status
                    victims, num_violations = found_here
                    status = success
                else:
                    victims, num_violations, status = self.select_victims_on_node(state.clone(), pod,
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
        out = NodeToStatus()
        if stop > len(candidates):
            saved = state.clone()

            def fill() -> Iterator[tuple[str, Status]]:
                for j in range(stop):
                    if j in candidates:
                        continue
                    status = known.get(j)
                    if status is None:
                        _victims, _violations, status = self.select_victims_on_node(
                            saved.clone(), pod, window[j].clone(), budgets)
                    yield window[j].name, status

            out.defer(fill)
        result = non_violating + violating
        if rows is not None and picked is not None and len(result) > 1:
            self._scored = (tuple(result), rows.numbers[np.array(picked, dtype=np.int64), 1:])
        return result, out, _aggregate(errors)

    def _reprieve_rows(self, columns: NodeColumns, pod: Pod, request: Resource,
                       budgets: DisruptionBudgets) -> NodeRows | None:
        """The columns' rows of this pod's reprieve answers (see :meth:`_fill_row`), where an answer depends only on
        the node: no PDB and the default :meth:`more_important_pod`; None otherwise."""
        if budgets.pdbs or type(self).more_important_pod is not Evaluator.more_important_pod:
            return None
        key = (_REPRIEVE_KEY, pod.priority, request.milli_cpu, request.memory, request.ephemeral_storage,
               request.is_zero())
        return columns.node_rows(key, 5)

    def _fill_row(self, rows: NodeRows, pod: Pod, request: Resource, node_info: NodeInfo, at: int,
                  budgets: DisruptionBudgets, now: datetime) -> None:
        """Work out the reprieve on a node without nominated pods into its row: (kind, then the default candidate
        scores of :meth:`_best_by_default_scores`) and the Candidate. Left unknown where the answer depends on more
        than the node (a lower-priority pod without a start time) or is no candidate for another reason."""
        priority = pod.priority
        if any(pi.pod.status.start_time is None for pi in node_info.pods if pi.pod.priority < priority):
            return
        found = self._reprieve_by_resources(pod, request, node_info, (), budgets)
        if found is None:
            rows.numbers[at, 0] = _ROW_NO_ROOM
            rows.values[at] = None
        elif found[0]:
            victims = found[0]
            scores = (_ROW_CANDIDATE, -victims[0].priority, -sum(v.priority + PRIORITY_OFFSET for v in victims),
                      -len(victims), _nanos(earliest_start_of_top_priority(victims, now)))
            if not all(_INT64_MIN <= score <= _INT64_MAX for score in scores):
                return  # a start time past year 2262 (or a sum beyond int64): the per-node path compares it
            rows.numbers[at] = scores
            rows.values[at] = Candidate(node_info.name, victims, 0)
        else:
            return
        rows.known[at] = True

    def _relevant_nominations(self, pod: Pod, columns: NodeColumns
                              ) -> tuple[Mapping[str, Sequence[PodInfo]], npt.NDArray[np.int64]]:
        """The pods nominated to each node that count for ``pod`` (other pods of at least its priority), and per
        node of ``columns`` their number, cpu, memory and ephemeral storage (rows 0-3)."""
        nominator = self.handle.nominator
        extra = np.zeros((4, len(columns)), dtype=np.int64)
        found: dict[str, Sequence[PodInfo]] = {}
        if not nominator.has_nominations():
            return found, extra
        # The runtime's nominator keeps these sums per priority (kubesched.runtime's Nominator.nominated_sums).
        kept = getattr(nominator, "nominated_sums", None)
        sums = kept(pod, columns) if callable(kept) else None
        if sums is not None:
            return sums[0], sums[1][:4]
        listed = getattr(nominator, "nominated_node_names", None)
        names = listed() if callable(listed) else columns.names
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
    def _lower_priority_sums(columns: NodeColumns, priority: int) -> list[IntArray]:
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

    def _cached_reprieve(self, pod: Pod, request: Resource, node_info: NodeInfo, nominated: Sequence[PodInfo],
                         budgets: DisruptionBudgets) -> tuple[tuple[Pod, ...], int] | None:
        """:meth:`_reprieve_by_resources`, remembered per node while the node's pods (its generation), the pod's
        priority and request and the nominated pods' sums stay the same. Only answers that depend on nothing else
        are kept: no PDB, the default :meth:`more_important_pod`, every lower-priority pod with a start time."""
        if budgets.pdbs or type(self).more_important_pod is not Evaluator.more_important_pod:
            return self._reprieve_by_resources(pod, request, node_info, nominated, budgets)
        key: tuple[int, ...] = (node_info.generation, pod.priority, request.milli_cpu, request.memory,
                                request.ephemeral_storage, len(nominated),
                                sum(pi.requests.milli_cpu for pi in nominated),
                                sum(pi.requests.memory for pi in nominated),
                                sum(pi.requests.ephemeral_storage for pi in nominated)) if nominated else \
            (node_info.generation, pod.priority, request.milli_cpu, request.memory, request.ephemeral_storage)
        cache = self._reprieves
        hit = cache.get(node_info.name)
        if hit is not None and hit[0] == key:
            return hit[1]
        found = self._reprieve_by_resources(pod, request, node_info, nominated, budgets)
        priority = pod.priority
        if all(pi.pod.status.start_time is not None for pi in node_info.pods if pi.pod.priority < priority):
            if len(cache) > 2 * len(self.handle.snapshot.columns) + 64:
                cache.clear()
            cache[node_info.name] = (key, found)
        return found

    def _reprieve_by_resources(self, pod: Pod, request: Resource, node_info: NodeInfo, nominated: Sequence[PodInfo],
                               budgets: DisruptionBudgets) -> tuple[tuple[Pod, ...], int] | None:
        """:meth:`select_victims_on_node` by arithmetic on NodeResourcesFit's checks, ``nominated`` (the
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
        self._order_by_importance(potential)
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
            self._order_by_importance(victims)
        return tuple(pi.pod for pi in victims), num_violations

    def _order_by_importance(self, pod_infos: list[PodInfo]) -> None:
        """:meth:`_importance_order`, by a sort key when :meth:`more_important_pod` is the default one (the same
        order: priority, then start time with none counting as now)."""
        if type(self).more_important_pod is not Evaluator.more_important_pod:
            self._importance_order(pod_infos)
            return
        if len(pod_infos) < 2:
            return
        now: list[int] = []

        def key(pi: PodInfo) -> tuple[int, int]:
            start = pi.pod.status.start_time
            if start is None:
                if not now:
                    now.append(unix_nanos(self.now()))
                return -pi.pod.priority, now[0]
            return -pi.pod.priority, _nanos(start)

        pod_infos.sort(key=key)

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """A victim must have lower priority than the preemptor and pass :meth:`is_eligible_pod`."""
        return victim.pod.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def _importance_order(self, pod_infos: list[PodInfo]) -> None:
        def compare(a: PodInfo, b: PodInfo) -> int:
            if self.more_important_pod(a.pod, b.pod):
                return -1
            return 1 if self.more_important_pod(b.pod, a.pod) else 0

        pod_infos.sort(key=functools.cmp_to_key(compare))

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               budgets: DisruptionBudgets) -> tuple[list[Pod], int, Status]:
        """Remove every preemptible pod, then reprieve them most important first (PDB-violating ones first); the
        ones that no longer fit are the victims. Returns (victims, PDB violations, status); mutates its args."""
        handle = self.handle
        potential = [pi for pi in node_info.pods if self.is_preemption_allowed(node_info, pi, pod)]
        for pod_info in potential:
            node_info.remove_pod(pod_info.pod)
            status = handle.run_pre_filter_extension_remove_pod(state, pod, pod_info, node_info)
            if status is not None and not status.is_success():
                return [], 0, status
        if not potential:
            return [], 0, Status.unresolvable(NO_VICTIMS_FOUND)
        # Affinity of the preemptor to its victims is deliberately not considered, as in kube-scheduler.
        status = handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if status is not None and not status.is_success():
            return [], 0, status
        self._importance_order(potential)
        by_uid = {pi.pod.uid: pi for pi in potential}
        violating, non_violating = budgets.split([pi.pod for pi in potential])
        victims: list[PodInfo] = []
        num_violations = 0
        for group, violates in ((violating, 1), (non_violating, 0)):
            for victim in group:
                pod_info = by_uid[victim.uid]
                node_info.add_pod(pod_info)
                status = handle.run_pre_filter_extension_add_pod(state, pod, pod_info, node_info)
                if status is not None and not status.is_success():
                    return [], 0, status
                if is_success(handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)):
                    continue
                node_info.remove_pod(pod_info.pod)
                status = handle.run_pre_filter_extension_remove_pod(state, pod, pod_info, node_info)
                if status is not None and not status.is_success():
                    return [], 0, status
                victims.append(pod_info)
                num_violations += violates
        if violating and non_violating:
            self._importance_order(victims)
        return [pi.pod for pi in victims], num_violations, Status.success()

    # -- choosing the candidate ----------------------------------------------------------------------
    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The best candidate by :meth:`ordered_score_funcs` (or the defaults); ties go to the earliest in
        ``candidates`` (dry-run order)."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        cls = type(self)
        scored = self._scored
        if (scored is not None and len(candidates) == len(scored[0])
                and all(map(operator.is_, candidates, scored[0]))  # the candidates the dry run returned, in order
                and cls.ordered_score_funcs is Evaluator.ordered_score_funcs
                and cls.default_score_funcs is Evaluator.default_score_funcs):
            return scored[0][_first_best_row(scored[1])]
        victims_map = {c.name: c for c in candidates}
        if (self.fast_dry_run and getattr(self.handle, "fast_path", True) is not False
                and cls.ordered_score_funcs is Evaluator.ordered_score_funcs
                and cls.default_score_funcs is Evaluator.default_score_funcs
                and all(c.victims for c in victims_map.values())):
            return self._best_by_default_scores(victims_map)
        score_funcs = self.ordered_score_funcs(victims_map) or self.default_score_funcs(victims_map)
        return victims_map.get(pick_one_node_for_preemption(list(victims_map), score_funcs), candidates[0])

    def tie_break_reasons(self, candidates: Sequence[Candidate], chosen: Candidate | None) -> dict[str, str]:
        """For each candidate but ``chosen``, the criterion of :meth:`select_candidate` it lost on, with its score
        and the best score there (for explain; the same score functions, applied in the same order). When
        ``chosen`` is not what those functions pick (a subclass overrides select_candidate), each other candidate
        just says it was not chosen, rather than naming criteria that did not decide."""
        if chosen is None or len(candidates) < 2:
            return {}
        victims_map = {c.name: c for c in candidates}
        score_funcs = self.ordered_score_funcs(victims_map) or self.default_score_funcs(victims_map)
        lost: dict[str, str] = {}
        remaining = list(victims_map)
        for score in score_funcs:
            scores = {node: score(node) for node in remaining}
            best = max(scores.values())
            name = getattr(score, "__name__", "score")
            for node in remaining:
                if scores[node] != best:
                    what = _LOST_AT.get(name, f"lower {name} score")
                    lost[node] = f"{what} ({_shown(name, scores[node])} against {_shown(name, best)})"
            remaining = [node for node in remaining if scores[node] == best]
            if len(remaining) == 1:
                break
        if remaining[0] != chosen.name:
            reason = f"not chosen by {type(self).__name__}.select_candidate"
            return {c.name: reason for c in candidates if c.name != chosen.name}
        for node in remaining:
            if node != chosen.name:
                lost[node] = TIED_ON_EVERY_CRITERION
        return lost

    def _best_by_default_scores(self, victims_map: Mapping[str, Candidate]) -> Candidate:
        """What :func:`pick_one_node_for_preemption` picks with :meth:`default_score_funcs`: narrowing by each
        score in turn keeps the candidates whose scores are the largest tuple, and the first of them wins."""
        now = self.now()
        best: Candidate | None = None
        best_score = (0, 0, 0, 0, 0)
        memo = self._victim_scores
        if len(memo) > 4 * len(self.handle.snapshot.columns) + 256:
            memo.clear()
        for candidate in victims_map.values():
            victims = candidate.victims
            known = memo.get(id(victims))
            if known is not None and known[0] is victims:
                rest = known[1]
            else:
                rest = (-victims[0].priority, -sum(v.priority + PRIORITY_OFFSET for v in victims), -len(victims),
                        _nanos(earliest_start_of_top_priority(victims, now)))
                if all(v.status.start_time is not None for v in victims):  # else it depends on now
                    memo[id(victims)] = (victims, rest)
            score = (-candidate.num_pdb_violations, *rest)
            if best is None or score > best_score:
                best, best_score = candidate, score
        return best if best is not None else next(iter(victims_map.values()))

    def default_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc]:
        """Fewest PDB violations, lowest top victim priority, smallest priority sum (each + 2^31), fewest victims,
        latest start among the top-priority victims: kube's order."""
        now = self.now()

        def fewest_violations(node: str) -> int:
            return -victims_map[node].num_pdb_violations

        def lowest_top_priority(node: str) -> int:
            return -victims_map[node].victims[0].priority

        def smallest_priority_sum(node: str) -> int:
            return -sum(v.priority + PRIORITY_OFFSET for v in victims_map[node].victims)

        def fewest_victims(node: str) -> int:
            return -len(victims_map[node].victims)

        def latest_start(node: str) -> int:
            return _nanos(earliest_start_of_top_priority(victims_map[node].victims, now))

        return [fewest_violations, lowest_top_priority, smallest_priority_sum, fewest_victims, latest_start]

    # -- prepareCandidate ----------------------------------------------------------------------------
    def prepare_candidate(self, candidate: Candidate, pod: Pod) -> Status:
        """Preempt the candidate's victims, clear the nominations of lower-priority pods on its node, and record the
        preemption. An API failure is an Error.

        A victim already terminating is preempted again, as kube-scheduler v1.32 does (later releases skip it):
        it gets the DisruptionTarget condition if it lacks it and a second Preempted event; its deletion stands.
        """
        for victim in candidate.victims:
            try:
                self.preempt_pod(candidate, pod, victim)
            except DeletionError as refused:  # the cluster's answer alone, as kube-scheduler words it
                return Status.as_error(str(refused), plugin=self.plugin_name)
            except Exception as exc:
                return Status.as_error(exc, plugin=self.plugin_name)
        client = self.handle.client
        for nominated in self.lower_priority_nominated_pods(pod, candidate.name):
            try:
                client.set_nominated_node_name(nominated, "")
            except Exception:
                continue  # not critical, as in kube-scheduler: those pods are retried anyway
        client.record_preemption(pod, candidate.name, list(candidate.victims))
        return Status.success()

    def preempt_pod(self, candidate: Candidate, preemptor: Pod, victim: Pod) -> None:
        """Preempt one victim: reject it if it waits on Permit, else delete it with the DisruptionTarget
        condition; then the Preempted event on the victim."""
        handle = self.handle
        waiting = handle.get_waiting_pod(victim.uid)
        if waiting is not None:
            waiting.reject(self.plugin_name, PREEMPTED)
        else:
            condition = PodCondition(DISRUPTION_TARGET, "True", REASON_PREEMPTION_BY_SCHEDULER,
                                     f"{preemptor.spec.scheduler_name}: preempting to accommodate a higher "
                                     "priority pod")
            handle.client.delete_pod(victim, condition=condition)
        handle.client.record_event(victim, "Normal", "Preempted",
                                   f"Preempted by pod {preemptor.uid} on node {candidate.name}")

    def lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        """Pods nominated to ``node_name`` with lower priority than ``pod``: they may no longer fit there."""
        return [pi.pod for pi in self.handle.nominator.nominated_pods_for_node(node_name)
                if pi.pod.priority < pod.priority]

    def now(self) -> datetime:
        """The scheduler clock's current instant (the virtual clock's in simulations)."""
        return self.handle.clock.timestamp()


def _shown(criterion: str, score: int) -> str:
    """A default criterion's score as the quantity it stands for (violations, priorities, a count, a time)."""
    if criterion in ("fewest_violations", "lowest_top_priority", "smallest_priority_sum", "fewest_victims"):
        return str(-score)  # the sum of priorities has 2^31 added to each, as kube-scheduler compares it
    if criterion == "latest_start":
        return datetime.fromtimestamp(score / 1e9, UTC).isoformat().replace("+00:00", "Z")
    return str(score)


def earliest_start_of_top_priority(victims: Sequence[Pod], now: datetime) -> datetime:
    """The earliest start time among the highest-priority victims (no start time counts as ``now``)."""
    top = max(v.priority for v in victims)
    return min((v.status.start_time or now for v in victims if v.priority == top), key=_nanos)


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


def pick_one_node_for_preemption(nodes: Sequence[str], score_funcs: Sequence[ScoreFunc]) -> str:
    """Narrow ``nodes`` to the highest scorers of each function in turn; the first remaining node wins."""
    if not nodes:
        return ""
    remaining = list(nodes)
    for score in score_funcs:
        scores = [score(node) for node in remaining]
        best = max(scores)
        remaining = [node for node, s in zip(remaining, scores, strict=True) if s == best]
        if len(remaining) == 1:
            break
    return remaining[0]

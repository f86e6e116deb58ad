"""The preemption Evaluator: kube-scheduler's framework/preemption, with the synchronous prepareCandidate.

``preempt`` checks that the pod may preempt, dry-runs victim selection on the nodes that Filter found
Unschedulable (a window starting at a random offset), picks the best candidate node, deletes its victims and
returns the nomination. Third-party preemption plugins subclass :class:`Evaluator` and override its interface
(``pod_eligible_to_preempt_others``, ``is_eligible_pod``, ``more_important_pod``, ``ordered_score_funcs``,
``get_offset_and_num_candidates``, ``select_victims_on_node``, ``dry_run_preemption``, ``select_candidate``), as
plugins implement the Go Evaluator's Interface.

This is the reference: every answer comes from these methods. Where the runtime hands the Evaluator a
:class:`~kubesched.framework.PreemptionAccelerator` (``Handle.preemption_accelerator``), the dry run and the choice
ask it first, and only while this Evaluator keeps the reference form of every rule the accelerator stands in for
(:meth:`Evaluator.keeps_reference`, :data:`DRY_RUN_RULES`, :data:`CHOICE_RULES`): its answers equal these methods'.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

from kubesched.api.pod import PREEMPT_NEVER, Pod, PodCondition
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import Handle
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status, is_success
from kubesched.framework._types import Diagnosis, FitError, NodeToStatus, PostFilterResult
from kubesched.framework.preemption._accelerator import (
    CHOICE_RULES,
    DRY_RUN_RULES,
    ORDER_RULES,
    PreemptionAccelerator,
    ResourceShortcut,
)
from kubesched.framework.preemption._candidates import (
    Candidate,
    CandidateChoice,
    ScoreFunc,
    default_score_funcs,
    pick_one_node_for_preemption,
    tie_break_reasons,
    unix_nanos,
)
from kubesched.framework.preemption._pdb import DisruptionBudgets

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
#: The overridable interface: the methods whose reference form the accelerator may stand in for.
_RULES = frozenset({*DRY_RUN_RULES, *CHOICE_RULES, *ORDER_RULES})


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Whether the pod is terminating because a scheduler preempted it (DisruptionTarget/PreemptionByScheduler)."""
    if pod.metadata.deletion_timestamp is None:
        return False
    for condition in pod.status.conditions:
        if condition.type == DISRUPTION_TARGET:
            return condition.status == "True" and condition.reason == REASON_PREEMPTION_BY_SCHEDULER
    return False


def aggregate(errors: Sequence[Status]) -> Status | None:
    """One Error for several, worded as Go's utilerrors aggregate: one message, or "[a, b]" without repeats."""
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    messages = list(dict.fromkeys(e.message() for e in errors))
    return Status.as_error(messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]")


class Evaluator:
    """Runs preemption for one plugin: candidates by dry run, the best candidate, then its victims' deletion."""

    #: Whether the dry run and the choice may ask the runtime's accelerator; False keeps every answer on the
    #: reference methods (as the reference path, ``kubesched bench --reference``, where there is no accelerator).
    fast_dry_run: bool = True
    #: Which Filter plugin's verdict the accelerator may work out by resource arithmetic (DefaultPreemption names
    #: NodeResourcesFit); None: the accelerator never decides by arithmetic.
    resource_shortcut: ResourceShortcut | None = None
    #: The interface methods a class redefines (below Evaluator), worked out once per class.
    _overridden: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._overridden = frozenset(name for name in _RULES if getattr(cls, name) is not getattr(Evaluator, name))

    def __init__(self, plugin_name: str, handle: Handle, *, min_candidate_nodes_percentage: int = 10,
                 min_candidate_nodes_absolute: int = 100) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.min_candidate_nodes_percentage = min_candidate_nodes_percentage
        self.min_candidate_nodes_absolute = min_candidate_nodes_absolute

    def keeps_reference(self, *rules: str) -> bool:
        """Whether this Evaluator's class keeps the reference form of every method named (no subclass redefines
        one): what an accelerator needs to stand in for them."""
        return self._overridden.isdisjoint(rules)

    def accelerator(self, rules: Sequence[str] = ()) -> PreemptionAccelerator | None:
        """The runtime's accelerator when it may stand in for ``rules`` here (this class keeps their reference
        form and :attr:`fast_dry_run` is on), else None."""
        if not self.fast_dry_run or not self.keeps_reference(*rules):
            return None
        return self.handle.preemption_accelerator

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

    def default_score_funcs(self, victims_map: Mapping[str, Candidate]) -> list[ScoreFunc]:
        """Fewest PDB violations, lowest top victim priority, smallest priority sum (each + 2^31), fewest victims,
        latest start among the top-priority victims: kube's order."""
        return default_score_funcs(victims_map, self.now())

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
        self.handle.record_candidate_choice(CandidateChoice(candidates, best,
                                                            lambda: self.tie_break_reasons(candidates, best)))
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
        if not all_nodes:
            return [], NodeToStatus(), Status.as_error(NO_NODES_AVAILABLE)
        accelerator = self.accelerator()
        potential = accelerator.potential_nodes(self, all_nodes, node_to_status) if accelerator is not None else None
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
        if self.keeps_reference("dry_run_preemption"):
            return self.dry_run_preemption(state, pod, potential, budgets, offset, num_candidates,
                                           node_to_status=node_to_status)
        return self.dry_run_preemption(state, pod, potential, budgets, offset, num_candidates)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                           budgets: DisruptionBudgets, offset: int, num_candidates: int, *,
                           node_to_status: NodeToStatus | None = None,
                           ) -> tuple[list[Candidate], NodeToStatus, Status | None]:
        """Select victims on copies of each node from ``offset`` on (wrapping); stop at ``num_candidates`` with one
        violating no PDB. Non-violating candidates first, each kind capped and in the order tried.

        Given the Filter statuses the nodes got (``node_to_status``), the accelerator is asked first."""
        accelerator = self.accelerator(DRY_RUN_RULES) if node_to_status is not None and potential_nodes else None
        if accelerator is not None and node_to_status is not None:
            outcome = accelerator.dry_run(self, state, pod, potential_nodes, budgets, offset, num_candidates,
                                          node_to_status)
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
        return non_violating + violating, statuses, aggregate(errors)

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """A victim must have lower priority than the preemptor and pass :meth:`is_eligible_pod`."""
        return victim.pod.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def importance_order(self, pod_infos: list[PodInfo]) -> None:
        """Sort ``pod_infos`` most important first by :meth:`more_important_pod` (a stable sort)."""
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
        self.importance_order(potential)
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
            self.importance_order(victims)
        return [pi.pod for pi in victims], num_violations, Status.success()

    # -- choosing the candidate ----------------------------------------------------------------------
    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The best candidate by :meth:`ordered_score_funcs` (or the defaults); ties go to the earliest in
        ``candidates`` (dry-run order)."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        accelerator = self.accelerator(CHOICE_RULES)
        chosen = accelerator.select_candidate(self, candidates) if accelerator is not None else None
        if chosen is not None:
            return chosen
        victims_map = {c.name: c for c in candidates}
        score_funcs = self.ordered_score_funcs(victims_map) or self.default_score_funcs(victims_map)
        return victims_map.get(pick_one_node_for_preemption(list(victims_map), score_funcs), candidates[0])

    def tie_break_reasons(self, candidates: Sequence[Candidate], chosen: Candidate | None) -> dict[str, str]:
        """For each candidate but ``chosen``, the criterion of :meth:`select_candidate` it lost on, with its score
        and the best score there (for explain; the same score functions, applied in the same order)."""
        if chosen is None or len(candidates) < 2:
            return {}
        victims_map = {c.name: c for c in candidates}
        score_funcs = self.ordered_score_funcs(victims_map) or self.default_score_funcs(victims_map)
        return tie_break_reasons(candidates, chosen, score_funcs, f"{type(self).__name__}.select_candidate")

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
            except Exception as exc:  # a refused write (DeletionError) words the cluster's answer, as kube does
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

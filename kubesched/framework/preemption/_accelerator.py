"""The preemption accelerator: what the runtime may hand the :class:`~kubesched.framework.Evaluator` (through
``Handle.preemption_accelerator``) to reach the reference dry run's and choice's answers without Filter runs on
node copies. The Evaluator consults it only while it keeps the reference form of every rule the accelerator stands
in for (:data:`DRY_RUN_RULES`, :data:`CHOICE_RULES`); an accelerator answers None wherever it cannot be exact, and
the reference path decides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import attrs

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Status
from kubesched.framework._types import NodeToStatus

if TYPE_CHECKING:
    from kubesched.framework.preemption._candidates import Candidate
    from kubesched.framework.preemption._evaluator import Evaluator
    from kubesched.framework.preemption._pdb import DisruptionBudgets

#: The Evaluator methods an accelerated dry run reproduces: a subclass overriding one gets the reference dry run.
DRY_RUN_RULES = ("dry_run_preemption", "select_victims_on_node", "is_preemption_allowed", "is_eligible_pod")
#: The Evaluator methods an accelerated choice reproduces: a subclass overriding one gets the reference choice.
CHOICE_RULES = ("select_candidate", "ordered_score_funcs", "default_score_funcs")
#: The Evaluator methods that order victims: while a subclass keeps both, an accelerated dry run orders them by a sort
#: key and may keep its answers per node; otherwise it orders them through the subclass's own methods, every time.
ORDER_RULES = ("more_important_pod", "importance_order")


@attrs.frozen
class ResourceShortcut:
    """Which Filter plugin's verdict a dry run may work out by resource arithmetic: ``fit_name`` names
    NodeResourcesFit, whose checks the arithmetic repeats; the profile's plugin of that name must declare
    ``filter_reads = FilterReads.RESOURCES`` (a subclass redefining its Filter drops the declaration). Every other
    Filter plugin of the cycle must declare ``filter_reads = FilterReads.NODE`` (its verdict ignores the node's
    pods), wherever it stands in the profile."""

    fit_name: str


class PreemptionAccelerator(Protocol):
    """A runtime-provided stand-in for the reference dry run and choice, exact wherever it answers."""

    def potential_nodes(self, evaluator: Evaluator, all_nodes: Sequence[NodeInfo],
                        node_to_status: NodeToStatus) -> Sequence[NodeInfo] | None:
        """The nodes of ``all_nodes`` (the snapshot's) that Filter found Unschedulable, in order, or None to let
        the Evaluator read them from the statuses."""

    def dry_run(self, evaluator: Evaluator, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                budgets: DisruptionBudgets, offset: int, num_candidates: int, node_to_status: NodeToStatus,
                ) -> tuple[list[Candidate], NodeToStatus, Status | None] | None:
        """What the reference :meth:`~kubesched.framework.Evaluator.dry_run_preemption` returns for these
        arguments, or None when this cycle's plugins or the pod leave it to the reference."""

    def select_candidate(self, evaluator: Evaluator, candidates: Sequence[Candidate]) -> Candidate | None:
        """What the reference choice picks among ``candidates`` (two or more), or None to leave it to the
        reference."""

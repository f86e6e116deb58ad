"""Preemption as kube-scheduler's framework/preemption package: the reference :class:`Evaluator` with its overridable
interface, candidates and the choice among them, the PodDisruptionBudget helpers, and the accelerator protocol the
runtime may implement. Plugins import these names from :mod:`kubesched.framework`."""

from kubesched.framework.preemption._accelerator import (
    CHOICE_RULES,
    DRY_RUN_RULES,
    ORDER_RULES,
    PreemptionAccelerator,
    ResourceShortcut,
)
from kubesched.framework.preemption._candidates import (
    PRIORITY_OFFSET,
    Candidate,
    CandidateChoice,
    ScoreFunc,
    default_score_funcs,
    earliest_start_of_top_priority,
    pick_one_node_for_preemption,
)
from kubesched.framework.preemption._evaluator import Evaluator
from kubesched.framework.preemption._pdb import DisruptionBudgets

__all__ = [
    "CHOICE_RULES",
    "DRY_RUN_RULES",
    "ORDER_RULES",
    "PRIORITY_OFFSET",
    "Candidate",
    "CandidateChoice",
    "DisruptionBudgets",
    "Evaluator",
    "PreemptionAccelerator",
    "ResourceShortcut",
    "ScoreFunc",
    "default_score_funcs",
    "earliest_start_of_top_priority",
    "pick_one_node_for_preemption",
]

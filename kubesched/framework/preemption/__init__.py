"""Preemption as kube-scheduler's framework/preemption package: the reference :class:`Evaluator` with its overridable
interface, candidates and the choice among them, and the PodDisruptionBudget helpers. Plugins import these names
from :mod:`kubesched.framework`."""

from kubesched.framework.preemption._accelerator import PreemptionAccelerator, ResourceShortcut
from kubesched.framework.preemption._evaluator import (
    Candidate,
    CandidateChoice,
    DisruptionBudgets,
    Evaluator,
    ScoreFunc,
    pick_one_node_for_preemption,
)

__all__ = [
    "Candidate",
    "CandidateChoice",
    "DisruptionBudgets",
    "Evaluator",
    "PreemptionAccelerator",
    "ResourceShortcut",
    "ScoreFunc",
    "pick_one_node_for_preemption",
]

"""The conformance checks, in the order they run. Each takes a :class:`PluginUnderTest`, raises
:class:`CheckFailed` with what is wrong or :class:`CheckSkipped` when it does not apply, and returns warnings.
The modules group them by concern: the class (contract, args), the inputs, the statuses, the batch forms, the
CycleState, the reservation and the time budget."""

from __future__ import annotations

from kubesched.testing.conformance.base import Check, CheckFailed, CheckSkipped, explain
from kubesched.testing.conformance.checks.args import args_accept_defaults, args_reject_ill_typed
from kubesched.testing.conformance.checks.batch import BATCH_HOOKS, batch_forms
from kubesched.testing.conformance.checks.contract import builds, declares_events, hooks_match_hookspecs
from kubesched.testing.conformance.checks.filter_state import filter_state_unchanged
from kubesched.testing.conformance.checks.inputs import deterministic, edge_inputs, no_input_mutation
from kubesched.testing.conformance.checks.reservation import unreserve_idempotent, unreserve_undoes_reserve
from kubesched.testing.conformance.checks.state import add_remove_pod_restores, pre_filter_state_clone
from kubesched.testing.conformance.checks.statuses import filter_status_valid, permit_valid, score_in_range
from kubesched.testing.conformance.checks.timing import time_budget

CHECKS: tuple[Check, ...] = (
    Check("hooks-match-hookspecs", "hooks match the hookspecs", hooks_match_hookspecs),
    Check("args-accept-defaults", "args accept their defaults", args_accept_defaults),
    Check("args-reject-ill-typed", "args reject ill-typed values with a clear error", args_reject_ill_typed),
    Check("builds", "the plugin builds with its args", builds),
    Check("declares-events", "a plugin that rejects pods declares the events that may help them", declares_events),
    Check("no-input-mutation", "PreFilter/Filter/PreScore/Score do not mutate their inputs", no_input_mutation,
          ("filter", "score")),
    Check("filter-state-unchanged", "Filter and filter_nodes leave the CycleState unchanged", filter_state_unchanged,
          ("filter", "filter_nodes")),
    Check("deterministic", "equal inputs give equal results", deterministic, ("filter", "score")),
    Check("filter-status-valid", "PreFilter and Filter return valid statuses with reasons", filter_status_valid,
          ("filter",)),
    Check("score-in-range", "scores end in [0, 100]", score_in_range, ("score",)),
    Check("batch-forms", "batch forms answer as the per-node hooks", batch_forms, BATCH_HOOKS),
    Check("pre-filter-state-clone", "PreFilter state survives CycleState clone without aliasing",
          pre_filter_state_clone, ("pre_filter", "pre_filter_add_pod")),
    Check("add-remove-pod-restores", "AddPod then RemovePod restores Filter answers", add_remove_pod_restores,
          ("pre_filter_add_pod", "filter")),
    Check("unreserve-idempotent", "Unreserve is idempotent and safe without Reserve", unreserve_idempotent,
          ("unreserve",)),
    Check("unreserve-undoes-reserve", "Unreserve undoes Reserve", unreserve_undoes_reserve, ("reserve",)),
    Check("permit-valid", "Permit returns a valid code and a bounded timeout", permit_valid, ("permit",)),
    Check("edge-inputs", "copes with edge inputs", edge_inputs),
    Check("time-budget", "Filter and Score stay within the time budget", time_budget, ("filter", "score")),
)
CHECKS_BY_ID = {c.id: c for c in CHECKS}

__all__ = ["CHECKS", "CHECKS_BY_ID", "Check", "CheckFailed", "CheckSkipped", "explain"]

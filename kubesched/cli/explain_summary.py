"""The summary above the ``--explain`` tables: the explained pods grouped by the outcome of their last attempt (the
FitError's reasons, an error, a node selected, or no attempt), one line per group with how many pods and which."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.runtime import Attempt
from kubesched.sim.result import PHASE_BOUND, PodResult

#: Pods named per summary line; the rest are counted.
SUMMARY_PODS = 10
SELECTED = "selected a node"
NO_ATTEMPT = "no scheduling attempt"


def last_outcome(attempts: Sequence[Attempt], result: PodResult | None) -> str:
    """What the pod's last attempt came to: kube-scheduler's FitError message (its reasons), ``error: ...``,
    :data:`SELECTED`, or, for a pod never attempted, :func:`no_attempt` without the node."""
    if not attempts:
        return no_attempt(result, node=False)
    last = attempts[-1]
    if last.fit_error is not None:
        return last.fit_error
    if last.error is not None:
        return f"error: {last.error}"
    return SELECTED if last.selected_node is not None else "unschedulable"


def no_attempt(result: PodResult | None, *, node: bool = True) -> str:
    """``no scheduling attempt``, with where the pod ended when the run knows it: ``(Bound on n3)``, ``(Pending:
    waiting for scheduling gates: ...)``."""
    if result is None:
        return NO_ATTEMPT
    where = f" on {result.node}" if node and result.phase == PHASE_BOUND and result.node else ""
    message = f": {result.message}" if result.message else ""
    return f"{NO_ATTEMPT} ({result.phase}{where}{message})"


def final_results(pods: Sequence[PodResult]) -> dict[str, PodResult]:
    """Each pod key's last result (a pod re-created under its name has one per incarnation)."""
    return {f"{p.namespace}/{p.name}": p for p in pods}


def summary_lines(explain: Mapping[str, Sequence[Attempt]], pods: Sequence[PodResult]) -> list[str]:
    """One line per distinct outcome: ``N pod(s): OUTCOME [pod, ...]``, the largest group first, then in the
    order of their first pod; at most :data:`SUMMARY_PODS` pods named per line."""
    results = final_results(pods)
    groups: dict[str, list[str]] = {}
    for key, attempts in explain.items():
        groups.setdefault(last_outcome(attempts, results.get(key)), []).append(key)
    order = {outcome: i for i, outcome in enumerate(groups)}
    lines = []
    for outcome, keys in sorted(groups.items(), key=lambda kv: (-len(kv[1]), order[kv[0]])):
        named = ", ".join(keys[:SUMMARY_PODS])
        if len(keys) > SUMMARY_PODS:
            named += f" and {len(keys) - SUMMARY_PODS} more"
        lines.append(f"{len(keys)} pod(s): {outcome} [{named}]")
    return lines

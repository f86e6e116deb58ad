"""The ``--explain`` tables: a summary of the pods by the outcome of their last attempt, then per attempt a
node-by-Filter-plugin matrix, a node-by-Score-plugin matrix and the preemption candidates, bounded for large
clusters (the best and the rejecting nodes, then counts of the rest)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.table import Table

from kubesched.cli.explain_summary import final_results, no_attempt, summary_lines
from kubesched.cli.render import _text
from kubesched.runtime import Attempt
from kubesched.sim.result import PodResult

#: Feasible (scored) nodes shown per attempt: the selected one first, then by total score.
BEST_NODES = 5
#: Rejected nodes shown per attempt, in node order; the rest are counted by plugin and reason.
REJECTED_NODES = 10
#: Preemption candidates shown per attempt.
CANDIDATES = 10
#: Reason groups named in a "... and N more" row.
GROUPS = 3
NOT_RUN = "-"


def print_explain(explain: Mapping[str, Sequence[Attempt]], out: Console, pods: Sequence[PodResult] = ()) -> None:
    """The summary (one line per outcome of the pods' last attempts), then every explained pod's attempts, in
    order; ``pods`` (the run's results) say where a pod never attempted ended."""
    if explain:
        out.print(_text("Explain summary, by each pod's last attempt:"), style="bold")
        for line in summary_lines(explain, pods):
            out.print(_text(line))
    results = final_results(pods)
    for key, attempts in explain.items():
        if not attempts:
            out.print(_text(f"Explain {key}: {no_attempt(results.get(key))}"), style="bold")
        for attempt in attempts:
            _print_attempt(attempt, out)


def _outcome(attempt: Attempt) -> str:
    """``selected N``, ``unschedulable`` or ``error``; both when Reserve or Permit failed on the selected node."""
    failure = "error" if attempt.error is not None else "unschedulable" if attempt.fit_error is not None else ""
    if attempt.selected_node is None:
        return failure or "unschedulable"
    return f"selected {attempt.selected_node}" + (f", then {failure}" if failure else "")


def _print_attempt(attempt: Attempt, out: Console) -> None:
    out.print(_text(f"Explain {attempt.pod}, attempt {attempt.attempt} at {attempt.time:g} s "
                    f"(profile {attempt.profile}): {_outcome(attempt)}"), style="bold")
    for line in _notes(attempt):
        out.print(_text(line))
    tried = attempt.filter
    feasible = [node for node, entry in tried.items() if all(v == "passed" for v in entry.values())]
    rejected = [node for node in tried if node not in set(feasible)]
    best = _best(attempt, feasible)
    shown_rejected = rejected[:REJECTED_NODES]
    plugins = list(dict.fromkeys(p for node in [*best, *shown_rejected] for p in tried[node]))
    matrix = Table(title="Filter", title_justify="left")
    matrix.add_column("NODE", overflow="fold")
    for plugin in plugins or [""]:  # one column at least, for the rows that count nodes
        matrix.add_column(plugin, overflow="fold")
    width = max(len(plugins), 1)
    for node in [*best, *shown_rejected]:
        matrix.add_row(_text(node), *(_text(tried[node].get(p, NOT_RUN)) for p in plugins))
    _more(matrix, width, len(feasible) - len(best), "feasible", [])
    _more(matrix, width, len(rejected) - len(shown_rejected), "rejected",
          [_rejection(tried[node]) for node in rejected[REJECTED_NODES:]])
    for marker, count in sorted(Counter(attempt.not_tried.values()).items()):
        matrix.add_row(_text(f"{count} node(s)"), _text(marker), *([""] * (width - 1)))
    if attempt.filter or attempt.not_tried:
        out.print(matrix)
    if attempt.score:
        _print_scores(attempt, best, len(feasible), out)
    if attempt.fit_error is not None:
        out.print(_text(f"FitError: {attempt.fit_error}"))
    if attempt.error is not None:
        out.print(_text(f"Error: {attempt.error}"))
    if attempt.post_filter is not None:
        _print_post_filter(attempt.post_filter, out)


def _notes(attempt: Attempt) -> list[str]:
    """PreFilter's rejection or narrowing, and the nominated pods Filter counted, one line each."""
    notes = []
    pre = attempt.pre_filter or {}
    if pre.get("reason"):
        notes.append(f"PreFilter rejected the pod: {pre.get('rejectedBy') or ''}: {pre['reason']}")
    nodes = pre.get("nodes")
    if isinstance(nodes, list):
        shown = ", ".join(nodes[:BEST_NODES]) + (f" and {len(nodes) - BEST_NODES} more" if len(nodes) > BEST_NODES
                                                 else "")
        notes.append(f"PreFilter ({', '.join(pre.get('narrowedBy') or [])}) narrowed the nodes to "
                     f"{len(nodes)}: {shown}")
    for node, pods in attempt.nominated_pods.items():
        notes.append(f"Filter counted the pods nominated to {node}: {', '.join(pods)}")
    return notes


def _best(attempt: Attempt, feasible: list[str]) -> list[str]:
    """The feasible nodes shown: the selected node, then the highest totals (ties in node order)."""
    order = {node: i for i, node in enumerate(feasible)}
    ranked = sorted(feasible, key=lambda n: (n != attempt.selected_node, -attempt.total.get(n, 0), order[n]))
    return ranked[:BEST_NODES]


def _rejection(entry: Mapping[str, str]) -> str:
    plugin, reason = next((p, r) for p, r in entry.items() if r != "passed")
    return f"{plugin}: {reason}"


def _more(table: Table, width: int, count: int, kind: str, reasons: list[str]) -> None:
    """A "... and N more" row, naming the commonest reasons (most frequent first, then alphabetically)."""
    if count <= 0:
        return
    groups = sorted(Counter(reasons).items(), key=lambda kv: (-kv[1], kv[0]))
    named = "; ".join(f"{n} {reason}" for reason, n in groups[:GROUPS])
    if len(groups) > GROUPS:
        named += f"; {sum(n for _, n in groups[GROUPS:])} other"
    table.add_row(_text(f"... and {count} more {kind}"), _text(named), *([""] * (width - 1)))


def _print_scores(attempt: Attempt, best: list[str], feasible: int, out: Console) -> None:
    plugins = list(dict.fromkeys(p for scores in attempt.score.values() for p in scores))
    table = Table(title="Score (raw/normalized/weighted)", title_justify="left")
    table.add_column("NODE", overflow="fold")
    for plugin in plugins:
        table.add_column(plugin, overflow="fold")
    table.add_column("TOTAL")
    for node in best:
        scores = attempt.score.get(node, {})
        cells = [f"{s.raw}/{s.normalized}/{s.weighted}" if (s := scores.get(p)) is not None else NOT_RUN
                 for p in plugins]
        table.add_row(_text(node), *cells, str(attempt.total.get(node, "")))
    if feasible > len(best):
        table.add_row(_text(f"... and {feasible - len(best)} more scored"), *([""] * len(plugins)), "")
    out.print(table)


def _print_post_filter(post: Mapping[str, object], out: Console) -> None:
    nominated = post.get("nominatedNode")
    line = f"PostFilter {post.get('plugin') or ''}: {post.get('result')}"
    if nominated:
        line += f", nominated {nominated}"
    if post.get("message"):
        line += f": {post.get('message')}"
    out.print(_text(line))
    candidates = post.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        return
    table = Table(title="Preemption candidates", title_justify="left")
    for column in ("NODE", "VICTIMS", "PDB VIOLATIONS", "OUTCOME"):
        table.add_column(column, overflow="fold")
    for candidate in candidates[:CANDIDATES]:
        lost = candidate["lostTieBreak"]
        outcome = "chosen" if candidate["node"] == post.get("chosenCandidate") else f"lost: {lost}"
        table.add_row(_text(candidate["node"]), _text(", ".join(candidate["victims"])),
                      str(candidate["pdbViolations"]), _text(outcome))
    if len(candidates) > CANDIDATES:
        table.add_row(_text(f"... and {len(candidates) - CANDIDATES} more"), "", "", "")
    out.print(table)

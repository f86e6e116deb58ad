"""The explain matrix of each explained pod (a result's ``explain`` key, docs/explain.md) as report tables: per
attempt the nodes by Filter plugin with each verdict, the scores, and what PostFilter did; bounded as the terminal's
explain tables are (the selected and best nodes, the first rejected ones, then counts of the rest)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from kubesched.cli.explain_table import BEST_NODES, CANDIDATES, GROUPS, NOT_RUN, REJECTED_NODES
from kubesched.report.checks import entry
from kubesched.report.model import Block, Table, Text, number

if TYPE_CHECKING:
    from kubesched.report.checks import Checker


@attrs.frozen
class ExplainAttempt:
    """One recorded attempt: per node tried each Filter plugin's verdict, per scored node each Score plugin's
    raw/normalized/weighted score and the total, the outcome, PostFilter's line and candidates, nodes not tried."""

    time: float
    attempt: int
    profile: str
    filter: Mapping[str, Mapping[str, str]]
    score: Mapping[str, Mapping[str, str]]
    total: Mapping[str, float]
    selected: str | None
    fit_error: str | None
    error: str | None
    post_filter: str | None
    candidates: tuple[tuple[str, str, str, str], ...]
    not_tried: Mapping[str, str]

    def outcome(self) -> str:
        """``selected N``, ``unschedulable`` or ``error`` (both when Reserve or Permit failed on the node)."""
        failure = "error" if self.error is not None else "unschedulable" if self.fit_error is not None else ""
        if self.selected is None:
            return failure or "unschedulable"
        return f"selected {self.selected}" + (f", then {failure}" if failure else "")


@attrs.frozen
class ExplainedPod:
    """An explained pod (``namespace/name``) and its attempts in order (none when it was never attempted)."""

    pod: str
    attempts: tuple[ExplainAttempt, ...]


def read_explain(value: object, field: str, check: Checker) -> tuple[ExplainedPod, ...]:
    """A result's ``explain`` key (absent without --explain), every wrong field an error in ``check``."""
    pods = []
    for pod, attempts in check.mapping(value, field, optional=True).items():
        where = entry(field, pod)
        pods.append(ExplainedPod(pod, tuple(_attempt(item, f"{where}[{i}]", check)
                                            for i, item in enumerate(check.items(attempts, where)))))
    return tuple(pods)


def _attempt(value: object, field: str, check: Checker) -> ExplainAttempt:
    fields = check.mapping(value, field)
    verdicts = {node: {plugin: check.text(v, entry(entry(f"{field}.filter", node), plugin))
                       for plugin, v in check.mapping(plugins, entry(f"{field}.filter", node)).items()}
                for node, plugins in check.mapping(fields.get("filter"), f"{field}.filter", optional=True).items()}
    scores = {}
    for node, plugins in check.mapping(fields.get("score"), f"{field}.score", optional=True).items():
        where = entry(f"{field}.score", node)
        scores[node] = {plugin: _score(s, entry(where, plugin), check)
                        for plugin, s in check.mapping(plugins, where).items()}
    total = {node: check.number(v, entry(f"{field}.total", node))
             for node, v in check.mapping(fields.get("total"), f"{field}.total", optional=True).items()}
    post, candidates = _post_filter(fields.get("postFilter"), f"{field}.postFilter", check)
    not_tried = {node: check.text(v, entry(f"{field}.notTried", node))
                 for node, v in check.mapping(fields.get("notTried"), f"{field}.notTried", optional=True).items()}
    return ExplainAttempt(check.number(fields.get("time", 0.0), f"{field}.time"),
                          check.integer(fields.get("attempt", 0), f"{field}.attempt"),
                          check.text(fields.get("profile", ""), f"{field}.profile"), verdicts, scores, total,
                          check.optional_text(fields.get("selectedNode"), f"{field}.selectedNode"),
                          check.optional_text(fields.get("fitError"), f"{field}.fitError"),
                          check.optional_text(fields.get("error"), f"{field}.error"), post, candidates, not_tried)


def _score(value: object, field: str, check: Checker) -> str:
    """A Score cell: ``raw/normalized/weighted``."""
    fields = check.mapping(value, field)
    return "/".join(number(check.number(fields.get(k), f"{field}.{k}")) for k in ("raw", "normalized", "weighted"))


def _post_filter(value: object, field: str,
                 check: Checker) -> tuple[str | None, tuple[tuple[str, str, str, str], ...]]:
    """PostFilter's line (``PostFilter PLUGIN: RESULT, nominated NODE: MESSAGE``) and its candidates' rows."""
    fields = check.mapping(value, field, optional=True)
    if not fields:
        return None, ()
    line = f"PostFilter {check.optional_text(fields.get('plugin'), f'{field}.plugin') or ''}: " \
           f"{check.optional_text(fields.get('result'), f'{field}.result')}"
    nominated = check.optional_text(fields.get("nominatedNode"), f"{field}.nominatedNode")
    message = check.optional_text(fields.get("message"), f"{field}.message")
    line += (f", nominated {nominated}" if nominated else "") + (f": {message}" if message else "")
    chosen = check.optional_text(fields.get("chosenCandidate"), f"{field}.chosenCandidate")
    rows = []
    for index, item in enumerate(check.items(fields.get("candidates"), f"{field}.candidates", optional=True)):
        where = f"{field}.candidates[{index}]"
        candidate = check.mapping(item, where)
        node = check.text(candidate.get("node"), f"{where}.node")
        lost = check.optional_text(candidate.get("lostTieBreak"), f"{where}.lostTieBreak")
        rows.append((node, ", ".join(check.texts(candidate.get("victims"), f"{where}.victims")),
                     number(check.integer(candidate.get("pdbViolations", 0), f"{where}.pdbViolations")),
                     "chosen" if node == chosen else f"lost: {lost}"))
    return line, tuple(rows)


def explain_blocks(pod: ExplainedPod) -> list[Block]:
    """An explained pod's attempts: each one's heading line, its Filter and Score matrices, FitError and error,
    PostFilter and its candidates."""
    if not pod.attempts:
        return [Text(f"{pod.pod} had no scheduling attempt.")]
    blocks: list[Block] = []
    for attempt in pod.attempts:
        heading = (f"Attempt {attempt.attempt} at {number(attempt.time)} s (profile {attempt.profile}): "
                   f"{attempt.outcome()}")
        blocks.append(Text(heading))
        blocks.extend(_matrices(attempt))
        blocks.extend(Text(line) for line in (
            f"FitError: {attempt.fit_error}" if attempt.fit_error is not None else None,
            f"Error: {attempt.error}" if attempt.error is not None else None,
            attempt.post_filter) if line)
        if attempt.candidates:
            rows = [*attempt.candidates[:CANDIDATES]]
            if len(attempt.candidates) > CANDIDATES:
                rows.append((f"... and {len(attempt.candidates) - CANDIDATES} more", "", "", ""))
            blocks.append(Table("Preemption candidates", ("NODE", "VICTIMS", "PDB VIOLATIONS", "OUTCOME"),
                                tuple(rows), frozenset({2})))
    return blocks


def _matrices(attempt: ExplainAttempt) -> list[Block]:
    """The Filter matrix (nodes by plugin) and the Score table of one attempt."""
    tried = attempt.filter
    feasible = [node for node, verdicts in tried.items() if all(v == "passed" for v in verdicts.values())]
    rejected = [node for node in tried if node not in set(feasible)]
    order = {node: i for i, node in enumerate(feasible)}
    best = sorted(feasible, key=lambda n: (n != attempt.selected, -attempt.total.get(n, 0), order[n]))[:BEST_NODES]
    shown = [*best, *rejected[:REJECTED_NODES]]
    plugins = list(dict.fromkeys(p for node in shown for p in tried[node])) or [""]
    rows: list[tuple[str, ...]] = [(node, *(tried[node].get(p, NOT_RUN) for p in plugins)) for node in shown]
    blank = ("",) * (len(plugins) - 1)
    if len(feasible) > len(best):
        rows.append((f"... and {len(feasible) - len(best)} more feasible", "", *blank))
    if len(rejected) > REJECTED_NODES:
        reasons = Counter(next(f"{p}: {r}" for p, r in tried[node].items() if r != "passed")
                          for node in rejected[REJECTED_NODES:])
        groups = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        named = "; ".join(f"{n} {reason}" for reason, n in groups[:GROUPS])
        if len(groups) > GROUPS:
            named += f"; {sum(n for _, n in groups[GROUPS:])} other"
        rows.append((f"... and {len(rejected) - REJECTED_NODES} more rejected", named, *blank))
    for marker, count in sorted(Counter(attempt.not_tried.values()).items()):
        rows.append((f"{count} node(s)", marker, *blank))
    blocks: list[Block] = []
    if tried or attempt.not_tried:
        blocks.append(Table("Filter", ("NODE", *plugins), tuple(rows)))
    if attempt.score:
        scored = list(dict.fromkeys(p for scores in attempt.score.values() for p in scores))
        score_rows: list[tuple[str, ...]] = [
            (node, *(attempt.score.get(node, {}).get(p, NOT_RUN) for p in scored),
             number(attempt.total.get(node, ""))) for node in best]
        if len(feasible) > len(best):
            score_rows.append((f"... and {len(feasible) - len(best)} more scored", *([""] * len(scored)), ""))
        blocks.append(Table("Score (raw/normalized/weighted)", ("NODE", *scored, "TOTAL"),
                            tuple(score_rows), frozenset(range(1, len(scored) + 2))))
    return blocks


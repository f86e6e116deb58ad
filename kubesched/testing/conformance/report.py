"""Running the checks and reporting each one's outcome: passed, failed, skipped or warned."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import attrs

from kubesched.runtime import FastPath
from kubesched.testing.conformance.checks import CHECKS, Check, CheckFailed, CheckSkipped, explain
from kubesched.testing.conformance.decisions import unseen_decisions, why_never_reached
from kubesched.testing.conformance.examples import default_nodes, default_pods
from kubesched.testing.conformance.recorder import HookRaised, innermost_frames
from kubesched.testing.conformance.subject import PluginUnderTest
from kubesched.validation import terminal

#: How much of a check's detail the plain-text report shows: room for the longest advice, while a plugin's message
#: of megabytes stays one short line.
DETAIL_SHOWN = 2000

#: How to give the suite a cluster, for the failure of a check whose hooks the default examples never reached.
PASS_A_CLUSTER = ("pass a cluster the plugin acts on (PluginConformance.cluster = \"cluster.yaml\", "
                  "pytest --kubesched-conformance NAME@cluster.yaml, or kubesched conformance NAME --cluster "
                  "cluster.yaml)")

#: What to add to one's own examples when a hook (the first word of what unseen_decisions found) never decided.
_ADD = {"filter": "rejects on some nodes and accepts on others", "score": "scores differently on different nodes"}


class Outcome(enum.Enum):
    """How one check ended."""

    PASSED = "pass"
    WARNED = "warn"
    SKIPPED = "skip"
    FAILED = "fail"


@attrs.frozen
class CheckResult:
    """One check's outcome and its detail (the failure, the skip reason or the warnings)."""

    check: Check
    outcome: Outcome
    detail: str = ""


def run_check(check: Check, subject: PluginUnderTest) -> CheckResult:
    """Run one check; an exception from the plugin is that check's failure, naming the hook, the pod, the node
    and the innermost frames. A check that never reached a hook it is about (the plugin has it, the examples
    skipped it) fails too: passing it would say nothing."""
    subject.reset_calls()
    try:
        warnings = check.run(subject)
    except CheckSkipped as exc:
        return CheckResult(check, Outcome.SKIPPED, str(exc))
    except CheckFailed as exc:
        return CheckResult(check, Outcome.FAILED, str(exc))
    except HookRaised as exc:
        return CheckResult(check, Outcome.FAILED, str(exc))
    except (Exception, SystemExit) as exc:  # outside a hook: a state's clone(), a property the check read
        frames = innermost_frames(exc)
        return CheckResult(check, Outcome.FAILED,
                           f"the plugin raised {explain(exc)}" + (f"; innermost frames: {frames}" if frames else ""))
    defaults = list(subject.nodes) == list(default_nodes()) and list(subject.pods) == list(default_pods())
    unexercised = [hook for hook in check.exercises if subject.has(hook) and not subject.calls[hook]]
    if unexercised:
        advice = (f"the default example cluster never reaches it; {PASS_A_CLUSTER}" if defaults
                  else "give examples the plugin acts on (pods it does not skip, nodes left to call it on)")
        cause = why_never_reached(subject, unexercised[0]) or ("PreFilter or PreScore skipped every pod, or no "
                                                               "node was left to call it on")
        return CheckResult(check, Outcome.FAILED, f"{', '.join(unexercised)} never ran in this check ({cause}): "
                                                  f"{advice}")
    unseen = unseen_decisions(subject, [hook for hook in check.exercises if subject.has(hook)])
    if unseen:
        advice = (f"the default example cluster never makes it decide otherwise; {PASS_A_CLUSTER}" if defaults
                  else "the examples never make it decide otherwise; add pods it "
                  + " and ".join(_ADD[u.split()[0]] for u in unseen))
        return CheckResult(check, Outcome.FAILED, f"{'; '.join(unseen)}: {advice}")
    if warnings:
        return CheckResult(check, Outcome.WARNED, "; ".join(warnings))
    return CheckResult(check, Outcome.PASSED)


def fast_path_lines(speed: FastPath) -> list[str]:
    """The report's informational fast path section: what keeps the plugin off it, one sentence a line."""
    if not speed.notes:
        return ["fast path (informational): nothing keeps the plugin off it"]
    return ["fast path (informational): what keeps the plugin off it",
            *(f"  {terminal(s, DETAIL_SHOWN)}" for s in speed.sentences)]


@attrs.frozen
class ConformanceReport:
    """Every check's result for one plugin, and what keeps it off the fast path (informational, never a failure;
    None when not worked out)."""

    plugin: str
    results: tuple[CheckResult, ...]
    fast_path: FastPath | None = None

    def by_outcome(self, outcome: Outcome) -> list[CheckResult]:
        """The results with that outcome, in check order."""
        return [r for r in self.results if r.outcome is outcome]

    @property
    def ok(self) -> bool:
        """Whether no check failed (warnings and skips are fine)."""
        return not self.by_outcome(Outcome.FAILED)

    def failed_ids(self) -> list[str]:
        """The ids of the failed checks."""
        return [r.check.id for r in self.by_outcome(Outcome.FAILED)]

    def summary(self) -> str:
        """``10 passed, 1 warned, 2 skipped, 0 failed``."""
        counts = {o: len(self.by_outcome(o)) for o in Outcome}
        return (f"{counts[Outcome.PASSED]} passed, {counts[Outcome.WARNED]} warned, "
                f"{counts[Outcome.SKIPPED]} skipped, {counts[Outcome.FAILED]} failed")

    def lines(self) -> list[str]:
        """The plain-text report: one line per check, the fast path section, then the summary; what came from the
        plugin (its name, its messages in the details) escaped and cut for the terminal."""
        width = max(len(r.check.id) for r in self.results) if self.results else 0
        out = [f"conformance of plugin {terminal(self.plugin)}"]
        for result in self.results:
            line = f"  {result.outcome.value.upper():4}  {result.check.id:{width}}  {result.check.title}"
            out.append(line)
            if result.detail:
                out.append(f"        {'':{width}}  {terminal(result.detail, DETAIL_SHOWN)}")
        if self.fast_path is not None:
            out.extend(fast_path_lines(self.fast_path))
        out.append(self.summary())
        return out

    def to_json(self) -> dict[str, object]:
        """A JSON-ready view: plugin, ok, each check's id, outcome and detail, and ``fastPath`` (batch forms, the
        ``filter_reads`` declaration in effect, what keeps the plugin off the fast path) when worked out."""
        document: dict[str, object] = {
            "plugin": self.plugin, "ok": self.ok,
            "checks": [{"id": r.check.id, "title": r.check.title, "outcome": r.outcome.value, "detail": r.detail}
                       for r in self.results]}
        if self.fast_path is not None:
            document["fastPath"] = self.fast_path.to_json()
        return document


def run_conformance(subject: PluginUnderTest, checks: Iterable[Check] = CHECKS) -> ConformanceReport:
    """Run ``checks`` (all by default) on the plugin under test; the report also says what keeps it off the fast
    path."""
    return ConformanceReport(subject.name, tuple(run_check(c, subject) for c in checks), subject.fast_path)


def select_checks(ids: Sequence[str]) -> list[Check]:
    """The checks with these ids, in suite order; an unknown id is a ValueError listing the known ones."""
    known = {c.id for c in CHECKS}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValueError(f"unknown check(s) {', '.join(unknown)}; checks: {', '.join(c.id for c in CHECKS)}")
    return [c for c in CHECKS if c.id in ids]

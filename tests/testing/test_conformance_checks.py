"""Each conformance check can fail: run against a plugin broken in just its way, the suite reports exactly that
check as failed (and everything else as passed or skipped)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.framework._plugin import hookimpl
from kubesched.runtime import Framework
from kubesched.testing import conformance, make_node, make_pod
from kubesched.testing.conformance import Outcome, PluginUnderTest, run_check, run_conformance
from kubesched.testing.conformance.checks import CHECKS, CHECKS_BY_ID
from kubesched.testing.conformance.checks.timing import MIN_SAMPLES
from kubesched.testing.conformance.report import PASS_A_CLUSTER
from tests.testing import batch_form_plugins as batch_forms
from tests.testing import broken_plugins as broken
from tests.testing import unusual_plugins as unusual

BROKEN: list[tuple[str, type[Any], Any, str]] = [
    ("hooks-match-hookspecs", broken.WrongHookArguments, None, "hook 'filter'"),
    ("args-accept-defaults", broken.RequiredArg, {"zone": "eu-1"}, "Args() with no arguments raised TypeError"),
    ("args-reject-ill-typed", broken.UntypedArg, None, "threshold: is typed with Any"),
    ("builds", broken.CannotBeBuilt, None, 'initializing plugin "CannotBeBuilt": RuntimeError: no GPU driver'),
    ("builds", broken.InitReadsSnapshot, None, "before any node is known: initializing plugin \"InitReadsSnapshot\""),
    ("no-input-mutation", broken.LabelsThePod, None, "filter changed the pod it was given"),
    ("no-input-mutation", broken.PreScoreTrimsNodes, None, "pre_score changed the list of nodes it was given"),
    ("filter-state-unchanged", broken.PopsTolerations, None,
     "filter of plugin PopsTolerations changed the CycleState PreFilter left (pod big on node node-c): "
     "PopsTolerations went from 1 item to 0"),
    ("filter-state-unchanged", broken.RemembersFirstAnswer, None, "with them in reverse order"),
    ("filter-state-unchanged", batch_forms.CountsBatchesInState, None,
     "filter_nodes of plugin CountsBatchesInState changed the CycleState"),
    ("deterministic", broken.CountsCalls, None, "a second run on the same instance answered differently"),
    ("declares-events", broken.RejectsWithoutEvents, None, "but has no events_to_register hook"),
    ("declares-events", broken.RegistersNothing, None, "events_to_register registers no event"),
    ("filter-status-valid", broken.SilentRejection, None, "rejected with Unschedulable but no reason"),
    ("filter-status-valid", broken.ReasonsAsString, None, "filter gave reasons 'Full': they must be a tuple"),
    ("score-in-range", broken.ScoresOutOfRange, None, "score 150 from score (no normalize_score)"),
    ("score-in-range", broken.DropsANode, None, "normalize_score changed the list of nodes"),
    ("score-in-range", broken.ScoresIntEnum, None, "is <Level.HIGH: 90>, not an integer"),
    ("batch-forms", batch_forms.WrongFilterCode, None, "filter_nodes answered UnschedulableAndUnresolvable"),
    ("pre-filter-state-clone", broken.SharedClone, None, "clone() shares SharedClone.per_node"),
    ("add-remove-pod-restores", broken.ForgetfulRemovePod, None, "did not restore Filter's answer"),
    ("unreserve-idempotent", broken.UnreserveWithoutReserve, None,
     "without a prior reserve, unreserve raised KeyError"),
    ("unreserve-undoes-reserve", broken.UnreserveKeepsTheNode, None,
     "after reserve then unreserve of pod web on node node-a, pod bare is answered differently: Filter on node "
     "node-a answered Success then Unschedulable (node is reserved for another pod)"),
    ("permit-valid", broken.WaitsForAnHour, None, "permit asked to wait 3600s"),
    ("edge-inputs", broken.NeedsZoneLabel, None, "nodes without labels"),
    ("time-budget", broken.FarOverBudget, None, "more than 10 times the budget of 500 µs"),
]


def test_every_check_has_a_broken_plugin() -> None:
    """The table covers every check."""
    assert {row[0] for row in BROKEN} == {c.id for c in CHECKS}


@pytest.mark.parametrize(("check", "plugin", "args", "message"), BROKEN, ids=[row[1].__name__ for row in BROKEN])
def test_broken_plugin_fails_exactly_its_check(check: str, plugin: type[Any], args: Any, message: str) -> None:
    """Only the check for the broken rule fails, and its detail says what is wrong."""
    report = run_conformance(PluginUnderTest(plugin, args, large_cluster=200))
    assert report.failed_ids() == [check], "\n".join(report.lines())
    [failure] = report.by_outcome(Outcome.FAILED)
    assert message in failure.detail


def test_slow_plugin_only_warns() -> None:
    """A plugin over the per-call time budget gets a warning naming the hook; no check fails."""
    report = run_conformance(PluginUnderTest(broken.Slow, large_cluster=50))
    assert report.ok, "\n".join(report.lines())
    [warned] = report.by_outcome(Outcome.WARNED)
    assert warned.check.id == "time-budget"
    assert warned.detail.startswith("filter took ")
    assert "the budget is 500 µs" in warned.detail


@pytest.mark.parametrize("plugin", [unusual.UsesRng, unusual.Narrows, unusual.KeepsReferences,
                                    unusual.PermitNeedsReserve, unusual.ScoresFeasibleOnly,
                                    unusual.ReserveReadsPreFilter, unusual.KeepsPodLabels,
                                    unusual.NarrowsWithAddPod, unusual.ReserveHoldsTheNode,
                                    unusual.ReadsAffinityNodes],
                         ids=lambda p: p.__name__)
def test_correct_but_unusual_plugin_passes(plugin: type[Any]) -> None:
    """Seeded randomness, narrowing PreFilters (with AddPod), state that references the snapshot or the pod,
    Reserve/Permit that rely on PreFilter and the assumed pod, Score that trusts Filter, loggers in the plugin and
    reading the snapshot's lazily built lists are all legitimate: nothing fails."""
    report = run_conformance(PluginUnderTest(plugin, large_cluster=100))
    assert report.ok, "\n".join(report.lines())


def test_a_check_that_never_reached_its_hook_on_the_default_examples_fails() -> None:
    """A plugin the default examples never reach (gated by a label) fails the checks about its hooks, with the
    advice to pass a cluster, instead of passing while its defect goes unnoticed."""
    report = run_conformance(PluginUnderTest(broken.GpuOnlySilentRejection, large_cluster=50))
    failed = {r.check.id: r.detail for r in report.by_outcome(Outcome.FAILED)}
    assert sorted(failed) == ["deterministic", "filter-state-unchanged", "filter-status-valid", "no-input-mutation",
                              "time-budget"]
    assert failed["filter-status-valid"] == (
        "filter never ran in this check (PreFilter answered Skip for pods web, bare, big, pinned): the default "
        f"example cluster never reaches it; {PASS_A_CLUSTER}")


def test_a_cluster_that_reaches_the_plugin_finds_its_defect() -> None:
    """Given pods it acts on, the same plugin fails exactly the check of its defect."""
    gpu_pod = make_pod("trainer").req(cpu="1").label(**{broken.GPU: "true"}).obj()
    report = run_conformance(PluginUnderTest(broken.GpuOnlySilentRejection, pods=[gpu_pod], large_cluster=50))
    assert report.failed_ids() == ["filter-status-valid"], "\n".join(report.lines())
    assert "filter rejected with Unschedulable but no reason (pod trainer on node node-a)" in \
        report.by_outcome(Outcome.FAILED)[0].detail


def test_own_examples_that_never_reach_the_hook_fail() -> None:
    """Examples of the author's own that PreFilter skips entirely fail the checks about Filter too."""
    from kubesched.plugins.node_affinity import NodeAffinity

    report = run_conformance(PluginUnderTest(NodeAffinity, pods=[make_pod("plain").obj()], large_cluster=50))
    failed = {r.check.id: r.detail for r in report.by_outcome(Outcome.FAILED)}
    assert failed["filter-status-valid"].endswith(": give examples the plugin acts on (pods it does not skip, "
                                                  "nodes left to call it on)")


GATED = [(broken.GpuGatedFilter, ["no-input-mutation", "filter-state-unchanged", "deterministic", "filter-status-valid",
                                  "time-budget"],
          "filter accepted every example pod on every node (it never rejected one)", "filter-status-valid",
          "filter returned str, not a Status or None (pod trainer on node plain-node)"),
         (broken.GpuGatedScore, ["no-input-mutation", "deterministic", "score-in-range", "time-budget"],
          "score gave every example pod the same score 0 on every node", "score-in-range",
          "score 1000 from score (no normalize_score) for pod trainer on node gpu-node is outside [0, 100]")]

GATED_IDS = [row[0].__name__ for row in GATED]


def _reaches_the_gate() -> dict[str, Any]:
    """A cluster with a GPU node and a plain node, and a pod that asks for a GPU."""
    return {"nodes": [make_node("gpu-node").capacity(cpu="8", memory="16Gi").label(**{broken.GPU: "true"}).obj(),
                      make_node("plain-node").capacity(cpu="8", memory="16Gi").obj()],
            "running": [], "pods": [make_pod("trainer").req(cpu="1").label(**{broken.GPU: "true"}).obj()]}


@pytest.mark.parametrize(("plugin", "checks", "unseen", "_check", "_defect"), GATED, ids=GATED_IDS)
def test_a_hook_gated_inside_itself_fails_on_the_default_examples(plugin: type[Any], checks: list[str], unseen: str,
                                                                  _check: str, _defect: str) -> None:
    """A Filter or Score that decides only behind a gate of its own (no Skip) fails the checks about it on the
    default examples, naming the one-sided answers and the lines never run, with the advice to pass a cluster."""
    report = run_conformance(PluginUnderTest(plugin, large_cluster=50))
    failed = {r.check.id: r.detail for r in report.by_outcome(Outcome.FAILED)}
    assert sorted(failed) == sorted(checks), "\n".join(report.lines())
    line = inspect.getsourcelines(getattr(plugin, unseen.split()[0]))[1] + 4
    assert set(failed.values()) == {f"{unseen}, and 3 of its lines never ran, from broken_plugins.py:{line}: the "
                                    f"default example cluster never makes it decide otherwise; {PASS_A_CLUSTER}"}


@pytest.mark.parametrize(("plugin", "_checks", "_unseen", "check", "defect"), GATED, ids=GATED_IDS)
def test_a_cluster_that_reaches_the_gate_finds_the_planted_defect(plugin: type[Any], _checks: list[str], _unseen: str,
                                                                  check: str, defect: str) -> None:
    """Given a cluster that passes the gate, the same plugin fails exactly the check of its planted defect."""
    report = run_conformance(PluginUnderTest(plugin, **_reaches_the_gate(), large_cluster=50))
    assert report.failed_ids() == [check], "\n".join(report.lines())
    assert defect in report.by_outcome(Outcome.FAILED)[0].detail


def test_own_examples_that_never_pass_the_gate_fail_with_advice_to_add_pods() -> None:
    """On the author's own examples, a Filter that never rejected fails with the advice to add such pods."""
    result = run_check(CHECKS_BY_ID["filter-status-valid"],
                       PluginUnderTest(broken.GpuGatedFilter, pods=[make_pod("plain").obj()], large_cluster=50))
    assert result.outcome is Outcome.FAILED
    assert result.detail.endswith(": the examples never make it decide otherwise; add pods it rejects on some nodes "
                                  "and accepts on others")


def test_the_decision_probe_leaves_the_tracer_it_found() -> None:
    """Tracing the plugin's lines restores whatever tracer (a coverage tool, a debugger) was set before."""
    def tracer(_frame: Any, _event: str, _arg: Any) -> None:
        return None

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        run_check(CHECKS_BY_ID["deterministic"], PluginUnderTest(broken.GpuGatedScore, large_cluster=50))
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(before)


@pytest.mark.parametrize(("plugin", "pods", "cause"), [
    (broken.FilterErrors, [make_pod("solo").obj()],
     'Filter answered Error (running "FilterErrors" filter plugin: quota service unreachable) on every node for '
     "pod solo"),
    (broken.GpuOnlyScore, None, "PreScore answered Skip for pods web, bare, big, pinned"),
], ids=["Filter", "PreScore"])
def test_a_hook_never_reached_names_the_step_that_stopped_the_pods(plugin: type[Any], pods: list[Any] | None,
                                                                   cause: str) -> None:
    """A Score check that never reached Score names the extension point that stopped each pod."""
    subject = PluginUnderTest(plugin, large_cluster=50) if pods is None else \
        PluginUnderTest(plugin, pods=pods, large_cluster=50)
    result = run_check(CHECKS_BY_ID["score-in-range"], subject)
    assert result.outcome is Outcome.FAILED
    assert result.detail.startswith(f"score never ran in this check ({cause}): ")


def test_far_over_budget_fails_after_a_few_calls() -> None:
    """A 50 ms Filter fails the time budget after a handful of calls, not after thousands."""
    subject = PluginUnderTest(broken.FarOverBudget)
    result = run_check(CHECKS_BY_ID["time-budget"], subject)
    assert result.outcome is Outcome.FAILED
    assert subject.calls["filter"] == MIN_SAMPLES
    assert result.detail.startswith("filter took ")
    assert f"over {MIN_SAMPLES} calls, more than 10 times the budget of 500 µs" in result.detail


def test_an_exception_names_the_hook_pod_node_and_innermost_frames() -> None:
    """A hook that raises fails the check with the hook, the pod, the node and the innermost frames."""
    result = run_check(CHECKS_BY_ID["edge-inputs"], PluginUnderTest(broken.ZoneLookupFails, large_cluster=50))
    assert result.outcome is Outcome.FAILED
    helper, hook = (inspect.getsourcelines(f)[1] for f in (broken._zone_of, broken.ZoneLookupFails.score))
    assert result.detail == (
        "nodes without labels (pod web): score raised KeyError: 'topology.kubernetes.io/zone' (pod web on node "
        f"unlabelled-1); innermost frames: broken_plugins.py:{helper + 3} in _zone_of "
        '(return node_info.node.labels["topology.kubernetes.io/zone"]) <- '
        f"broken_plugins.py:{hook + 2} in score (return 100 if _zone_of(node_info) == \"zone-1\" else 0)")


def test_an_exception_outside_a_hook_names_its_innermost_frames() -> None:
    """A state's clone() that raises (called by the suite, not a hook) fails the check with where it raised."""
    result = run_check(CHECKS_BY_ID["pre-filter-state-clone"], PluginUnderTest(broken.CloneRaises))
    assert result.outcome is Outcome.FAILED
    line = inspect.getsourcelines(broken.Unclonable.clone)[1] + 1
    assert result.detail == ("the plugin raised ZeroDivisionError: integer division or modulo by zero; innermost "
                             f"frames: broken_plugins.py:{line} in clone (scale = 100 // sum(self.per_node.values())"
                             "  # the bug: every count may be 0)")


def test_the_checks_call_the_plugin_through_the_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite drives kubesched.runtime.Framework: Filter reaches the plugin only through run_filter_plugins."""
    through: list[str] = []
    original = Framework.run_filter_plugins

    def counted(self: Framework, state: Any, pod: Any, node_info: Any) -> Any:
        through.append(node_info.name)
        return original(self, state, pod, node_info)

    monkeypatch.setattr(Framework, "run_filter_plugins", counted)
    subject = PluginUnderTest(broken.SilentRejection)
    run_check(CHECKS_BY_ID["filter-status-valid"], subject)
    assert through == ["node-a"]
    assert subject.calls["filter"] == 1


def test_the_suite_modules_stay_small() -> None:
    """The suite is split by concern: no module of kubesched.testing.conformance exceeds 200 lines."""
    package = Path(conformance.__file__).parent
    sizes = {str(p.relative_to(package)): len(p.read_text(encoding="utf-8").splitlines())
             for p in package.rglob("*.py")}
    assert {name: size for name, size in sizes.items() if size > 200} == {}


class _WrongNameWithArgs:
    """Valid defaulted Args, but Filter names its node parameter ``node``."""

    name = "WrongNameWithArgs"

    @attrs.frozen
    class Args:
        limit: int = 3

    def __init__(self, handle: Any, args: Any = None) -> None:
        self.args = args

    @hookimpl
    def filter(self, state: Any, pod: Any, node: Any) -> None:
        return None


def test_a_wrong_parameter_name_fails_only_the_hookspec_check() -> None:
    """A hook parameter the hookspec lacks fails hooks-match-hookspecs alone; args-accept-defaults does not also
    fail claiming the plugin rejects its default args."""
    report = run_conformance(PluginUnderTest(_WrongNameWithArgs, large_cluster=50))
    assert report.failed_ids() == ["hooks-match-hookspecs"], "\n".join(report.lines())


@pytest.mark.parametrize(("plugin", "detail", "shown_plugin", "shown_detail"), [
    pytest.param("Evil\x1b[2J", "Filter returned \x1b]0;owned\x07 for pod p", "Evil\\x1b[2J",
                 "Filter returned \\x1b]0;owned\\x07 for pod p", id="escape-sequences-escaped"),
    pytest.param("Chatty", "line one\nline two", "Chatty", "line one\\nline two", id="newlines-on-one-line"),
    pytest.param("x" * 300, "m" * 3000, "x" * 256 + "... (300 characters)", "m" * 2000 + "... (3000 characters)",
                 id="long-name-and-message-cut"),
])
def test_the_plain_text_report_escapes_and_cuts_what_came_from_the_plugin(plugin: str, detail: str,
                                                                          shown_plugin: str, shown_detail: str) -> None:
    """A plugin's name and the messages in a check's detail reach the terminal escaped and cut, as simulate's do."""
    from kubesched.testing.conformance.report import CheckResult, ConformanceReport

    report = ConformanceReport(plugin, (CheckResult(CHECKS[0], Outcome.FAILED, detail),))
    lines = report.lines()
    assert lines[0] == f"conformance of plugin {shown_plugin}"
    assert lines[2].strip() == shown_detail

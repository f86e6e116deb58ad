"""Each conformance check can fail: run against a plugin broken in just its way, the suite reports exactly that
check as failed (and everything else as passed or skipped)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from kubesched.framework.plugin import hookimpl
from kubesched.testing.conformance import Outcome, PluginUnderTest, run_conformance
from kubesched.testing.conformance.checks import CHECKS
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
    ("deterministic", broken.CountsCalls, None, "a second run on the same instance answered differently"),
    ("filter-status-valid", broken.SilentRejection, None, "rejected with Unschedulable but no reason"),
    ("filter-status-valid", broken.ReasonsAsString, None, "filter gave reasons 'Full': they must be a tuple"),
    ("score-in-range", broken.ScoresOutOfRange, None, "score 150 from score (no normalize_score)"),
    ("score-in-range", broken.DropsANode, None, "normalize_score changed the list of nodes"),
    ("score-in-range", broken.ScoresIntEnum, None, "is <Level.HIGH: 90>, not an integer"),
    ("pre-filter-state-clone", broken.SharedClone, None, "clone() shares SharedClone.per_node"),
    ("add-remove-pod-restores", broken.ForgetfulRemovePod, None, "did not restore Filter's answer"),
    ("unreserve-idempotent", broken.UnreserveWithoutReserve, None, "unreserve without a prior reserve raised KeyError"),
    ("permit-valid", broken.WaitsForAnHour, None, "permit asked to wait 3600s"),
    ("edge-inputs", broken.NeedsZoneLabel, None, "nodes without labels"),
]


def test_every_check_has_a_broken_plugin() -> None:
    """The table covers every failing check (time-budget only warns, see below)."""
    assert {row[0] for row in BROKEN} == {c.id for c in CHECKS} - {"time-budget"}


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
                                    unusual.NarrowsWithAddPod],
                         ids=lambda p: p.__name__)
def test_correct_but_unusual_plugin_passes(plugin: type[Any]) -> None:
    """Seeded randomness, narrowing PreFilters (with AddPod), state that references the snapshot or the pod,
    Reserve/Permit that rely on PreFilter and the assumed pod, Score that trusts Filter and loggers in the
    plugin are all legitimate: nothing fails."""
    report = run_conformance(PluginUnderTest(plugin, large_cluster=100))
    assert report.ok, "\n".join(report.lines())


def test_a_pass_that_never_reached_the_hook_warns() -> None:
    """When PreFilter skips every example pod, the checks about Filter warn instead of passing silently."""
    from kubesched.plugins.node_affinity import NodeAffinity
    from kubesched.testing import make_pod

    report = run_conformance(PluginUnderTest(NodeAffinity, pods=[make_pod("plain").obj()], large_cluster=50))
    assert report.ok
    warned = {r.check.id: r.detail for r in report.by_outcome(Outcome.WARNED)}
    assert warned["filter-status-valid"] == ("filter never ran in this check (PreFilter or PreScore skipped every "
                                             "pod, or no node was left to call it on): give examples the plugin "
                                             "acts on")


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

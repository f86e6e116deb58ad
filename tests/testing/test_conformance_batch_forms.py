"""Specification of the batch-forms conformance check: batch forms must answer exactly as the per-node hooks."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.testing.conformance import Outcome, PluginUnderTest, run_check, run_conformance
from kubesched.testing.conformance.checks import CHECKS_BY_ID
from tests.testing import batch_form_plugins as plugins

CHECK = CHECKS_BY_ID["batch-forms"]


def test_consistent_batch_forms_pass_every_check() -> None:
    """A plugin whose filter_nodes, score_nodes and normalize_scores agree with its per-node hooks passes the
    whole suite, batch-forms included."""
    report = run_conformance(PluginUnderTest(plugins.Consistent, large_cluster=100))
    assert report.ok, "\n".join(report.lines())
    assert run_check(CHECK, PluginUnderTest(plugins.Consistent)).outcome is Outcome.PASSED


@pytest.mark.parametrize(("plugin", "detail"), [
    pytest.param(plugins.WrongFilterCode, "filter_nodes answered UnschedulableAndUnresolvable but filter answered "
                 "Unschedulable (node(s) had an hdd disk) (pod web on node node-c, batch of 3 nodes)",
                 id="filter-code"),
    pytest.param(plugins.IgnoresPositions, "filter_nodes answered Success but filter answered Unschedulable "
                 "(node(s) had an hdd disk) (pod web on node node-c, batch of 2 nodes)", id="ignores-positions"),
    pytest.param(plugins.ScoresAllocatable, "score_nodes gave 4 but score gave 3 (pod web on node node-a, batch of "
                 "2 nodes)", id="score"),
    pytest.param(plugins.ScalesToTen, "normalize_scores gave 5 but normalize_score gave 50 (pod web on node "
                 "node-a, batch of 2 nodes)", id="normalize"),
    pytest.param(plugins.FloatScores, "score_nodes returned ndarray of shape (2,) and dtype float64, not an integer "
                 "array of 2 scores (pod web)", id="float-scores"),
])
def test_batch_forms_that_disagree_with_the_per_node_hooks_fail(plugin: type[Any], detail: str) -> None:
    """Each inconsistency fails the check, naming the hooks, the answers, the pod and the node."""
    result = run_check(CHECK, PluginUnderTest(plugin))
    assert (result.outcome, result.detail) == (Outcome.FAILED, detail)


def test_an_inconsistent_batch_form_fails_only_the_batch_forms_check() -> None:
    """Every other check looks at the per-node hooks and passes."""
    report = run_conformance(PluginUnderTest(plugins.WrongFilterCode, large_cluster=100))
    assert report.failed_ids() == ["batch-forms"], "\n".join(report.lines())


def test_a_plugin_without_batch_forms_skips_the_check() -> None:
    """Per-node-only plugins are skipped with the reason."""
    result = run_check(CHECK, PluginUnderTest(plugins.PerNodeOnly))
    assert (result.outcome, result.detail) == (
        Outcome.SKIPPED, "the plugin has no batch form (filter_nodes, score_nodes or normalize_scores)")

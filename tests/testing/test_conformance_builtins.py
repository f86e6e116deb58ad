"""Every built-in plugin passes the conformance suite, run both ways a plugin author can run it."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.runtime import PluginRegistry
from kubesched.testing import PluginConformance, PluginUnderTest, run_conformance
from kubesched.testing.conformance import Outcome, run_check
from kubesched.testing.conformance.checks import CHECKS_BY_ID

BUILTINS = sorted(name for name, spec in PluginRegistry.discover().items() if spec.source == "builtin")


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_plugin_passes_the_suite(name: str) -> None:
    """No check fails for a built-in plugin with its default args on the default example cluster."""
    report = run_conformance(PluginUnderTest(PluginRegistry.discover()[name].cls, large_cluster=500))
    assert report.ok, "\n".join(report.lines())
    # The default examples reach every built-in's hooks; only the machine-dependent time budget may warn.
    assert [r.check.id for r in report.by_outcome(Outcome.WARNED)] in ([], ["time-budget"]), report.lines()


@pytest.mark.parametrize("name", [n for n in BUILTINS if {"filter", "filter_nodes"} & PluginUnderTest(
    PluginRegistry.discover()[n].cls).hooks])
def test_builtin_filter_leaves_the_cycle_state_unchanged(name: str) -> None:
    """Every built-in Filter (and filter_nodes) is run, and passes, by filter-state-unchanged: lazily built forms
    and memo caches in their states are not taken for changes."""
    result = run_check(CHECKS_BY_ID["filter-state-unchanged"], PluginUnderTest(PluginRegistry.discover()[name].cls))
    assert result.outcome is Outcome.PASSED, result.detail


class TestNodeResourcesFitWithMostAllocated(PluginConformance):
    """The base class as an author uses it: a built-in with non-default args (profile keys)."""

    plugin_class = NodeResourcesFit
    plugin_args: ClassVar[Any] = {"scoring-strategy": {"type": "MostAllocated"}}
    large_cluster = 500

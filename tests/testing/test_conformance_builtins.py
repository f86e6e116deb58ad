"""Every built-in plugin passes the conformance suite, run both ways a plugin author can run it."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.runtime import PluginRegistry
from kubesched.testing import PluginConformance, PluginUnderTest, run_conformance
from kubesched.testing.conformance import Outcome

BUILTINS = sorted(name for name, spec in PluginRegistry.discover().items() if spec.source == "builtin")


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_plugin_passes_the_suite(name: str) -> None:
    """No check fails for a built-in plugin with its default args on the default example cluster."""
    report = run_conformance(PluginUnderTest(PluginRegistry.discover()[name].cls, large_cluster=500))
    assert report.ok, "\n".join(report.lines())
    # The default examples reach every built-in's hooks; only the machine-dependent time budget may warn.
    assert [r.check.id for r in report.by_outcome(Outcome.WARNED)] in ([], ["time-budget"]), report.lines()


class TestNodeResourcesFitWithMostAllocated(PluginConformance):
    """The base class as an author uses it: a built-in with non-default args (profile keys)."""

    plugin_class = NodeResourcesFit
    plugin_args: ClassVar[Any] = {"scoring-strategy": {"type": "MostAllocated"}}
    large_cluster = 500

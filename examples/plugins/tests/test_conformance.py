"""The example plugins pass kubesched's conformance suite on cluster files that reach their interesting paths
(required labels and preferences; gang members that wait on Permit; budgets and prices): the suite's default
examples never reach NodeLabelPlacement's Filter and Score, hold no gang for Coscheduling and no priced node."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, ClassVar

from kubesched.testing import PluginConformance

from kubesched_examples.coscheduling import Coscheduling
from kubesched_examples.node_cost import NodeCost
from kubesched_examples.node_label_placement import NodeLabelPlacement

HERE = Path(__file__).parent


class TestNodeLabelPlacement(PluginConformance):
    """Required labels reject the hdd node; the zone preference scores the others."""

    plugin_class = NodeLabelPlacement
    plugin_args: ClassVar[Any] = tomllib.loads((HERE / "conformance" / "label-placement-args.toml").read_text())
    cluster = "conformance/label-placement.yaml"
    large_cluster = 500


class TestCoscheduling(PluginConformance):
    """Gang members wait on Permit; a pod without a group passes; a bad min-available is rejected."""

    plugin_class = Coscheduling
    cluster = "conformance/coscheduling.yaml"
    large_cluster = 500



class TestNodeCost(PluginConformance):
    """The budget keeps the budgeted pod off the dear node; prices score the rest; the batch forms agree."""

    plugin_class = NodeCost
    cluster = "conformance/node-cost.yaml"
    large_cluster = 500

def test_the_default_examples_never_reach_node_label_placement() -> None:
    """Why the cluster file: with its default args on the suite's own examples, the plugin skips every pod, so
    the checks about Filter and Score fail with the advice to pass a cluster."""
    from kubesched.testing.conformance import PluginUnderTest, run_conformance

    report = run_conformance(PluginUnderTest(NodeLabelPlacement, large_cluster=50))
    failed = [r for r in report.results if r.outcome.value == "fail"]
    assert [r.check.id for r in failed] == ["no-input-mutation", "filter-state-unchanged", "deterministic",
                                            "filter-status-valid", "score-in-range", "time-budget"]
    assert all("pass a cluster the plugin acts on" in r.detail for r in failed)

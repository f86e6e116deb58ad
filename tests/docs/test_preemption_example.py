"""The worked example of docs/preemption.md: the numbers the page states are what kubesched computes."""

from __future__ import annotations

import json
import re

from kubesched.io.load import load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from tests.conftest import EXAMPLES, REPO

DOC = (REPO / "docs" / "preemption.md").read_text(encoding="utf-8")
OFFSET = 2**31


def run(registry: PluginRegistry) -> SimulationResult:
    return simulate(load([EXAMPLES / "preemption"]), load_config("default", registry), registry)


def test_critical_preempts_batch_big_on_node_c(registry: PluginRegistry) -> None:
    """The chosen node and victim; the page's JSON excerpt is the result's ``preemptions`` key."""
    result = run(registry)
    assert [(p.preemptor, p.node, p.victims) for p in result.preemptions] == [
        ("default/critical", "node-c", ("default/batch-big",))]
    excerpt = re.search(r'^"preemptions": (\[.*?^\])', DOC, flags=re.M | re.S)
    assert excerpt is not None
    assert json.loads(excerpt.group(1)) == result.to_json()["preemptions"]


def test_preemptor_binds_after_the_victims_grace_period(registry: PluginRegistry) -> None:
    """batch-big ends Evicted; critical binds on node-c once batch-big's 10 s grace period is over."""
    result = run(registry)
    pods = {p.name: p for p in result.pods}
    assert (pods["batch-big"].phase, pods["critical"].phase, pods["critical"].node) == ("Evicted", "Bound", "node-c")
    preempted = next(e.time for e in result.events if e.reason == "Preempted")
    bound = next(e.time for e in result.events if e.reason == "Scheduled" and e.object == "default/critical")
    assert bound - preempted >= 10


def test_report_never_preempts(registry: PluginRegistry) -> None:
    """report's class has preemptionPolicy Never: it stays Pending with that reason."""
    pods = {p.name: p for p in run(registry).pods}
    assert pods["report"].message == ("0/3 nodes are available: 3 Insufficient cpu. "
                                      "preemption: not eligible due to preemptionPolicy=Never.")
    assert all(pods[name].phase == "Bound" for name in ("batch-1", "batch-2", "web-1", "batch-3", "web-2"))


def test_priority_sums_stated_in_the_page() -> None:
    """Criterion 3's sums, with each victim priority offset by 2^31, are the ones the page prints."""
    assert f"{2 * (100 + OFFSET)} for node-a" in DOC
    assert f"{100 + OFFSET} for node-c" in DOC

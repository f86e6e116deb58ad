"""Pods that arrive already terminating (a deletionTimestamp, as a dump of a real cluster can show)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

from kubesched.api.pod import Pod
from kubesched.cli.render import console, print_simulation
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def run(pods: list[Pod], registry: PluginRegistry) -> SimulationResult:
    node = make_node("n1").capacity(cpu="2").obj()
    return simulate(ClusterInput(nodes=(node,), pods=tuple(pods)), load_config("default", registry), registry)


def test_a_terminating_pod_holds_its_room_until_its_deletion_timestamp(registry: PluginRegistry) -> None:
    """The pending pod binds once the terminating one is gone, at the time its grace period ends."""
    old = make_pod("old").req(cpu="2").node("n1").created(T0).terminating(T0 + timedelta(seconds=30)).obj()
    new = make_pod("new").req(cpu="2").created(T0).obj()
    result = run([old, new], registry)
    phases = {p.name: (p.phase, p.node) for p in result.pods}
    assert phases == {"old": ("Deleted", "n1"), "new": ("Bound", "n1")}
    scheduled = [e for e in result.events if e.reason == "Scheduled"]
    assert [(e.object, e.time) for e in scheduled] == [("default/new", 30.0)]


def test_a_terminating_pod_whose_deletion_time_has_passed_goes_at_once(registry: PluginRegistry) -> None:
    """A deletionTimestamp before the start of the run frees the room at simulated time 0."""
    old = make_pod("old").req(cpu="2").node("n1").created(T0).terminating(T0 - timedelta(hours=1)).obj()
    new = make_pod("new").req(cpu="2").created(T0).obj()
    result = run([old, new], registry)
    assert [(e.object, e.time) for e in result.events if e.reason == "Scheduled"] == [("default/new", 0.0)]


def test_a_terminating_pod_is_reported_deleted_with_why(registry: PluginRegistry) -> None:
    """Its phase is Deleted, not Bound or Evicted, and the message says it was terminating in the input."""
    old = make_pod("old").node("n1").created(T0).terminating(T0 + timedelta(seconds=5)).obj()
    (only,) = run([old], registry).pods
    assert (only.phase, only.message) == ("Deleted", "terminating in the input; gone at its deletionTimestamp")


def test_the_table_summary_counts_deleted_pods(registry: PluginRegistry) -> None:
    """The table's last line counts pods that went away at their deletionTimestamp."""
    old = make_pod("old").node("n1").created(T0).terminating(T0 + timedelta(seconds=5)).obj()
    out = io.StringIO()
    print_simulation(run([old], registry), console(out))
    assert out.getvalue().splitlines()[-1] == "0 bound, 0 pending, 0 evicted, 1 deleted; seed 0"

"""Simulation.settle with a horizon, background timers, and the attempt bound as controllers add pods."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import Simulation
from kubesched.testing import make_node
from tests.sim.controllers.helpers import run


def empty(registry: PluginRegistry) -> Simulation:
    sim = Simulation(ClusterInput(nodes=(make_node("n1").capacity(cpu="4", pods="110").obj(),)),
                     load_config("default", registry), registry)
    sim.start()
    return sim


def test_settle_until_stops_at_the_time(registry: PluginRegistry) -> None:
    """settle(until=T) runs the timers due by T and leaves the clock at T; later ones wait."""
    sim = empty(registry)
    fired: list[float] = []
    for delay in (10.0, 30.0):
        sim.cluster.after(delay, lambda: fired.append(sim.clock.now()))
    sim.settle(until=20.0)
    assert (fired, sim.clock.now()) == ([10.0], 20.0)
    sim.settle()
    assert fired == [10.0, 30.0]


def test_background_timers_fire_at_their_time_only_while_work_is_due(registry: PluginRegistry) -> None:
    """A background timer due before a foreground one fires at its own time; alone, it does not keep the run
    going."""
    sim = empty(registry)
    fired: list[tuple[str, float]] = []
    sim.cluster.after(5.0, lambda: fired.append(("background", sim.clock.now())), background=True)
    sim.cluster.after(8.0, lambda: fired.append(("foreground", sim.clock.now())))
    sim.cluster.after(50.0, lambda: fired.append(("late background", sim.clock.now())), background=True)
    sim.settle()
    assert fired == [("background", 5.0), ("foreground", 8.0)]
    assert sim.clock.now() == 8.0


@pytest.mark.slow
def test_attempt_bound_grows_with_the_pods_controllers_create(tmp_path: Path, registry: PluginRegistry) -> None:
    """2100 replicas from an input with no pods (a bound of 2000 attempts at the start) all get scheduled."""
    text = ("kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: '1000', pods: '5000'}}\n---\n"
            "kind: ReplicaSet\napiVersion: apps/v1\nmetadata: {name: rs}\nspec: {replicas: 2100, selector: "
            "{matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}}\n")
    sim = run(tmp_path, text, registry)
    assert sum(1 for p in sim.cluster.pods.values() if p.spec.node_name) == 2100

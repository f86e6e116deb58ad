"""A small known simulation for the metrics and events tests: one preemption, one pod that never fits, one gated
pod and one pod that binds at once."""

from __future__ import annotations

from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import SimulationResult, simulate
from kubesched.testing import make_node, make_pod


def known_input() -> ClusterInput:
    """n1 (2 cpu) runs ``low`` (1.5 cpu, grace 30 s); ``hi`` (priority 100) preempts it and binds at 30 s once it is
    gone; ``small`` fits at once; ``huge`` never fits; ``gated`` waits on a scheduling gate."""
    node = make_node("n1").capacity(cpu="2").obj()
    low = make_pod("low").req(cpu="1500m").node("n1").grace_period(30).obj()
    hi = make_pod("hi").req(cpu="1").priority(100).obj()
    small = make_pod("small").req(cpu="100m").obj()
    huge = make_pod("huge").req(cpu="5").obj()
    gated = make_pod("gated").scheduling_gates("example.com/wait").obj()
    return ClusterInput(nodes=(node,), pods=(low, hi, small, huge, gated))


def run_known(registry: PluginRegistry, seed: int = 0) -> SimulationResult:
    """The known simulation with the default profile."""
    return simulate(known_input(), load_config("default", registry), registry, seed=seed)

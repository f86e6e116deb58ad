"""Benchmark: the cost of calling Filter hooks per node through pluggy versus direct calls.

The framework resolves each profile's hook implementations once and calls them directly in the per-node
loops. This measures why: eight trivial Filter plugins over many nodes, called (a) through pluggy's hook
caller, as a naive framework would, and (b) as the Framework does.

    python benchmarks/dispatch.py [--nodes 5000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

import pluggy

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import Framework, PluginEntry, PluginRegistry, Profile, new_plugin_manager
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod

PLUGINS = 8


def make_plugin(index: int) -> type[Plugin]:
    """A Filter plugin that accepts every node after a trivial check."""

    class Accept(Plugin):
        name = f"Accept{index}"

        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            return None if node_info.node is not None else Status.unschedulable("no node")

    return Accept


def best_of(repeat: int, run: object) -> float:
    """The fastest of ``repeat`` runs, in seconds."""
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        timings.append(time.perf_counter() - start)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()

    classes = [make_plugin(i) for i in range(PLUGINS)]
    nodes = [NodeInfo.of(make_node(f"n{i}").capacity(cpu="4").obj()) for i in range(options.nodes)]
    pod = make_pod("p").obj()
    state = CycleState()

    manager: pluggy.PluginManager = new_plugin_manager()
    for cls in classes:
        manager.register(cls(None), name=cls.name)  # type: ignore[arg-type]
    hook = manager.hook.filter

    def through_pluggy() -> None:
        for node_info in nodes:
            hook(state=state, pod=pod, node_info=node_info)

    profile = Profile("bench", {"queue-sort": (PluginEntry("PrioritySort"),), "bind": (PluginEntry("DefaultBinder"),),
                                "filter": tuple(PluginEntry(c.name) for c in classes)})
    framework = Framework(profile, PluginRegistry.of(PrioritySort, DefaultBinder, *classes),
                          client=InMemoryCluster(VirtualClock()))

    framework.run_pre_filter_plugins(state, pod, nodes)  # as in a real cycle: fixes this cycle's Filter list

    def direct() -> None:
        run = framework.run_filter_plugins
        for node_info in nodes:
            run(state, pod, node_info)

    pluggy_s = best_of(options.repeat, through_pluggy)
    direct_s = best_of(options.repeat, direct)
    per_node = 1e6 / options.nodes
    print(f"{PLUGINS} Filter plugins x {options.nodes} nodes (best of {options.repeat}):")
    print(f"  pluggy hook call per node : {pluggy_s * per_node:6.2f} us/node")
    print(f"  Framework direct calls    : {direct_s * per_node:6.2f} us/node")
    print(f"  ratio                     : {pluggy_s / direct_s:6.2f}x")


if __name__ == "__main__":
    main()

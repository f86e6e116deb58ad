"""Test helpers: gang pods, labelled nodes, profiles enabling the example plugins, a harness around one
Framework for Permit tests, and a simulation runner."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import attrs
from kubesched import ClusterInput, CycleState, Node, NodeInfo, Pod, PodInfo, Status, WaitingPod
from kubesched.profiles import SchedulerConfiguration, parse_config
from kubesched.runtime import Framework, PluginEntry, PluginRegistry, Profile
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.sim.simulate import PodResult, SimulationResult, simulate
from kubesched.testing import make_node, make_pod, make_snapshot

from kubesched_examples.coscheduling import NAME as COSCHEDULING
from kubesched_examples.coscheduling import Coscheduling
from kubesched_examples.node_label_placement import NAME as PLACEMENT
from kubesched_examples.node_label_placement import NodeLabelPlacement, NodeLabelPlacementArgs
from kubesched_examples.pod_group import MIN_AVAILABLE_LABEL, POD_GROUP_LABEL

EXAMPLE_DIR = Path(__file__).resolve().parent.parent
POOL_LABEL = "example.com/pool"
ZONE_LABEL = "topology.kubernetes.io/zone"

#: The default profile plus both example plugins at multi-point; ``{extra}`` appends plugin-config tables.
PROFILE = """
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugins.multi-point]
enabled = [{{ name = "Coscheduling" }}, {{ name = "NodeLabelPlacement", weight = 3 }}]
{extra}
"""


def gang_pod(name: str, group: str, min_available: int | str, *, cpu: str = "1",
             namespace: str = "default") -> Pod:
    """A pod of ``group`` declaring ``min_available``, requesting ``cpu``."""
    return (make_pod(name, namespace).req(cpu=cpu)
            .label(**{POD_GROUP_LABEL: group, MIN_AVAILABLE_LABEL: str(min_available)}).obj())


def with_annotation(pod: Pod, key: str, value: str) -> Pod:
    """``pod`` with one more annotation (kubesched.testing's builders have no annotation setter)."""
    annotations = {**pod.metadata.annotations, key: value}
    return attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, annotations=annotations))


def node(name: str, *, cpu: str = "4", pool: str = "batch", zone: str = "zone-a") -> Node:
    """A node of ``pool`` in ``zone``."""
    return make_node(name).capacity(cpu=cpu, memory="16Gi").labels({POOL_LABEL: pool, ZONE_LABEL: zone}).obj()


def load_profile(registry: PluginRegistry, extra: str = "") -> SchedulerConfiguration:
    """:data:`PROFILE` with ``extra`` plugin-config, validated against ``registry``."""
    return parse_config(tomllib.loads(PROFILE.format(extra=extra)), registry, source="test profile")


def run(registry: PluginRegistry, nodes: list[Node], pods: list[Pod], extra: str = "") -> SimulationResult:
    """Simulate ``pods`` on ``nodes`` with :data:`PROFILE` (plus ``extra`` plugin-config)."""
    return simulate(ClusterInput(nodes=tuple(nodes), pods=tuple(pods)), load_profile(registry, extra), registry)


def by_name(result: SimulationResult) -> dict[str, PodResult]:
    """The result's pods by name."""
    return {p.name: p for p in result.pods}


def placement_framework(args: NodeLabelPlacementArgs) -> Framework:
    """A Framework running only NodeLabelPlacement, at PreFilter, Filter, PreScore and Score."""
    entry = (PluginEntry(PLACEMENT),)
    points = dict.fromkeys(("pre-filter", "filter", "pre-score", "score"), entry)
    profile = Profile("default-scheduler", points, {PLACEMENT: args})
    return Framework(profile, PluginRegistry.of(NodeLabelPlacement), client=InMemoryCluster(VirtualClock()))


class GangHarness:
    """One Framework running Coscheduling at PreFilter, Reserve and Permit over a fixed snapshot, on a
    virtual clock; it plays the scheduler's part for waiting pods."""

    def __init__(self, node_infos: list[NodeInfo] | None = None, args: Any = None) -> None:
        self.clock = VirtualClock()
        entry = (PluginEntry(COSCHEDULING),)
        profile = Profile("default-scheduler", {"pre-filter": entry, "reserve": entry, "permit": entry},
                          {COSCHEDULING: args} if args is not None else {})
        self.framework = Framework(profile, PluginRegistry.of(Coscheduling), client=InMemoryCluster(self.clock),
                                   clock=self.clock, snapshot=make_snapshot(node_infos or []))
        self.states: dict[str, CycleState] = {}

    def pre_filter(self, pod: Pod) -> Status | None:
        """Run PreFilter in a fresh cycle for ``pod``."""
        state = self.states[pod.uid] = CycleState()
        return self.framework.run_pre_filter_plugins(state, pod, [])[1]

    def schedule(self, pod: Pod, node_name: str = "n1") -> Status | None:
        """PreFilter, Reserve and Permit for ``pod`` on ``node_name``; a Wait parks it as a WaitingPod."""
        status = self.pre_filter(pod)
        assert status is None, status
        state = self.states[pod.uid]
        assert self.framework.run_reserve_plugins_reserve(state, pod, node_name) is None
        return self.framework.run_permit_plugins(state, pod, node_name)

    def waiting(self, pod: Pod) -> WaitingPod:
        """The WaitingPod of ``pod`` (it must be waiting)."""
        waiting = self.framework.handle.get_waiting_pod(pod.uid)
        assert waiting is not None, f"{pod.key} is not waiting"
        return waiting

    def fail(self, pod: Pod) -> None:
        """What the scheduler does to a waiting pod whose wait failed: stop tracking it, then Unreserve."""
        self.framework.handle.remove_waiting_pod(pod.uid)
        self.framework.run_reserve_plugins_unreserve(self.states[pod.uid], pod, "n1")

    def time_out(self, pod: Pod) -> None:
        """Advance the clock to ``pod``'s deadline and let its wait expire, as the scheduler does."""
        waiting = self.waiting(pod)
        deadline = waiting.next_deadline()
        assert deadline is not None
        self.clock.advance_to(deadline)
        waiting.expire(self.clock.now())
        self.fail(pod)


def bound(pod: Pod, node_name: str = "n1") -> NodeInfo:
    """A NodeInfo for ``node_name`` with ``pod`` already running there."""
    return NodeInfo.of(make_node(node_name).capacity(cpu="8").obj(), [PodInfo.of(pod.with_node_name(node_name))])

"""Run one plugin, or a whole profile, on a small cluster and read back what the scheduler decided.

For plugin authors' tests: ``run_plugin(MyFilter, nodes, pods)`` schedules the pending ``pods`` with a profile
that enables only ``MyFilter`` (plus PrioritySort and DefaultBinder where it has no QueueSort or Bind of its own)
and returns a :class:`Decisions`: per pod, where it went or why not, and what each node got in its last attempt.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget
from kubesched.framework.args import structure
from kubesched.framework.node_info import NodeInfo, PodInfo
from kubesched.framework.plugin import extension_points
from kubesched.framework.snapshot import Snapshot
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import CycleRecord, Framework, PluginEntry, PluginRegistry, Profile, SchedulerSettings
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.sim.simulate import Simulation, SimulationResult

DEFAULT_SCHEDULER = "default-scheduler"


def plugin_args(plugin_class: type[Any], args: Any) -> Any:
    """The plugin's args instance: ``args`` as given, structured from a kebab-case mapping, or the defaults."""
    args_class = getattr(plugin_class, "Args", None)
    if args_class is None or isinstance(args, args_class):
        return args
    if args is None or isinstance(args, Mapping):
        return structure(args_class, args)
    raise TypeError(f"args for {plugin_class.__name__} must be a {args_class.__name__} or a mapping, "
                    f"got {type(args).__name__}")


def plugin_profile(plugin_class: type[Any], args: Any = None, *, weight: int = 1,
                   scheduler_name: str = DEFAULT_SCHEDULER) -> Profile:
    """A profile running ``plugin_class`` at every extension point it implements; PrioritySort and
    DefaultBinder fill QueueSort and Bind when the plugin has neither."""
    name = plugin_class.name
    plugins: dict[str, tuple[PluginEntry, ...]] = {"queue-sort": (PluginEntry("PrioritySort"),),
                                                   "bind": (PluginEntry("DefaultBinder"),)}
    for point in extension_points(plugin_class):
        plugins[point.key] = (PluginEntry(name, weight if point.key == "score" else None),)
    configured = plugin_args(plugin_class, args)
    return Profile(scheduler_name, plugins, {name: configured} if configured is not None else {})


def plugin_registry(plugin_class: type[Any]) -> PluginRegistry:
    """The built-in QueueSort and Bind plugins plus ``plugin_class`` (no entry-point discovery)."""
    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort

    extra = [c for c in (PrioritySort, DefaultBinder) if c.name != plugin_class.name]
    return PluginRegistry.of(*extra, plugin_class)


def cluster_and_snapshot(nodes: Sequence[Node], pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget] = (), *,
                         cluster: InMemoryCluster | None = None) -> tuple[InMemoryCluster, Snapshot]:
    """An in-memory cluster holding the objects, and a snapshot of the nodes with their bound pods."""
    cluster = cluster if cluster is not None else InMemoryCluster(VirtualClock())
    cluster.pdbs = list(pdbs)
    for node in nodes:
        cluster.add_node(node)
    for pod in pods:
        cluster.add_pod(pod)
    return cluster, Snapshot.of([NodeInfo.of(n, [PodInfo.of(p) for p in pods if p.spec.node_name == n.name])
                                 for n in nodes])


def plugin_framework(plugin_class: type[Any], args: Any = None, *, nodes: Sequence[Node] = (),
                     pods: Sequence[Pod] = (), pdbs: Sequence[PodDisruptionBudget] = (),
                     seed: int = 0) -> Framework:
    """A Framework for ``plugin_class`` alone over ``nodes`` with the bound ``pods`` in its snapshot and an
    in-memory cluster as its client: call the plugin's hooks through it, or directly on
    ``framework.plugins[name]``."""
    cluster, snapshot = cluster_and_snapshot(nodes, pods, pdbs)
    return Framework(plugin_profile(plugin_class, args), plugin_registry(plugin_class), client=cluster,
                     rng=random.Random(seed), clock=cluster.clock, snapshot=snapshot)


@attrs.frozen
class Decision:
    """One pod's outcome: ``node`` when bound (``phase`` Bound), else ``phase`` and the reason in ``message``.

    ``rejected`` maps each node that failed Filter in the pod's last attempt to its reasons; ``scores`` maps
    each feasible node of that attempt to its total weighted score (empty when nothing was scored).
    """

    pod: str
    phase: str
    node: str | None
    message: str
    rejected: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    scores: Mapping[str, int] = attrs.field(factory=dict)

    @property
    def bound(self) -> bool:
        """Whether the pod was bound to a node."""
        return self.node is not None and self.phase == "Bound"


@attrs.frozen
class Decisions(Mapping[str, Decision]):
    """Every pod's :class:`Decision` by pod name (or ``namespace/name``), plus the whole simulation result."""

    by_key: Mapping[str, Decision]
    result: SimulationResult

    def __getitem__(self, name: str) -> Decision:
        if name in self.by_key:
            return self.by_key[name]
        matches = [d for key, d in self.by_key.items() if key.split("/", 1)[1] == name]
        if len(matches) == 1:
            return matches[0]
        raise KeyError(name if not matches else f"{name}: ambiguous, give namespace/name")

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_key)

    def __len__(self) -> int:
        return len(self.by_key)

    def placements(self) -> dict[str, str | None]:
        """Pod name (``namespace/name``) to its node, None for pods not bound."""
        return {key: d.node if d.bound else None for key, d in self.by_key.items()}


def run_profile(config: SchedulerConfiguration | str | Path, nodes: Sequence[Node | Any], pods: Sequence[Pod | Any], *,
                registry: PluginRegistry | None = None, pdbs: Sequence[PodDisruptionBudget] = (),
                seed: int = 0) -> Decisions:
    """Simulate ``pods`` (bound ones run, the others are scheduled) on ``nodes`` with a profile: a loaded
    configuration, a shipped profile name or a TOML path; plugins come from ``registry`` or are discovered."""
    from kubesched.profiles import load_config

    registry = registry if registry is not None else PluginRegistry.discover()
    if not isinstance(config, SchedulerConfiguration):
        config = load_config(str(config), registry)
    return _run(config, registry, nodes, pods, pdbs, seed)


def run_plugin(plugin_class: type[Any], nodes: Sequence[Node | Any], pods: Sequence[Pod | Any], *, args: Any = None,
               pdbs: Sequence[PodDisruptionBudget] = (), seed: int = 0) -> Decisions:
    """Simulate ``pods`` on ``nodes`` with a profile of ``plugin_class`` alone (see :func:`plugin_profile`);
    ``args`` is the plugin's Args instance or a kebab-case mapping, defaults when omitted."""
    config = SchedulerConfiguration(SchedulerSettings(), (plugin_profile(plugin_class, args),), plugin_class.name)
    return _run(config, plugin_registry(plugin_class), nodes, pods, pdbs, seed)


def built(items: Sequence[Any]) -> tuple[Any, ...]:
    """Objects as given, with builders (anything with ``obj()``, like ``make_pod("p")``) built."""
    return tuple(item.obj() if hasattr(item, "obj") else item for item in items)


def _run(config: SchedulerConfiguration, registry: PluginRegistry, nodes: Sequence[Node | Any],
         pods: Sequence[Pod | Any], pdbs: Sequence[PodDisruptionBudget], seed: int) -> Decisions:
    cluster_input = ClusterInput(nodes=built(nodes), pods=built(pods), pdbs=tuple(pdbs))
    simulation = Simulation(cluster_input, config, registry, seed=seed)
    last: dict[str, CycleRecord] = {}

    def observe(record: CycleRecord) -> None:
        last[record.pod.key] = record

    simulation.scheduler.cycle_observer = observe
    result = simulation.run()
    decisions = {}
    for pod in result.pods:
        key = f"{pod.namespace}/{pod.name}"
        record = last.get(key)
        rejected: dict[str, tuple[str, ...]] = {}
        scores: dict[str, int] = {}
        if record is not None:
            statuses = record.diagnosis.node_to_status
            rejected = {name: status.reasons for name, status in statuses.statuses.items()}
            if record.status is not None and not record.status.is_success():
                # A failed attempt checked every node: those without an entry were rejected before Filter
                # (PreFilter, or narrowed away by a PreFilterResult) with the absent-nodes status.
                for node in cluster_input.nodes:
                    if node.name not in rejected and node.name not in record.feasible_nodes:
                        rejected[node.name] = statuses.absent_nodes_status.reasons
            if record.scores is not None:
                scores = dict(zip(record.scores.nodes, record.scores.totals, strict=True))
        decisions[key] = Decision(key, pod.phase, pod.node, pod.message, rejected, scores)
    return Decisions(decisions, result)

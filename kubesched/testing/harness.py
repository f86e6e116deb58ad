"""Run one plugin, or a whole profile, on a small cluster and read back what the scheduler decided.

For plugin authors' tests: ``run_plugin(MyFilter, nodes, pods)`` schedules the pending ``pods`` with a profile
that enables only ``MyFilter`` (plus PrioritySort and DefaultBinder where it has no QueueSort or Bind of its own)
and returns a :class:`Decisions`: per pod, where it went or why not, and what each node got in its last attempt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import CycleRecord, PluginRegistry, SchedulerSettings
from kubesched.sim.simulate import Simulation, SimulationResult
from kubesched.testing.cluster import (  # the cluster side of the kit, re-exported for existing imports
    NodeLike,
    PdbLike,
    PodLike,
    RecordingClient,
    built,
    check_unique,
    cluster_and_snapshot,
)
from kubesched.testing.frameworks import (  # the framework side of the kit, re-exported for existing imports
    DEFAULT_SCHEDULER,
    plugin_args,
    plugin_framework,
    plugin_instance,
    plugin_profile,
    plugin_registry,
)

__all__ = ["DEFAULT_SCHEDULER", "Decision", "Decisions", "RecordingClient", "built", "check_unique",
           "cluster_and_snapshot", "plugin_args", "plugin_framework", "plugin_instance", "plugin_profile",
           "plugin_registry", "run_plugin", "run_profile"]


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


def run_profile(config: SchedulerConfiguration | str | Path, nodes: Sequence[NodeLike], pods: Sequence[PodLike], *,
                registry: PluginRegistry | None = None, pdbs: Sequence[PdbLike] = (),
                seed: int = 0) -> Decisions:
    """Simulate ``pods`` (bound ones run, the others are scheduled) on ``nodes`` with a profile: a loaded
    configuration, a shipped profile name or a TOML path; plugins come from ``registry`` or are discovered."""
    from kubesched.profiles import load_config

    registry = registry if registry is not None else PluginRegistry.discover()
    if not isinstance(config, SchedulerConfiguration):
        config = load_config(str(config), registry)
    return _run(config, registry, nodes, pods, pdbs, seed)


def run_plugin(plugin_class: type[Any], nodes: Sequence[NodeLike], pods: Sequence[PodLike], *, args: Any = None,
               pdbs: Sequence[PdbLike] = (), seed: int = 0) -> Decisions:
    """Simulate ``pods`` on ``nodes`` with a profile of ``plugin_class`` alone (see :func:`plugin_profile`);
    ``args`` is the plugin's Args instance or a kebab-case mapping, defaults when omitted."""
    config = SchedulerConfiguration(SchedulerSettings(), (plugin_profile(plugin_class, args),), plugin_class.name)
    return _run(config, plugin_registry(plugin_class), nodes, pods, pdbs, seed)


def _run(config: SchedulerConfiguration, registry: PluginRegistry, nodes: Sequence[NodeLike],
         pods: Sequence[PodLike], pdbs: Sequence[PdbLike], seed: int) -> Decisions:
    cluster_input = ClusterInput(nodes=built(nodes), pods=built(pods), pdbs=built(pdbs))
    check_unique(cluster_input.nodes, cluster_input.pods)
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

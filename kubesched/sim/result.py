"""What a simulation reports: where each pod ended up, the preemptions, the events, node usage and metrics, and
the documented JSON shape of it all (docs/simulate.md)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.analysis import RunAnalysis
from kubesched.metrics import SchedulerMetrics, metrics_json
from kubesched.runtime import Attempt, PluginFailure
from kubesched.sim.cluster import Event
from kubesched.sim.node_usage import NodeUsage as NodeUsage

PHASE_BOUND = "Bound"
PHASE_PENDING = "Pending"
PHASE_EVICTED = "Evicted"
#: A pod that was already terminating in the input and went away at its deletionTimestamp.
PHASE_DELETED = "Deleted"
#: A pod the API server's admission refused (a ResourceQuota): never created, its message the API server's.
PHASE_REJECTED = "Rejected"
#: The phases of pods that ended otherwise (a Job's pod that ran its time, a pod lost with its node, a pod a
#: scenario or a controller deleted), with their messages.
ENDED_MESSAGES = {"Succeeded": "ran to completion", "Lost": "lost with its node (the node was deleted)",
                  "Deleted": "deleted"}


@attrs.frozen
class PodResult:
    """Where a pod ended up; ``uid`` tells apart pods of one name (a StatefulSet's re-created replica), ``owner``
    is its controller's (kind, name), None without one."""

    namespace: str
    name: str
    phase: str
    node: str | None
    nominated_node: str | None
    priority: int
    message: str
    uid: str = ""
    owner: tuple[str, str] | None = None

    def to_json(self) -> dict[str, object]:
        """The pod's entry of the result's ``pods`` key."""
        owner = None if self.owner is None else {"kind": self.owner[0], "name": self.owner[1]}
        return {"namespace": self.namespace, "name": self.name, "uid": self.uid, "owner": owner,
                "phase": self.phase, "node": self.node, "nominatedNode": self.nominated_node,
                "priority": self.priority, "message": self.message}


@attrs.frozen
class Preemption:
    """One preemption: the preemptor (``namespace/name``), the node, its victims in kube-scheduler's order and, per
    victim, whether it was already terminating when chosen (kube-scheduler chooses such pods again: they hold their
    resources); then the uids of the preemptor and of each victim, in the same order, and when it happened."""

    preemptor: str
    node: str
    victims: tuple[str, ...]
    victims_already_terminating: tuple[bool, ...] = ()
    preemptor_uid: str = ""
    victim_uids: tuple[str, ...] = ()
    #: When it happened, in simulated seconds.
    time: float = 0.0

    def to_json(self) -> dict[str, object]:
        """The preemption's entry of the result's ``preemptions`` key."""
        return {"time": self.time, "preemptor": self.preemptor, "preemptorUid": self.preemptor_uid, "node": self.node,
                "victims": list(self.victims), "victimUids": list(self.victim_uids),
                "victimsAlreadyTerminating": list(self.victims_already_terminating)}


@attrs.frozen
class SimulationResult:
    """The outcome of a simulation."""

    seed: int
    pods: tuple[PodResult, ...]
    preemptions: tuple[Preemption, ...]
    events: tuple[Event, ...]
    #: Every node at the end of the run, by name.
    nodes: tuple[NodeUsage, ...] = ()
    warnings: tuple[str, ...] = ()
    #: Every plugin error, in order (each is also a PluginError event).
    plugin_errors: tuple[PluginFailure, ...] = ()
    #: The scheduler's metrics at the end of the run (docs/metrics.md).
    metrics: SchedulerMetrics | None = attrs.field(default=None, eq=False)
    #: With ``--explain``: every recorded scheduling attempt, by pod key (docs/explain.md); None without it.
    explain: dict[str, tuple[Attempt, ...]] | None = None
    #: For a scenario run: its name, end time and each step's virtual time (the JSON's ``scenario`` key).
    scenario: Mapping[str, object] | None = None
    #: The run metrics and their series (the JSON's ``analysis`` key, docs/analysis.md).
    analysis: RunAnalysis | None = attrs.field(default=None, eq=False)

    def plugin_error_summary(self) -> list[str]:
        """One line per failing plugin and extension point: how often, on how many pods, and the first failure."""
        groups: dict[tuple[str, str], list[PluginFailure]] = {}
        for failure in self.plugin_errors:
            groups.setdefault((failure.point, failure.plugin), []).append(failure)
        return [f'{point} plugin "{plugin}" failed {len(failures)} time(s) on {len({f.pod for f in failures})} '
                f"pod(s); first: {failures[0].describe()}" for (point, plugin), failures in groups.items()]

    def to_json(self) -> dict[str, object]:
        """The documented JSON shape (``SimulationResult``); a scenario run adds the ``scenario`` key."""
        document: dict[str, object] = {
            "kind": "SimulationResult",
            "seed": self.seed,
            "pods": [p.to_json() for p in self.pods],
            "nodes": [n.to_json() for n in self.nodes],
            "preemptions": [p.to_json() for p in self.preemptions],
            "events": [e.to_json() for e in self.events],
            "metrics": metrics_json(self.metrics) if self.metrics is not None else {},
            **({} if self.analysis is None else {"analysis": self.analysis.to_json()}),
            **({} if self.explain is None else
               {"explain": {key: [a.to_json() for a in attempts] for key, attempts in self.explain.items()}}),
        }
        if self.scenario is not None:
            document["scenario"] = dict(self.scenario)
        return document

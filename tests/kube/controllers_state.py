"""What the controllers' fidelity test compares: a normalised end state built alike from the real control plane
(tests/kube/controllers_real.py) and from a ``kubesched simulate`` scenario run on the same objects (here).

Random parts are normalised away: a Deployment's ReplicaSet is named by its revision (``web#1`` for the first
template, ``web#2`` after a rollout) since the pod-template-hash differs by design, and the 5 random characters of a
generated pod name become ``*``. StatefulSet pod names are deterministic and kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import ScenarioRunner
from tests.kube.controllers_cases import Case, Obj

#: Virtual seconds between the steps of the scenario: long enough for every case to settle in between.
STEP_GAP = 300
#: How long a Job's pod runs in the scenario (the real side's stand-in kubelet lets it run about a second).
JOB_DURATION = "10s"
#: Events of the scheduler, of kubesched's own drain and scenario, and of the provisioner (the real side plays it),
#: not of the controllers compared.
NOT_CONTROLLERS = frozenset({"Scheduled", "FailedScheduling", "Preempted", "ScenarioStep", "Evicted",
                             "EvictionRefused", "Drained", "DrainTimeout", "NodeDeleted", "Provisioning",
                             "ProvisioningSucceeded"})
#: The PV controller's events while a claim waits, recorded again at each sync of the claim until it is bound: how
#: many times depends on timing in kube (kubesched records each once), so only whether each was recorded counts.
WAITING = frozenset({"WaitForFirstConsumer", "WaitForPodScheduled", "ExternalProvisioning"})
#: Whom a WaitForFirstConsumer claim waits for: compared apart (its reason depends on timing for a StatefulSet's).
CLAIM_WAITS = frozenset({"WaitForFirstConsumer", "WaitForPodScheduled"})
GENERATED = re.compile(r"(?<=-)[bcdfghjklmnpqrstvwxz2456789]{5}\b")
SCALED = re.compile(r"Scaled (up|down) replica set (?P<rs>\S+) from (?P<old>\d+) to (?P<new>\d+)")


@dataclass(frozen=True)
class PodView:
    """A live pod: its controller (``Kind name``; a Deployment's pods ``Deployment web#<revision>``), name,
    node ("" unbound) and phase (Running once bound, Pending, Succeeded, Failed)."""

    owner: str
    name: str
    node: str
    phase: str


@dataclass(frozen=True)
class EventView:
    """A controller's event: its object's kind and name, reason and message."""

    kind: str
    name: str
    reason: str
    message: str


@dataclass(frozen=True)
class ClaimView:
    """A PersistentVolumeClaim: name, owner (``Kind name``, "" for none), labels, class, phase and the volume it
    is bound to (``pvc-<uid>`` for the one a provisioner made for it, whose name holds the claim's uid)."""

    name: str
    owner: str
    labels: str
    storage_class: str
    phase: str
    volume: str


def claim_view(name: str, uid: str, owner: str, labels: Mapping[str, str], storage_class: str | None, phase: str,
               volume: str) -> ClaimView:
    """The claim's view, its labels as ``k=v,...`` and its provisioned volume's name without the uid."""
    return ClaimView(name, owner, ",".join(f"{k}={v}" for k, v in sorted(labels.items())), storage_class or "",
                     phase, "pvc-<uid>" if uid and volume == f"pvc-{uid}" else volume)


@dataclass
class Views:
    """What one side holds at the end: live pods, ReplicaSet names (-> ``web#<revision>``) and spec.replicas,
    events in order, PDB statuses, claims, and how many pods a drain's evictions were refused for."""

    pods: list[PodView] = field(default_factory=list)
    replica_sets: dict[str, tuple[str, int]] = field(default_factory=dict)
    events: list[EventView] = field(default_factory=list)
    pdbs: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    #: The namespace's PersistentVolumeClaims: a StatefulSet's ``<template>-<set>-<ordinal>``, a pod's ephemeral
    #: ``<pod>-<volume>``, the case's own.
    claims: list[ClaimView] = field(default_factory=list)
    refused: int = 0


def owner_of(ref: tuple[str, str] | None, replica_sets: Mapping[str, tuple[str, int]] | None = None) -> str:
    """``Kind name`` of an owner reference's (kind, name) ("" for none); a Deployment's ReplicaSet as
    ``Deployment web#<revision>``."""
    if ref is None:
        return ""
    kind, name = ref
    if replica_sets is not None and kind == "ReplicaSet" and name in replica_sets:
        return f"Deployment {replica_sets[name][0]}"
    return f"{kind} {name}"


def normalise(views: Views, case: Case) -> dict[str, object]:
    """The state compared: pods per owner (names where deterministic, nodes where the case says so), how many
    pods each node holds per owner, ReplicaSets by revision, controller events (as a multiset, a Deployment's as
    each ReplicaSet's scaling path; in order for the case's ``ordered`` kinds; the PV controller's waiting ones
    once each, whom a claim waits for apart), PDB statuses, claims (their volumes where the case's nodes are
    deterministic) and refused evictions."""
    renames = {name: label for name, (label, _) in views.replica_sets.items()}

    def rename(text: str) -> str:
        for name, label in renames.items():
            text = re.sub(rf"\b{re.escape(name)}\b", label, text)
        return GENERATED.sub("*", text)

    pods = sorted((p.owner, p.name if p.owner.startswith("StatefulSet") else "",
                   p.node if case.exact_nodes else "", p.phase) for p in views.pods)
    per_node: dict[str, Counter[str]] = {}
    for p in views.pods:
        if p.node:
            per_node.setdefault(p.owner, Counter())[p.node] += 1
    raw = [(e.kind, e.name, e.reason, e.message) for e in views.events]
    raw = [e for i, e in enumerate(raw) if e[2] not in WAITING or e not in raw[:i]]
    events = [(kind, rename(name), reason, rename(message)) for kind, name, reason, message in raw]
    return {
        "pods": pods,
        "pods per node": {owner: sorted(counts.values()) for owner, counts in sorted(per_node.items())},
        "replica sets": sorted(views.replica_sets.values()),
        "events": sorted(Counter(e for e in events if e[2] != "ScalingReplicaSet" and e[2] not in CLAIM_WAITS)
                         .items()),
        "claim waits": sorted(Counter(e[1:] for e in events if e[2] in CLAIM_WAITS).items()),
        "scaling": scaling_paths(events),
        # the order of each event's first occurrence: kube counts a repeat in the first event, losing its place
        "event order": list(dict.fromkeys(e for e in events if e[0] in case.ordered)),
        "pdbs": views.pdbs,
        "claims": sorted((rename(c.name), rename(c.owner), c.labels, c.storage_class, c.phase,
                          c.volume if case.exact_nodes else "") for c in views.claims),
        "evictions refused": views.refused,
    }


def scaling_paths(events: list[tuple[str, str, str, str]]) -> dict[str, str]:
    """Each ReplicaSet's ScalingReplicaSet events as the path of its replicas, steps in one direction merged
    (``0 → 4 → 0``): how many steps a rollout takes depends on when each pod becomes ready."""
    paths: dict[str, list[int]] = {}
    for _, _, reason, message in events:
        if reason == "ScalingReplicaSet" and (match := SCALED.fullmatch(message)):
            path = paths.setdefault(match["rs"], [int(match["old"])])
            new = int(match["new"])
            if len(path) > 1 and (path[-1] - path[-2]) * (new - path[-1]) > 0:
                path[-1] = new
            else:
                path.append(new)
    return {rs: " → ".join(map(str, path)) for rs, path in sorted(paths.items())}


def scenario_document(case: Case) -> Obj:
    """The case as a Scenario: step i at ``i * STEP_GAP`` seconds."""
    steps = []
    for index, step in enumerate(case.steps):
        entry: Obj = {"at": f"{index * STEP_GAP}s"} if index else {}
        if step.action in ("create", "apply"):
            entry[step.action] = {"objects": [case.prepared(o) for o in step.objects]}
        elif step.action == "scale":
            entry["scale"] = {"kind": step.kind, "name": step.name, "namespace": case.name,
                              "replicas": step.replicas}
        elif step.action == "delete":
            entry["delete"] = {"kind": step.kind, "name": step.name, "namespace": case.name}
        else:
            assert step.action == "drain", step.action
            entry["drain-node"] = {"name": case.node(step.name)}
        steps.append(entry)
    return {"apiVersion": "kubesched.io/v1alpha1", "kind": "Scenario", "metadata": {"name": case.name},
            "spec": {"settings": {"jobDuration": JOB_DURATION, **case.settings}, "steps": steps}}


def simulated(case: Case, folder: Path) -> Views:
    """Run the case's scenario through ``kubesched simulate``'s engine (seed 0) and read its end state."""
    path = folder / f"{case.name}.yaml"
    path.write_text(yaml.safe_dump(scenario_document(case), sort_keys=False))
    registry = PluginRegistry.discover()
    runner = ScenarioRunner(load_scenario(path), load_config("default", registry), registry, seed=0)
    result = runner.run()
    manager = runner.manager
    views = Views()
    for controller in manager.controllers.values():
        if isinstance(controller, DeploymentController):
            for revision, rs in enumerate(controller.replica_sets(), 1):
                views.replica_sets[rs.metadata.name] = (f"{controller.metadata.name}#{revision}", rs.replicas)
    phases = {"Bound": "Running", "Pending": "Pending", "Succeeded": "Succeeded"}
    for pod, outcome in zip(runner.pods, result.pods, strict=True):
        if outcome.phase not in phases:
            continue  # gone: evicted, deleted
        ref = next(((r.kind, r.name) for r in pod.metadata.owner_references if r.controller), None)
        owner = owner_of(ref, views.replica_sets)
        views.pods.append(PodView(owner, pod.name, outcome.node or "", phases[outcome.phase]))
    views.events = [EventView(e.kind, e.name, e.reason, e.message) for e in result.events
                    if e.kind not in ("Pod", "Node", "Scenario") and e.reason not in NOT_CONTROLLERS]
    views.pdbs = {p.name: (p.status.disruptions_allowed or 0, p.status.current_healthy or 0,
                           p.status.desired_healthy or 0, p.status.expected_pods or 0)
                  for p in runner.sim.cluster.list_pdbs()}
    views.claims = [claim_view(c.name, c.metadata.uid, owner_of(next(((r.kind, r.name) for r in
                                                                      c.metadata.owner_references), None)),
                               c.metadata.labels, c.spec.storage_class_name, c.phase, c.volume_name)
                    for c in runner.sim.cluster.storage.claims() if c.namespace == case.name]
    views.refused = len({e.name for e in result.events if e.reason == "EvictionRefused"})
    return views

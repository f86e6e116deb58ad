"""Run a :class:`~kubesched.sim.scenario.Scenario`: its steps at their virtual times, the scheduler and the
controllers in between, on the simulation's agenda (time jumps to the next entry; nothing sleeps).

A step with an ``at`` time waits on the agenda (a STEP entry): it runs once everything due by that time has
happened. A step without ``at`` runs right after the one before; one after ``run-until`` waits for that time, or
for quiescence. After the last step the run goes on to quiescence, unless that step is ``run-until`` a time.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesched.api.apps import Deployment
from kubesched.api.node import NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE, NodeSpec, Taint
from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import Explainer, PluginRegistry
from kubesched.sim.agenda import Phase
from kubesched.sim.controllers.base import ScaledController
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.controllers.manager import ControllerManager
from kubesched.sim.scenario_steps import (
    DRAIN_RETRY,
    Create,
    Delete,
    DeleteNode,
    DrainNode,
    PatchNode,
    RunUntil,
    Scale,
    Scenario,
    Step,
)
from kubesched.sim.simulate import Simulation, SimulationError, SimulationProgress, SimulationResult, queue_order
from kubesched.validation import terminal


def run_scenario(scenario: Scenario, config: SchedulerConfiguration, registry: PluginRegistry, *,
                 seed: int = 0, progress: SimulationProgress | None = None,
                 explainer: Explainer | None = None, reference_pod: Mapping[str, int] | None = None,
                 ) -> SimulationResult:
    """Run ``scenario``; the same scenario and seed give the same result (``progress`` and ``explainer`` change no
    placement; ``reference_pod`` is the run metrics' fragmentation pod). A run that cannot settle raises
    :class:`SimulationError` carrying the result so far."""
    return ScenarioRunner(scenario, config, registry, seed=seed, progress=progress, explainer=explainer,
                          reference_pod=reference_pod).run()


class ScenarioRunner:
    """Drives a :class:`Simulation` through a scenario's steps."""

    def __init__(self, scenario: Scenario, config: SchedulerConfiguration, registry: PluginRegistry, *,
                 seed: int = 0, progress: SimulationProgress | None = None,
                 explainer: Explainer | None = None, reference_pod: Mapping[str, int] | None = None) -> None:
        self.scenario = scenario
        warnings = tuple(w for step in scenario.steps if isinstance(step.action, Create)
                         for w in step.action.objects.warnings)
        # What admission reads (PriorityClasses, LimitRanges, RuntimeClasses, ResourceQuotas) comes with the steps.
        self.sim = Simulation(ClusterInput(warnings=warnings), config, registry, seed=seed,
                              progress=progress, explainer=explainer, controllers=scenario.settings,
                              storage=scenario.storage, reference_pod=reference_pod)
        self.executed: list[tuple[Step, float]] = []
        self._refused: set[str] = set()
        # The index of the next step to run.
        self._next = 0

    @property
    def pods(self) -> list[Pod]:
        """Every pod of the run so far (created by the steps or the controllers), as created, in order."""
        return self.sim.pods

    @property
    def manager(self) -> ControllerManager:
        """The controller manager (started with the run)."""
        assert self.sim.manager is not None
        return self.sim.manager

    def run(self) -> SimulationResult:
        """Every step in order, then to quiescence unless the last step ran until a time."""
        sim = self.sim
        try:
            sim.start()
            self._steps_due()
            sim.settle()
        except SimulationError as error:
            error.result = self.result()
            raise
        return self.result()

    def result(self) -> SimulationResult:
        """The simulation's result with the scenario's summary (each step's virtual time)."""
        summary = {
            "name": self.scenario.name,
            "endTime": self.sim.clock.now(),
            "steps": [{"index": step.index, "action": step.name, "at": step.at, "time": time}
                      for step, time in self.executed],
        }
        return attrs.evolve(self.sim.result(), scenario=summary)

    # -- steps ------------------------------------------------------------------------------------------------
    def _steps_due(self) -> None:
        """Run the steps due now, in order, then put the next one on the agenda: at its ``at`` time, at the time a
        ``run-until`` runs to, or at quiescence. After a last ``run-until`` a time, the run ends then. Each batch
        of steps starts a new count of attempts (the bound of a settle)."""
        sim, steps = self.sim, self.scenario.steps
        agenda = sim.agenda
        while self._next < len(steps):
            step = steps[self._next]
            now = sim.clock.now()
            if step.at is not None and step.at > now:
                agenda.at(step.at, self._steps_due, phase=Phase.STEP)
                break
            if step.at is not None and step.at < now:
                sim.warnings.append(f"spec.steps[{step.index}] ran at {now:g}s, after its time "
                                    f"{step.at:g}s: the run-until quiescence before it ended later")
            self._next += 1
            self._apply(step)
            action = step.action
            if isinstance(action, RunUntil):
                if self._next == len(steps):
                    if action.time is not None:
                        sim.stop_at(action.time)
                elif action.time is None:
                    agenda.at_quiescence(self._steps_due)
                else:
                    agenda.at(action.time, self._steps_due, phase=Phase.STEP)
                break
        sim.restart_attempt_bound()

    def _event(self, step: Step, message: str) -> None:
        self.sim.cluster.record_object_event("Scenario", "", self.scenario.name, "Normal", "ScenarioStep",
                                f"spec.steps[{step.index}] {step.name}: {message}")

    def _apply(self, step: Step) -> None:
        self.executed.append((step, self.sim.clock.now()))
        action = step.action
        if isinstance(action, Create):
            self._create(step, action)
        elif isinstance(action, Delete):
            self._event(step, ", ".join(str(t) for t in action.targets))
            for target in action.targets:
                self._delete(target.kind, target.namespace, target.name)
        elif isinstance(action, PatchNode):
            self._event(step, f"node {action.name}")
            self._patch_node(action)
        elif isinstance(action, DrainNode):
            self._event(step, f"node {action.name}")
            self._drain(action)
        elif isinstance(action, DeleteNode):
            self._event(step, f"node {action.name}")
            gone = self.sim.cluster.nodes.get(action.name)
            lost = self.sim.cluster.delete_node(action.name)
            self.sim.cluster.record_object_event("Node", "", action.name, "Normal", "NodeDeleted",
                                                 f"node deleted; {len(lost)} pod(s) on it lost",
                                                 uid=gone.metadata.uid if gone is not None else "")
        elif isinstance(action, Scale):
            self._event(step, f"{action.target} to {action.replicas}")
            target = action.target
            controller = self.manager.get(target.kind, target.namespace, target.name)
            if isinstance(controller, ScaledController):
                controller.scale(action.replicas)
            else:
                self.sim.warnings.append(f"spec.steps[{step.index}]: {target} no longer exists; not scaled")
        else:
            assert isinstance(action, RunUntil)  # the run goes on until its time, or quiescence (_steps_due)
            self._event(step, "quiescence" if action.time is None else f"{action.time:g}s")

    def _create(self, step: Step, action: Create) -> None:
        objects, cluster, sim = action.objects, self.sim.cluster, self.sim
        count = (len(objects.nodes) + len(objects.pods) + len(objects.pdbs) + len(objects.workloads)
                 + len(objects.services) + len(objects.namespaces) + len(objects.limit_ranges)
                 + len(objects.resource_quotas) + len(objects.runtime_classes) + len(objects.storage))
        self._event(step, f"{count} object(s)")
        sim.admission.add(objects.limit_ranges, objects.runtime_classes, objects.priority_classes,
                          objects.resource_quotas)
        cluster.add_workloads(objects.namespaces, objects.services, objects.controllers)
        for obj in objects.storage:
            cluster.storage.put(obj)
        for node in objects.nodes:
            if node.name in cluster.nodes:
                cluster.update_node(node)
            else:
                cluster.add_node(node)
        if objects.pdbs:
            cluster.pdbs.extend(objects.pdbs)
            if sim.disruption is not None:
                sim.disruption.changed()
        bound = [p for p in objects.pods if p.spec.node_name]
        for pod in [*bound, *queue_order([p for p in objects.pods if not p.spec.node_name])]:
            sim.pods.append(pod)
            sim.create_pod(pod, admitted_at_load=pod.uid in objects.created)
        for workload in objects.workloads:
            existing = self.manager.get(workload.kind, workload.metadata.namespace, workload.metadata.name)
            if isinstance(existing, DeploymentController) and isinstance(workload, Deployment) and action.update:
                existing.update(workload)
            else:
                self.manager.add(workload)

    def _delete(self, kind: str, namespace: str, name: str) -> None:
        cluster = self.sim.cluster
        if kind == "Pod":
            pod = cluster.get_pod(namespace, name)
            if pod is None:
                self.sim.warnings.append(f"pod {namespace}/{terminal(name)} to delete does not exist (any more)")
                return
            cluster.delete_pod(pod)
            cluster.ended.setdefault(pod.uid, "Deleted")
        elif kind == "PodDisruptionBudget":
            cluster.pdbs = [p for p in cluster.pdbs if (p.namespace, p.name) != (namespace, name)]
        elif kind == "Service":
            cluster.services = [s for s in cluster.services
                                if (s.metadata.namespace, s.metadata.name) != (namespace, name)]
        else:
            controller = self.manager.get(kind, namespace, name)
            if controller is not None:
                self.manager.remove(controller)

    def _patch_node(self, action: PatchNode) -> None:
        node = self.sim.cluster.nodes[action.name]
        labels = dict(node.metadata.labels)
        for key, value in action.labels.items():
            if value is None:
                labels.pop(key, None)
            else:
                labels[key] = value
        spec = node.spec
        if action.taints is not None:
            spec = attrs.evolve(spec, taints=action.taints)
        if action.unschedulable is not None:
            spec = attrs.evolve(spec, unschedulable=action.unschedulable)
        if action.taints is not None or action.unschedulable is not None:
            spec = _cordoned(spec)  # replaced taints keep the cordon's taint while the node stays cordoned
        self.sim.cluster.update_node(attrs.evolve(node, metadata=attrs.evolve(node.metadata, labels=labels),
                                                  spec=spec))

    def _drain(self, action: DrainNode) -> None:
        cluster = self.sim.cluster
        node = cluster.nodes[action.name]
        if not node.spec.unschedulable:
            cluster.update_node(attrs.evolve(node, spec=_cordoned(attrs.evolve(node.spec, unschedulable=True))))
        deadline = None if action.timeout is None else cluster.clock.now() + action.timeout
        # kubectl drain lists the node's pods once, at its start, and evicts those: a pod scheduled there later
        # (after an uncordon) is not its business.
        listed = frozenset(p.uid for p in cluster.list_pods_on_node(action.name)
                           if p.metadata.deletion_timestamp is None and not _daemon_pod(p))
        self._evict_from(action.name, listed, deadline)

    def _evict_from(self, node_name: str, listed: frozenset[str], deadline: float | None, seen: int = -1) -> None:
        """One pass of kubectl drain's evictions of the ``listed`` pods still on the node; refused ones are retried
        every 5 s until the deadline. The retry keeps the run going while the drain may progress: this pass
        evicted a pod, or the cluster changed since the last pass (``seen`` is its epoch: a replacement may have
        become ready); otherwise it waits in the background, so a drain a budget blocks for good ends with the run,
        unless the cluster changes before the run ends (then the retry is due again)."""
        cluster, disruption = self.sim.cluster, self.sim.disruption
        assert disruption is not None
        if node_name not in cluster.nodes:
            return
        progress = self.sim.policy.epoch != seen
        left = []
        for pod in sorted(cluster.list_pods_on_node(node_name), key=lambda p: p.key):
            if pod.uid not in listed or pod.metadata.deletion_timestamp is not None:
                continue
            refusal = disruption.evict(pod)
            if refusal is None:
                cluster.record_object_event("Pod", pod.metadata.namespace, pod.metadata.name, "Normal", "Evicted",
                                            f"Evicted by the drain of node {node_name}", uid=pod.uid)
                progress = True
                continue
            left.append(pod)
            if pod.uid not in self._refused:
                self._refused.add(pod.uid)
                cluster.record_object_event("Pod", pod.metadata.namespace, pod.metadata.name, "Warning",
                                            "EvictionRefused", f"{refusal} (drain of node {node_name}; retrying "
                                            f"every {DRAIN_RETRY:g}s)", uid=pod.uid)
        if not left:
            cluster.record_object_event("Node", "", node_name, "Normal", "Drained", "node drained",
                                        uid=cluster.nodes[node_name].metadata.uid)
            return
        if deadline is not None and cluster.clock.now() + DRAIN_RETRY > deadline:
            cluster.record_object_event("Node", "", node_name, "Warning", "DrainTimeout",
                                        f"drain timed out; {len(left)} pod(s) left: {', '.join(p.key for p in left)}",
                                        uid=cluster.nodes[node_name].metadata.uid)
            return
        epoch = self.sim.policy.epoch

        def retry() -> None:
            self._evict_from(node_name, listed, deadline, epoch)

        if progress:
            cluster.after(DRAIN_RETRY, retry)
            return
        agenda = self.sim.agenda
        waiting = agenda.after(DRAIN_RETRY, retry, background=True)

        def promote() -> None:  # the run would end: a change since this pass may let the retry progress
            if waiting.live and self.sim.policy.epoch != epoch:
                agenda.cancel(waiting)
                agenda.at(max(waiting.time, cluster.clock.now()), retry)

        agenda.at_quiescence(promote)


def _cordoned(spec: NodeSpec) -> NodeSpec:
    """The node lifecycle controller's taint follows the cordon flag (TaintNodesByCondition)."""
    taints = tuple(t for t in spec.taints if t.key != TAINT_NODE_UNSCHEDULABLE)
    if spec.unschedulable:
        taints = (*taints, Taint(TAINT_NODE_UNSCHEDULABLE, NO_SCHEDULE))
    return attrs.evolve(spec, taints=taints)


def _daemon_pod(pod: Pod) -> bool:
    """kubectl drain --ignore-daemonsets leaves DaemonSet pods (their controller would put them back)."""
    return any(ref.controller and ref.kind == "DaemonSet" for ref in pod.metadata.owner_references)


__all__ = ["ScenarioRunner", "run_scenario"]

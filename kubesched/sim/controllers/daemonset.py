"""The DaemonSet controller: one pod ``<daemonset>-<5 random characters>`` on every node the template may run on.

A node is eligible as the DaemonSet controller decides (nodeShouldRunDaemonPod): the template's nodeSelector
and required node affinity match it, and every NoSchedule/NoExecute taint is tolerated, counting the tolerations
the controller adds to every daemon pod (not-ready, unreachable, disk/memory/pid pressure, unschedulable). Each pod
is pinned with required node affinity on ``metadata.name`` (matchFields), as the controller pins it, and the
scheduler places it. A pod whose node no longer matches, or has an untolerated NoExecute taint, is deleted; an
untolerated NoSchedule taint added later only keeps new pods off (shouldContinueRunning); a pod that is gone is
replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from kubesched.api.apps import DaemonSet, PodTemplate
from kubesched.api.node import NO_EXECUTE, NO_SCHEDULE, Node
from kubesched.api.node_selector import RequiredNodeAffinity
from kubesched.api.pod import (
    Affinity,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    Toleration,
)
from kubesched.sim.controllers.base import Controller

if TYPE_CHECKING:
    from kubesched.sim.controllers.host import ControllerHost

#: The tolerations util.AddOrUpdateDaemonPodTolerations adds to every daemon pod.
DAEMON_TOLERATIONS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", effect=NO_EXECUTE),
    Toleration("node.kubernetes.io/unreachable", "Exists", effect=NO_EXECUTE),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", effect=NO_SCHEDULE),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", effect=NO_SCHEDULE),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", effect=NO_SCHEDULE),
    Toleration("node.kubernetes.io/unschedulable", "Exists", effect=NO_SCHEDULE),
)


def daemon_template(template: PodTemplate) -> PodTemplate:
    """The template with the daemon tolerations added (those it lacks)."""
    extra = tuple(t for t in DAEMON_TOLERATIONS if t not in template.spec.tolerations)
    return attrs.evolve(template, spec=attrs.evolve(template.spec, tolerations=(*template.spec.tolerations, *extra)))


def pinned(pod: Pod, node_name: str) -> Pod:
    """util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms are replaced by the single term
    ``matchFields metadata.name In [node]`` (the controller already checked the template's terms against the
    node); preferred terms stay."""
    field = (NodeSelectorRequirement("metadata.name", "In", (node_name,)),)
    affinity = pod.spec.affinity or Affinity()
    node_affinity = affinity.node_affinity or NodeAffinity()
    node_affinity = attrs.evolve(node_affinity, required=NodeSelector((NodeSelectorTerm(match_fields=field),)))
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, affinity=attrs.evolve(affinity, node_affinity=node_affinity)))


def _pinned_node(pod: Pod) -> str:
    """util.GetTargetNodeName: spec.nodeName once bound, else the pinning matchFields term."""
    if pod.spec.node_name:
        return pod.spec.node_name
    affinity = pod.spec.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    for term in required.node_selector_terms if required else ():
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In" and req.values:
                return req.values[0]
    return ""


class DaemonSetController(Controller):
    """A DaemonSet's controller."""

    kind = "DaemonSet"

    def __init__(self, manager: ControllerHost, workload: DaemonSet) -> None:
        super().__init__(manager, workload.metadata)
        self.workload = workload
        self.template = daemon_template(workload.template)
        self._probe = Pod(metadata=self.template.metadata, spec=self.template.spec)
        self._affinity = RequiredNodeAffinity.of(self._probe)

    def _tolerated(self, node: Node, effects: tuple[str, ...]) -> bool:
        """Every taint of ``effects`` on ``node`` is tolerated by the template (with the daemon tolerations)."""
        tolerations = self.template.spec.tolerations
        return all(any(t.tolerates(taint.key, taint.value, taint.effect) for t in tolerations)
                   for taint in node.spec.taints if taint.effect in effects)

    def should_run(self, node: Node) -> bool:
        """nodeShouldRunDaemonPod's shouldRun: node affinity matches and the NoSchedule/NoExecute taints are
        tolerated."""
        return (self._fits_name(node) and self._affinity.matches(node)
                and self._tolerated(node, (NO_SCHEDULE, NO_EXECUTE)))

    def should_continue_running(self, node: Node) -> bool:
        """nodeShouldRunDaemonPod's shouldContinueRunning: node affinity matches and every NoExecute taint is
        tolerated (an untolerated NoSchedule taint does not remove a running daemon pod)."""
        return self._fits_name(node) and self._affinity.matches(node) and self._tolerated(node, (NO_EXECUTE,))

    def _fits_name(self, node: Node) -> bool:
        """A template's spec.nodeName, when set, names the one node the DaemonSet runs on."""
        return self.template.spec.node_name in ("", node.name)

    def _maker(self, node_name: str) -> Callable[[], Pod]:
        """Makes the daemon pod of ``node_name``, pinned to it."""
        def make() -> Pod:
            pod_name = self.manager.generate_name(self.metadata.namespace, f"{self.metadata.name}-")
            return pinned(self.make_pod(pod_name, self.template), node_name)
        return make

    def sync(self) -> None:
        """Create the pod of every eligible node that has none (in slow-start batches); delete pods of nodes no
        longer eligible."""
        by_node: dict[str, list[Pod]] = {}
        for pod in self.pods():
            by_node.setdefault(_pinned_node(pod), []).append(pod)
        nodes = self.manager.cluster.nodes
        self.create_in_batches([self._maker(name) for name, node in nodes.items()
                                if self.should_run(node) and name not in by_node])
        for name, pods in by_node.items():
            current = nodes.get(name)
            if current is not None and self.should_continue_running(current):
                continue
            for pod in pods:
                if pod.metadata.deletion_timestamp is None:
                    self.manager.delete_pod(pod, f"Deleted pod: {pod.name}", self)

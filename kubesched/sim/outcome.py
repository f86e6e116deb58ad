"""What a simulation reports of its pods and nodes at a given moment: each pod's phase, node and message, each
node's usage, and the warnings about plugins with no pod to report them on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.api.pod import Pod
from kubesched.plugins.nodevolumelimits.csi import AttachableVolumes, volume_limits
from kubesched.runtime import Scheduler, SlowCalls
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.node_usage import NodeUsage, node_usage
from kubesched.sim.result import (
    ENDED_MESSAGES,
    PHASE_BOUND,
    PHASE_DELETED,
    PHASE_EVICTED,
    PHASE_PENDING,
    PHASE_REJECTED,
    PodResult,
)


def gated_messages(scheduler: Scheduler, uid: str | None = None) -> dict[str, str]:
    """The gating message of each pod PreEnqueue holds (only pod ``uid``'s, when given), by uid."""
    return {info.pod.uid: info.gating_status.message() for info in scheduler.queue.unschedulable_pods()
            if info.gating_status is not None and (uid is None or info.pod.uid == uid)}


def pending_message(scheduler: Scheduler, pod: Pod, gated: Mapping[str, str]) -> str:
    """Why ``pod`` is pending: no profile for it, its gate, its last FitError, a Permit or PreBind wait."""
    if pod.uid in scheduler.ignored:
        return f'no profile has scheduler name "{pod.spec.scheduler_name}": kubesched leaves the pod alone'
    if pod.uid in gated:
        return gated[pod.uid]
    for condition in pod.status.conditions:
        if condition.type == "PodScheduled" and condition.status == "False":
            return condition.message
    if scheduler.has_waiting_pods() and any(f.handle.get_waiting_pod(pod.uid) for f in scheduler.frameworks.values()):
        return "waiting on Permit"
    pre_bind = scheduler.pre_bind_wait(pod.uid)
    if pre_bind is not None:
        return f'waiting in PreBind ("{pre_bind.plugin}" polls every second): {pre_bind.message()}'
    return ""


def pod_results(pods: Sequence[Pod], cluster: InMemoryCluster, scheduler: Scheduler,
                rejected: Mapping[str, str]) -> list[PodResult]:
    """Where each of ``pods`` (as created) is now: refused (``rejected``: uid -> the API server's message), gone
    (evicted, ended, deleted), bound, or pending with its reason."""
    gated = gated_messages(scheduler)
    # An evicted pod's message is its eviction event's (the drain that evicted it), as kubectl describe shows.
    evicted_by = {e.object: e.message for e in cluster.events if e.reason == "Evicted" and e.kind == "Pod"}
    results = []
    for original in pods:
        uid = original.uid
        live = cluster.pods.get(uid)
        refusal = rejected.get(uid)
        if refusal is not None:
            results.append(PodResult(original.namespace, original.name, PHASE_REJECTED, None, None,
                                     original.priority, refusal))
        elif live is None:
            gone = cluster.deleted[uid]
            ended = cluster.ended.get(uid)
            if original.metadata.deletion_timestamp is not None:
                phase, message = PHASE_DELETED, "terminating in the input; gone at its deletionTimestamp"
            elif ended is not None:
                phase, message = ended, ENDED_MESSAGES.get(ended, "")
            else:
                phase = PHASE_EVICTED
                message = evicted_by.get(gone.key) or next(
                    (c.message for c in gone.status.conditions if c.type == "DisruptionTarget"), "")
            results.append(PodResult(gone.namespace, gone.name, phase, gone.spec.node_name or None,
                                     None, gone.priority, message, uid, owner(gone)))
        elif live.spec.node_name:
            results.append(PodResult(live.namespace, live.name, PHASE_BOUND, live.spec.node_name, None,
                                     live.priority, "", uid, owner(live)))
        else:
            results.append(PodResult(live.namespace, live.name, PHASE_PENDING, None,
                                     live.status.nominated_node_name or None, live.priority,
                                     pending_message(scheduler, live, gated), uid, owner(live)))
    return results


def plugin_warnings(scheduler: Scheduler) -> list[str]:
    """Plugin failures that have no pod to be reported on (a QueueSort plugin that raised), and plugins whose
    calls took longer than the plugin call budget."""
    warnings = [f.queue_sort_error for f in scheduler.frameworks.values() if f.queue_sort_error]
    budget = scheduler.settings.plugin_call_budget_seconds
    if budget is not None:
        warnings.extend(_slow_warning(record, budget) for record in scheduler.slow_calls())
    return warnings


def node_usages(cluster: InMemoryCluster, scheduler: Scheduler) -> tuple[NodeUsage, ...]:
    """Every node's resources and its pods' requests, by node name; with its CSINode, the volumes each CSI
    driver may attach and those its pods attach (counted as NodeVolumeLimits counts them)."""
    usage = []
    storage = cluster.storage
    volumes = AttachableVolumes(storage)
    for name in sorted(cluster.nodes):
        info = scheduler.cache.node_info(name)
        if info is None:
            continue
        csi_node = storage.csi_node(name)
        attached = volumes.per_driver((p.pod for p in info.pods), csi_node) if csi_node is not None else None
        usage.append(node_usage(cluster.nodes[name], info, volume_limits(csi_node), attached))
    return tuple(usage)


def owner(pod: Pod) -> tuple[str, str] | None:
    """The (kind, name) of the pod's controller (its ownerReference with controller: true), None without one."""
    return next(((ref.kind, ref.name) for ref in pod.metadata.owner_references if ref.controller), None)


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.1f} ms"


def _slow_warning(record: SlowCalls, budget: float) -> str:
    where = f"pod {record.pod}" + (f", node {record.node}" if record.node else "")
    return (f'{record.point} plugin "{record.plugin}" exceeded the plugin call budget of {budget * 1000:g} ms in '
            f"{record.count} call(s); slowest: {_seconds(record.slowest)} on {where}")

"""The plugin contract: one pluggy hookspec per extension point, in the order a pod meets them.

A plugin implements a hook by defining a method of the same name marked with
:data:`kubesched.hookimpl`. It may accept any subset of the hook's arguments, by name. ``None`` returned
where a :class:`~kubesched.framework.status.Status` is expected means Success. An exception raised by a
hook becomes an Error status naming the plugin; the scheduler carries on with the next pod.

The framework resolves each profile's hook implementations once and calls them directly in its loops,
so every hook runs for exactly the plugins the profile enables at that point, in the profile's order.
"""

# The argument names below are the contract: pluggy matches implementations to them by name.

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from kubesched.api.pod import Pod
    from kubesched.framework.cycle_state import CycleState
    from kubesched.framework.node_info import NodeInfo, PodInfo
    from kubesched.framework.status import Status
    from kubesched.framework.types import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult, QueuedPodInfo

PROJECT_NAME = "kubesched"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)


@hookspec
def pre_enqueue(pod: Pod) -> Status | None:
    """PreEnqueue: decide whether ``pod`` may enter the active queue at all.

    Runs when the pod is added to or moved within the queue. Any non-success result keeps the pod gated
    (it waits, unattempted, until a later event re-runs PreEnqueue); no FailedScheduling is reported.
    """


@hookspec
def queue_sort_less(pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
    """QueueSort: return True when ``pod_info_a`` should be scheduled before ``pod_info_b``.

    Exactly one QueueSort plugin is enabled per profile, and all profiles must use the same one.
    """


@hookspec
def pre_filter(state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterResult | Status | None:
    """PreFilter: compute per-pod state for Filter, or reject the pod before any node is checked.

    Return None (success, all nodes), a :class:`PreFilterResult` naming the only nodes worth checking,
    or a Status. Skip disables this plugin's Filter and PreFilter extensions for the cycle.
    UnschedulableAndUnresolvable stops the remaining PreFilter plugins; Unschedulable lets them run.
    """


@hookspec
def pre_filter_add_pod(state: CycleState, pod: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
    """PreFilter extension AddPod: update this plugin's PreFilter state as if ``pod_info_to_add`` ran on
    ``node_info``. Used for nominated pods and preemption dry runs; the state may be a clone."""


@hookspec
def pre_filter_remove_pod(state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                          node_info: NodeInfo) -> Status | None:
    """PreFilter extension RemovePod: update this plugin's PreFilter state as if ``pod_info_to_remove``
    were gone from ``node_info``. Used by preemption dry runs; the state may be a clone."""


@hookspec
def filter(state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
    """Filter: can ``pod`` run on ``node_info``?

    Return None to accept. Reject with Unschedulable when preemption could help on this node, or with
    UnschedulableAndUnresolvable when it cannot. Plugins run in order and the first rejection ends the
    node's check. Must not modify ``pod``, ``node_info`` or the snapshot.
    """


@hookspec
def post_filter(state: CycleState, pod: Pod,
                filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
    """PostFilter: runs only when no node fitted; typically preemption.

    Returns (result, status). Success or UnschedulableAndUnresolvable ends the PostFilter phase;
    Unschedulable lets the next plugin try. A result nominating a node sets the pod's nominatedNodeName.
    """


@hookspec
def pre_score(state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
    """PreScore: prepare state for Score over the feasible ``nodes``. Skip disables this plugin's Score.

    Not called when only one node is feasible (that node is chosen without scoring).
    """


@hookspec
def score(state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
    """Score: rank a feasible node. Raw scores may use any integer range if ``normalize_score`` maps them
    into [0, 100]; otherwise they must already be in [0, 100]. Raise to report an error."""


@hookspec
def normalize_score(state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
    """Score extension NormalizeScore: rewrite ``scores[i].score`` in place so every score is in
    [0, 100]. Called once per cycle with the raw scores of every feasible node."""


@hookspec
def reserve(state: CycleState, pod: Pod, node_name: str) -> Status | None:
    """Reserve: claim resources on the chosen node before binding. A failure rolls back with
    ``unreserve`` on every Reserve plugin, in reverse order."""


@hookspec
def unreserve(state: CycleState, pod: Pod, node_name: str) -> None:
    """Unreserve: undo ``reserve``. Must be idempotent and safe when ``reserve`` never ran."""


@hookspec
def permit(state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
    """Permit: allow, reject, or delay binding. Returns (status, timeout in seconds).

    Wait holds the pod until every waiting plugin allows it (see ``Handle.get_waiting_pod``), one
    rejects it, or the timeout (capped at 15 minutes) passes.
    """


@hookspec
def pre_bind(state: CycleState, pod: Pod, node_name: str) -> Status | None:
    """PreBind: last work before binding (volumes, devices). Any failure aborts the binding."""


@hookspec
def bind(state: CycleState, pod: Pod, node_name: str) -> Status | None:
    """Bind: bind the pod to the node. Return Skip to let the next Bind plugin handle it."""


@hookspec
def post_bind(state: CycleState, pod: Pod, node_name: str) -> None:
    """PostBind: informational, after a successful bind."""

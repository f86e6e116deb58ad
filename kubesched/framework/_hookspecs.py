"""The plugin contract: one pluggy hookspec per extension point, in the order a pod meets them, and the rules
around them: the extension point table, the status codes each hook may return, the parameter rules enforced
when a plugin is registered, and what each parameter holds.

A plugin implements a hook by defining a method of the same name marked with
:data:`kubesched.hookimpl`. It may accept any subset of the hook's parameters, by name, as plain positional
parameters (see :func:`parameter_problems`). ``None`` returned where a
:class:`~kubesched.framework._status.Status` is expected means Success. An exception raised by a hook becomes
an Error status naming the plugin; the scheduler carries on with the next pod.

The framework resolves each profile's hook implementations once and calls them directly in its loops,
so every hook runs for exactly the plugins the profile enables at that point, in the profile's order.
"""

# The parameter names below are the contract: pluggy matches implementations to them by name.

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs
import pluggy

from kubesched.framework._status import Code
from kubesched.validation import did_you_mean

if TYPE_CHECKING:
    import numpy.typing as npt

    from kubesched.api.pod import Pod
    from kubesched.framework._columns import NodeBatch
    from kubesched.framework._cycle_state import CycleState
    from kubesched.framework._events import ClusterEventWithHint
    from kubesched.framework._node_info import NodeInfo, PodInfo
    from kubesched.framework._status import Status
    from kubesched.framework._types import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult, QueuedPodInfo

PROJECT_NAME = "kubesched"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)


# -- the extension point table ---------------------------------------------------------------------------


@attrs.frozen
class ExtensionPoint:
    """An extension point: its kube-scheduler name, its profile key, and the hooks that make it up."""

    name: str
    key: str
    hook: str
    #: Hooks that only make sense together with ``hook`` (PreFilter extensions, NormalizeScore, Unreserve).
    companions: tuple[str, ...] = ()


#: Every extension point in the order a pod meets them.
EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("PreEnqueue", "pre-enqueue", "pre_enqueue"),
    ExtensionPoint("QueueSort", "queue-sort", "queue_sort_less"),
    ExtensionPoint("PreFilter", "pre-filter", "pre_filter",
                   ("pre_filter_nodes", "pre_filter_add_pod", "pre_filter_remove_pod")),
    ExtensionPoint("Filter", "filter", "filter", ("filter_nodes",)),
    ExtensionPoint("PostFilter", "post-filter", "post_filter"),
    ExtensionPoint("PreScore", "pre-score", "pre_score", ("pre_score_nodes",)),
    ExtensionPoint("Score", "score", "score", ("normalize_score", "score_nodes", "normalize_scores")),
    ExtensionPoint("Reserve", "reserve", "reserve", ("unreserve",)),
    ExtensionPoint("Permit", "permit", "permit"),
    ExtensionPoint("PreBind", "pre-bind", "pre_bind"),
    ExtensionPoint("Bind", "bind", "bind"),
    ExtensionPoint("PostBind", "post-bind", "post_bind"),
)
POINTS_BY_KEY = {p.key: p for p in EXTENSION_POINTS}
#: The queueing-hint hook (kube-scheduler's EnqueueExtensions): not an extension point, it tells the queue which
#: cluster events may make a pod the plugin rejected schedulable (see docs/queue.md).
EVENTS_HOOK = "events_to_register"
#: Every hook a plugin may implement: the extension points' hooks and :data:`EVENTS_HOOK`.
HOOK_NAMES = frozenset({EVENTS_HOOK, *(h for p in EXTENSION_POINTS for h in (p.hook, *p.companions))})
#: Batch forms and the per-node hook each stands beside: a plugin with a batch form must also have the per-node
#: one, which gives the statuses and is what the plain path (``--reference``) and preemption dry runs call.
BATCH_FORMS: Mapping[str, str] = MappingProxyType({
    "pre_filter_nodes": "pre_filter", "filter_nodes": "filter", "pre_score_nodes": "pre_score",
    "score_nodes": "score", "normalize_scores": "normalize_score"})


# -- the status codes each hook may return ---------------------------------------------------------------

#: The codes that reject a pod (kube-scheduler's ``Status.IsRejected``).
REJECTION_CODES = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})

#: Per hook that returns a Status, the codes it may return besides Error. ``None`` counts as Success. The
#: runtime reports any other code as an Error naming the plugin (PreEnqueue: any non-success gates the pod).
#: ``queue_sort_less`` and ``score`` return values, ``unreserve`` and ``post_bind`` nothing.
STATUS_CODES: Mapping[str, frozenset[Code]] = MappingProxyType({
    "pre_enqueue": frozenset({Code.SUCCESS, *REJECTION_CODES}),
    "pre_filter": frozenset({Code.SUCCESS, Code.SKIP, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE}),
    "pre_filter_nodes": frozenset({Code.SUCCESS, Code.SKIP, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE}),
    "pre_filter_add_pod": frozenset({Code.SUCCESS}),
    "pre_filter_remove_pod": frozenset({Code.SUCCESS}),
    "filter": frozenset({Code.SUCCESS, *REJECTION_CODES}),
    "post_filter": frozenset({Code.SUCCESS, *REJECTION_CODES}),
    "pre_score": frozenset({Code.SUCCESS, Code.SKIP}),
    "pre_score_nodes": frozenset({Code.SUCCESS, Code.SKIP}),
    "normalize_score": frozenset({Code.SUCCESS}),
    "reserve": frozenset({Code.SUCCESS, *REJECTION_CODES}),
    "permit": frozenset({Code.SUCCESS, Code.WAIT, *REJECTION_CODES}),
    "pre_bind": frozenset({Code.SUCCESS, Code.WAIT, *REJECTION_CODES}),
    "bind": frozenset({Code.SUCCESS, Code.SKIP, *REJECTION_CODES}),
})


# -- what each parameter holds ---------------------------------------------------------------------------

#: Every hookspec parameter, described once (hooks share names, and a name means the same thing everywhere).
PARAMETERS: Mapping[str, str] = MappingProxyType({
    "pod": "The pod being scheduled (PreEnqueue: the pod about to enter the active queue); immutable.",
    "pod_info_a": "The first QueuedPodInfo compared by QueueSort: the pod, its queue timestamp and attempts.",
    "pod_info_b": "The second QueuedPodInfo compared by QueueSort.",
    "state": "This scheduling cycle's CycleState: per-cycle data under StateKeys; may be a clone in the "
             "nominated-pods pass and preemption dry runs.",
    "nodes": "PreFilter: every node of the snapshot; PreScore: the feasible nodes. Do not modify the list.",
    "node_info": "The node being checked, with the pods on it (assumed pods included) and their requests; "
                 "read-only (may be a clone holding nominated pods or without preemption victims).",
    "pod_info_to_add": "AddPod: the pod to count on node_info (a nominated pod, or a victim put back).",
    "pod_info_to_remove": "RemovePod: the pod to stop counting on node_info (a preemption victim).",
    "filtered_node_status": "PostFilter: why each node was rejected by PreFilter or Filter.",
    "scores": "NormalizeScore: one NodeScore per feasible node, in node order; rewrite .score in place.",
    "node_batch": "pre_filter_nodes: every node of the snapshot; filter_nodes: the nodes to check (every node, or "
                  "those PreFilter kept, in snapshot order); pre_score_nodes, score_nodes and normalize_scores: the "
                  "feasible nodes in scoring order. A NodeBatch: a sequence of NodeInfo plus .positions into "
                  ".columns (numpy arrays per resource over every node of the snapshot, label codes, pod counts).",
    "batch_scores": "normalize_scores: score_nodes' raw scores (an int64 array in node_batch order).",
    "node_name": "The node chosen for the pod.",
})


# -- the parameter rules enforced at registration --------------------------------------------------------


def spec_parameters(hook: str) -> tuple[str, ...]:
    """The hookspec's parameter names for ``hook``, in order."""
    return tuple(inspect.signature(_SPECS[hook]).parameters)


def parameter_problems(hook: str, function: Callable[..., Any]) -> list[str]:
    """Why ``function`` (a plugin class's method, ``self`` first) breaks the parameter rules of ``hook``.

    The rules: each parameter is a plain positional-or-keyword parameter named as one of the hookspec's,
    with no default; no keyword-only parameters, no ``*args`` or ``**kwargs``. The framework passes exactly
    the hookspec's arguments the implementation names, so anything else would silently receive nothing.
    """
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return [f"its signature cannot be read ({function!r})"]
    if parameters and parameters[0].name == "self" and "." in getattr(function, "__qualname__", ""):
        parameters = parameters[1:]
    expected = spec_parameters(hook)
    takes = f"the hookspec takes: {', '.join(expected)}"
    problems = []
    for parameter in parameters:
        name, kind = parameter.name, parameter.kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            problems.append(f"*{name} is not allowed: name the parameters you use ({takes})")
        elif kind is inspect.Parameter.VAR_KEYWORD:
            problems.append(f"**{name} is not allowed: name the parameters you use ({takes})")
        elif name not in expected:
            problems.append(f"parameter {name!r} is not in the hookspec{did_you_mean(name, expected)} ({takes})")
        elif kind is inspect.Parameter.KEYWORD_ONLY:
            problems.append(f"parameter {name!r} is keyword-only: hook parameters are plain positional ones")
        elif kind is inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"parameter {name!r} is positional-only: hook parameters are passed by name")
        elif parameter.default is not inspect.Parameter.empty:
            problems.append(f"parameter {name!r} has a default: hook parameters take none (pluggy would never "
                            "pass a parameter with a default, so the hook would always see the default)")
    return problems


@hookspec
def events_to_register() -> list[ClusterEventWithHint]:
    """EnqueueExtensions: the cluster events that may make a pod this plugin rejected schedulable, each with an
    optional hint ``hint(pod, old_obj, new_obj) -> QueueingHint`` deciding per pod (None: always Queue).

    Called once, when the profile is built. A plugin without this hook is treated as interested in every event
    (kube-scheduler's default); one that returns an empty list is moved back only by the 5-minute flush.
    A PreEnqueue plugin's events also re-run PreEnqueue for the pods it gates.
    """


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
def pre_filter_nodes(state: CycleState, pod: Pod, node_batch: NodeBatch) -> PreFilterResult | Status | None:
    """PreFilter's optional batch form: the same work as :func:`pre_filter` over every node of the snapshot, read
    from ``node_batch.columns`` (its per-node indexes) instead of node by node.

    The runtime calls it instead of :func:`pre_filter` when it takes the batch path; it must return what
    :func:`pre_filter` would and write state that :func:`filter`, :func:`filter_nodes` and the PreFilter extensions
    read exactly as they read :func:`pre_filter`'s (the conformance suite checks both).
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
def filter_nodes(state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
    """Filter's optional batch form: the answer of :func:`filter` for every node of ``node_batch`` at once.

    Return an integer array with one status code per node (``Code.SUCCESS``, 0, where the node passes;
    ``Code.UNSCHEDULABLE``, ``Code.UNSCHEDULABLE_AND_UNRESOLVABLE`` or ``Code.PENDING`` where :func:`filter` would
    reject it), or None when every node passes. The framework calls :func:`filter` for the reasons only when
    something reads them (a FitError message, PostFilter, explain), so the codes must agree with it; the
    conformance suite checks that they do. Which nodes are tried, in which order, and which plugin a rejection is
    recorded for stay kube-scheduler's: the runtime applies them to the arrays. Raise to report an error.
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
def pre_score_nodes(state: CycleState, pod: Pod, node_batch: NodeBatch) -> Status | None:
    """PreScore's optional batch form: :func:`pre_score` over the feasible nodes of ``node_batch``, reading the
    snapshot's columns. Called instead of :func:`pre_score` on the batch path; the state it writes must serve
    :func:`score` and :func:`score_nodes` as :func:`pre_score`'s does."""


@hookspec
def score(state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
    """Score: rank a feasible node. Raw scores may use any integer range if ``normalize_score`` maps them
    into [0, 100]; otherwise they must already be in [0, 100]. Raise to report an error."""


@hookspec
def normalize_score(state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
    """Score extension NormalizeScore: rewrite ``scores[i].score`` in place so every score is in
    [0, 100]. Called once per cycle with the raw scores of every feasible node."""


@hookspec
def score_nodes(state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any]:
    """Score's optional batch form: :func:`score` of every node of ``node_batch`` at once, as an integer array in
    ``node_batch`` order. Must equal the per-node answers (checked by the conformance suite)."""


@hookspec
def normalize_scores(state: CycleState, pod: Pod, node_batch: NodeBatch, batch_scores: npt.NDArray[Any]
                     ) -> npt.NDArray[Any]:
    """NormalizeScore's optional batch form: return ``batch_scores`` normalised into [0, 100] (a new array or the
    same one rewritten), as :func:`normalize_score` would rewrite them."""


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
    """PreBind: last work before binding (volumes, devices). Any failure aborts the binding.

    Wait means "not ready yet" (kube-scheduler's PreBind blocks, as VolumeBinding's waits for the PV controller):
    the binding cycle pauses with the pod assumed, and the runtime calls this plugin's ``pre_bind`` again every
    ``PRE_BIND_POLL_PERIOD`` seconds of the scheduler's clock until it returns something else.
    """


@hookspec
def bind(state: CycleState, pod: Pod, node_name: str) -> Status | None:
    """Bind: bind the pod to the node. Return Skip to let the next Bind plugin handle it."""


@hookspec
def post_bind(state: CycleState, pod: Pod, node_name: str) -> None:
    """PostBind: informational, after a successful bind."""


_SPECS: Mapping[str, Callable[..., Any]] = MappingProxyType({
    name: value for name, value in list(globals().items())
    if inspect.isfunction(value) and hasattr(value, f"{PROJECT_NAME}_spec")})

"""Framework: runs one profile's plugins at every extension point, as kube-scheduler's frameworkImpl.

It composes the parts of a profile's runtime: the :class:`RuntimeHandle` its plugins get, the :class:`PluginSet`
(instances and hooks resolved per extension point), the :class:`Guard` every plugin call goes through, the
queueing-hint table and the binding-cycle runners; the scheduling cycle's runners (PreEnqueue to NormalizeScore)
are its own methods. Which path finds and scores nodes is not its business (see ``_node_search.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.backend import Clock, ClusterClient
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._events import ClusterEvent
from kubesched.framework._hookspecs import REJECTION_CODES
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Code, Status
from kubesched.framework._types import (
    NodeScore,
    NodeToStatus,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
)
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._binding import BindingRunners
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, Hook, PluginFailure, SlowCalls, describe_exception
from kubesched.runtime._handle import RuntimeHandle
from kubesched.runtime._hints import HintTable, Registration
from kubesched.runtime._inputs import InputWatch
from kubesched.runtime._invoke import (
    ADD_POD,
    FILTER,
    POST_FILTER,
    POST_FILTER_ERROR,
    PRE_ENQUEUE,
    PRE_FILTER,
    REMOVE_POD,
    Guard,
    Point,
)
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._plugin_set import PluginSet
from kubesched.runtime._profile import Profile
from kubesched.runtime._queue import Strategy
from kubesched.runtime._registry import PluginRegistry
from kubesched.runtime._score_runners import ScoreRecorder, ScoreRunners
from kubesched.runtime._scores import ScoreTable
from kubesched.runtime._snapshot import NodeSnapshot

_SUCCESS = Code.SUCCESS
_REJECTED = REJECTION_CODES  # the contract's rejection codes (kube-scheduler's Status.IsRejected)
# The Filter plugins that run this cycle (the profile's minus those whose PreFilter said Skip).
_CYCLE_FILTERS = StateKey[list[tuple[str, Hook]]]("kubesched/cycle-filter-plugins")


def _go_list(names: Sequence[str]) -> str:
    return "[" + " ".join(sorted(names)) + "]"


class Framework:
    """The plugins of one profile, wired to the extension points; :attr:`handle` is what its plugins got."""

    def __init__(self, profile: Profile, registry: PluginRegistry, *, client: ClusterClient,
                 nominator: Nominator | None = None, rng: random.Random | None = None,
                 clock: Clock | None = None, snapshot: NodeSnapshot | None = None,
                 hook_wrapper: Callable[[str, str, Hook], Hook] | None = None,
                 call_budget: float | None = None, timeout: float | None = None,
                 watch: InputWatch | None = None) -> None:
        self.profile = profile
        #: Every plugin error so far, in order (each also recorded as a PluginError event on its pod).
        self.failures: list[PluginFailure] = []
        #: The Handle the plugins were constructed with.
        self.handle = RuntimeHandle(self, profile.scheduler_name, client, nominator, rng, clock, snapshot)
        #: Every plugin call goes through it: a failure becomes that plugin's Error status, recorded.
        self.guard = Guard(client, self.failures)
        self._plugins = PluginSet(profile, registry, self.handle, hook_wrapper=hook_wrapper, call_budget=call_budget,
                                  timeout=timeout, watch=watch)
        #: The plugin instances by name.
        self.plugins: dict[str, Any] = self._plugins.plugins
        #: The plugins from outside kubesched, which the runtime contains (timeout, input checks).
        self.foreign_plugins: frozenset[str] = self._plugins.foreign
        #: Calls over the plugin call budget, per (extension point, plugin).
        self.slow_calls: dict[tuple[str, str], SlowCalls] = self._plugins.slow_calls
        self.hints = HintTable(self.plugins, profile.scheduler_name, self.guard)
        #: The plugins' queueing-hint registrations, in plugin order: (event, plugin, hint or None for always Queue).
        self.registrations: list[Registration] = self.hints.registrations
        #: The binding cycle's runners and the scoring runners: the scheduler's hot path calls them directly, one
        #: Python call less per extension point and cycle than the ``run_*`` methods (kube's names) that delegate.
        self.binding = BindingRunners(self._plugins, self.guard, self.handle)
        self.scoring = ScoreRunners(self._plugins, self.guard)
        queue_sort = self._plugins.hooks["queue_sort_less"]
        self._queue_sort = queue_sort[0] if queue_sort else None
        #: The first failure of the QueueSort plugin, if it ever raised (the queue then fell back to priority order).
        self.queue_sort_error: str | None = None
        self._bind_hooks()

    def _bind_hooks(self) -> None:
        """Derive the per-point lookups the hot paths use from the plugin set's hook table."""
        hooks, by_name = self._plugins.hooks, self._plugins.by_name
        self._hooks = hooks
        self._normalizers = by_name["normalize_score"]
        self._filters = hooks["filter"]
        #: Batch forms by plugin (see docs/performance.md); the per-node hooks stay the reference.
        self.batch_pre_filter_hooks: dict[str, Hook] = by_name["pre_filter_nodes"]
        self.batch_filter_hooks: dict[str, Hook] = by_name["filter_nodes"]
        self.batch_pre_score_hooks: dict[str, Hook] = by_name["pre_score_nodes"]
        self.batch_score_hooks: dict[str, Hook] = by_name["score_nodes"]
        self.batch_normalize_hooks: dict[str, Hook] = by_name["normalize_scores"]
        self.score_hooks: list[tuple[str, Hook]] = hooks["score"]
        #: The batch Score pass's plan of these hooks (``_batch_score.score_plan``), made at its first use.
        self.batch_score_plan: tuple[Any, ...] | None = None

    # -- the profile and its plugins ---------------------------------------------------------------
    @property
    def profile_name(self) -> str:
        """The profile's scheduler name."""
        return self.profile.scheduler_name

    @property
    def metering(self) -> SchedulerMetrics | None:
        """Where plugin calls are timed now (a sampled cycle), or None."""
        return self._plugins.metering

    def meter_plugins(self, metrics: SchedulerMetrics | None) -> None:
        """Time every plugin call of the coming cycle into ``metrics`` (a sampled cycle), or none (``None``).
        Switching costs a few assignments, and only when the choice changes; calls are never timed otherwise."""
        if self._plugins.meter(metrics):
            self._bind_hooks()

    def hook(self, plugin: str, hook: str) -> Hook | None:
        """``plugin``'s implementation of ``hook`` as the framework calls it (the hookspec's arguments, in order,
        e.g. ``framework.hook("MyFilter", "filter")(state, pod, node_info)``), or None when the plugin is not
        enabled at that extension point."""
        return self._plugins.hook(plugin, hook)

    def plugins_at(self, hook: str) -> list[str]:
        """Names of the plugins that run for a hook, in order."""
        return self._plugins.names_at(hook)

    def has_filter_plugins(self) -> bool:
        """Whether any Filter plugin is enabled."""
        return bool(self._filters)

    def has_score_plugins(self) -> bool:
        """Whether any Score plugin is enabled."""
        return bool(self._hooks["score"])

    def has_post_filter_plugins(self) -> bool:
        """Whether any PostFilter plugin is enabled."""
        return bool(self._hooks["post_filter"])

    def normalizer(self, plugin: str) -> Hook | None:
        """The plugin's per-node NormalizeScore, or None."""
        return self._normalizers.get(plugin)

    def score_weight(self, plugin: str) -> int:
        """A Score plugin's weight."""
        return self._plugins.score_weights[plugin]

    # -- queueing hints ----------------------------------------------------------------------------
    def plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """The plugins that registered ``event``: only pods one of them rejected can be moved by it."""
        return self.hints.interested_in(event)

    def queueing_hint_strategy(self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
        """What ``event`` means for ``info``'s pod, by the hints of the plugins that rejected it."""
        return self.hints.strategy(info, event, old, new)

    # -- QueueSort / PreEnqueue --------------------------------------------------------------------
    def queue_sort_less(self, a: Any, b: Any) -> bool:
        """The profile's QueueSort order. If the plugin raises, the queue falls back to PrioritySort's order
        (priority, then queue time) and :attr:`queue_sort_error` says so; scheduling goes on."""
        assert self._queue_sort is not None, "a profile always has one QueueSort plugin"
        name, less = self._queue_sort
        try:
            return bool(less(a, b))
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            if self.queue_sort_error is None:
                self.queue_sort_error = (f'QueueSort plugin "{name}" raised {describe_exception(exc)} comparing pods '
                                         f"{a.pod.key} and {b.pod.key}; pods were ordered by priority, then queue "
                                         "time, whenever it raised")
            p1, p2 = a.pod.priority, b.pod.priority
            return bool(p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp))

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        """Run PreEnqueue; the first non-success gates the pod."""
        for name, hook in self._hooks["pre_enqueue"]:
            status, failed = self.guard.status_of(PRE_ENQUEUE, name, hook, (pod,), pod)
            if failed is not None:
                return failed
            if status is not None and status.code is not _SUCCESS:
                return status.with_plugin(name)
        return None

    # -- PreFilter ---------------------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo], batch: NodeBatch | None = None,
                               ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Run PreFilter over ``nodes`` (every node of the snapshot); returns (merged node narrowing, status, plugins
        that narrowed the nodes). Given ``batch`` (the same nodes as a NodeBatch, on the batch path), a plugin's
        ``pre_filter_nodes`` runs instead of its ``pre_filter``."""
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        skipped: set[str] = set()
        returned: Status | None = None
        batch_hooks = self.batch_pre_filter_hooks if batch is not None else {}
        for name, hook in self._hooks["pre_filter"]:
            batch_hook = batch_hooks.get(name)
            try:  # once per plugin and cycle: the guard words a failure, the try costs nothing otherwise
                outcome = hook(state, pod, nodes) if batch_hook is None else batch_hook(state, pod, batch)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                return None, self.guard.failed(PRE_FILTER, name, pod, exc=exc), set()
            if isinstance(outcome, PreFilterResult):
                plugin_result: PreFilterResult | None = outcome
                status: Status | None = None
            elif outcome is None or isinstance(outcome, Status):
                plugin_result, status = None, outcome
            else:
                return None, self.guard.failed(PRE_FILTER, name, pod, value=outcome,
                                               expected="a PreFilterResult, a Status or None"), set()
            if status is not None and status.code is Code.SKIP:
                skipped.add(name)
                continue
            if status is not None and status.code is not _SUCCESS:
                status = status.with_plugin(name)
                if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, status, set()
                if status.code is Code.UNSCHEDULABLE:
                    returned = status
                    continue
                return None, self.guard.failed(PRE_FILTER, name, pod, status=status), set()
            if plugin_result is not None and not plugin_result.all_nodes():
                with_nodes.add(name)
            result = plugin_result.merge(result) if plugin_result is not None else result
            if result is not None and result.node_names is not None and not result.node_names:
                message = (f"node(s) didn't satisfy plugin {next(iter(with_nodes))}" if len(with_nodes) == 1
                           else f"node(s) didn't satisfy plugin(s) {_go_list(list(with_nodes))} simultaneously")
                return result, Status.unresolvable(message), with_nodes
        state.skip_filter_plugins = skipped
        filters = self._filters if not skipped else [(n, h) for n, h in self._filters if n not in skipped]
        state.write(_CYCLE_FILTERS, filters)
        return result, returned, with_nodes

    def _run_extension(self, hook_name: str, point: Point, state: CycleState, pod: Pod, pod_info: PodInfo,
                       node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, hook in self._hooks[hook_name]:
            if name in skip:
                continue
            try:
                status = hook(state, pod, pod_info, node_info)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                return self.guard.failed(point, name, pod, node_info.name, exc=exc)
            if status is not None and not isinstance(status, Status):
                return self.guard.failed(point, name, pod, node_info.name, value=status)
            if status is not None and status.code is not _SUCCESS:
                return self.guard.failed(point, name, pod, node_info.name, status=status)
        return None

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's AddPod extension (plugins that skipped PreFilter excluded)."""
        return self._run_extension("pre_filter_add_pod", ADD_POD, state, pod, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's RemovePod extension (plugins that skipped PreFilter excluded)."""
        return self._run_extension("pre_filter_remove_pod", REMOVE_POD, state, pod, pod_info_to_remove, node_info)

    # -- Filter (hot path) -------------------------------------------------------------------------
    def cycle_filters(self, state: CycleState) -> list[tuple[str, Hook]]:
        """This cycle's Filter plugins: the profile's, minus those whose PreFilter said Skip."""
        filters = state.get(_CYCLE_FILTERS)
        if filters is None:
            filters = [(n, h) for n, h in self._filters if n not in state.skip_filter_plugins]
        return filters

    def record_filters(self, state: CycleState, wrap: Callable[[list[tuple[str, Hook]]], list[tuple[str, Hook]]],
                       ) -> None:
        """Replace this cycle's Filter plugins by ``wrap(plugins)`` (explain wraps them to record each call)."""
        state.write(_CYCLE_FILTERS, wrap(self.cycle_filters(state)))

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Run Filter on one node; None when every plugin accepts, else the first rejection or error."""
        filters = state.get(_CYCLE_FILTERS)
        if filters is None:
            filters = [(n, h) for n, h in self._filters if n not in state.skip_filter_plugins]
        return self.run_filters(filters, state, pod, node_info)

    def run_filters(self, filters: Sequence[tuple[str, Hook]], state: CycleState, pod: Pod,
                    node_info: NodeInfo) -> Status | None:
        """Run the given Filter plugins on one node, in order: None, or the first rejection or error."""
        name = ""
        status: Status | None = None
        try:
            for name, hook in filters:
                status = hook(state, pod, node_info)
                if status is not None and status.code is not _SUCCESS:
                    if status.code in _REJECTED:
                        return status.with_plugin(name)
                    return self.guard.failed(FILTER, name, pod, node_info.name, status=status)
        except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
            raise
        except PLUGIN_FAILURES as exc:
            if status is not None and not isinstance(status, Status):  # checked only when something broke
                return self.guard.failed(FILTER, name, pod, node_info.name, value=status)
            return self.guard.failed(FILTER, name, pod, node_info.name, exc=exc)
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """Filter with nominated pods of equal or higher priority counted on the node, then without.

        A pod fits only if both passes accept it, so it neither takes room promised to a more important
        pod nor relies on such a pod (for example for inter-pod affinity) being there.
        """
        if not self.handle.nominator.has_nominations():
            return self.run_filter_plugins(state, pod, node_info)
        added, state_with, info_with, status = self._add_nominated_pods(state, pod, node_info)
        if status is not None:
            return status
        first = self.run_filter_plugins(state_with if added else state, pod, info_with if added else node_info)
        if first is not None and not first.is_rejected():
            return first
        if added and first is None:
            return self.run_filter_plugins(state, pod, node_info)
        return first

    def _add_nominated_pods(self, state: CycleState, pod: Pod,
                            node_info: NodeInfo) -> tuple[bool, CycleState, NodeInfo, Status | None]:
        nominated = self.handle.nominator.nominated_pods_for_node(node_info.name)
        priority = pod.priority
        relevant = [p for p in nominated if p.pod.uid != pod.uid and p.pod.priority >= priority]
        if not relevant:
            return False, state, node_info, None
        state_out = state.clone()
        info_out = node_info.clone()
        for pod_info in relevant:
            info_out.add_pod(pod_info)
            status = self.run_pre_filter_extension_add_pod(state_out, pod, pod_info, info_out)
            if status is not None:
                return False, state, node_info, status
        return True, state_out, info_out, None

    # -- PostFilter --------------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Pod,
                                statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """Run PostFilter until one succeeds or gives up for good; reasons of the others accumulate."""
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for name, hook in self._hooks["post_filter"]:
            outcome, failed = self.guard.call(POST_FILTER, name, hook, (state, pod, statuses), pod)
            if failed is not None:
                return None, failed
            try:
                plugin_result, status = outcome
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:  # not a (result, status) pair
                return None, self.guard.failed(POST_FILTER, name, pod, exc=exc)
            if (status is not None and not isinstance(status, Status)) or \
                    (plugin_result is not None and not isinstance(plugin_result, PostFilterResult)):
                return None, self.guard.failed(POST_FILTER, name, pod, value=(plugin_result, status),
                                               expected="(PostFilterResult or None, Status or None)")
            if status is None or status.code is _SUCCESS:
                return plugin_result, (status or Status.success()).with_plugin(name)
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return plugin_result, status.with_plugin(name)
            if not status.is_rejected():
                return None, self.guard.failed(POST_FILTER_ERROR, name, pod, status=status)
            if plugin_result is not None and plugin_result.mode is not NominatingMode.NOOP:
                result = plugin_result
            reasons.extend(status.reasons)
            rejector = rejector or name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    # -- PreScore / Score ----------------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                              batch: NodeBatch | None = None) -> Status | None:
        """Run PreScore over the feasible ``nodes``; Skip removes the plugin's Score for this cycle. Given ``batch``
        (the same nodes as a NodeBatch, on the batch path), a plugin's ``pre_score_nodes`` runs instead."""
        return self.scoring.pre_score(state, pod, nodes, batch)

    def run_normalize(self, name: str, state: CycleState, pod: Pod, node_scores: list[NodeScore],
                      nodes: Sequence[str]) -> Status | None:
        """Run ``name``'s NormalizeScore on ``node_scores`` (in place); None, or its Error status."""
        return self.scoring.normalize(name, state, pod, node_scores, nodes)

    def invalid_score(self, name: str, pod: Pod, scores: Sequence[Any], nodes: Sequence[str]) -> Status | None:
        """The Error for the first of ``name``'s normalised scores outside [0, 100] (or not an int), else None."""
        return self.scoring.invalid_score(name, pod, scores, nodes)

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                          recorder: ScoreRecorder | None = None) -> tuple[ScoreTable, Status | None]:
        """Score every node with every non-skipped plugin, normalise, check [0, 100], apply weights; ``recorder``
        (explain) is told each plugin's raw, normalised and weighted scores."""
        return self.scoring.score(state, pod, nodes, recorder)

    # -- the binding cycle -------------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Reserve in order; stop at the first failure."""
        return self.binding.reserve(state, pod, node_name)

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run every Reserve plugin's Unreserve in reverse order; failures are recorded, not returned."""
        self.binding.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Permit; Wait from any plugin parks the pod as a WaitingPod unless another rejects."""
        return self.binding.permit(state, pod, node_name)

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run PreBind in order; any failure aborts binding."""
        return self.binding.pre_bind(state, pod, node_name)

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Run Bind plugins until one does not Skip; if all skip, that is an error."""
        return self.binding.bind(state, pod, node_name)

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Run PostBind; informational, failures are recorded, not returned."""
        self.binding.post_bind(state, pod, node_name)

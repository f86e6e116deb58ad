"""Framework: runs one profile's plugins at every extension point, as kube-scheduler's frameworkImpl.

pluggy defines and validates the contract; at construction the framework resolves each extension
point's ordered hook implementations once and afterwards calls them directly, so the per-node loops
(Filter, Score) pay one Python call per plugin and node rather than pluggy's dispatch (see
docs/architecture.md for the measurement).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.backend import Clock, ClusterClient
from kubesched.errors import ProfileError
from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.framework._events import (
    NODE_TAINT_UPDATE,
    WILDCARD_EVENT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework._hookspecs import EVENTS_HOOK, EXTENSION_POINTS, REJECTION_CODES
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import marked_hooks
from kubesched.framework._snapshot import Snapshot
from kubesched.framework._status import Code, Status
from kubesched.framework._types import (
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
    ScoreTable,
)
from kubesched.framework.preemption._evaluator import CandidateChoice
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._binding import BindingCycleRunners
from kubesched.runtime._failures import (
    PLUGIN_FAILURES,
    Hook,
    PluginFailure,
    SlowCalls,
    _cause,
    _error,
    _returned,
    innermost_frames,
    timed,
)
from kubesched.runtime._metrics import EXTENSION_POINT_LABELS, metered
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._profile import Profile
from kubesched.runtime._queue import Strategy
from kubesched.runtime._registry import PluginRegistry, new_plugin_manager

_SUCCESS = Code.SUCCESS
_REJECTED = REJECTION_CODES  # the contract's rejection codes (kube-scheduler's Status.IsRejected)
# The Filter plugins that run this cycle (the profile's minus those whose PreFilter said Skip).
_CYCLE_FILTERS = StateKey[list[tuple[str, Hook]]]("kubesched/cycle-filter-plugins")
#: Told one Score plugin's scores over the nodes: (plugin, nodes, raw, normalised, weighted).
ScoreRecorder = Callable[[str, Sequence[str], Sequence[int], Sequence[int], Sequence[int]], None]


def _go_list(names: Sequence[str]) -> str:
    return "[" + " ".join(sorted(names)) + "]"


class Framework(BindingCycleRunners):
    """The plugins of one profile, wired to the extension points. Also the plugins' :class:`Handle`."""

    def __init__(self, profile: Profile, registry: PluginRegistry, *, client: ClusterClient,
                 nominator: Nominator | None = None, rng: random.Random | None = None,
                 clock: Clock | None = None, snapshot: Snapshot | None = None,
                 hook_wrapper: Callable[[str, str, Hook], Hook] | None = None,
                 call_budget: float | None = None, fast_path: bool = True) -> None:
        self.profile = profile
        #: Every plugin error so far, in order (each also recorded as a PluginError event on its pod).
        self.failures: list[PluginFailure] = []
        #: Seconds a single plugin call may take before it is noted in :attr:`slow_calls` (None: calls are not timed).
        self.call_budget = call_budget
        #: Calls over the budget, per (extension point, plugin).
        self.slow_calls: dict[tuple[str, str], SlowCalls] = {}
        super().__init__(client, nominator, rng, clock, snapshot)
        self._fast_path = fast_path
        self.plugins: dict[str, Any] = {}
        self._manager = new_plugin_manager()
        for name in profile.plugin_names():
            spec = registry[name]
            args = profile.plugin_args.get(name)
            if args is None and spec.args_class is not None:
                args = spec.args_class()
            try:
                instance = spec.cls(self, args)
            except PLUGIN_FAILURES as exc:
                raise ProfileError(f'initializing plugin "{name}": {_cause(None, exc)}',
                                   key=f"profiles.{profile.scheduler_name}") from None
            self.plugins[name] = instance
            self._manager.register(instance, name=name)
        self._hooks: dict[str, list[tuple[str, Hook]]] = {}
        for point in EXTENSION_POINTS:
            names = [entry.name for entry in profile.enabled(point.key)]
            for hook in (point.hook, *point.companions):
                self._hooks[hook] = [(n, self._resolve(n, hook)) for n in names if self._implements(n, hook)]
                if hook_wrapper is not None:  # tools that observe plugins (the conformance suite) wrap each call
                    self._hooks[hook] = [(n, hook_wrapper(n, hook, h)) for n, h in self._hooks[hook]]
                if call_budget is not None:  # only then is each call timed: no cost on the hot path otherwise
                    self._hooks[hook] = [(n, timed(self.slow_calls, n, hook, h, call_budget))
                                         for n, h in self._hooks[hook]]
        self._score_weights = {e.name: e.weight or 1 for e in profile.enabled("score")}
        self._check_score_overflow()
        self._bind_hooks()
        # Metrics: the hooks as resolved above, and the same hooks timed (built on first use).
        self._plain_hooks = self._hooks
        self._metered_hooks: dict[str, list[tuple[str, Hook]]] | None = None
        #: Where plugin calls are timed now (a sampled cycle), or None.
        self.metering: SchedulerMetrics | None = None
        self._queue_sort = self._hooks["queue_sort_less"][0][1] if self._hooks["queue_sort_less"] else None
        #: The first failure of the QueueSort plugin, if it ever raised (the queue then fell back to priority order).
        self.queue_sort_error: str | None = None
        #: Told the preemption Evaluator's candidates and choice while explain records a pod's attempt; else None.
        self.preemption_observer: Callable[[CandidateChoice], None] | None = None
        #: The plugins' queueing-hint registrations, in plugin order: (event, plugin, hint or None for always Queue).
        self.registrations: list[tuple[ClusterEvent, str, QueueingHintFn | None]] = self._registrations()
        # The same answers by the identity of the event object asked about (up to 256 objects, each kept alive).
        self._hints_by_id: dict[int, tuple[ClusterEvent, tuple[frozenset[str],
                                                              list[tuple[str, QueueingHintFn | None]]]]] = {}
        # Per incoming event (resource, action): the names of the plugins that registered it, and their
        # (plugin, hint) pairs in registration order.
        self._hints_by_event: dict[tuple[EventResource, ActionType],
                                   tuple[frozenset[str], list[tuple[str, QueueingHintFn | None]]]] = {}

    # -- construction helpers ----------------------------------------------------------------------
    def _bind_hooks(self) -> None:
        """Derive the per-point lookups the hot paths use from :attr:`_hooks`."""
        self._normalizers = dict(self._hooks["normalize_score"])
        self._filters = self._hooks["filter"]
        #: Batch forms by plugin (see docs/performance.md); the per-node hooks stay the reference.
        self.batch_filter_hooks: dict[str, Hook] = dict(self._hooks["filter_nodes"])
        self.batch_score_hooks: dict[str, Hook] = dict(self._hooks["score_nodes"])
        self.batch_normalize_hooks: dict[str, Hook] = dict(self._hooks["normalize_scores"])
        self.score_hooks: list[tuple[str, Hook]] = self._hooks["score"]

    def meter_plugins(self, metrics: SchedulerMetrics | None) -> None:
        """Time every plugin call of the coming cycle into ``metrics`` (a sampled cycle), or none (``None``).
        Switching costs a few assignments, and only when the choice changes; calls are never timed otherwise."""
        self.metering = metrics
        if metrics is None:
            if self._hooks is not self._plain_hooks:
                self._hooks = self._plain_hooks
                self._bind_hooks()
            return
        if self._metered_hooks is None:
            self._metered_hooks = {
                hook: [(n, metered(metrics, n, hook, h)) for n, h in entries] if hook in EXTENSION_POINT_LABELS
                else entries
                for hook, entries in self._plain_hooks.items()}
        if self._hooks is not self._metered_hooks:
            self._hooks = self._metered_hooks
            self._bind_hooks()

    def _implements(self, plugin: str, hook: str) -> bool:
        return any(impl.plugin_name == plugin for impl in getattr(self._manager.hook, hook).get_hookimpls())

    def _resolve(self, plugin: str, hook: str) -> Hook:
        """The plugin's bound hook method, adapted when it takes only some of the hook's arguments."""
        caller = getattr(self._manager.hook, hook)
        impl = next(i for i in caller.get_hookimpls() if i.plugin_name == plugin)
        spec_args = tuple(caller.spec.argnames)
        function: Hook = impl.function
        if tuple(impl.argnames) == spec_args:
            return function
        picks = tuple(spec_args.index(a) for a in impl.argnames)

        def adapted(*args: Any) -> Any:
            return function(*(args[i] for i in picks))

        return adapted

    def record_failure(self, point: str, plugin: str, pod: Pod, node: str, message: str, detail: str,
                       cause: BaseException | None = None) -> Status:
        """The Error status ``message`` of ``plugin``, recorded as a plugin failure and a PluginError event."""
        return self._failed(point, plugin, pod, node, message, detail, cause)

    def _failed(self, point: str, plugin: str, pod: Pod, node: str, message: str, detail: str,
                cause: BaseException | None = None) -> Status:
        """The Error status ``message`` of ``plugin``, recorded as a plugin failure and a PluginError event."""
        failure = PluginFailure(point, plugin, pod.key, node, detail, innermost_frames(cause))
        self.failures.append(failure)
        self._client.record_event(pod, "Warning", "PluginError", failure.describe())
        return _error(message, plugin, cause)

    def plugin_hook(self, plugin: str, hook: str) -> Hook | None:
        """``plugin``'s implementation of ``hook`` as the framework calls it (the hookspec's arguments, in
        order), or None when the plugin is not enabled at that extension point. For tools and tests."""
        return next((function for name, function in self._hooks.get(hook, ()) if name == plugin), None)

    def _check_score_overflow(self) -> None:
        total = 0
        for name, weight in self._score_weights.items():
            if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                raise ProfileError(f"total score of Score plugins could overflow (at plugin {name!r})",
                                   key=f"profiles.{self.profile.scheduler_name}")
            total += weight * MAX_NODE_SCORE

    # -- Handle ------------------------------------------------------------------------------------
    @property
    def profile_name(self) -> str:
        """The profile's scheduler name."""
        return self.profile.scheduler_name

    # -- introspection -----------------------------------------------------------------------------
    def plugins_at(self, hook: str) -> list[str]:
        """Names of the plugins that run for a hook, in order."""
        return [name for name, _ in self._hooks[hook]]

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
        return self._score_weights[plugin]

    # -- queueing hints ----------------------------------------------------------------------------
    def _registrations(self) -> list[tuple[ClusterEvent, str, QueueingHintFn | None]]:
        """Every plugin's events_to_register, checked; a plugin without the hook registers every event (as
        kube-scheduler does for plugins that are not EnqueueExtensions)."""
        found: list[tuple[ClusterEvent, str, QueueingHintFn | None]] = []
        for name, plugin in self.plugins.items():
            if EVENTS_HOOK not in marked_hooks(type(plugin)):
                found.append((WILDCARD_EVENT, name, None))
                continue
            key = f"profiles.{self.profile.scheduler_name}"
            try:
                events = plugin.events_to_register()
            except PLUGIN_FAILURES as exc:
                raise ProfileError(f'plugin "{name}": events_to_register raised {_cause(None, exc)}', key=key) from None
            if not isinstance(events, list | tuple) or not all(isinstance(e, ClusterEventWithHint) for e in events):
                raise ProfileError(f'plugin "{name}": events_to_register must return a list of ClusterEventWithHint, '
                                   f"got {events!r}", key=key)
            found.extend((e.event, name, e.hint) for e in events)
            # kube-scheduler's workaround for issue 109437 (buildQueueingHintMap): a plugin registering Node/Add
            # but not Node/UpdateNodeTaint also gets UpdateNodeTaint, always Queue.
            nodes = [e.event.action_type for e in events if e.event.resource is EventResource.NODE]
            if any(a & ActionType.ADD for a in nodes) and not any(a & ActionType.UPDATE_NODE_TAINT for a in nodes):
                found.append((NODE_TAINT_UPDATE, name, None))
        return found

    def _hints_for(self, event: ClusterEvent) -> tuple[frozenset[str], list[tuple[str, QueueingHintFn | None]]]:
        # The runtime passes the same few event objects over and over: looked up by identity first, so the common
        # case hashes no enum (the entry keeps its event alive, so the id cannot be reused by another object).
        known = self._hints_by_id.get(id(event))
        if known is not None and known[0] is event:
            return known[1]
        key = (event.resource, event.action_type)
        found = self._hints_by_event.get(key)
        if found is None:
            pairs = [(name, hint) for registered, name, hint in self.registrations if registered.matches(event)]
            found = self._hints_by_event[key] = (frozenset(name for name, _ in pairs), pairs)
        if len(self._hints_by_id) < 256:
            self._hints_by_id[id(event)] = (event, found)
        return found

    def plugins_interested_in(self, event: ClusterEvent) -> frozenset[str]:
        """The plugins that registered ``event``: only pods one of them rejected can be moved by it."""
        return self._hints_for(event)[0]

    def queueing_hint_strategy(self, info: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> Strategy:
        """What ``event`` means for ``info``'s pod, by the hints of the plugins that rejected it (kube-scheduler's
        isPodWorthRequeuing): Queue from a Pending plugin moves it at once, from another plugin after its backoff;
        Skip from every one leaves it. A hint that raises or returns something else counts as Queue."""
        names, matching = self._hints_for(event)
        unschedulable, pending = info.unschedulable_plugins, info.pending_plugins
        if names.isdisjoint(unschedulable) and names.isdisjoint(pending):
            return Strategy.SKIP  # the common case, for every unschedulable pod on every event
        strategy = Strategy.SKIP
        for name, hint in matching:
            if name not in unschedulable and name not in pending:
                continue
            if hint is not None:
                try:
                    answer = hint(info.pod, old, new)
                except PLUGIN_FAILURES as exc:
                    self._failed("QueueingHint", name, info.pod, "", "", _cause(None, exc), exc)
                    answer = QueueingHint.QUEUE
                if not isinstance(answer, QueueingHint):
                    self._failed("QueueingHint", name, info.pod, "", "", _returned(answer, "a QueueingHint"))
                    answer = QueueingHint.QUEUE
                if answer is QueueingHint.QUEUE_SKIP:
                    continue
            if name in pending:
                return Strategy.IMMEDIATELY
            if not pending:
                return Strategy.AFTER_BACKOFF
            strategy = Strategy.AFTER_BACKOFF
        return strategy

    # -- QueueSort / PreEnqueue --------------------------------------------------------------------
    def queue_sort_less(self, a: Any, b: Any) -> bool:
        """The profile's QueueSort order. If the plugin raises, the queue falls back to PrioritySort's order
        (priority, then queue time) and :attr:`queue_sort_error` says so; scheduling goes on."""
        assert self._queue_sort is not None, "a profile always has one QueueSort plugin"
        try:
            return bool(self._queue_sort(a, b))
        except PLUGIN_FAILURES as exc:
            if self.queue_sort_error is None:
                name = self._hooks["queue_sort_less"][0][0]
                self.queue_sort_error = (f'QueueSort plugin "{name}" raised {_cause(None, exc)} comparing pods '
                                         f"{a.pod.key} and {b.pod.key}; pods were ordered by priority, then queue "
                                         "time, whenever it raised")
            p1, p2 = a.pod.priority, b.pod.priority
            return bool(p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp))

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        """Run PreEnqueue; the first non-success gates the pod."""
        for name, hook in self._hooks["pre_enqueue"]:
            try:
                status: Status | None = hook(pod)
            except PLUGIN_FAILURES as exc:
                return self._failed("PreEnqueue", name, pod, "", f'running PreEnqueue plugin "{name}": '
                                    f"{_cause(None, exc)}", _cause(None, exc), exc)
            if status is not None and not isinstance(status, Status):
                return self._failed("PreEnqueue", name, pod, "", f'running PreEnqueue plugin "{name}": '
                                    f"{_returned(status)}", _returned(status))
            if status is not None and status.code is not _SUCCESS:
                return status.with_plugin(name)
        return None

    # -- PreFilter ---------------------------------------------------------------------------------
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod,
                               nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Run PreFilter; returns (merged node narrowing, status, plugins that narrowed the nodes)."""
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        skipped: set[str] = set()
        returned: Status | None = None
        for name, hook in self._hooks["pre_filter"]:
            try:
                outcome = hook(state, pod, nodes)
            except PLUGIN_FAILURES as exc:
                return None, self._failed("PreFilter", name, pod, "", f'running PreFilter plugin "{name}": '
                                          f"{_cause(None, exc)}", _cause(None, exc), exc), set()
            if isinstance(outcome, PreFilterResult):
                plugin_result: PreFilterResult | None = outcome
                status: Status | None = None
            elif outcome is None or isinstance(outcome, Status):
                plugin_result, status = None, outcome
            else:
                message = _returned(outcome, "a PreFilterResult, a Status or None")
                return None, self._failed("PreFilter", name, pod, "", f'running PreFilter plugin "{name}": {message}',
                                          message), set()
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
                return None, self._failed("PreFilter", name, pod, "", f'running PreFilter plugin "{name}": '
                                          f"{_cause(status)}", _cause(status), status.error), set()
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

    def _run_extension(self, hook_name: str, label: str, state: CycleState, pod: Pod, pod_info: PodInfo,
                       node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, hook in self._hooks[hook_name]:
            if name in skip:
                continue
            try:
                status: Status | None = hook(state, pod, pod_info, node_info)
            except PLUGIN_FAILURES as exc:
                detail = _cause(None, exc)
                return self._failed(f"PreFilter {label}", name, pod, node_info.name,
                                    f'running {label} on PreFilter plugin "{name}": {detail}', detail, exc)
            if status is not None and not isinstance(status, Status):
                detail = _returned(status)
                return self._failed(f"PreFilter {label}", name, pod, node_info.name,
                                    f'running {label} on PreFilter plugin "{name}": {detail}', detail)
            if status is not None and status.code is not _SUCCESS:
                detail = _cause(status)
                return self._failed(f"PreFilter {label}", name, pod, node_info.name,
                                    f'running {label} on PreFilter plugin "{name}": {detail}', detail, status.error)
        return None

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's AddPod extension (plugins that skipped PreFilter excluded)."""
        return self._run_extension("pre_filter_add_pod", "AddPod", state, pod, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's RemovePod extension (plugins that skipped PreFilter excluded)."""
        return self._run_extension("pre_filter_remove_pod", "RemovePod", state, pod, pod_info_to_remove,
                                   node_info)

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
                    return self._failed("Filter", name, pod, node_info.name,
                                        f'running "{name}" filter plugin: {_cause(status)}', _cause(status),
                                        status.error)
        except PLUGIN_FAILURES as exc:
            if status is not None and not isinstance(status, Status):  # checked only when something broke
                return self._failed("Filter", name, pod, node_info.name,
                                    f'running "{name}" filter plugin: {_returned(status)}', _returned(status))
            return self._failed("Filter", name, pod, node_info.name,
                                f'running "{name}" filter plugin: {_cause(None, exc)}', _cause(None, exc), exc)
        return None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """Filter with nominated pods of equal or higher priority counted on the node, then without.

        A pod fits only if both passes accept it, so it neither takes room promised to a more important
        pod nor relies on such a pod (for example for inter-pod affinity) being there.
        """
        if not self._nominator.has_nominations():
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
        nominated = self._nominator.nominated_pods_for_node(node_info.name)
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
            try:
                plugin_result, status = hook(state, pod, statuses)
            except PLUGIN_FAILURES as exc:
                return None, self._failed("PostFilter", name, pod, "", f'running PostFilter plugin "{name}": '
                                          f"{_cause(None, exc)}", _cause(None, exc), exc)
            if (status is not None and not isinstance(status, Status)) or \
                    (plugin_result is not None and not isinstance(plugin_result, PostFilterResult)):
                message = _returned((plugin_result, status), "(PostFilterResult or None, Status or None)")
                return None, self._failed("PostFilter", name, pod, "", f'running PostFilter plugin "{name}": '
                                          f"{message}", message)
            if status is None or status.code is _SUCCESS:
                return plugin_result, (status or Status.success()).with_plugin(name)
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return plugin_result, status.with_plugin(name)
            if not status.is_rejected():
                return None, self._failed("PostFilter", name, pod, "", f'running PostFilter plugin "{name}": '
                                          f"{_cause(status)}", _cause(status), status.error)
            if plugin_result is not None and plugin_result.mode is not NominatingMode.NOOP:
                result = plugin_result
            reasons.extend(status.reasons)
            rejector = rejector or name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    def run_normalize(self, name: str, state: CycleState, pod: Pod, node_scores: list[NodeScore],
                      nodes: Sequence[str]) -> Status | None:
        """Run ``name``'s NormalizeScore on ``node_scores`` (in place); None, or its Error status."""
        normalize = self._normalizers[name]
        try:
            status = normalize(state, pod, node_scores)
        except PLUGIN_FAILURES as exc:
            return self._failed("NormalizeScore", name, pod, "", 'running Normalize on Score plugins: '
                                f'plugin "{name}" failed with: {_cause(None, exc)}', _cause(None, exc), exc)
        if status is not None and not isinstance(status, Status):
            return self._failed("NormalizeScore", name, pod, "", 'running Normalize on Score plugins: '
                                f'plugin "{name}" {_returned(status)}', _returned(status))
        if status is not None and status.code is not _SUCCESS:
            return self._failed("NormalizeScore", name, pod, "", 'running Normalize on Score plugins: '
                                f'plugin "{name}" failed with: {_cause(status)}', _cause(status), status.error)
        if len(node_scores) != len(nodes) or any(ns.name != n for ns, n in zip(node_scores, nodes, strict=True)):
            detail = "changed the list of nodes (it must rewrite scores in place, keeping every node in order)"
            return self._failed("NormalizeScore", name, pod, "", 'running Normalize on Score plugins: '
                                f'plugin "{name}" {detail}', detail)
        return None

    # -- PreScore / Score (hot path) ---------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Run PreScore; Skip removes the plugin's Score for this cycle."""
        skipped: set[str] = set()
        for name, hook in self._hooks["pre_score"]:
            try:
                status: Status | None = hook(state, pod, nodes)
            except PLUGIN_FAILURES as exc:
                return self._failed("PreScore", name, pod, "", f'running PreScore plugin "{name}": '
                                    f"{_cause(None, exc)}", _cause(None, exc), exc)
            if status is not None and not isinstance(status, Status):
                return self._failed("PreScore", name, pod, "", f'running PreScore plugin "{name}": '
                                    f"{_returned(status)}", _returned(status))
            if status is None or status.code is _SUCCESS:
                continue
            if status.code is Code.SKIP:
                skipped.add(name)
                continue
            return self._failed("PreScore", name, pod, "", f'running PreScore plugin "{name}": {_cause(status)}',
                                _cause(status), status.error)
        state.skip_score_plugins = skipped
        return None

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                          recorder: ScoreRecorder | None = None) -> tuple[ScoreTable, Status | None]:
        """Score every node with every non-skipped plugin, normalise, check [0, 100], apply weights; ``recorder``
        (explain) is told each plugin's raw, normalised and weighted scores."""
        skip = state.skip_score_plugins
        table = ScoreTable([ni.name for ni in nodes], totals=[0] * len(nodes))
        for name, hook in self._hooks["score"]:
            if name in skip:
                continue
            node_info: NodeInfo | None = None
            try:
                # The assignment expression keeps the node being scored, so a failure can name it.
                scores: list[Any] = [hook(state, pod, node_info := ni) for ni in nodes]
            except PLUGIN_FAILURES as exc:
                return table, self._failed("Score", name, pod, node_info.name if node_info is not None else "",
                                           f'running Score plugins: plugin "{name}" failed with: '
                                           f"{_cause(None, exc)}", _cause(None, exc), exc)
            raw = scores
            if name in self._normalizers:
                node_scores = [NodeScore(n, s) for n, s in zip(table.nodes, scores, strict=True)]
                status = self.run_normalize(name, state, pod, node_scores, table.nodes)
                if status is not None:
                    return table, status
                scores = [ns.score for ns in node_scores]
            normalized = scores
            for value in scores:
                if type(value) is not int or not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    index = next(i for i, v in enumerate(scores) if v is value)
                    detail = (f"returns an invalid score {value!r}, it should in the range of [{MIN_NODE_SCORE}, "
                              f"{MAX_NODE_SCORE}] after normalizing")
                    return table, self._failed("Score", name, pod, table.nodes[index], 'applying score defaultWeights '
                                               f'on Score plugins: plugin "{name}" {detail}', detail)
            weight = self._score_weights[name]
            if weight != 1:
                scores = [value * weight for value in scores]
            if recorder is not None:
                recorder(name, table.nodes, raw, normalized, scores)
            table.plugins.append(name)
            table.columns.append(scores)
            table.totals = list(map(operator.add, table.totals, scores))
        return table, None

"""One profile's plugins: built once with the Handle they share, and their hook implementations resolved per
extension point into ordered (plugin, bound method) pairs, so the runners call them directly rather than through
pluggy's dispatch (see docs/architecture.md). Timing wrappers for slow calls and sampled metrics are chosen here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.errors import ProfileError
from kubesched.framework._handle import Handle
from kubesched.framework._hookspecs import EXTENSION_POINTS
from kubesched.framework._types import MAX_NODE_SCORE, MAX_TOTAL_SCORE
from kubesched.metrics import SchedulerMetrics
from kubesched.runtime._failures import PLUGIN_FAILURES, UNCONTAINED, Hook, SlowCalls, describe_exception, timed
from kubesched.runtime._inputs import InputWatch
from kubesched.runtime._metrics import EXTENSION_POINT_LABELS, metered
from kubesched.runtime._profile import Profile
from kubesched.runtime._registry import PluginRegistry, new_plugin_manager
from kubesched.runtime._timeout import can_time_out, limited

#: Per hook name, the profile's (plugin, hook) pairs in profile order.
HookTable = dict[str, list[tuple[str, Hook]]]


class PluginSet:
    """The plugin instances of one profile and, per hook, the implementations enabled at its extension point."""

    def __init__(self, profile: Profile, registry: PluginRegistry, handle: Handle, *,
                 hook_wrapper: Callable[[str, str, Hook], Hook] | None = None,
                 call_budget: float | None = None, timeout: float | None = None,
                 watch: InputWatch | None = None) -> None:
        self.profile = profile
        #: Calls over the plugin call budget, per (extension point, plugin).
        self.slow_calls: dict[tuple[str, str], SlowCalls] = {}
        #: The plugin instances by name, in extension-point order of first appearance.
        self.plugins: dict[str, Any] = {}
        manager = new_plugin_manager()
        for name in profile.plugin_names():
            spec = registry[name]
            args = profile.plugin_args.get(name)
            if args is None and spec.args_class is not None:
                args = spec.args_class()
            try:
                instance = spec.cls(handle, args)
            except UNCONTAINED:  # Ctrl-C, a tool's verdict: not the plugin's failure
                raise
            except PLUGIN_FAILURES as exc:
                raise ProfileError(f'initializing plugin "{name}": {describe_exception(exc)}',
                                   key=f"profiles.{profile.scheduler_name}") from None
            self.plugins[name] = instance
            manager.register(instance, name=name)
        #: The plugins from outside kubesched (third-party, or defined by a test): the ones contained.
        self.foreign = frozenset(n for n, p in self.plugins.items() if not _own(type(p)))
        hooks: HookTable = {}
        for point in EXTENSION_POINTS:
            names = [entry.name for entry in profile.enabled(point.key)]
            for hook in (point.hook, *point.companions):
                caller = getattr(manager.hook, hook)
                impls = {impl.plugin_name: impl for impl in caller.get_hookimpls()}
                spec_args = tuple(caller.spec.argnames)
                pairs = [(n, _adapted(impls[n].function, tuple(impls[n].argnames), spec_args))
                         for n in names if n in impls]
                # Containment wraps only plugins from outside kubesched: its own need none, and pay nothing.
                if watch is not None:  # --strict: the pod is checked after every call, naming the plugin
                    pairs = [(n, watch.checked(h) if n in self.foreign else h) for n, h in pairs]
                if timeout is not None and can_time_out():  # a timer costs two system calls a call
                    pairs = [(n, limited(h, timeout) if n in self.foreign else h) for n, h in pairs]
                if hook_wrapper is not None:  # tools that observe plugins (the conformance suite) wrap each call
                    pairs = [(n, hook_wrapper(n, hook, h)) for n, h in pairs]
                if call_budget is not None:  # only then is each call timed: no cost on the hot path otherwise
                    pairs = [(n, timed(self.slow_calls, n, hook, h, call_budget)) for n, h in pairs]
                hooks[hook] = pairs
        #: The hooks as resolved; :attr:`hooks` is this table or the metered one of a sampled cycle.
        self.plain: HookTable = hooks
        self.hooks: HookTable = hooks
        #: The same hooks by plugin name, per hook (what the runners look plugins up in).
        self.by_name: dict[str, dict[str, Hook]] = _by_name(hooks)
        self._plain_by_name = self.by_name
        self._metered: HookTable | None = None
        self._metered_by_name: dict[str, dict[str, Hook]] = {}
        #: Where plugin calls are timed now (a sampled cycle), or None.
        self.metering: SchedulerMetrics | None = None
        self.score_weights = {e.name: e.weight or 1 for e in profile.enabled("score")}
        self._check_score_overflow()

    def meter(self, metrics: SchedulerMetrics | None) -> bool:
        """Time every plugin call into ``metrics`` from now on (a sampled cycle), or none (``None``); True when the
        hook table changed (the caller refreshes what it derived from it)."""
        self.metering = metrics
        if metrics is None:
            table, by_name = self.plain, self._plain_by_name
        else:
            if self._metered is None:
                self._metered = {hook: [(n, metered(metrics, n, hook, h)) for n, h in pairs]
                                 if hook in EXTENSION_POINT_LABELS else pairs
                                 for hook, pairs in self.plain.items()}
                self._metered_by_name = _by_name(self._metered)
            table, by_name = self._metered, self._metered_by_name
        if table is self.hooks:
            return False
        self.hooks = table
        self.by_name = by_name  # both tables' lookups are built once: a sampled cycle comes every tenth
        return True

    def names_at(self, hook: str) -> list[str]:
        """The plugins that run for ``hook``, in order."""
        return [name for name, _ in self.hooks[hook]]

    def hook(self, plugin: str, hook: str) -> Hook | None:
        """``plugin``'s implementation of ``hook`` as the runners call it (the hookspec's arguments, in order), or
        None when the plugin is not enabled at that extension point."""
        return next((function for name, function in self.hooks.get(hook, ()) if name == plugin), None)

    def _check_score_overflow(self) -> None:
        total = 0
        for name, weight in self.score_weights.items():
            if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                raise ProfileError(f"total score of Score plugins could overflow (at plugin {name!r})",
                                   key=f"profiles.{self.profile.scheduler_name}")
            total += weight * MAX_NODE_SCORE


def _own(cls: type) -> bool:
    """Whether a plugin class is kubesched's own (a built-in)."""
    return cls.__module__.startswith("kubesched.")


def _by_name(table: HookTable) -> dict[str, dict[str, Hook]]:
    """Per hook, its implementations by plugin name."""
    return {hook: dict(pairs) for hook, pairs in table.items()}


def _adapted(function: Hook, impl_args: tuple[str, ...], spec_args: tuple[str, ...]) -> Hook:
    """``function`` as called with the hookspec's arguments: itself when it takes them all, else an adapter passing
    only the ones it names (pluggy allows a subset)."""
    if impl_args == spec_args:
        return function
    picks = tuple(spec_args.index(a) for a in impl_args)
    if len(picks) == 1:  # the common subsets, without a generator per call
        (first,) = picks
        return lambda *args: function(args[first])
    if len(picks) == 2:
        first, second = picks
        return lambda *args: function(args[first], args[second])

    def adapted(*args: Any) -> Any:
        return function(*(args[i] for i in picks))

    return adapted

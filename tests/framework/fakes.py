"""Small plugins and helpers for framework tests: each plugin does one configurable thing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import NodeScore, PreFilterResult
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.runtime import Framework, PluginEntry, PluginRegistry, Profile
from kubesched.sim.cluster import InMemoryCluster, VirtualClock

Calls = list[str]


class FilterScore(Plugin):
    """A Filter and Score plugin that accepts every node and scores 0; subclass to rename or add Args."""

    name = "FilterScore"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 0


def make_filter(name: str, verdict: Callable[[NodeInfo], Status | None], calls: Calls | None = None) -> type[Plugin]:
    """A Filter plugin named ``name`` returning ``verdict(node_info)`` and logging its calls."""

    class _Filter(Plugin):
        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            if calls is not None:
                calls.append(f"{name}:{node_info.name}")
            return verdict(node_info)

    _Filter.name = name
    _Filter.__name__ = name
    return _Filter


def make_pre_filter(name: str, outcome: PreFilterResult | Status | None, calls: Calls | None = None,
                    filter_verdict: Status | None = None) -> type[Plugin]:
    """A PreFilter+Filter plugin whose PreFilter returns ``outcome``."""

    class _PreFilter(Plugin):
        @hookimpl
        def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> PreFilterResult | Status | None:
            if calls is not None:
                calls.append(f"{name}:pre_filter")
            return outcome

        @hookimpl
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            if calls is not None:
                calls.append(f"{name}:filter")
            return filter_verdict

    _PreFilter.name = name
    _PreFilter.__name__ = name
    return _PreFilter


def make_score(name: str, scores: dict[str, int], normalize: Callable[[list[NodeScore]], None] | None = None,
               pre_score: Status | None = None) -> type[Plugin]:
    """A Score plugin returning ``scores[node]`` (and optionally normalising, or skipping in PreScore)."""

    class _Score(Plugin):
        @hookimpl
        def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
            return pre_score

        @hookimpl
        def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
            return scores[node_info.name]

    if normalize is not None:
        normalizer = normalize

        class _Normalized(_Score):
            @hookimpl
            def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
                normalizer(scores)
                return None

        _Normalized.name = name
        return _Normalized
    _Score.name = name
    _Score.__name__ = name
    return _Score


def profile_of(points: Mapping[str, Sequence[str | tuple[str, int]]], name: str = "default-scheduler") -> Profile:
    """A Profile from ``{point key: [plugin name or (name, weight)]}``, with PrioritySort and DefaultBinder."""
    plugins: dict[str, tuple[PluginEntry, ...]] = {"queue-sort": (PluginEntry("PrioritySort"),),
                                                   "bind": (PluginEntry("DefaultBinder"),)}
    for key, entries in points.items():
        plugins[key] = tuple(PluginEntry(e) if isinstance(e, str) else PluginEntry(e[0], e[1]) for e in entries)
    return Profile(name, plugins)


def framework_of(points: Mapping[str, Sequence[str | tuple[str, int]]], *plugins: type[Any],
                 cluster: InMemoryCluster | None = None) -> Framework:
    """A Framework running ``plugins`` at the given points, on an in-memory cluster."""
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, *plugins)
    client = cluster or InMemoryCluster(VirtualClock())
    return Framework(profile_of(points), registry, client=client)

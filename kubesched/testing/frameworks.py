"""Frameworks of one or several plugins over a small cluster, for tests in kube-scheduler's shape: build the
plugins as a profile would, then call one hook (``framework.hook(plugin, hook)``), run one extension point
(``framework.run_filter_plugins(...)``), or run Filter or Score for a pod over every node on the path chosen
(``run_filter(pod)``, ``run_score(pod)``): ``path="per-node"`` calls every plugin's per-node hooks, ``path="batch"``
their batch forms where they have them, exactly as the scheduler's two paths do.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from kubesched.api.workload import Service, WorkloadController
from kubesched.backend import ClusterClient
from kubesched.framework._args import structure
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import extension_points
from kubesched.framework._status import Code, Status
from kubesched.framework._types import PreFilterResult
from kubesched.runtime import (
    QUIET,
    Framework,
    NodeSearch,
    NodeSearches,
    PluginEntry,
    PluginRegistry,
    Profile,
    ResourceAccelerator,
    SearchError,
    load_plugin_class,
    new_diagnosis,
)
from kubesched.sim.cluster import InMemoryCluster
from kubesched.testing.cluster import (
    Buildable,
    NamespaceLike,
    NodeLike,
    PdbLike,
    PodLike,
    RecordingClient,
    StorageLike,
    built,
    cluster_and_snapshot,
)

DEFAULT_SCHEDULER = "default-scheduler"
#: The scheduler's two paths through Filter and Score (parametrize a test's ``path: SearchPath`` over PATHS).
SearchPath = Literal["per-node", "batch"]
PATHS: tuple[SearchPath, ...] = ("per-node", "batch")
P = TypeVar("P")
#: A plugin as the kit takes it: its class or the name of a built-in or installed plugin, or (class or name, args)
#: with args an Args instance or a kebab-case mapping.
PluginArg = type[Any] | str | tuple[type[Any] | str, Any]


def plugin_class(plugin: type[Any] | str) -> type[Any]:
    """``plugin`` as a class: itself, or the built-in or installed plugin of that name (a PluginError when there
    is none)."""
    return _installed(plugin) if isinstance(plugin, str) else plugin


@functools.cache
def _installed(name: str) -> type[Any]:
    return load_plugin_class(name)[0]


def plugin_args(plugin_class: type[Any], args: Any) -> Any:
    """The plugin's args instance: ``args`` as given, structured from a kebab-case mapping, or the defaults."""
    args_class = getattr(plugin_class, "Args", None)
    if args_class is None or isinstance(args, args_class):
        return args
    if args is None or isinstance(args, Mapping):
        return structure(args_class, args)
    raise TypeError(f"args for {plugin_class.__name__} must be a {args_class.__name__} or a mapping, "
                    f"got {type(args).__name__}")


def _pairs(plugins: Sequence[Any]) -> list[tuple[type[Any], Any]]:
    """The kit's plugin arguments as (class, args) pairs. ``(Cls, args)`` as two positional arguments (the
    one-plugin form) is the pair ``(Cls, args)``."""
    if len(plugins) == 2 and isinstance(plugins[0], type | str) and not isinstance(plugins[1], type | tuple | str):
        return [(plugin_class(plugins[0]), plugins[1])]
    pairs = []
    for item in plugins:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], type | str):
            pairs.append((plugin_class(item[0]), item[1]))
        elif isinstance(item, type | str):
            pairs.append((plugin_class(item), None))
        else:
            raise TypeError(f"a plugin is a plugin class or name, or a (class or name, args) pair, got {item!r}")
    if not pairs:
        raise TypeError("give at least one plugin class")
    return pairs


def plugin_profile(*plugins: PluginArg | Any, weight: int = 1, weights: Mapping[str, int] | None = None,
                   scheduler_name: str = DEFAULT_SCHEDULER) -> Profile:
    """A profile running each plugin at every extension point it implements, in the order given; PrioritySort and
    DefaultBinder fill QueueSort and Bind when no plugin given has them. Score weights come from ``weights`` by
    plugin name, else ``weight``."""
    pairs = _pairs(plugins)
    entries: dict[str, list[PluginEntry]] = {}
    configured: dict[str, Any] = {}
    for cls, args in pairs:
        name = cls.name
        for point in extension_points(cls):
            score_weight = (weights or {}).get(name, weight) if point.key == "score" else None
            entries.setdefault(point.key, []).append(PluginEntry(name, score_weight))
        value = plugin_args(cls, args)
        if value is not None:
            configured[name] = value
    entries.setdefault("queue-sort", [PluginEntry("PrioritySort")])
    entries.setdefault("bind", [PluginEntry("DefaultBinder")])
    return Profile(scheduler_name, {key: tuple(found) for key, found in entries.items()}, configured)


def plugin_registry(*plugin_classes: type[Any]) -> PluginRegistry:
    """The built-in QueueSort and Bind plugins plus ``plugin_classes`` (no entry-point discovery)."""
    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort

    names = {c.name for c in plugin_classes}
    extra = [c for c in (PrioritySort, DefaultBinder) if c.name not in names]
    return PluginRegistry.of(*extra, *plugin_classes)


class StatusError(Exception):
    """A plugin failed where the kit's call returns no status (``run_score``); ``status`` is its Error status."""

    def __init__(self, status: Status) -> None:
        super().__init__(str(status))
        self.status = status


class PluginFramework(Framework):
    """A :class:`~kubesched.runtime.Framework` of the kit's plugins over a small cluster, which also runs Filter and
    Score for a pod over every node on its ``path``."""

    def __init__(self, profile: Profile, registry: PluginRegistry, *, path: SearchPath, **kwargs: Any) -> None:
        if path not in PATHS:
            raise ValueError(f"path must be one of {', '.join(PATHS)}, got {path!r}")
        super().__init__(profile, registry, **kwargs)
        #: ``"per-node"`` or ``"batch"``: which of the scheduler's paths :meth:`run_filter` and :meth:`run_score` take.
        self.path: SearchPath = path
        handle = self.handle
        self._searches = NodeSearches(handle.snapshot, handle.nominator, batch=path == "batch")
        if path == "batch":  # preemption's accelerator too, as the scheduler's fast path hands it over
            handle.accelerator = ResourceAccelerator(self, handle.snapshot, handle.nominator)

    @property
    def _search(self) -> NodeSearch:
        """The search the scheduler would run now on this path: the per-node one, also on the batch path when the
        snapshot's amounts are too large for exact columns (as the scheduler then steps aside)."""
        return self._searches.for_cycle(QUIET)

    def run_pre_filter(self, pod: PodLike, state: CycleState | None = None,
                       ) -> tuple[PreFilterResult | None, Status | None]:
        """PreFilter over every node of the snapshot on this path (``pre_filter_nodes`` where a plugin has it on the
        batch path): the merged node narrowing and the status (None: success)."""
        state = state if state is not None else CycleState()
        result, status, _narrowing = self._search.pre_filter(self, state, built([pod])[0], self.handle.snapshot.list())
        return result, status

    def run_filter(self, pod: PodLike, state: CycleState | None = None) -> dict[str, Status | None]:
        """PreFilter, then Filter on every node of the snapshot, as the scheduler runs them on this path: per node,
        None where the pod fits, else the status it got (PreFilter's rejection, the status of the nodes a
        PreFilterResult left out, the first rejecting Filter plugin's, or the Error that stopped the search)."""
        pod = built([pod])[0]
        state = state if state is not None else CycleState()
        nodes = self.handle.snapshot.list()
        search = self._search
        result, status, narrowing = search.pre_filter(self, state, pod, nodes)
        if status is not None and status.code is not Code.SUCCESS:
            return dict.fromkeys((ni.name for ni in nodes), status)
        diagnosis = new_diagnosis()
        tried = nodes
        if result is not None and not result.all_nodes():
            names = result.node_names or frozenset()
            tried = [ni for ni in nodes if ni.name in names]
            diagnosis.node_to_status.absent_nodes_status = Status.unresolvable(
                "node(s) didn't satisfy plugin(s) [" + " ".join(sorted(narrowing)) + "]")
        try:
            feasible, _lazy = search.find_feasible(self, state, pod, diagnosis, tried, 0, len(tried))
        except SearchError as error:
            return dict.fromkeys((ni.name for ni in nodes), error.status)
        passed = {ni.name for ni in feasible}
        statuses = diagnosis.node_to_status
        return {ni.name: None if ni.name in passed else statuses.get(ni.name) for ni in nodes}

    def run_score(self, pod: PodLike, nodes: Sequence[str] | None = None, state: CycleState | None = None,
                  ) -> dict[str, int]:
        """PreScore, Score, NormalizeScore and the weights over ``nodes`` (names; every node of the snapshot by
        default) as the scheduler runs them on this path: each node's total. Raises :class:`StatusError` with the
        Error status when a plugin fails."""
        pod = built([pod])[0]
        state = state if state is not None else CycleState()
        infos = self._nodes(nodes)
        try:
            table = self._search.prioritize(self, state, pod, infos, QUIET)
        except SearchError as error:
            raise StatusError(error.status) from None
        return {name: int(total) for name, total in zip(table.nodes, table.totals, strict=True)}

    def _nodes(self, names: Sequence[str] | None) -> list[NodeInfo]:
        snapshot = self.handle.snapshot
        if names is None:
            return snapshot.list()
        infos = [snapshot.get(name) for name in names]
        missing = [name for name, info in zip(names, infos, strict=True) if info is None]
        if missing:
            raise KeyError(f"no node {', '.join(missing)} in the snapshot")
        return [info for info in infos if info is not None]


def plugin_framework(*plugins: PluginArg | Any, path: SearchPath = "per-node",
                     nodes: Sequence[NodeLike | NodeInfo] = (), pods: Sequence[PodLike] = (),
                     pdbs: Sequence[PdbLike] = (), namespaces: Sequence[NamespaceLike] = (),
                     services: Sequence[Service] = (), controllers: Sequence[WorkloadController] = (),
                     storage: Sequence[StorageLike] = (), cluster: InMemoryCluster | None = None,
                     client: ClusterClient | None = None,
                     weights: Mapping[str, int] | None = None, seed: int = 0) -> PluginFramework:
    """A framework of ``plugins`` (classes, or ``(class, args)`` pairs; ``plugin_framework(Cls, args)`` for one
    plugin with args), each at every extension point it implements, in the order given.

    The snapshot holds ``nodes`` (Nodes, or NodeInfos with their pods) and the bound ``pods``; an in-memory cluster
    (``cluster`` when given, with its own objects too) holds every object and is the plugins' client, unless
    ``client`` is given: a :class:`RecordingClient` (its cluster is then the one used) or any fake backend. The
    plugins' Handle is ``framework.handle``; ``storage`` (PersistentVolumes, claims, StorageClasses, CSI objects)
    goes to the cluster's storage store; ``path`` chooses the scheduler path of ``run_filter``/``run_score``."""
    pairs = _pairs(plugins)
    if cluster is None and isinstance(client, RecordingClient):
        cluster = client.cluster
    cluster, snapshot = cluster_and_snapshot(built(nodes), built(pods), built(pdbs), cluster=cluster)
    cluster.add_workloads(built(namespaces), services, controllers)
    for obj in storage:
        cluster.storage.put(obj.obj() if isinstance(obj, Buildable) else obj)
    return PluginFramework(plugin_profile(*pairs, weights=weights), plugin_registry(*(c for c, _ in pairs)),
                           path=path, client=client if client is not None else cluster, rng=random.Random(seed),
                           clock=cluster.clock, snapshot=snapshot)


def plugin_instance(plugin: type[P] | str, args: Any = None, **cluster: Any) -> P:
    """The plugin (a class, or the name of a built-in or installed plugin) as :func:`plugin_framework` builds it
    (same keyword arguments), to call its hooks directly."""
    cls = plugin_class(plugin)
    framework = plugin_framework((cls, args), **cluster)
    instance: P = next(p for p in framework.plugins.values() if type(p) is cls)
    return instance


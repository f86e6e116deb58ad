"""Run one plugin, or a whole profile, on a small cluster and read back what the scheduler decided.

For plugin authors' tests: ``run_plugin(MyFilter, nodes, pods)`` schedules the pending ``pods`` with a profile
that enables only ``MyFilter`` (plus PrioritySort and DefaultBinder where it has no QueueSort or Bind of its own)
and returns a :class:`Decisions`: per pod, where it went or why not, and what each node got in its last attempt.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.backend import BindingError, ClusterClient
from kubesched.framework._args import structure
from kubesched.framework._node_info import ImageStateSummary, NodeInfo, PodInfo
from kubesched.framework._plugin import extension_points
from kubesched.framework._snapshot import Snapshot
from kubesched.io.load import ClusterInput
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import CycleRecord, Framework, PluginEntry, PluginRegistry, Profile, SchedulerSettings
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.sim.simulate import Simulation, SimulationResult

DEFAULT_SCHEDULER = "default-scheduler"
P = TypeVar("P")


def plugin_args(plugin_class: type[Any], args: Any) -> Any:
    """The plugin's args instance: ``args`` as given, structured from a kebab-case mapping, or the defaults."""
    args_class = getattr(plugin_class, "Args", None)
    if args_class is None or isinstance(args, args_class):
        return args
    if args is None or isinstance(args, Mapping):
        return structure(args_class, args)
    raise TypeError(f"args for {plugin_class.__name__} must be a {args_class.__name__} or a mapping, "
                    f"got {type(args).__name__}")


def plugin_profile(plugin_class: type[Any], args: Any = None, *, weight: int = 1,
                   scheduler_name: str = DEFAULT_SCHEDULER) -> Profile:
    """A profile running ``plugin_class`` at every extension point it implements; PrioritySort and
    DefaultBinder fill QueueSort and Bind when the plugin has neither."""
    name = plugin_class.name
    plugins: dict[str, tuple[PluginEntry, ...]] = {"queue-sort": (PluginEntry("PrioritySort"),),
                                                   "bind": (PluginEntry("DefaultBinder"),)}
    for point in extension_points(plugin_class):
        plugins[point.key] = (PluginEntry(name, weight if point.key == "score" else None),)
    configured = plugin_args(plugin_class, args)
    return Profile(scheduler_name, plugins, {name: configured} if configured is not None else {})


def plugin_registry(plugin_class: type[Any]) -> PluginRegistry:
    """The built-in QueueSort and Bind plugins plus ``plugin_class`` (no entry-point discovery)."""
    from kubesched.plugins.default_binder import DefaultBinder
    from kubesched.plugins.priority_sort import PrioritySort

    extra = [c for c in (PrioritySort, DefaultBinder) if c.name != plugin_class.name]
    return PluginRegistry.of(*extra, plugin_class)


def check_unique(nodes: Sequence[Node | NodeInfo], pods: Sequence[Pod]) -> None:
    """Refuse two nodes with one name and two pods with one ``namespace/name`` or uid: the cluster keys them so,
    and the second would silently replace the first."""
    problems = []
    for what, keys, hint in (
            ("nodes are named", [n.name for n in nodes], "give each node its own name"),
            ("pods are named", [p.key for p in pods],
             'give each pod its own name, or its own namespace (make_pod("x", "other-namespace"))'),
            ("pods have the uid", [p.uid for p in pods], "give each pod its own uid (.uid(...))")):
        seen: dict[str, int] = {}
        for i, key in enumerate(keys):
            first = seen.setdefault(key, i)
            if first != i and not (what == "pods have the uid" and pods[first].key == pods[i].key):
                problems.append(f'two {what} "{key}": {hint}')
    if problems:
        raise ValueError("; ".join(problems))


def cluster_and_snapshot(nodes: Sequence[Node | NodeInfo], pods: Sequence[Pod] = (),
                         pdbs: Sequence[PodDisruptionBudget] = (), *,
                         cluster: InMemoryCluster | None = None) -> tuple[InMemoryCluster, Snapshot]:
    """An in-memory cluster (``cluster`` when given) holding the objects, and a snapshot of every node it holds
    with the pods bound to it. A NodeInfo among ``nodes`` is used in the snapshot as given, and its node and
    pods are added to the cluster (the pods bound to it)."""
    check_unique(nodes, [*(p.pod for n in nodes if isinstance(n, NodeInfo) for p in n.pods), *pods])
    cluster = cluster if cluster is not None else InMemoryCluster(VirtualClock())
    cluster.pdbs = [*cluster.pdbs, *pdbs]
    for item in nodes:
        if isinstance(item, NodeInfo):
            assert item.node is not None, "a NodeInfo given to the harness needs its node"
            cluster.add_node(item.node)
            for pod_info in item.pods:
                pod = pod_info.pod
                cluster.add_pod(pod if pod.spec.node_name == item.name else pod.with_node_name(item.name))
        else:
            cluster.add_node(item)
    for pod in pods:
        cluster.add_pod(pod)

    def built(node: Node) -> NodeInfo:
        return NodeInfo.of(node, [PodInfo.of(p) for p in cluster.list_pods_on_node(node.name)])

    # In the order given (as Snapshot.of keeps it), then the nodes the cluster held before.
    infos = [item if isinstance(item, NodeInfo) else built(item) for item in nodes]
    listed = {info.name for info in infos}
    infos += [built(node) for name, node in cluster.nodes.items() if name not in listed]
    _share_image_states(infos)
    return cluster, Snapshot.of(infos)


def _share_image_states(infos: Sequence[NodeInfo]) -> None:
    """Give NodeInfos without image states the shared per-image summaries the scheduler cache keeps (size,
    nodes holding it), so image-aware plugins see what they would see in a scheduler."""
    summaries: dict[str, ImageStateSummary] = {}
    for info in infos:
        for image in info.node.status.images if info.node is not None else ():
            for name in image.names:
                summaries.setdefault(name, ImageStateSummary(image.size_bytes)).nodes.add(info.name)
    for info in infos:
        if not info.image_states and info.node is not None and info.node.status.images:
            info.image_states = {name: summaries[name] for image in info.node.status.images for name in image.names}


def plugin_framework(plugin_class: type[Any], args: Any = None, *, nodes: Sequence[Node | NodeInfo] = (),
                     pods: Sequence[Pod] = (), pdbs: Sequence[PodDisruptionBudget] = (),
                     namespaces: Sequence[Namespace] = (), services: Sequence[Service] = (),
                     controllers: Sequence[WorkloadController] = (), cluster: InMemoryCluster | None = None,
                     client: ClusterClient | None = None, seed: int = 0) -> Framework:
    """A Framework for ``plugin_class`` alone, which is also the Handle its plugin got: call the plugin's hooks
    through it, or directly on :func:`plugin_instance`'s result.

    The snapshot holds ``nodes`` (Nodes, or NodeInfos with their pods) and the bound ``pods``; an in-memory
    cluster (``cluster`` when given, with its own objects too) holds every object and is the plugin's client,
    unless ``client`` is given: a :class:`RecordingClient` (its cluster is then the one used) or any fake
    backend."""
    if cluster is None and isinstance(client, RecordingClient):
        cluster = client.cluster
    cluster, snapshot = cluster_and_snapshot(nodes, pods, pdbs, cluster=cluster)
    cluster.add_workloads(namespaces, services, controllers)
    return Framework(plugin_profile(plugin_class, args), plugin_registry(plugin_class),
                     client=client if client is not None else cluster, rng=random.Random(seed),
                     clock=cluster.clock, snapshot=snapshot)


def plugin_instance(plugin_class: type[P], args: Any = None, **cluster: Any) -> P:
    """The plugin as :func:`plugin_framework` builds it (same keyword arguments), to call its hooks directly."""
    framework = plugin_framework(plugin_class, args, **cluster)
    return next(p for p in framework.plugins.values() if type(p) is plugin_class)


class RecordingClient:
    """A :class:`~kubesched.backend.ClusterClient` that records every write a plugin asks for, in ``calls``,
    and passes reads and writes on to ``cluster`` (a new empty in-memory one by default).

    ``refuse_bindings``, when set, is raised by :meth:`bind` instead of binding (a backend saying no).
    """

    def __init__(self, cluster: InMemoryCluster | None = None, *, refuse_bindings: BindingError | None = None) -> None:
        self.cluster = cluster if cluster is not None else InMemoryCluster(VirtualClock())
        self.refuse_bindings = refuse_bindings
        #: Each write as (method, pod ``namespace/name``, details...), in call order.
        self.calls: list[tuple[Any, ...]] = []

    # -- writes: recorded, then applied --------------------------------------------------------------
    def bind(self, pod: Pod, node_name: str) -> None:
        """Record the binding; refuse it with ``refuse_bindings`` when set, else bind in the cluster."""
        self.calls.append(("bind", pod.key, node_name))
        if self.refuse_bindings is not None:
            raise self.refuse_bindings
        self.cluster.bind(pod, node_name)

    def delete_pod(self, pod: Pod, *, condition: PodCondition | None = None) -> None:
        """Record the deletion (with the condition's type) and delete in the cluster."""
        self.calls.append(("delete_pod", pod.key, condition.type if condition is not None else None))
        self.cluster.delete_pod(pod, condition=condition)

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        """Record the nomination patch and apply it."""
        self.calls.append(("set_nominated_node_name", pod.key, node_name))
        self.cluster.set_nominated_node_name(pod, node_name)

    def set_scheduling_failure(self, pod: Pod, reason: str, message: str,
                               nominated_node_name: str | None = None) -> None:
        """Record the PodScheduled=False patch (with the nominated node it sets, None for none) and apply it."""
        self.calls.append(("set_scheduling_failure", pod.key, reason, message, nominated_node_name))
        self.cluster.set_scheduling_failure(pod, reason, message, nominated_node_name)

    def record_event(self, regarding: Pod, event_type: str, reason: str, message: str) -> None:
        """Record the event (also in the cluster's events)."""
        self.calls.append(("record_event", regarding.key, event_type, reason, message))
        self.cluster.record_event(regarding, event_type, reason, message)

    def record_preemption(self, preemptor: Pod, node_name: str, victims: list[Pod]) -> None:
        """Record the preemption note."""
        self.calls.append(("record_preemption", preemptor.key, node_name, tuple(v.key for v in victims)))
        self.cluster.record_preemption(preemptor, node_name, victims)

    # -- reads: passed on ----------------------------------------------------------------------------
    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The cluster's pod."""
        return self.cluster.get_pod(namespace, name)

    def list_pods(self) -> Collection[Pod]:
        """The cluster's pods."""
        return self.cluster.list_pods()

    def list_pods_on_node(self, node_name: str) -> Collection[Pod]:
        """The cluster's pods on a node."""
        return self.cluster.list_pods_on_node(node_name)

    def list_pods_in_namespace(self, namespace: str) -> Collection[Pod]:
        """The cluster's pods in a namespace."""
        return self.cluster.list_pods_in_namespace(namespace)

    def list_namespaces(self) -> Collection[Namespace]:
        """The cluster's namespaces."""
        return self.cluster.list_namespaces()

    def get_namespace(self, name: str) -> Namespace | None:
        """The cluster's namespace."""
        return self.cluster.get_namespace(name)

    def list_pdbs(self) -> list[PodDisruptionBudget]:
        """The cluster's PDBs."""
        return self.cluster.list_pdbs()

    def get_namespace_labels(self, name: str) -> Mapping[str, str]:
        """The cluster's namespace labels."""
        return self.cluster.get_namespace_labels(name)

    def list_services(self, namespace: str) -> list[Service]:
        """The cluster's Services."""
        return self.cluster.list_services(namespace)

    def get_controller(self, kind: str, namespace: str, name: str) -> WorkloadController | None:
        """The cluster's workload controller."""
        return self.cluster.get_controller(kind, namespace, name)


@attrs.frozen
class Decision:
    """One pod's outcome: ``node`` when bound (``phase`` Bound), else ``phase`` and the reason in ``message``.

    ``rejected`` maps each node that failed Filter in the pod's last attempt to its reasons; ``scores`` maps
    each feasible node of that attempt to its total weighted score (empty when nothing was scored).
    """

    pod: str
    phase: str
    node: str | None
    message: str
    rejected: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    scores: Mapping[str, int] = attrs.field(factory=dict)

    @property
    def bound(self) -> bool:
        """Whether the pod was bound to a node."""
        return self.node is not None and self.phase == "Bound"


@attrs.frozen
class Decisions(Mapping[str, Decision]):
    """Every pod's :class:`Decision` by pod name (or ``namespace/name``), plus the whole simulation result."""

    by_key: Mapping[str, Decision]
    result: SimulationResult

    def __getitem__(self, name: str) -> Decision:
        if name in self.by_key:
            return self.by_key[name]
        matches = [d for key, d in self.by_key.items() if key.split("/", 1)[1] == name]
        if len(matches) == 1:
            return matches[0]
        raise KeyError(name if not matches else f"{name}: ambiguous, give namespace/name")

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_key)

    def __len__(self) -> int:
        return len(self.by_key)

    def placements(self) -> dict[str, str | None]:
        """Pod name (``namespace/name``) to its node, None for pods not bound."""
        return {key: d.node if d.bound else None for key, d in self.by_key.items()}


def run_profile(config: SchedulerConfiguration | str | Path, nodes: Sequence[Node | Any], pods: Sequence[Pod | Any], *,
                registry: PluginRegistry | None = None, pdbs: Sequence[PodDisruptionBudget | Any] = (),
                seed: int = 0) -> Decisions:
    """Simulate ``pods`` (bound ones run, the others are scheduled) on ``nodes`` with a profile: a loaded
    configuration, a shipped profile name or a TOML path; plugins come from ``registry`` or are discovered."""
    from kubesched.profiles import load_config

    registry = registry if registry is not None else PluginRegistry.discover()
    if not isinstance(config, SchedulerConfiguration):
        config = load_config(str(config), registry)
    return _run(config, registry, nodes, pods, pdbs, seed)


def run_plugin(plugin_class: type[Any], nodes: Sequence[Node | Any], pods: Sequence[Pod | Any], *, args: Any = None,
               pdbs: Sequence[PodDisruptionBudget | Any] = (), seed: int = 0) -> Decisions:
    """Simulate ``pods`` on ``nodes`` with a profile of ``plugin_class`` alone (see :func:`plugin_profile`);
    ``args`` is the plugin's Args instance or a kebab-case mapping, defaults when omitted."""
    config = SchedulerConfiguration(SchedulerSettings(), (plugin_profile(plugin_class, args),), plugin_class.name)
    return _run(config, plugin_registry(plugin_class), nodes, pods, pdbs, seed)


def built(items: Sequence[Any]) -> tuple[Any, ...]:
    """Objects as given, with builders (anything with ``obj()``, like ``make_pod("p")``) built."""
    return tuple(item.obj() if hasattr(item, "obj") else item for item in items)


def _run(config: SchedulerConfiguration, registry: PluginRegistry, nodes: Sequence[Node | Any],
         pods: Sequence[Pod | Any], pdbs: Sequence[PodDisruptionBudget | Any], seed: int) -> Decisions:
    cluster_input = ClusterInput(nodes=built(nodes), pods=built(pods), pdbs=built(pdbs))
    check_unique(cluster_input.nodes, cluster_input.pods)
    simulation = Simulation(cluster_input, config, registry, seed=seed)
    last: dict[str, CycleRecord] = {}

    def observe(record: CycleRecord) -> None:
        last[record.pod.key] = record

    simulation.scheduler.cycle_observer = observe
    result = simulation.run()
    decisions = {}
    for pod in result.pods:
        key = f"{pod.namespace}/{pod.name}"
        record = last.get(key)
        rejected: dict[str, tuple[str, ...]] = {}
        scores: dict[str, int] = {}
        if record is not None:
            statuses = record.diagnosis.node_to_status
            rejected = {name: status.reasons for name, status in statuses.statuses.items()}
            if record.status is not None and not record.status.is_success():
                # A failed attempt checked every node: those without an entry were rejected before Filter
                # (PreFilter, or narrowed away by a PreFilterResult) with the absent-nodes status.
                for node in cluster_input.nodes:
                    if node.name not in rejected and node.name not in record.feasible_nodes:
                        rejected[node.name] = statuses.absent_nodes_status.reasons
            if record.scores is not None:
                scores = dict(zip(record.scores.nodes, record.scores.totals, strict=True))
        decisions[key] = Decision(key, pod.phase, pod.node, pod.message, rejected, scores)
    return Decisions(decisions, result)

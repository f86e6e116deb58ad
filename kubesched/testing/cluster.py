"""A small in-memory cluster for plugin tests: its objects, the snapshot of its nodes, and a client that records
what a plugin asks of it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.policy import PodDisruptionBudget
from kubesched.api.storage import PersistentVolume, PersistentVolumeClaim, StorageObject
from kubesched.api.workload import Namespace, Service, WorkloadController
from kubesched.backend import BindingError
from kubesched.framework._node_info import ImageStateSummary, NodeInfo, PodInfo
from kubesched.runtime import NodeSnapshot
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.storage import StorageStore

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@runtime_checkable
class Buildable(Protocol[T_co]):
    """A builder the kit accepts wherever it takes an object (``make_pod("p")`` where a Pod is due)."""

    def obj(self) -> T_co:
        """The object built."""
        ...


#: What the kit takes where it needs an object: the object, or a builder of it.
PodLike = Pod | Buildable[Pod]
NodeLike = Node | Buildable[Node]
PdbLike = PodDisruptionBudget | Buildable[PodDisruptionBudget]
NamespaceLike = Namespace | Buildable[Namespace]
StorageLike = StorageObject | Buildable[StorageObject]


def built(items: Sequence[T | Buildable[T]]) -> tuple[T, ...]:
    """Objects as given, with builders (anything with ``obj()``, like ``make_pod("p")``) built."""
    return tuple(item.obj() if isinstance(item, Buildable) else item for item in items)


def make_snapshot(node_infos: Sequence[NodeInfo] = ()) -> NodeSnapshot:
    """A snapshot over ``node_infos``, in that order, with its columns, as the scheduler's cache builds one (give it
    to a Framework, or read it as a plugin does)."""
    return NodeSnapshot.of(list(node_infos))


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
                         cluster: InMemoryCluster | None = None) -> tuple[InMemoryCluster, NodeSnapshot]:
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

    # In the order given (as NodeSnapshot.of keeps it), then the nodes the cluster held before.
    infos = [item if isinstance(item, NodeInfo) else built(item) for item in nodes]
    listed = {info.name for info in infos}
    infos += [built(node) for name, node in cluster.nodes.items() if name not in listed]
    _share_image_states(infos)
    return cluster, NodeSnapshot.of(infos)


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

    @property
    def storage(self) -> StorageStore:
        """The cluster's storage objects."""
        return self.cluster.storage

    def update_claim(self, claim: PersistentVolumeClaim) -> None:
        """Write the claim to the cluster."""
        self.cluster.update_claim(claim)

    def update_volume(self, volume: PersistentVolume) -> None:
        """Write the PersistentVolume to the cluster."""
        self.cluster.update_volume(volume)

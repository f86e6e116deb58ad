"""The plugins' Handle as the runtime implements it: cluster access through listers, the nominator, the seeded
random generator, the clock, the cycle's snapshot, and the pods Permit holds."""

from __future__ import annotations

import random
from collections.abc import Collection
from datetime import UTC, datetime

from kubesched.api.pod import Pod
from kubesched.api.workload import Namespace
from kubesched.backend import Clock, ClusterClient, ClusterListener
from kubesched.framework._handle import WaitingPod
from kubesched.framework._snapshot import Snapshot
from kubesched.runtime._nominator import Nominator


class ClientPodLister:
    """The Handle's :class:`~kubesched.framework._handle.PodLister`: reads pods through a ClusterClient."""

    __slots__ = ("_client",)

    def __init__(self, client: ClusterClient) -> None:
        self._client = client

    def list(self) -> Collection[Pod]:
        """Every pod in the cluster."""
        return self._client.list_pods()

    def on_node(self, node_name: str) -> Collection[Pod]:
        """The pods bound to ``node_name``."""
        return self._client.list_pods_on_node(node_name)

    def in_namespace(self, namespace: str) -> Collection[Pod]:
        """The pods of ``namespace``."""
        return self._client.list_pods_in_namespace(namespace)

    def get(self, namespace: str, name: str) -> Pod | None:
        """Pod ``namespace/name``, if it exists."""
        return self._client.get_pod(namespace, name)


class ClientNamespaceLister:
    """The Handle's :class:`~kubesched.framework._handle.NamespaceLister`: reads namespaces through a ClusterClient."""

    __slots__ = ("_client",)

    def __init__(self, client: ClusterClient) -> None:
        self._client = client

    def list(self) -> Collection[Namespace]:
        """Every Namespace object."""
        return self._client.list_namespaces()

    def get(self, name: str) -> Namespace | None:
        """The Namespace ``name``, if the cluster holds it."""
        return self._client.get_namespace(name)


class _ZeroClock:
    def now(self) -> float:
        return 0.0

    def timestamp(self) -> datetime:
        return datetime.fromtimestamp(0, UTC)


class FrameworkHandle:
    """What a Framework offers its plugins as their :class:`~kubesched.framework._handle.Handle`, apart from the
    profile's name (the Framework adds it); kept apart from the extension-point runners."""

    def __init__(self, client: ClusterClient, nominator: Nominator | None, rng: random.Random | None,
                 clock: Clock | None, snapshot: Snapshot | None) -> None:
        self._client = client
        self._nominator = nominator if nominator is not None else Nominator()
        self._rng = rng if rng is not None else random.Random(0)
        self._clock = clock if clock is not None else _ZeroClock()
        self._fast_path = True
        self.snapshot_ref: Snapshot = snapshot if snapshot is not None else Snapshot()
        self._waiting: dict[str, WaitingPod] = {}
        self._pod_lister = ClientPodLister(client)
        self._namespace_lister = ClientNamespaceLister(client)
        #: The plugins' cluster listeners (:meth:`subscribe`), in subscription order.
        self.listeners: list[ClusterListener] = []

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot of the current cycle."""
        return self.snapshot_ref

    @property
    def client(self) -> ClusterClient:
        """The cluster backend."""
        return self._client

    @property
    def pod_lister(self) -> ClientPodLister:
        """Pods as the cluster holds them, read through the backend."""
        return self._pod_lister

    @property
    def namespace_lister(self) -> ClientNamespaceLister:
        """Namespaces as the cluster holds them, read through the backend."""
        return self._namespace_lister

    @property
    def nominator(self) -> Nominator:
        """The nominator shared with the queue."""
        return self._nominator

    @property
    def rng(self) -> random.Random:
        """The run's seeded random generator."""
        return self._rng

    @property
    def clock(self) -> Clock:
        """The scheduler's clock."""
        return self._clock

    @property
    def fast_path(self) -> bool:
        """Whether the scheduler runs its fast path (SchedulerSettings.fast_path)."""
        return self._fast_path

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """A pod Permit is holding."""
        return self._waiting.get(uid)

    def waiting_pods(self) -> list[WaitingPod]:
        """Every pod Permit is holding, in the order they started waiting."""
        return list(self._waiting.values())

    def remove_waiting_pod(self, uid: str) -> WaitingPod | None:
        """Stop tracking a waiting pod (its binding cycle resumed or it was rejected)."""
        return self._waiting.pop(uid, None)

    def subscribe(self, listener: ClusterListener) -> None:
        """Tell ``listener`` of every pod and node change from now on, after the scheduler handled it."""
        self.listeners.append(listener)

"""The plugins' Handle as the runtime implements it: cluster access through listers, the nominator, the seeded
random generator, the clock, the cycle's snapshot, and the pods Permit holds."""

from __future__ import annotations

import random
from collections.abc import Collection
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from kubesched.api.pod import Pod
from kubesched.api.workload import Namespace
from kubesched.backend import Clock, ClusterClient, ClusterListener
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import WaitingPod
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._status import Status
from kubesched.runtime._cycle_observer import QUIET, CycleObserver
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._snapshot import NodeSnapshot
from kubesched.storage import StorageStore

if TYPE_CHECKING:
    from kubesched.framework.preemption import CandidateChoice, PreemptionAccelerator


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


class RuntimeHandle:
    """The :class:`~kubesched.framework.Handle` a Framework gives its plugins: the cluster through listers, the
    nominator, the seeded random generator, the clock, the cycle's snapshot, the pods Permit holds, and the
    framework's runners that preemption calls (Filter with nominated pods, the PreFilter extensions)."""

    def __init__(self, framework: FrameworkRunners, profile_name: str, client: ClusterClient,
                 nominator: Nominator | None, rng: random.Random | None, clock: Clock | None,
                 snapshot: NodeSnapshot | None) -> None:
        self._framework = framework
        self._profile_name = profile_name
        self._client = client
        self._nominator = nominator if nominator is not None else Nominator()
        self._rng = rng if rng is not None else random.Random(0)
        self._clock = clock if clock is not None else _ZeroClock()
        self.snapshot_ref: NodeSnapshot = snapshot if snapshot is not None else NodeSnapshot()
        self._waiting: dict[str, WaitingPod] = {}
        self._pod_lister = ClientPodLister(client)
        self._namespace_lister = ClientNamespaceLister(client)
        #: The plugins' cluster listeners (:meth:`subscribe`), in subscription order.
        self.listeners: list[ClusterListener] = []
        #: The observer of the cycle under way (explain's recorder, or QUIET): told the preemption's candidate choice.
        self.observer: CycleObserver = QUIET
        #: The accelerator the runtime hands the preemption Evaluator (None: the reference dry run).
        self.accelerator: PreemptionAccelerator | None = None

    @property
    def framework(self) -> FrameworkRunners:
        """The framework that built this handle (for the runtime and the testing kit; plugins use the members
        the Handle declares)."""
        return self._framework

    @property
    def profile_name(self) -> str:
        """The profile's scheduler name."""
        return self._profile_name

    @property
    def snapshot(self) -> NodeSnapshot:
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
    def storage_lister(self) -> StorageStore:
        """The storage objects as the cluster holds them."""
        return self._client.storage

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
    def preemption_accelerator(self) -> PreemptionAccelerator | None:
        """What stands in for the preemption dry run's Filter runs on node copies where that decides the same (None
        on the reference path, ``kubesched bench --reference``)."""
        return self.accelerator

    def record_candidate_choice(self, choice: CandidateChoice) -> None:
        """Tell the runtime which candidates a preemption weighed and which it chose (explain shows them)."""
        self.observer.preemption(choice)

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """Run the profile's Filter plugins with, then without, higher-priority nominated pods on the node."""
        return self._framework.run_filter_plugins_with_nominated_pods(state, pod, node_info)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's AddPod extension (those that skipped PreFilter excluded)."""
        return self._framework.run_pre_filter_extension_add_pod(state, pod, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status | None:
        """Run every PreFilter plugin's RemovePod extension (those that skipped PreFilter excluded)."""
        return self._framework.run_pre_filter_extension_remove_pod(state, pod, pod_info_to_remove, node_info)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """A pod Permit is holding."""
        return self._waiting.get(uid)

    def waiting_pods(self) -> list[WaitingPod]:
        """Every pod Permit is holding, in the order they started waiting."""
        return list(self._waiting.values())

    def add_waiting_pod(self, waiting: WaitingPod) -> None:
        """Hold a pod Permit asked to wait."""
        self._waiting[waiting.pod.uid] = waiting

    def remove_waiting_pod(self, uid: str) -> WaitingPod | None:
        """Stop tracking a waiting pod (its binding cycle resumed or it was rejected)."""
        return self._waiting.pop(uid, None)

    def subscribe(self, listener: ClusterListener) -> None:
        """Tell ``listener`` of every pod and node change from now on, after the scheduler handled it."""
        self.listeners.append(listener)


class FrameworkRunners(Protocol):
    """The framework runners the Handle passes preemption's calls on to."""

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None: ...

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pod_info_to_add: PodInfo,
                                         node_info: NodeInfo) -> Status | None: ...

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pod_info_to_remove: PodInfo,
                                            node_info: NodeInfo) -> Status | None: ...

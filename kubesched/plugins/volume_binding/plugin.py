"""The VolumeBinding plugin: its hooks (PreFilter, Filter, Reserve, Unreserve, PreBind), its args and the events
and queueing hints that bring back the pods it rejected."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.api import CSI_SOURCE, MIGRATED_PLUGINS_ANNOTATION, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    FilterReads,
    Handle,
    NodeBatch,
    NodeInfo,
    Plugin,
    QueueingHint,
    StateKey,
    StateNotFoundError,
    Status,
    hookimpl,
    in_range,
)
from kubesched.plugins.volume_binding.binder import BinderError, PodVolumes, VolumeBinder
from kubesched.plugins.volume_binding.claims import PodVolumeClaims, has_claims, pod_claims, usage_problem
from kubesched.plugins.volume_binding.matching import volume_limit

NAME = "VolumeBinding"
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
#: The message of a CycleState read that finds nothing (kube-scheduler's ErrNotFound): a hook whose PreFilter or
#: Reserve a profile disabled fails with it.
NOT_FOUND = "not found"
#: PreBind's Error when the PV controller did not bind the claims in time (PollUntilContextTimeout's).
TIMED_OUT = "binding volumes: context deadline exceeded"
#: kube-scheduler's default bindTimeoutSeconds.
DEFAULT_BIND_TIMEOUT = 600


@attrs.frozen
class VolumeBindingArgs:
    """Args of VolumeBinding (kube-scheduler's VolumeBindingArgs, without the alpha capacity-scoring shape)."""

    #: How long PreBind waits for the PV controller to bind the claims, in seconds.
    bind_timeout_seconds: int = attrs.field(default=DEFAULT_BIND_TIMEOUT, validator=in_range(
        0, math.inf, message="Invalid value: {value}: invalid BindTimeoutSeconds, should not be a negative value"))


class FoundVolumes:
    """Filter's answers per node (the PVs to bind and claims to provision there), which Reserve takes up: a memo
    of the cycle shared by the CycleState's clones, as kube-scheduler's state shares its podVolumesByNode."""

    shared_across_clones: ClassVar[bool] = True

    def __init__(self) -> None:
        self.by_node: dict[str, PodVolumes] = {}


@attrs.frozen
class CycleClaims:
    """PreFilter's state: the pod's claims sorted for the binder, and Filter's answers per node (None for a pod
    without claims)."""

    claims: PodVolumeClaims
    found: FoundVolumes | None


@attrs.define
class Reservation:
    """Reserve's state, read by PreBind and Unreserve: the node, whether every claim was bound already, the
    bindings assumed for the node, and PreBind's progress (the writes made, their stale originals, the deadline)."""

    node_name: str
    all_bound: bool
    volumes: PodVolumes = attrs.field(factory=PodVolumes)
    written: bool = False
    stale_volumes: tuple[object, ...] = ()
    stale_claims: tuple[object, ...] = ()
    deadline: float = 0.0


PRE_FILTER_KEY = StateKey[CycleClaims](NAME)
RESERVE_KEY = StateKey[Reservation](f"{NAME}Reserve")
_NO_CLAIMS = CycleClaims(PodVolumeClaims(), None)
#: Reserve's state for a pod without claims (shared: PreBind and Unreserve only read it).
_NOTHING_TO_BIND = Reservation("", all_bound=True)


class VolumeBinding(Plugin):
    """Binds a pod's PersistentVolumeClaims: bound claims' PVs must allow the node, WaitForFirstConsumer claims
    need a free PV there or a class that can provision there; Reserve assumes the bindings, PreBind writes them and
    waits for the PV controller. Every rejection is UnschedulableAndUnresolvable (preemption cannot help)."""

    name = NAME
    Args = VolumeBindingArgs
    args: VolumeBindingArgs
    #: Filter reads the node's name and labels and the cluster's storage objects, never the node's pods.
    filter_reads = FilterReads.NODE

    def __init__(self, handle: Handle, args: Any = None) -> None:
        super().__init__(handle, args if args is not None else VolumeBindingArgs())
        self.binder = VolumeBinder(handle)

    # -- events ----------------------------------------------------------------------------------------
    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """kube-scheduler v1.32's registrations (queueing hints on): StorageClass, PersistentVolumeClaim and
        PersistentVolume adds and updates, new nodes and node label changes, CSINode adds and updates, CSIDriver
        updates and CSIStorageCapacity adds and updates."""
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, add_update), self.hint_storage_class),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update), self.hint_claim),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, add_update), self.hint_csi_node),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE), self.hint_csi_driver),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update), self.hint_capacity),
        ]

    def hint_storage_class(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new class, or a class whose allowedTopologies changed (its binding mode cannot change)."""
        if old is None or new is None or old.allowed_topologies != new.allowed_topologies:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_claim(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A claim of the pod's, added or changed."""
        claim = new if new is not None else old
        if claim.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if any(name == claim.name for name, _ in pod_claims(pod)) else QueueingHint.QUEUE_SKIP

    def hint_csi_node(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new CSINode, or one whose migrated-plugins annotation changed."""
        if old is None or new is None:
            return QueueingHint.QUEUE
        before = old.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION)
        after = new.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION)
        return QueueingHint.QUEUE if before != after else QueueingHint.QUEUE_SKIP

    def hint_csi_driver(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A CSIDriver of one of the pod's inline CSI volumes that stopped asking for capacity checks."""
        if old is None or new is None:
            return QueueingHint.QUEUE
        for volume in pod.spec.volumes:
            if volume.source == CSI_SOURCE and volume.driver == new.name and old.storage_capacity \
                    and not new.storage_capacity:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def hint_capacity(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new CSIStorageCapacity, or one whose volume limit grew."""
        if old is None or new is None:
            return QueueingHint.QUEUE
        before, after = volume_limit(old), volume_limit(new)
        if after is not None and (before is None or after.value() > before.value()):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- scheduling cycle ------------------------------------------------------------------------------
    @hookimpl
    def pre_filter(self, state: CycleState, pod: Pod) -> Status | None:
        """Skip a pod without claims; reject one whose claims are missing, lost, being deleted or not its own
        ephemeral ones, or that has unbound Immediate claims; else sort its claims for Filter."""
        if not has_claims(pod):
            state.write(PRE_FILTER_KEY, _NO_CLAIMS)
            return Status.skip()
        problem = usage_problem(pod, self.handle)
        if problem is not None:
            return Status.unresolvable(problem)
        try:
            claims = self.binder.pod_volume_claims(pod)
        except BinderError as error:
            return Status.as_error(str(error))
        if claims.immediate:
            return Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        state.write(PRE_FILTER_KEY, CycleClaims(claims, FoundVolumes()))
        return None

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Whether the node can serve the pod's claims; every reason at once, UnschedulableAndUnresolvable."""
        cycle = state.get(PRE_FILTER_KEY)
        if cycle is None:
            return Status.as_error(NOT_FOUND)
        node = node_info.node
        if node is None or cycle.found is None:
            return None
        try:
            volumes, reasons = self.binder.find_pod_volumes(cycle.claims, node)
        except BinderError as error:
            return Status.as_error(str(error))
        if reasons:
            return Status.unresolvable(*reasons)
        cycle.found.by_node[node.name] = volumes
        return None

    @hookimpl
    def filter_nodes(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> npt.NDArray[Any] | None:
        """Filter's code for every node of the batch, decided once per distinct value of the node labels the
        pod's claims read (and per node name when a claim has a selected node)."""
        cycle = state.get(PRE_FILTER_KEY)
        if cycle is None:
            raise StateNotFoundError(NOT_FOUND)
        if cycle.found is None:
            return None
        keys, by_name = self.binder.label_keys(cycle.claims)
        codes = np.zeros(len(node_batch), dtype=np.int8)
        decided: dict[tuple[str | None, ...], int] = {}
        for index, info in enumerate(node_batch):
            node = info.node
            if node is None:
                continue
            labels = node.metadata.labels
            signature = tuple(labels.get(key) for key in keys) + ((node.name,) if by_name else ())
            code = decided.get(signature)
            if code is None:  # a BinderError cannot happen here: PreFilter found every class in this cycle
                _volumes, reasons = self.binder.find_pod_volumes(cycle.claims, node)
                code = decided[signature] = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE) if reasons else 0
            codes[index] = code
        return codes if codes.any() else None

    # -- binding cycle ---------------------------------------------------------------------------------
    @hookimpl
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Assume the node's bindings (PVs pre-bound, claims annotated with the node) so later pods see them."""
        cycle = state.get(PRE_FILTER_KEY)
        if cycle is None:
            return Status.as_error(NOT_FOUND)
        if cycle.found is None:
            state.write(RESERVE_KEY, _NOTHING_TO_BIND)
            return None
        volumes = cycle.found.by_node.get(node_name)
        if volumes is None:  # Filter ran on the node in a clone of the state only: find them again
            node_info = self.handle.snapshot.get(node_name)
            if node_info is None or node_info.node is None:
                return Status.as_error(f'no pod volumes found for node "{node_name}"')
            try:
                volumes, _reasons = self.binder.find_pod_volumes(cycle.claims, node_info.node)
            except BinderError as error:
                return Status.as_error(str(error))
        all_bound, assumed = self.binder.assume_pod_volumes(pod, node_name, volumes)
        state.write(RESERVE_KEY, Reservation(node_name, all_bound, assumed))
        return None

    @hookimpl
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Drop what Reserve assumed (nothing when it did not run)."""
        reservation = state.get(RESERVE_KEY)
        if reservation is not None and not reservation.all_bound:
            self.binder.revert(reservation.volumes)

    @hookimpl
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Write the assumed bindings, then wait (polled every second) until the PV controller has bound every
        claim, for at most ``bind-timeout-seconds``."""
        reservation = state.get(RESERVE_KEY)
        if reservation is None:
            return Status.as_error(NOT_FOUND)
        if reservation.all_bound:
            return None
        now = self.handle.clock.now()
        if not reservation.written:
            try:
                reservation.stale_volumes, reservation.stale_claims = self.binder.bind_api_update(reservation.volumes)
            except Exception as error:  # the backend refused a write (kubesched run): the API's message
                return Status.as_error(error)
            reservation.written = True
            reservation.deadline = now + self.args.bind_timeout_seconds
            return self._waiting(reservation) if self.args.bind_timeout_seconds > 0 else Status.as_error(TIMED_OUT)
        if now >= reservation.deadline:
            return Status.as_error(TIMED_OUT)
        try:
            done = self.binder.check_bindings(pod, reservation.volumes, reservation.stale_volumes,
                                              reservation.stale_claims)
        except BinderError as error:
            return Status.as_error(f"binding volumes: {error}")
        return None if done else self._waiting(reservation)

    @staticmethod
    def _waiting(reservation: Reservation) -> Status:
        """The Wait PreBind answers while the claims it touched are not bound yet."""
        keys = [b.claim.key for b in reservation.volumes.static_bindings]
        keys.extend(c.key for c in reservation.volumes.dynamic_provisions)
        return Status.wait(f"waiting for the PV controller to bind {', '.join(keys)}")

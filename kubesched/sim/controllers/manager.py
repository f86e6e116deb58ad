"""The controller manager: runs every workload's controller against the in-memory cluster, on its events.

A controller reacts to a change of its workload or of one of its pods (or, for DaemonSets, of a node) by syncing
``controller_delay`` seconds of virtual time later (once, however many changes came meanwhile); a new workload is
synced at once. Everything random (name suffixes, uids) comes from one generator seeded by the run's seed.

The pods a controller creates go through the API server's admission; a refused one is a FailedCreate event on the
controller, recorded as kube's event recorder does: a repeat of the controller's last refusal is counted in that
event (not recorded again), and past 10 refusals of one controller within 10 minutes the rest are folded into one
``(combined from similar events): ...`` event. A sync that met a refusal is retried as kube's workqueue retries a
failed key: after 5 ms, doubling each time, while the delay stays below its 1000 s ceiling; then every 1000 s in the
background (only while the run goes on for other reasons), so a refusal alone never keeps a run from ending. A sync
without a refusal starts the backoff afresh.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable

import attrs

from kubesched.admission.errors import AdmissionError
from kubesched.api.apps import CronJob, DaemonSet, Deployment, Job, ReplicaSet, StatefulSet, Workload
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.api.workload import WorkloadController
from kubesched.sim.admission import ApiAdmission
from kubesched.sim.agenda import EPOCH, Entry, VirtualClock
from kubesched.sim.cluster import InMemoryCluster
from kubesched.sim.controllers.base import ALPHANUMS, Controller
from kubesched.sim.controllers.cronjob import CronJobController
from kubesched.sim.controllers.daemonset import DaemonSetController
from kubesched.sim.controllers.deployment import DeploymentController
from kubesched.sim.controllers.host import ControllerSettings, Reconciler
from kubesched.sim.controllers.job import JobController
from kubesched.sim.controllers.replicaset import ReplicaSetController
from kubesched.sim.controllers.statefulset import StatefulSetController

#: names.SimpleNameGenerator's maxGeneratedNameLength: 63 characters less the 5 of the random suffix.
MAX_GENERATED_PREFIX = 58
#: workqueue.DefaultControllerRateLimiter's per-item backoff: 5 ms, doubling, at most 1000 s.
RETRY_BASE = 0.005
RETRY_MAX = 1000.0
#: The event correlator's aggregation: past this many similar events of one object within the window (seconds),
#: the rest are one combined event.
AGGREGATE_MAX = 10
AGGREGATE_WINDOW = 600.0


class ControllerManager:
    """Holds the controllers, indexes pods by their controller, and dispatches the cluster's events; the
    :class:`~kubesched.sim.controllers.host.ControllerHost` of every controller."""

    def __init__(self, cluster: InMemoryCluster, clock: VirtualClock, *, seed: int = 0,
                 admission: ApiAdmission | None = None, settings: ControllerSettings | None = None,
                 on_created: Callable[[Pod], None] | None = None) -> None:
        self.cluster = cluster
        self.clock = clock
        self.settings = settings or ControllerSettings()
        self.rng = random.Random(f"kubesched-controllers:{seed}")
        #: The API server's admission, which every pod a controller creates goes through.
        self.admission = admission if admission is not None else ApiAdmission(cluster)
        self._on_created = on_created
        # Per controller uid: the syncs in a row that met a refusal, its last FailedCreate message and when its
        # recent ones were recorded.
        self._failures: dict[str, int] = {}
        self._last_refusal: dict[str, str] = {}
        self._refusal_times: dict[str, list[float]] = {}
        self._refused = False
        self.controllers: dict[str, Controller] = {}
        self._by_name: dict[tuple[str, str, str], Controller] = {}
        self._owned: dict[str, dict[str, Pod]] = {}
        # The live controllers by the uid of their controlling owner (a Deployment's ReplicaSets, a CronJob's Jobs),
        # and the DaemonSets', each in the order they were added (that of :attr:`controllers`): a sync or a node
        # event reads these, not a pass over every controller (a week holds some 100,000 Jobs).
        self._children: dict[str, dict[str, Controller]] = {}
        self._daemons: dict[str, Controller] = {}
        # Per controller uid: its pending sync on the agenda; the uids whose pending sync is a retry.
        self._pending: dict[str, Entry] = {}
        self._retrying: set[str] = set()
        for pod in cluster.pods.values():
            self._index(pod)
        cluster.subscribe(self)

    # -- identities ----------------------------------------------------------------------------------------
    def new_uid(self) -> str:
        """A fresh uid (from the seeded generator)."""
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def suffix(self) -> str:
        """Five random characters, as generateName appends."""
        return "".join(self.rng.choice(ALPHANUMS) for _ in range(5))

    def generate_name(self, namespace: str, prefix: str) -> str:
        """``prefix`` plus a random suffix that no live pod of ``namespace`` has; as the API server's
        SimpleNameGenerator, a prefix longer than 58 characters is cut there, so the name fits in 63."""
        prefix = prefix[:MAX_GENERATED_PREFIX]
        while True:
            name = prefix + self.suffix()
            if self.cluster.get_pod(namespace, name) is None:
                return name

    # -- workloads -------------------------------------------------------------------------------------------
    def add(self, workload: Workload, *, owner: Reconciler | None = None) -> Controller:
        """Start the controller of ``workload`` (given a uid when it has none) and sync it at once."""
        meta = workload.metadata
        if not meta.uid:
            meta = attrs.evolve(meta, uid=self.new_uid())
        if owner is not None:
            meta = attrs.evolve(meta, owner_references=(owner.owner_reference(),))
        if meta.creation_timestamp is None:
            meta = attrs.evolve(meta, creation_timestamp=self.clock.timestamp())
        workload = attrs.evolve(workload, metadata=meta)
        controller: Controller
        if isinstance(workload, Deployment):
            controller = DeploymentController(self, workload)
        elif isinstance(workload, ReplicaSet):
            controller = ReplicaSetController(self, workload)
        elif isinstance(workload, StatefulSet):
            controller = StatefulSetController(self, workload)
        elif isinstance(workload, DaemonSet):
            controller = DaemonSetController(self, workload)
        elif isinstance(workload, Job):
            controller = JobController(self, workload)
        else:
            assert isinstance(workload, CronJob)
            controller = CronJobController(self, workload)
        self.controllers[meta.uid] = controller
        self._by_name[(controller.kind, meta.namespace, meta.name)] = controller
        for ref in meta.owner_references:
            if ref.controller:
                self._children.setdefault(ref.uid, {})[meta.uid] = controller
        if isinstance_daemon(controller):
            self._daemons[meta.uid] = controller
        if isinstance(workload, ReplicaSet | StatefulSet):
            # Plugins look these up for default topology spreading.
            self.cluster.controllers[(workload.kind, meta.namespace, meta.name)] = WorkloadController(
                workload.kind, meta, workload.selector)
        self.queue(controller, 0.0)
        return controller

    def children(self, owner_uid: str) -> list[Reconciler]:
        """The live controllers whose controlling owner is ``owner_uid``, in the order they were added."""
        return list(self._children.get(owner_uid, {}).values())

    def get(self, kind: str, namespace: str, name: str) -> Controller | None:
        """The controller of that workload, if it runs."""
        return self._by_name.get((kind, namespace, name))

    def remove(self, controller: Reconciler) -> None:
        """Delete a workload: its controller stops and its pods (and owned workloads) are deleted."""
        meta = controller.metadata
        self.controllers.pop(meta.uid, None)
        self._by_name.pop((controller.kind, meta.namespace, meta.name), None)
        for ref in meta.owner_references:
            children = self._children.get(ref.uid)
            if children is not None:
                children.pop(meta.uid, None)
        self._daemons.pop(meta.uid, None)
        self.cluster.controllers.pop((controller.kind, meta.namespace, meta.name), None)
        controller.delete()

    def queue(self, controller: Reconciler, delay: float | None = None, *, background: bool = False,
              earlier: bool = False) -> None:
        """Sync ``controller`` after ``delay`` (the controller delay by default), unless a sync is pending; a sync
        that meets a refusal is retried after the backoff. A ``background`` sync does not keep the run going. A
        pending retry gives way to any sync due sooner (or keeping the run going), as the workqueue processes an
        added key at once whatever rate-limited add waits; ``earlier`` (a retry) moves a pending sync due later."""
        uid = controller.metadata.uid
        when = self.clock.now() + (self.settings.controller_delay if delay is None else delay)
        pending = self._pending.get(uid)
        if pending is not None:
            sooner = when < pending.time and (earlier or uid in self._retrying)
            if not (sooner or (pending.background and not background)):
                return
            self.cluster.agenda.cancel(pending)
            when = min(when, pending.time)
        if earlier:
            self._retrying.add(uid)
        else:
            self._retrying.discard(uid)

        def run() -> None:
            self._pending.pop(uid, None)
            self._retrying.discard(uid)
            if controller.deleted:
                return
            self._refused = False
            controller.sync()
            if self._refused:
                self._retry(controller)
            else:
                self._failures.pop(uid, None)

        self._pending[uid] = self.cluster.agenda.at(when, run, background=background)

    def _retry(self, controller: Reconciler) -> None:
        """Sync again after the next backoff delay; once at the ceiling, in the background."""
        uid = controller.metadata.uid
        failures = self._failures.get(uid, 0)
        self._failures[uid] = failures + 1
        delay = RETRY_BASE * 2 ** failures
        self.queue(controller, min(delay, RETRY_MAX), background=delay >= RETRY_MAX, earlier=True)

    # -- pods ---------------------------------------------------------------------------------------------------
    def owned_pods(self, owner_uid: str) -> list[Pod]:
        """The live pods whose controller is ``owner_uid``, by creation then name."""
        pods = list(self._owned.get(owner_uid, {}).values())
        pods.sort(key=lambda p: (p.metadata.creation_timestamp is None, p.metadata.creation_timestamp or EPOCH,
                                 p.name))
        return pods

    def create_pod(self, pod: Pod, controller: Reconciler) -> Pod | None:
        """Admit and create ``pod`` (SuccessfulCreate), or record FailedCreate when admission refuses it."""
        try:
            pod = self.admission.admit(pod)
        except AdmissionError as exc:
            self._refused = True
            self._record_refusal(controller, controller.failed_create_message(pod, exc.api_message()))
            return None
        self._last_refusal.pop(controller.metadata.uid, None)
        self.cluster.add_pod(pod)
        controller.record_event("Normal", "SuccessfulCreate", controller.created_message(pod))
        if self._on_created is not None:
            self._on_created(pod)
        return pod

    def _record_refusal(self, controller: Reconciler, message: str) -> None:
        """A FailedCreate event, unless kube's event recorder would count it in one it recorded already."""
        uid = controller.metadata.uid
        if self._last_refusal.get(uid) == message:
            return
        self._last_refusal[uid] = message
        now = self.clock.now()
        times = [t for t in self._refusal_times.get(uid, ()) if now - t < AGGREGATE_WINDOW]
        times.append(now)
        self._refusal_times[uid] = times
        if len(times) > AGGREGATE_MAX + 1:
            return
        if len(times) > AGGREGATE_MAX:
            message = "(combined from similar events): " + message
        self.cluster.record_object_event(*controller.regarding, "Warning", "FailedCreate", message)

    def delete_pod(self, pod: Pod, message: str, controller: Reconciler,
                   condition: PodCondition | None = None) -> None:
        """Delete ``pod`` gracefully, with a SuccessfulDelete event."""
        if self.cluster.pods.get(pod.uid) is None:
            return
        self.cluster.delete_pod(pod, condition=condition)
        self.cluster.ended.setdefault(pod.uid, "Deleted")
        controller.record_event("Normal", "SuccessfulDelete", message)

    def _controller_of(self, pod: Pod) -> str | None:
        for ref in pod.metadata.owner_references:
            if ref.controller:
                return ref.uid
        return None

    def _index(self, pod: Pod) -> None:
        owner = self._controller_of(pod)
        if owner:
            self._owned.setdefault(owner, {})[pod.uid] = pod

    # -- the cluster's listener ---------------------------------------------------------------------------------
    def _notify(self, old: Pod | None, new: Pod | None) -> None:
        pod = new or old
        assert pod is not None
        owner = self._controller_of(pod)
        if not owner:
            return
        if new is None:
            entry = self._owned.get(owner)
            if entry is not None:
                entry.pop(pod.uid, None)
        else:
            self._owned.setdefault(owner, {})[pod.uid] = new
        controller = self.controllers.get(owner)
        if controller is not None and not controller.deleted:
            controller.on_owned_pod_change(old, new)

    def on_pod_add(self, pod: Pod) -> None:
        """Index a new pod by its controller and tell the controller."""
        self._notify(None, pod)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """Re-index a changed pod and tell its controller."""
        self._notify(old, new)

    def on_pod_delete(self, pod: Pod) -> None:
        """Drop a gone pod and tell its controller."""
        self._notify(pod, None)

    def _nodes_changed(self) -> None:
        for controller in list(self._daemons.values()):
            self.queue(controller)

    def on_node_add(self, node: Node) -> None:
        """DaemonSets look at every node."""
        self._nodes_changed()

    def on_node_update(self, node: Node) -> None:
        """DaemonSets look at every node."""
        self._nodes_changed()

    def on_node_delete(self, name: str) -> None:
        """DaemonSets look at every node."""
        self._nodes_changed()


def isinstance_daemon(controller: Reconciler) -> bool:
    """Whether ``controller`` is a DaemonSet's (it syncs on node changes)."""
    return controller.kind == "DaemonSet"

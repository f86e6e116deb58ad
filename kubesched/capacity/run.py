"""``kubesched capacity``'s run: the input simulated until it settles, then copies of the pod added one at a time,
each scheduled by the profile's own scheduler (every plugin counts, third-party ones included), until one does not
fit or a limit is reached; with ``--add-nodes``, nodes of one shape added one at a time in between.

One simulation is loaded and settled once; each copy is one more pod created in it, followed by a settle, so a copy
that preempts waits out its victims' grace periods and a copy whose volume is provisioned waits for it, as a pod of
``kubesched simulate`` would. Without ``--preempt`` a copy's failed cycle runs no PostFilter plugin: nothing is
evicted for it, and the stop message is the Filter verdict alone (as a profile without DefaultPreemption gives).
"""

from __future__ import annotations

from collections import Counter

import attrs

from kubesched.admission.chain import admit
from kubesched.admission.errors import AdmissionError
from kubesched.api.meta import ObjectMeta
from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.capacity.inputs import CapacityInput, node_location
from kubesched.capacity.result import (
    ADMISSION_REFUSED,
    MAX_REACHED,
    PODS_ALLOCATABLE_REACHED,
    TARGET_REACHED,
    UNSCHEDULABLE,
    AddedNodes,
    CapacityResult,
    Stop,
    Victim,
)
from kubesched.capacity.template import COPY_INFIX
from kubesched.framework._resource import Resource
from kubesched.io.decode_workloads import MAX_WORKLOAD_PODS
from kubesched.io.load import derived_uid
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.simulate import Simulation, SimulationResult, unenforced_features

#: How many nodes ``--add-nodes`` adds at most unless ``--max-nodes`` says otherwise.
DEFAULT_MAX_NODES = 100
#: The label kubelet sets to the node's name; an added node whose template carries it gets its own name there.
HOSTNAME_LABEL = "kubernetes.io/hostname"
#: How many of the input's pods still pending the result names.
PENDING_SHOWN = 5


@attrs.frozen
class CapacityOptions:
    """What to count: with ``preempt``, copies may preempt lower-priority pods; at most ``max_copies`` copies;
    with ``node``, nodes of its shape are added (at most ``max_nodes``) until ``target`` copies fit, or without a
    target until every pending pod of the input is bound."""

    preempt: bool = False
    max_copies: int | None = None
    node: Node | None = None
    target: int | None = None
    max_nodes: int = DEFAULT_MAX_NODES


class CapacityRun:
    """A simulation of the input with copies of one pod added until the next does not fit."""

    def __init__(self, given: CapacityInput, config: SchedulerConfiguration, registry: PluginRegistry, *,
                 seed: int = 0, storage: StorageSettings | None = None,
                 options: CapacityOptions | None = None) -> None:
        self.sim = Simulation(given.cluster, config, registry, seed=seed, storage=storage)
        self.template = given.template
        self.options = options or CapacityOptions()
        self.seed = seed
        #: Every copy created, in order.
        self.copies: list[Pod] = []
        self._copy_uids: set[str] = set()
        self._names = 0
        #: The names of the nodes ``--add-nodes`` added, in order.
        self.added: list[str] = []
        self._warnings = [*self.sim.warnings, *unenforced_features([self.template.pod], config)]

    def run(self) -> CapacityResult:
        """Settle the input, then add copies (and nodes) as the options say; the answer."""
        sim, options = self.sim, self.options
        sim.start()
        sim.settle()
        if not options.preempt:
            copies = self._copy_uids
            sim.scheduler.skip_post_filter(lambda pod: pod.uid in copies)
        self._register_owner()
        added: AddedNodes | None = None
        stop = self._admit_template()
        if options.node is not None and options.target is None:
            added = self._add_nodes_for_input(options.node)
        if stop is None:
            limit = options.target if options.target is not None else options.max_copies
            stop = self._fill(limit)
        if options.node is not None and options.target is not None:
            stop, added = self._add_nodes_for_target(options.node, options.target, stop)
        return self._result(stop, added)

    # -- copies --------------------------------------------------------------------------------------------------
    def _register_owner(self) -> None:
        """The controller copies name as their owner, for plugins to look up (default spreading), unless the input
        has it already."""
        owner = self.template.owner
        if owner is not None:
            key = (owner.kind, owner.metadata.namespace, owner.metadata.name)
            self.sim.cluster.controllers.setdefault(key, owner)

    def _admit_template(self) -> Stop | None:
        """Admit a workload's pod template as the API server admits its controller's pods (all plugins but
        ResourceQuota, which meets each copy), once; a refusal stops before the first copy."""
        template = self.template
        if template.admitted:
            return None
        try:
            pod = admit(template.pod, self.sim.admission.objects())
        except AdmissionError as error:
            return Stop(ADMISSION_REFUSED, f"{template.pod.namespace}/{template.copy_name(1)}", error.api_message())
        self.template = attrs.evolve(template, pod=pod, admitted=True)
        return None

    def _next_copy(self) -> Pod:
        """The next copy, under the next name no pod of its namespace has."""
        template, cluster = self.template, self.sim.cluster
        while True:
            self._names += 1
            name = template.copy_name(self._names)
            if cluster.get_pod(template.pod.namespace, name) is None:
                return template.make(name, len(self.copies) + 1, self.sim.clock.timestamp())

    def _create(self, copy: Pod) -> str | None:
        """Create ``copy`` (and a StatefulSet's claims for it) through ResourceQuota; its refusal, or None."""
        sim = self.sim
        try:
            sim.admission.quotas.admit(copy)
        except AdmissionError as error:
            return error.api_message()
        storage = sim.cluster.storage
        for claim in self.template.claims(copy, storage.storage_classes(), sim.clock.timestamp()):
            storage.put(claim)
        self.copies.append(copy)
        self._copy_uids.add(copy.uid)
        sim.add_pods([copy])
        return None

    def _bound(self, pod: Pod) -> bool:
        live = self.sim.cluster.pods.get(pod.uid)
        return live is not None and bool(live.spec.node_name)

    def _fill(self, limit: int | None) -> Stop:
        """Add copies one at a time, each settled, until one does not fit or ``limit`` copies are bound."""
        fitted = sum(1 for c in self.copies if self._bound(c))
        while limit is None or fitted < limit:
            copy = self._next_copy()
            refusal = self._create(copy)
            if refusal is not None:
                return Stop(ADMISSION_REFUSED, copy.key, refusal)
            self._place(copy)
            if not self._bound(copy):
                return self._unschedulable(copy)
            if (room := self._pods_allocatable()) < sum(1 for p in self.sim.cluster.list_pods() if p.spec.node_name):
                self.copies.pop()  # bound past every node's pods allocatable: the kubelet refuses it (OutOfpods)
                return Stop(PODS_ALLOCATABLE_REACHED, copy.key, f"every node holds its pods allocatable ({room} in "
                            "all): the kubelet admits no more, though the profile's filters let this copy in")
            fitted += 1
        if self.options.target is not None:
            return Stop(TARGET_REACHED, "", f"reached --target {limit}")
        return Stop(MAX_REACHED, "", f"reached --max {limit}")

    def _pods_allocatable(self) -> int:
        """The pods the nodes' kubelets admit in all (at most :data:`MAX_WORKLOAD_PODS`): the count's end when the
        profile has no filter that counts pods (no NodeResourcesFit), which would otherwise never come."""
        total = sum(Resource.from_amounts(n.status.allocatable).allowed_pod_number
                    for n in self.sim.cluster.nodes.values())
        return min(total, MAX_WORKLOAD_PODS)

    def _place(self, copy: Pod) -> None:
        """Schedule what can be now (the copy, then what its arrival woke); let time pass only while the copy waits
        for something (its victims to go, a Permit or PreBind wait, its backoff after an Error) or something it set
        going is under way (its claims being provisioned): the copies come one after another, without the periodic
        retries of the input's pending pods in between, as cluster-capacity creates each copy as soon as the last
        one is bound."""
        sim = self.sim
        sim.settle(until=sim.clock.now())
        if self._bound(copy):
            return
        live = sim.cluster.pods.get(copy.uid)
        if live is None:
            return
        if live.status.nominated_node_name or sim.scheduler.queue.location(copy.uid) != "unschedulable" \
                or sim.agenda.next_time(background=False) is not None:
            sim.settle()

    def _unschedulable(self, copy: Pod) -> Stop:
        live = self.sim.cluster.pods.get(copy.uid)
        message = self.sim.pending_message(live) if live is not None else "deleted before it was scheduled"
        return Stop(UNSCHEDULABLE, copy.key, message)

    # -- nodes -----------------------------------------------------------------------------------------------
    def _add_node(self, shape: Node) -> str:
        """Add a node of ``shape`` under a fresh name (``<name>-capacity-<n>``); its name."""
        cluster = self.sim.cluster
        index = len(self.added)
        while True:
            index += 1
            name = f"{shape.name}{COPY_INFIX}{index}"
            if name not in cluster.nodes:
                break
        labels = dict(shape.labels)
        if HOSTNAME_LABEL in labels:
            labels[HOSTNAME_LABEL] = name
        meta = ObjectMeta(name=name, uid=derived_uid(f"capacity-node/{name}"), labels=labels,
                          annotations=shape.metadata.annotations, creation_timestamp=self.sim.clock.timestamp())
        cluster.add_node(attrs.evolve(shape, metadata=meta))
        self.added.append(name)
        return name

    def _pending(self) -> list[Pod]:
        """The input's pods (those its controllers created included, copies not) the scheduler is still trying to
        place: unbound, not terminating, not held by a scheduling gate, of a profile."""
        sim = self.sim
        gated = {info.pod.uid for info in sim.scheduler.queue.unschedulable_pods() if info.gating_status is not None}
        ignored = sim.scheduler.ignored
        pending = []
        for pod in sim.pods:
            live = sim.cluster.pods.get(pod.uid)
            if live is None or live.spec.node_name or live.metadata.deletion_timestamp is not None:
                continue
            if live.uid in self._copy_uids or live.uid in gated or live.uid in ignored:
                continue
            pending.append(live)
        return pending

    def _grow(self, shape: Node, waiting: list[Pod]) -> str | None:
        """Add one node and settle; why more nodes of that shape would not help when none of ``waiting`` (the pods
        pending before) got bound, else None."""
        name = self._add_node(shape)
        self.sim.settle()
        if any(self._bound(p) for p in waiting):
            return None
        stuck = waiting[0]
        live = self.sim.cluster.pods.get(stuck.uid)
        why = self.sim.pending_message(live) if live is not None else ""
        return (f"node {name} was added but none of the pending pods fits on it, so more nodes of that shape would "
                f"not help ({stuck.key}: {why})")

    def _add_nodes_for_input(self, shape: Node) -> AddedNodes:
        """Add nodes until every pending pod of the input is bound, at most ``max_nodes``."""
        message = ""
        pending = self._pending()
        while pending and not message:
            if len(self.added) >= self.options.max_nodes:
                message = f"reached --max-nodes {self.options.max_nodes}"
                break
            message = self._grow(shape, pending) or ""
            pending = self._pending()
        return AddedNodes(node_location(shape), tuple(self.added), None, not pending, message,
                          tuple(p.key for p in pending[:PENDING_SHOWN]))

    def _add_nodes_for_target(self, shape: Node, target: int, stop: Stop) -> tuple[Stop, AddedNodes]:
        """Add nodes until ``target`` copies are bound (adding copies as room appears), at most ``max_nodes``."""
        message = ""
        while stop.reason == UNSCHEDULABLE and not message:
            if len(self.added) >= self.options.max_nodes:
                message = f"reached --max-nodes {self.options.max_nodes}"
                break
            waiting = [*self._pending(), *(c for c in self.copies if not self._bound(c))]
            message = self._grow(shape, waiting) or ""
            if self.copies and self._bound(self.copies[-1]):
                stop = self._fill(target)
        if stop.reason == ADMISSION_REFUSED:
            message = stop.message
        reached = stop.reason == TARGET_REACHED
        pending = self._pending()
        return stop, AddedNodes(node_location(shape), tuple(self.added), target, reached, message,
                                tuple(p.key for p in pending[:PENDING_SHOWN]))

    # -- the answer ------------------------------------------------------------------------------------------
    def _victims(self) -> tuple[Victim, ...]:
        """The pods the copies preempted, each once, in the order they were chosen."""
        cluster, seen, victims = self.sim.cluster, set(), []
        for record in cluster.preemptions:
            if record.preemptor_uid not in self._copy_uids:
                continue
            for uid in record.victim_uids:
                pod = cluster.pods.get(uid) or cluster.deleted.get(uid)
                if pod is None or uid in seen:
                    continue
                seen.add(uid)
                victims.append(Victim(pod.namespace, pod.name, record.node, pod.priority, record.preemptor))
        return tuple(victims)

    def _result(self, stop: Stop, added: AddedNodes | None) -> CapacityResult:
        """The copies bound now, per node, with why they stopped, their victims and the nodes added."""
        cluster = self.sim.cluster
        per_node: Counter[str] = Counter()
        for copy in self.copies:
            live = cluster.pods.get(copy.uid)
            if live is not None and live.spec.node_name:
                per_node[live.spec.node_name] += 1
        failures = tuple(self.sim.scheduler.plugin_failures())
        errors = SimulationResult(self.seed, (), (), (), plugin_errors=failures).plugin_error_summary()
        template = self.template
        return CapacityResult(self.seed, template.kind, template.pod.namespace, template.pod.name, template.location,
                              self.options.preempt, sum(per_node.values()), tuple(sorted(per_node.items())), stop,
                              self._victims(), added, tuple(self._warnings), tuple(errors))


def capacity(given: CapacityInput, config: SchedulerConfiguration, registry: PluginRegistry, *, seed: int = 0,
             storage: StorageSettings | None = None, options: CapacityOptions | None = None) -> CapacityResult:
    """How many more copies of ``given``'s pod fit its cluster once settled (see :class:`CapacityRun`)."""
    return CapacityRun(given, config, registry, seed=seed, storage=storage, options=options).run()


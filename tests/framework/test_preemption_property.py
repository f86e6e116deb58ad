"""Properties of preemption on random clusters, checked against an oracle written from the specification.

The oracle re-derives, with fresh PreFilter runs over rebuilt clusters (never the Evaluator's cloned state and
AddPod/RemovePod path), which nodes can become candidates, each node's victims in reprieve order, its PDB
violations, and which candidates the tie-breaks allow. The Evaluator must agree with it on every example:

- every victim has lower priority than the preemptor and runs on the chosen node;
- once the victims are gone the preemptor fits on the chosen node (both Filter passes);
- the victim set is minimal: reprieving pods most important first, PDB-violating ones first, none of the victims
  could have stayed with the preemptor still fitting;
- no PDB is violated when some candidate needed no violation, and the chosen node is one the tie-breaks allow;
- preemption happens exactly when some node can become a candidate.

The simulation properties run whole random workloads through ``kubesched simulate``'s engine: no node is ever
over its allocatable, victims always have lower priority than their preemptor and end Evicted, and the same seed
gives the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget
from kubesched.framework._status import Code
from kubesched.framework.preemption._candidates import unix_nanos
from kubesched.io.load import ClusterInput
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import PHASE_EVICTED, Simulation
from kubesched.testing import make_node, make_pod
from tests.framework.preemption_cluster import NOW, T0, pdb, preemption_cluster

HOSTNAME = "kubernetes.io/hostname"
APPS = ("a", "b", "c")
# The lowest int32 priority makes "fewest victims" decide on its own (the 2^31 offset sums can tie).
PRIORITIES = (-(2**31), -5, 0, 10, 20, 30)
POINTS = {"pre-filter": ["NodeResourcesFit", "InterPodAffinity"], "filter": ["NodeResourcesFit", "InterPodAffinity"]}
EXAMPLES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@attrs.frozen
class Budget:
    """A PDB over ``app=<app>`` in ``namespace``: a fixed ``allowed`` in its status, or computed from
    ``min_available``. Every generated pod is in "default", so a PDB elsewhere protects nothing."""

    app: str
    allowed: int | None
    min_available: int
    disrupted: tuple[str, ...]
    namespace: str = "default"

    def obj(self, index: int) -> PodDisruptionBudget:
        return pdb(f"pdb{index}", self.allowed, min_available=None if self.allowed is not None else self.min_available,
                   disrupted=self.disrupted, namespace=self.namespace, app=self.app)

    def selects(self, pod: Pod) -> bool:
        """Whether the PDB covers the pod: same namespace and label."""
        return pod.namespace == self.namespace and pod.labels["app"] == self.app


@attrs.frozen
class Scenario:
    """Nodes, the pods bound to them, pods nominated but not bound, PDBs and one pending preemptor."""

    nodes: tuple[Node, ...]
    running: tuple[Pod, ...]
    nominated: tuple[Pod, ...]
    budgets: tuple[Budget, ...]
    preemptor: Pod

    @property
    def pdbs(self) -> list[PodDisruptionBudget]:
        return [b.obj(i) for i, b in enumerate(self.budgets)]


CPU_MILLIS = st.sampled_from([500, 1000, 1500, 2000])


@st.composite
def running_pods(draw: st.DrawFn, nodes: Sequence[Node], capacities: Sequence[int]) -> list[Pod]:
    """Up to five pods per node, never more CPU than the node has; random priority, app, start time, grace."""
    pods: list[Pod] = []
    for node, capacity in zip(nodes, capacities, strict=True):
        used = 0
        for _ in range(draw(st.integers(0, 5))):
            cpu = draw(CPU_MILLIS)
            if used + cpu > capacity:
                break
            used += cpu
            name = f"{node.name}-p{len(pods)}"
            builder = (make_pod(name).node(node.name).req(cpu=f"{cpu}m").priority(draw(st.sampled_from(PRIORITIES)))
                       .label(app=draw(st.sampled_from(APPS))).grace_period(draw(st.sampled_from([0, 5, 30]))))
            start = draw(st.one_of(st.none(), st.integers(0, 3)))
            if start is not None:  # few distinct hours, so equal start times (ties) are common
                builder = builder.start_time(T0 + timedelta(hours=start))
            if draw(st.integers(0, 9)) == 0:  # a pod with its own anti-affinity against app=c pods (symmetry)
                builder = builder.pod_affinity(HOSTNAME, anti=True, app="c")
            pods.append(builder.obj())
    return pods


@st.composite
def clusters(draw: st.DrawFn, max_nodes: int) -> tuple[list[Node], list[Pod]]:
    """One to ``max_nodes`` nodes of 2, 3 or 4 CPUs and the pods running on them."""
    capacities = [draw(st.sampled_from([2000, 3000, 4000])) for _ in range(draw(st.integers(1, max_nodes)))]
    nodes = [make_node(f"n{i}").capacity(cpu=f"{c}m", memory="64Gi", pods="110").obj()
             for i, c in enumerate(capacities)]
    return nodes, draw(running_pods(nodes, capacities))


@st.composite
def budgets(draw: st.DrawFn, running: Sequence[Pod]) -> list[Budget]:
    """Zero to three PDBs; about half give status.disruptionsAllowed, the others are computed from the pods."""
    result = []
    for _ in range(draw(st.integers(0, 3))):
        app = draw(st.sampled_from(APPS))
        allowed = draw(st.one_of(st.none(), st.integers(0, 1)))
        names = [p.name for p in running if p.labels["app"] == app]
        disrupted = tuple(draw(st.lists(st.sampled_from(names), max_size=1, unique=True))) if names else ()
        namespace = draw(st.sampled_from(["default", "default", "default", "other"]))
        result.append(Budget(app, allowed, draw(st.integers(0, 3)), disrupted, namespace))
    return result


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """A random cluster of one to five nodes and a preemptor that may or may not find room by preemption."""
    nodes, running = draw(clusters(6))
    nominated = []
    if draw(st.booleans()):
        node = draw(st.sampled_from(nodes)).name
        # Often more important than the preemptor, so that its room on the node counts in the dry run.
        nominated.append(make_pod("nominee").nominated(node).req(cpu=f"{draw(CPU_MILLIS)}m")
                         .priority(draw(st.sampled_from([*PRIORITIES, 30, 50, 50]))).label(app="a").obj())
    builder = (make_pod("preemptor").req(cpu=f"{draw(st.sampled_from([500, 1000, 2000, 3000]))}m")
               .priority(draw(st.sampled_from([10, 15, 20, 25, 30, 40]))).label(app="p"))  # ties with running pods too
    if draw(st.booleans()):
        builder = builder.pod_affinity(HOSTNAME, anti=True, app="c")
    return Scenario(tuple(nodes), tuple(running), tuple(nominated), tuple(draw(budgets(running))), builder.obj())


# -- the oracle ------------------------------------------------------------------------------------------


def fits(scenario: Scenario, node: str, pods_on_node: Sequence[Pod]) -> bool:
    """Whether the preemptor passes Filter (both passes) on ``node`` holding exactly ``pods_on_node``, computed
    from scratch: a rebuilt cluster and a fresh PreFilter."""
    others = [p for p in scenario.running if p.spec.node_name != node]
    pc = preemption_cluster(scenario.nodes, [*others, *pods_on_node, *scenario.nominated], points=POINTS,
                            extra=(InterPodAffinity,))
    state = pc.pre_filter(scenario.preemptor)
    status = pc.framework.run_filter_plugins_with_nominated_pods(state, scenario.preemptor, pc.node(node))
    return status is None or status.is_success()


def importance(pod: Pod) -> tuple[int, int]:
    """Sort key, most important first: higher priority, then earlier start (no start time counts as now)."""
    return -pod.priority, unix_nanos(pod.status.start_time or NOW)


def violating_uids(scenario: Scenario, ordered: Sequence[Pod]) -> set[str]:
    """Pods whose eviction, in ``ordered`` order, takes some matching PDB's budget below zero."""
    allowed = []
    for budget in scenario.budgets:
        if budget.allowed is not None:
            allowed.append(budget.allowed)
            continue
        matching = [p for p in scenario.running if budget.selects(p)]
        healthy = sum(1 for p in matching if p.name not in budget.disrupted)
        allowed.append(max(0, healthy - budget.min_available) if matching else 0)
    violating = set()
    for pod in ordered:
        for i, budget in enumerate(scenario.budgets):
            if budget.selects(pod) and pod.name not in budget.disrupted:
                allowed[i] -= 1
                if allowed[i] < 0:
                    violating.add(pod.uid)
    return violating


@attrs.frozen
class Expected:
    """The oracle's candidate on one node."""

    victims: tuple[Pod, ...]
    violations: int

    def rank(self) -> tuple[int, int, int, int, int]:
        """kube's candidate order as a sort key (smaller is better)."""
        top = self.victims[0].priority
        earliest = min(unix_nanos(v.status.start_time or NOW) for v in self.victims if v.priority == top)
        return (self.violations, top, sum(v.priority + 2**31 for v in self.victims), len(self.victims), -earliest)


def expected_candidate(scenario: Scenario, node: str) -> Expected | None:
    """Remove every lower-priority pod; if the preemptor then fits, reprieve pods in kube's order."""
    on_node = [p for p in scenario.running if p.spec.node_name == node]
    preemptible = sorted((p for p in on_node if p.priority < scenario.preemptor.priority), key=importance)
    kept = [p for p in on_node if p.priority >= scenario.preemptor.priority]
    if not preemptible or not fits(scenario, node, kept):
        return None
    violating = violating_uids(scenario, preemptible)
    order = [p for p in preemptible if p.uid in violating] + [p for p in preemptible if p.uid not in violating]
    victims = []
    for pod in order:
        if fits(scenario, node, [*kept, pod]):
            kept.append(pod)
        else:
            victims.append(pod)
    return Expected(tuple(sorted(victims, key=importance)), sum(1 for v in victims if v.uid in violating))


# -- the Evaluator against the oracle --------------------------------------------------------------------


@pytest.mark.slow
@EXAMPLES
@given(scenarios(), st.integers(0, 2**16))
def test_default_preemption_agrees_with_the_oracle(scenario: Scenario, seed: int) -> None:
    """Victims, the chosen node and the decision to preempt at all match the specification."""
    pc = preemption_cluster(scenario.nodes, [*scenario.running, *scenario.nominated], pdbs=scenario.pdbs,
                            points=POINTS, extra=(InterPodAffinity,), seed=seed)
    preemptor = scenario.preemptor
    pc.cluster.add_pod(preemptor)
    state = pc.pre_filter(preemptor)
    statuses = pc.filter_statuses(preemptor, state)
    potential = [n.name for n in scenario.nodes
                 if (s := statuses.get(n.name)) is not None and s.code is Code.UNSCHEDULABLE]
    expected = {name: c for name in potential if (c := expected_candidate(scenario, name)) is not None}

    # Every candidate of the dry run (all of them: at most six nodes, under min-candidate-nodes-absolute) has
    # the oracle's victims, in order, and its count of PDB violations.
    candidates, _statuses, _error = pc.evaluator.find_candidates(state, pc.framework.handle.snapshot.list(), preemptor,
                                                                 statuses)
    assert {c.name: (tuple(v.key for v in c.victims), c.num_pdb_violations) for c in candidates} == {
        name: (tuple(v.key for v in c.victims), c.violations) for name, c in expected.items()}

    result, status = pc.plugin.post_filter(state, preemptor, statuses)

    event(f"{len(expected)} candidate node(s)")
    if not expected:
        assert pc.cluster.preemptions == []
        assert status is not None
        assert not status.is_success()
        return
    assert status is not None
    assert status.is_success(), status
    assert result is not None
    assert result.nominating_info is not None
    node = result.nominating_info.nominated_node_name
    [record] = pc.cluster.preemptions
    preemptor_key, chosen, victim_keys = record.preemptor, record.node, record.victims
    assert (preemptor_key, chosen) == (preemptor.key, node)
    victims = [p for key in victim_keys for p in scenario.running if p.key == key]
    assert all(v.priority < preemptor.priority and v.spec.node_name == node for v in victims)
    assert fits(scenario, node, [p for p in scenario.running if p.spec.node_name == node and p not in victims])
    assert node in expected, f"{node} cannot become a candidate; candidates: {sorted(expected)}"
    assert victim_keys == tuple(v.key for v in expected[node].victims)
    if any(c.violations == 0 for c in expected.values()):
        event("some candidate violates no PDB" + (", another does" if any(c.violations for c in expected.values())
                                                 else ""))
        assert expected[node].violations == 0
    event(f"chosen node violates {expected[node].violations} PDB(s)")
    assert expected[node].rank() == min(c.rank() for c in expected.values())


@EXAMPLES
@given(scenarios())
def test_victims_leave_room_only_together(scenario: Scenario) -> None:
    """Minimality seen from the other side: with any one victim put back, the preemptor no longer fits."""
    pc = preemption_cluster(scenario.nodes, [*scenario.running, *scenario.nominated], pdbs=scenario.pdbs,
                            points=POINTS, extra=(InterPodAffinity,))
    pc.cluster.add_pod(scenario.preemptor)
    _result, status = pc.post_filter(scenario.preemptor)
    if status is None or not status.is_success():
        return
    [record] = pc.cluster.preemptions
    node, victim_keys = record.node, record.victims
    rest = [p for p in scenario.running if p.spec.node_name == node and p.key not in victim_keys]
    for key in victim_keys:
        victim = next(p for p in scenario.running if p.key == key)
        assert not fits(scenario, node, [*rest, victim]), f"{key} could have stayed on {node}"


# -- whole simulations -----------------------------------------------------------------------------------


@attrs.frozen
class Workload:
    """Nodes, running pods, PDBs and pending pods of mixed priority, some of which preempt."""

    nodes: tuple[Node, ...]
    running: tuple[Pod, ...]
    pending: tuple[Pod, ...]
    budgets: tuple[Budget, ...]

    def cluster_input(self) -> ClusterInput:
        return ClusterInput(nodes=self.nodes, pods=self.running + self.pending,
                            pdbs=tuple(b.obj(i) for i, b in enumerate(self.budgets)))


@st.composite
def workloads(draw: st.DrawFn) -> Workload:
    """One to four nodes, some running pods, and one to six pending pods (some preemptionPolicy Never)."""
    nodes, running = draw(clusters(4))
    pending = []
    for i in range(draw(st.integers(1, 6))):
        builder = (make_pod(f"new{i}").req(cpu=f"{draw(CPU_MILLIS)}m").priority(draw(st.sampled_from(PRIORITIES)))
                   .label(app=draw(st.sampled_from(APPS))).grace_period(draw(st.sampled_from([0, 5, 30]))))
        if draw(st.integers(0, 4)) == 0:
            builder = builder.preemption_policy("Never")
        pending.append(builder.obj())
    return Workload(tuple(nodes), tuple(running), tuple(pending), tuple(draw(budgets(running))))


class AllocatableWatch:
    """A cluster listener that records every moment a node's pods request more CPU than it has."""

    def __init__(self, capacity: dict[str, int], requests: Callable[[Pod], int]) -> None:
        self.capacity = capacity
        self.requests = requests
        self.bound: dict[str, Pod] = {}
        self.overcommits: list[str] = []

    def _check(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self.bound[pod.uid] = pod
            node = pod.spec.node_name
            used = sum(self.requests(p) for p in self.bound.values() if p.spec.node_name == node)
            if used > self.capacity[node]:
                self.overcommits.append(f"{node}: {used}m of {self.capacity[node]}m after {pod.key}")

    def on_node_add(self, node: Node) -> None:
        """Nodes come first and never change here: nothing to check."""

    def on_pod_add(self, pod: Pod) -> None:
        self._check(pod)

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        self._check(new)

    def on_pod_delete(self, pod: Pod) -> None:
        self.bound.pop(pod.uid, None)

    def on_node_update(self, node: Node) -> None:
        """Node changes do not matter here: the generated clusters never change a node."""

    def on_node_delete(self, name: str) -> None:
        """Nodes are never deleted in the generated clusters."""


def cpu_millis(pod: Pod) -> int:
    """The pod's CPU request in millicores (the generated pods have plain containers only)."""
    return sum(c.requests["cpu"].milli_value() for c in pod.spec.containers if "cpu" in c.requests)


@EXAMPLES
@given(workloads(), st.integers(0, 2**16))
def test_simulation_never_overcommits_and_preempts_only_lower_priority(registry: PluginRegistry,
                                                                       workload: Workload, seed: int) -> None:
    """Terminating victims hold their room until they are gone; each preemption evicts only less important pods."""
    config = load_config("default", registry)
    simulation = Simulation(workload.cluster_input(), config, registry, seed=seed)
    capacity = {n.name: n.status.allocatable["cpu"].milli_value() for n in workload.nodes}
    watch = AllocatableWatch(capacity, cpu_millis)
    simulation.cluster.subscribe(watch)
    result = simulation.run()
    assert watch.overcommits == []
    event(f"{len(result.preemptions) if len(result.preemptions) < 2 else 'several'} preemption(s)")
    priority = {p.key: p.priority for p in workload.running + workload.pending}
    phases = {f"{p.namespace}/{p.name}": p.phase for p in result.pods}
    for preemption in result.preemptions:
        assert all(priority[v] < priority[preemption.preemptor] for v in preemption.victims)
        assert all(phases[v] == PHASE_EVICTED for v in preemption.victims)
    never = {p.key for p in workload.pending if p.spec.preemption_policy == "Never"}
    assert never.isdisjoint(p.preemptor for p in result.preemptions)
    again = Simulation(workload.cluster_input(), config, registry, seed=seed).run()
    assert again.to_json() == result.to_json()


@EXAMPLES
@given(workloads(), st.integers(0, 2**16))
def test_a_victim_is_marked_already_terminating_exactly_when_an_earlier_preemption_chose_it(
        registry: PluginRegistry, workload: Workload, seed: int) -> None:
    """No input pod is terminating, so a victim was already terminating iff an earlier preemption chose it."""
    result = Simulation(workload.cluster_input(), load_config("default", registry), registry, seed=seed).run()
    chosen: set[str] = set()
    for preemption in result.preemptions:
        assert [v in chosen for v in preemption.victims] == list(preemption.victims_already_terminating)
        chosen.update(preemption.victims)
    event("a victim chosen twice" if any(any(p.victims_already_terminating) for p in result.preemptions)
          else "no victim chosen twice")

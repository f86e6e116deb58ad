"""The plugin under test: its class, args and example cluster, and how the checks build and call it."""

from __future__ import annotations

import collections
import copy
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from kubesched.api.meta import LabelSelector
from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodAffinityTerm
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.plugin import marked_hooks
from kubesched.framework.status import Code, Status
from kubesched.framework.types import NodeScore, PreFilterResult
from kubesched.runtime import Framework, Hook
from kubesched.testing.builders import make_node, make_pod
from kubesched.testing.harness import plugin_framework

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
#: Default per-call budget for Filter and Score before the time-budget check warns.
DEFAULT_TIME_BUDGET = 0.0005
#: Nodes in the large cluster of the edge-input and time-budget checks.
DEFAULT_LARGE_CLUSTER = 2000
#: The seed of every framework the checks build (reset before each cycle, so handle.rng repeats).
SEED = 0

Verdict = tuple[Code, tuple[str, ...]]
Observer = Callable[[str, NodeInfo | None], None]
StepCheck = Callable[[str, Any], None]


def default_nodes() -> tuple[Node, ...]:
    """Three labelled nodes of different sizes in two zones, one tainted, one holding images."""
    return (make_node("node-a").capacity(cpu="4", memory="8Gi").zone("zone-1").label(disk="ssd")
            .image(300 * 1024 * 1024, "registry.example/web:1.0").obj(),
            make_node("node-b").capacity(cpu="8", memory="16Gi").zone("zone-1").obj(),
            make_node("node-c").capacity(cpu="2", memory="4Gi").zone("zone-2").label(disk="hdd")
            .taint("dedicated", "batch").obj())


def default_running() -> tuple[Pod, ...]:
    """Pods already bound to the default nodes: web behind a host port, a db with anti-affinity, a batch pod."""
    return (make_pod("running-web").node("node-a").req(cpu="1", memory="1Gi").label(app="web").priority(10)
            .host_port(8080).obj(),
            make_pod("running-db").node("node-b").req(cpu="2", memory="4Gi").label(app="db").priority(100)
            .pod_affinity(HOSTNAME, anti=True, app="db").obj(),
            make_pod("running-batch").node("node-c").req(cpu="500m").label(app="batch")
            .toleration("dedicated", "batch", "NoSchedule").obj())


def default_pods() -> tuple[Pod, ...]:
    """Pods to schedule, between them using every built-in feature: a web pod with spreading, anti-affinity,
    a host port, node affinity and an image; a pod with no requests at all; a large high-priority db pod with
    a node selector and a toleration."""
    web = (make_pod("web").req(cpu="500m", memory="512Mi").label(app="web").host_port(8080)
           .spread(1, ZONE, app="web").spread(1, HOSTNAME, "ScheduleAnyway", app="web")
           .pod_affinity(HOSTNAME, anti=True, app="web")
           .affinity_term(PodAffinityTerm(topology_key=ZONE, label_selector=LabelSelector(match_labels={"app": "db"})),
                          weight=50)
           .node_affinity_in(ZONE, "zone-1", "zone-2").preferred_node_affinity(10, "disk", "ssd"))
    web = web.container({"cpu": "100m"}, image="registry.example/web:1.0")
    return (web.obj(),
            make_pod("bare").obj(),
            make_pod("big").req(cpu="6", memory="12Gi").label(app="db").priority(1000).node_selector(disk="hdd")
            .toleration("dedicated", "batch", "NoSchedule").pod_affinity(ZONE, app="db").obj())


class NodesListChangedError(Exception):
    """PreScore changed the list of nodes it was given."""


class NormalizeChangedNodesError(Exception):
    """NormalizeScore added, removed or reordered entries instead of rewriting scores in place."""


@attrs.frozen
class CycleOutcome:
    """What one plugin answered in one simulated cycle: PreFilter, Filter per node, scores per node."""

    pre_filter: Verdict
    filter: dict[str, Verdict]
    scores: dict[str, int]


def verdict(status: Status | None) -> Verdict:
    """A status as (code, reasons); None is Success."""
    return (Code.SUCCESS, ()) if status is None else (status.code, status.reasons)


@attrs.frozen
class PreFiltered:
    """A pod after the plugin's PreFilter: the state, whether it said Skip, and the nodes Filter runs on."""

    state: CycleState
    skip: bool
    nodes: list[NodeInfo]


@attrs.define
class PluginUnderTest:
    """A plugin class with the args and example cluster the checks run it on.

    ``args`` is the plugin's Args instance or a kebab-case mapping (None: the defaults). ``nodes`` and
    ``running`` form the example cluster, ``pods`` are the pods to schedule on it; each check gets fresh copies.
    ``entry_point`` is the name the plugin is installed under, when it came from an entry point.
    """

    plugin_class: type[Any]
    args: Any = None
    nodes: Sequence[Node] = attrs.field(factory=default_nodes)
    running: Sequence[Pod] = attrs.field(factory=default_running)
    pods: Sequence[Pod] = attrs.field(factory=default_pods)
    time_budget: float = DEFAULT_TIME_BUDGET
    large_cluster: int = DEFAULT_LARGE_CLUSTER
    entry_point: str | None = None
    #: How often each hook was called since :meth:`reset_calls` (the runner resets it before every check).
    calls: collections.Counter[str] = attrs.field(factory=collections.Counter)

    @property
    def name(self) -> str:
        """The name the plugin is known by: its entry-point name, else the class's ``name``."""
        return self.entry_point or str(getattr(self.plugin_class, "name", self.plugin_class.__name__))

    @property
    def hooks(self) -> set[str]:
        """The hook methods the plugin marks with hookimpl."""
        return marked_hooks(self.plugin_class)

    def has(self, *hooks: str) -> bool:
        """Whether the plugin implements every one of ``hooks``."""
        return set(hooks) <= self.hooks

    def reset_calls(self) -> None:
        """Forget the hook call counts."""
        self.calls.clear()

    def examples(self) -> tuple[list[Node], list[Pod], list[Pod]]:
        """Fresh deep copies of (nodes, running pods, pods to schedule), so no check sees another's changes."""
        return copy.deepcopy(list(self.nodes)), copy.deepcopy(list(self.running)), copy.deepcopy(list(self.pods))

    def framework(self, nodes: Sequence[Node] | None = None, running: Sequence[Pod] | None = None) -> Framework:
        """A fresh Framework running only this plugin over the example cluster (or the given one)."""
        if nodes is None or running is None:
            example_nodes, example_running, _ = self.examples()
            nodes = example_nodes if nodes is None else nodes
            running = example_running if running is None else running
        return plugin_framework(self.plugin_class, self.args, nodes=nodes, pods=running, seed=SEED)

    def hook(self, framework: Framework, hook: str) -> Hook | None:
        """The plugin's ``hook`` as the framework calls it (full arguments, in hookspec order), counting calls."""
        function = framework.plugin_hook(self.plugin_class.name, hook)
        if function is None:
            return None
        calls = self.calls

        def counted(*args: Any) -> Any:
            calls[hook] += 1
            return function(*args)

        return counted

    def pre_filter(self, framework: Framework, pod: Pod) -> tuple[PreFiltered | None, Any]:
        """Run PreFilter as the framework would: (the result, None) when the pod goes on to Filter or was
        skipped, (None, what PreFilter returned) when it rejected the pod or returned something else."""
        state = CycleState()
        nodes = framework.snapshot.list()
        pre_filter = self.hook(framework, "pre_filter")
        if pre_filter is None:
            return PreFiltered(state, False, list(nodes)), None
        outcome = pre_filter(state, pod, nodes)
        if outcome is None:
            return PreFiltered(state, False, list(nodes)), None
        if isinstance(outcome, PreFilterResult):
            allowed = list(nodes) if outcome.node_names is None else [n for n in nodes if n.name in outcome.node_names]
            return PreFiltered(state, False, allowed), None
        if isinstance(outcome, Status) and outcome.code in (Code.SUCCESS, Code.SKIP):
            return PreFiltered(state, outcome.code is Code.SKIP, list(nodes)), None
        return None, outcome

    def cycle(self, framework: Framework, pod: Pod, observe: Observer | None = None, *, strict: bool = False,
              check_step: StepCheck | None = None, check_lists: bool = False) -> tuple[CycleState, CycleOutcome]:
        """PreFilter, Filter on every node it leaves, PreScore, Score and NormalizeScore over the feasible nodes,
        as the framework sequences them for this one plugin; ``observe(hook, node)`` runs after every call and
        ``check_step(hook, status)`` gets what PreScore and NormalizeScore returned."""
        framework.rng.seed(SEED)
        pre_filtered, outcome = self.pre_filter(framework, pod)
        if observe is not None and self.has("pre_filter"):
            observe("pre_filter", None)
        if pre_filtered is None:
            return CycleState(), CycleOutcome(verdict(outcome if isinstance(outcome, Status) else None), {}, {})
        state = pre_filtered.state
        filters: dict[str, Verdict] = {}
        filter_hook = None if pre_filtered.skip else self.hook(framework, "filter")
        feasible = []
        for node_info in pre_filtered.nodes:
            if filter_hook is not None:
                filters[node_info.name] = verdict(filter_hook(state, pod, node_info))
                if observe is not None:
                    observe("filter", node_info)
                if filters[node_info.name][0] is not Code.SUCCESS:
                    continue
            feasible.append(node_info)
        pre_filter_verdict: Verdict = (Code.SKIP, ()) if pre_filtered.skip else (Code.SUCCESS, ())
        scores = self.scores(framework, state, pod, feasible, observe, strict=strict, check_step=check_step,
                             check_lists=check_lists)
        return state, CycleOutcome(pre_filter_verdict, filters, scores)

    def scores(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
               observe: Observer | None = None, *, strict: bool = False, check_step: StepCheck | None = None,
               check_lists: bool = False) -> dict[str, int]:
        """PreScore, Score and NormalizeScore over ``nodes``: the final score per node ({} if none). ``strict``
        raises :class:`NormalizeChangedNodesError` when NormalizeScore drops, adds or reorders entries."""
        score = self.hook(framework, "score")
        if score is None or not nodes:
            return {}
        pre_score = self.hook(framework, "pre_score")
        if pre_score is not None:
            given = list(nodes)
            status = pre_score(state, pod, nodes)
            if check_lists and nodes != given:
                raise NodesListChangedError(f"pre_score changed the list of nodes it was given: "
                                            f"{[n.name for n in given]} became {[n.name for n in nodes]}")
            nodes = given
            if check_step is not None:
                check_step("pre_score", status)
            skipped = isinstance(status, Status) and status.code is Code.SKIP
            if observe is not None:
                observe("pre_score", None)
            if skipped:
                return {}
        scores = []
        for node_info in nodes:
            scores.append(NodeScore(node_info.name, score(state, pod, node_info)))
            if observe is not None:
                observe("score", node_info)
        normalize = self.hook(framework, "normalize_score")
        if normalize is not None:
            names = [s.name for s in scores]
            status = normalize(state, pod, scores)
            if check_step is not None:
                check_step("normalize_score", status)
            if strict and [s.name for s in scores] != names:
                raise NormalizeChangedNodesError(f"normalize_score changed the list of nodes: {names} became "
                                                 f"{[s.name for s in scores]}")
        return {s.name: s.score for s in scores}

    def binding_target(self, framework: Framework, pod: Pod) -> tuple[CycleState, str, Pod] | None:
        """Run the cycle and pick where the pod would go, as the scheduler would before Reserve: (the cycle's
        state, the best-scoring feasible node, the assumed pod bound to it); None when no node is feasible."""
        pre_filtered, _outcome = self.pre_filter(framework, pod)
        if pre_filtered is None:
            return None
        state, outcome = self.cycle(framework, pod)
        if outcome.scores:
            node = max(outcome.scores, key=lambda name: outcome.scores[name])
        else:
            feasible = [n.name for n in pre_filtered.nodes
                        if outcome.filter.get(n.name, (Code.SUCCESS, ()))[0] is Code.SUCCESS]
            if not feasible:
                return None
            node = feasible[0]
        return state, node, pod.with_node_name(node)

    def filter_verdicts(self, framework: Framework, state: CycleState, pod: Pod,
                        nodes: Sequence[NodeInfo]) -> dict[str, Verdict]:
        """Filter on ``nodes`` with a given (already pre-filtered) state."""
        filter_hook = self.hook(framework, "filter")
        if filter_hook is None:
            return {}
        return {n.name: verdict(filter_hook(state, pod, n)) for n in nodes}


def bare_node(name: str) -> Node:
    """A node with no labels at all (not even the hostname label the builder adds)."""
    node = make_node(name).capacity(cpu="4", memory="8Gi").obj()
    return attrs.evolve(node, metadata=attrs.evolve(node.metadata, labels={}))


def large_cluster(count: int, templates: Sequence[Node] = ()) -> list[Node]:
    """``count`` nodes for scale checks: copies of ``templates`` in turn (labels, taints, capacity) under new
    names, or plain nodes over ten zones without templates."""
    if not templates:
        return [make_node(f"node-{i:05d}").capacity(cpu="8", memory="32Gi").zone(f"zone-{i % 10}").obj()
                for i in range(count)]
    nodes = []
    for i in range(count):
        template = templates[i % len(templates)]
        name = f"{template.name}-{i:05d}"
        labels = {**template.metadata.labels, HOSTNAME: name} if HOSTNAME in template.metadata.labels \
            else dict(template.metadata.labels)
        meta = attrs.evolve(template.metadata, name=name, uid=f"{name}-uid", labels=labels)
        nodes.append(attrs.evolve(template, metadata=meta))
    return nodes


def spread_over(nodes: Sequence[Node], running: Sequence[Pod], templates: Sequence[Node], copies: int = 50) \
        -> list[Pod]:
    """Copies of the running pods for a large cluster made by :func:`large_cluster` from ``templates``: each
    pod goes to about ``copies`` of the copies of its own node, so taints, ports and capacity stay as they
    were in the example cluster."""
    if not nodes or not templates:
        return []
    index = {t.name: i for i, t in enumerate(templates)}
    step = max(1, len(nodes) // copies)
    placed = []
    for i in range(0, len(nodes), step):
        template = i % len(templates)
        for pod in running:
            if index.get(pod.spec.node_name or "") != template:
                continue
            meta = attrs.evolve(pod.metadata, name=f"{pod.name}-{i}", uid=f"{pod.uid}-{i}")
            placed.append(attrs.evolve(pod, metadata=meta).with_node_name(nodes[i].name))
    return placed

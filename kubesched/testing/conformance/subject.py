"""The plugin under test: its class, args and example cluster, and how the checks build and call it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.node_info import NodeInfo
from kubesched.framework.plugin import marked_hooks
from kubesched.framework.runtime import Framework, Hook
from kubesched.framework.status import Code, Status
from kubesched.framework.types import NodeScore, PreFilterResult
from kubesched.testing.builders import make_node, make_pod
from kubesched.testing.harness import plugin_framework

ZONE = "topology.kubernetes.io/zone"
#: Default per-call budget for Filter and Score before the time-budget check warns.
DEFAULT_TIME_BUDGET = 0.0005
#: Nodes in the large cluster of the edge-input and time-budget checks.
DEFAULT_LARGE_CLUSTER = 2000

Verdict = tuple[Code, tuple[str, ...]]


def default_nodes() -> tuple[Node, ...]:
    """Three labelled nodes of different sizes in two zones, one of them tainted."""
    return (make_node("node-a").capacity(cpu="4", memory="8Gi").zone("zone-1").label(disk="ssd").obj(),
            make_node("node-b").capacity(cpu="8", memory="16Gi").zone("zone-1").obj(),
            make_node("node-c").capacity(cpu="2", memory="4Gi").zone("zone-2").label(disk="hdd")
            .taint("dedicated", "batch").obj())


def default_running() -> tuple[Pod, ...]:
    """Pods already bound to the default nodes."""
    return (make_pod("running-web").node("node-a").req(cpu="1", memory="1Gi").label(app="web").priority(10).obj(),
            make_pod("running-db").node("node-b").req(cpu="2", memory="4Gi").label(app="db").priority(100).obj(),
            make_pod("running-batch").node("node-c").req(cpu="500m").label(app="batch").obj())


def default_pods() -> tuple[Pod, ...]:
    """Pods to schedule: a plain web pod, a pod with no requests at all, and a large high-priority pod."""
    return (make_pod("web").req(cpu="500m", memory="512Mi").label(app="web").obj(),
            make_pod("bare").obj(),
            make_pod("big").req(cpu="6", memory="12Gi").label(app="db").priority(1000).obj())


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


@attrs.define
class PluginUnderTest:
    """A plugin class with the args and example cluster the checks run it on.

    ``args`` is the plugin's Args instance or a kebab-case mapping (None: the defaults). ``nodes`` and
    ``running`` form the example cluster, ``pods`` are the pods to schedule on it; each check gets fresh copies.
    """

    plugin_class: type[Any]
    args: Any = None
    nodes: Sequence[Node] = attrs.field(factory=default_nodes)
    running: Sequence[Pod] = attrs.field(factory=default_running)
    pods: Sequence[Pod] = attrs.field(factory=default_pods)
    time_budget: float = DEFAULT_TIME_BUDGET
    large_cluster: int = DEFAULT_LARGE_CLUSTER

    @property
    def name(self) -> str:
        """The plugin's name."""
        return str(getattr(self.plugin_class, "name", self.plugin_class.__name__))

    @property
    def hooks(self) -> set[str]:
        """The hook methods the plugin marks with hookimpl."""
        return marked_hooks(self.plugin_class)

    def has(self, *hooks: str) -> bool:
        """Whether the plugin implements every one of ``hooks``."""
        return set(hooks) <= self.hooks

    def examples(self) -> tuple[list[Node], list[Pod], list[Pod]]:
        """Fresh deep copies of (nodes, running pods, pods to schedule), so no check sees another's changes."""
        return copy.deepcopy(list(self.nodes)), copy.deepcopy(list(self.running)), copy.deepcopy(list(self.pods))

    def framework(self, nodes: Sequence[Node] | None = None, running: Sequence[Pod] | None = None) -> Framework:
        """A fresh Framework running only this plugin over the example cluster (or the given one)."""
        if nodes is None or running is None:
            example_nodes, example_running, _ = self.examples()
            nodes = example_nodes if nodes is None else nodes
            running = example_running if running is None else running
        return plugin_framework(self.plugin_class, self.args, nodes=nodes, pods=running)

    def hook(self, framework: Framework, hook: str) -> Hook | None:
        """The plugin's ``hook`` as the framework calls it (full arguments, in hookspec order)."""
        return framework.plugin_hook(self.name, hook)

    def cycle(self, framework: Framework, pod: Pod,
              observe: Callable[[str, NodeInfo | None], None] | None = None) -> tuple[CycleState, CycleOutcome]:
        """PreFilter, Filter on every node it leaves, PreScore, Score and NormalizeScore, as the framework
        sequences them for this one plugin (Skip and rejections included); ``observe(hook, node)`` runs after
        every call."""
        state = CycleState()
        nodes = framework.snapshot.list()
        pre_filter_verdict: Verdict = (Code.SUCCESS, ())
        filters: dict[str, Verdict] = {}
        candidates = list(nodes)
        pre_filter = self.hook(framework, "pre_filter")
        skip_filter = False
        if pre_filter is not None:
            outcome = pre_filter(state, pod, nodes)
            if observe is not None:
                observe("pre_filter", None)
            if isinstance(outcome, PreFilterResult):
                if outcome.node_names is not None:
                    candidates = [n for n in nodes if n.name in outcome.node_names]
            else:
                pre_filter_verdict = verdict(outcome)
                skip_filter = pre_filter_verdict[0] is Code.SKIP
                if not skip_filter and pre_filter_verdict[0] is not Code.SUCCESS:
                    return state, CycleOutcome(pre_filter_verdict, {}, {})
        filter_hook = self.hook(framework, "filter")
        feasible = []
        for node_info in candidates:
            if filter_hook is not None and not skip_filter:
                filters[node_info.name] = verdict(filter_hook(state, pod, node_info))
                if observe is not None:
                    observe("filter", node_info)
                if filters[node_info.name][0] is not Code.SUCCESS:
                    continue
            feasible.append(node_info)
        return state, CycleOutcome(pre_filter_verdict, filters, self.scores(framework, state, pod, feasible, observe))

    def scores(self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
               observe: Callable[[str, NodeInfo | None], None] | None = None, *,
               strict: bool = False) -> dict[str, int]:
        """PreScore, Score and NormalizeScore over ``nodes``: the final score per node ({} if none). ``strict``
        raises :class:`NormalizeChangedNodesError` when NormalizeScore drops, adds or reorders entries."""
        score = self.hook(framework, "score")
        if score is None or not nodes:
            return {}
        pre_score = self.hook(framework, "pre_score")
        if pre_score is not None:
            skipped = verdict(pre_score(state, pod, nodes))[0] is Code.SKIP
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
            normalize(state, pod, scores)
            if strict and [s.name for s in scores] != names:
                raise NormalizeChangedNodesError(f"normalize_score changed the list of nodes: {names} became "
                                                 f"{[s.name for s in scores]}")
        return {s.name: s.score for s in scores}

    def filter_verdicts(self, framework: Framework, state: CycleState, pod: Pod) -> dict[str, Verdict]:
        """Filter on every snapshot node with a given (already pre-filtered) state."""
        filter_hook = self.hook(framework, "filter")
        if filter_hook is None:
            return {}
        return {n.name: verdict(filter_hook(state, pod, n)) for n in framework.snapshot.list()}


def bare_node(name: str) -> Node:
    """A node with no labels at all (not even the hostname label the builder adds)."""
    node = make_node(name).capacity(cpu="4", memory="8Gi").obj()
    return attrs.evolve(node, metadata=attrs.evolve(node.metadata, labels={}))


def large_cluster(count: int) -> list[Node]:
    """``count`` nodes over ten zones, for scale checks."""
    return [make_node(f"node-{i:05d}").capacity(cpu="8", memory="32Gi").zone(f"zone-{i % 10}").obj()
            for i in range(count)]

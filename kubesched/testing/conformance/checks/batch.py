"""The batch-forms check: filter_nodes, score_nodes and normalize_scores answer exactly as the per-node hooks.

The scheduler takes a plugin's batch forms on its fast path and its per-node hooks on the reference path and for
the reasons of a rejection, so the two must agree node by node. Each example pod is run over the example nodes
in snapshot order and again over all but the first in reverse order (a batch whose positions are not the
identity, as after a narrowing PreFilter or in scoring order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Code
from kubesched.framework._types import NodeScore
from kubesched.testing.conformance.base import CheckFailed, CheckSkipped, describe, driver, require
from kubesched.testing.conformance.driver import Driver, show
from kubesched.testing.conformance.subject import SEED, PluginUnderTest

BATCH_HOOKS = ("filter_nodes", "score_nodes", "normalize_scores")


def batch_forms(subject: PluginUnderTest) -> list[str]:
    """filter_nodes gives the status code filter gives on every node; score_nodes the raw score score gives;
    normalize_scores the scores normalize_score writes."""
    if not any(subject.has(hook) for hook in BATCH_HOOKS):
        raise CheckSkipped("the plugin has no batch form (filter_nodes, score_nodes or normalize_scores)")
    require(subject)
    _nodes, _running, pods = subject.examples()
    for pod in pods:
        run = driver(subject)
        pre_filtered, _status = run.pre_filter(pod)
        if pre_filtered is None:
            continue
        state, feasible = pre_filtered.state, list(pre_filtered.nodes)
        if not pre_filtered.skip and subject.has("filter"):
            verdicts = run.filter_verdicts(state, pod, feasible)
            if subject.has("filter_nodes"):
                for nodes in _orders(feasible):
                    _compare_filter(run, state, pod, nodes, {n.name: verdicts[n.name] for n in nodes})
            feasible = [n for n in feasible if verdicts[n.name][0] is Code.SUCCESS]
        if subject.has("score") and feasible and (subject.has("score_nodes") or subject.has("normalize_scores")):
            _compare_scores(run, state, pod, feasible)
    return []


def _orders(nodes: Sequence[NodeInfo]) -> list[list[NodeInfo]]:
    """The nodes in order, and all but the first reversed (when that is a different batch)."""
    orders = [list(nodes)]
    if len(nodes) > 2:
        orders.append(list(reversed(nodes[1:])))
    return orders


def _batch(run: Driver, nodes: Sequence[NodeInfo]) -> NodeBatch:
    return NodeBatch.of(nodes, run.framework.handle.snapshot.columns)


def _array(hook: str, value: Any, size: int, what: str, pod: Pod) -> np.ndarray[Any, Any]:
    """``value`` as an integer array of ``size``, or the check's failure saying what it was instead."""
    if not isinstance(value, np.ndarray) or value.shape != (size,) or value.dtype.kind not in "iu":
        shape = f" of shape {value.shape} and dtype {value.dtype}" if isinstance(value, np.ndarray) else ""
        raise CheckFailed(f"{hook} returned {type(value).__name__}{shape}, not an integer array of {size} {what} "
                          f"({describe(pod)})")
    return value


def _label(code: int) -> str:
    try:
        return Code(code).label
    except ValueError:
        return f"code {code}"


def _compare_filter(run: Driver, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    verdicts: dict[str, tuple[Code, tuple[str, ...]]]) -> None:
    hook = run.framework.batch_filter_hooks[run.subject.plugin_class.name]
    answer = run._run(hook, state, pod, _batch(run, nodes))
    codes = [0] * len(nodes) if answer is None else \
        _array("filter_nodes", answer, len(nodes), "status codes or None", pod).tolist()
    for node, code in zip(nodes, codes, strict=True):
        expected = verdicts[node.name]
        if expected[0] is Code.ERROR:  # filter-status-valid reports it
            continue
        if code != int(expected[0]):
            raise CheckFailed(f"filter_nodes answered {_label(code)} but filter answered {show(expected)} "
                              f"({describe(pod, node)}, batch of {len(nodes)} nodes)")


def _compare_scores(run: Driver, state: CycleState, pod: Pod, feasible: list[NodeInfo]) -> None:
    name = run.subject.plugin_class.name
    framework = run.framework
    if run.pre_score(state, pod, feasible) is not None or name in state.skip_score_plugins:
        return
    score = framework.hook(name, "score")
    normalize = framework.hook(name, "normalize_score")
    score_nodes = framework.batch_score_hooks.get(name)
    normalize_scores = framework.batch_normalize_hooks.get(name)
    assert score is not None
    for nodes in _orders(feasible):
        framework.handle.rng.seed(SEED)
        raw = [run._run(score, state, pod, ni) for ni in nodes]
        if not all(type(value) is int for value in raw):
            return  # score-in-range reports it
        if score_nodes is not None:
            framework.handle.rng.seed(SEED)
            answer = _array("score_nodes", run._run(score_nodes, state, pod, _batch(run, nodes)), len(nodes),
                            "scores", pod)
            _compare("score_nodes", "score", raw, answer.tolist(), nodes, pod)
        if normalize is None or normalize_scores is None:
            continue
        node_scores = [NodeScore(ni.name, value) for ni, value in zip(nodes, raw, strict=True)]
        framework.handle.rng.seed(SEED)
        run._run(normalize, state, pod, node_scores)
        framework.handle.rng.seed(SEED)
        answer = _array("normalize_scores", run._run(normalize_scores, state, pod, _batch(run, nodes),
                                                      np.array(raw, dtype=np.int64)), len(nodes), "scores", pod)
        _compare("normalize_scores", "normalize_score", [ns.score for ns in node_scores], answer.tolist(), nodes,
                 pod)


def _compare(batch_hook: str, hook: str, expected: list[Any], got: list[int], nodes: list[NodeInfo],
             pod: Pod) -> None:
    for node, want, value in zip(nodes, expected, got, strict=True):
        if want != value:
            raise CheckFailed(f"{batch_hook} gave {value} but {hook} gave {want!r} ({describe(pod, node)}, batch of "
                              f"{len(nodes)} nodes)")

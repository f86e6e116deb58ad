"""Pods from one template: NodeResourcesFit's Filter and the resource scorers remember their per-node answers for
consecutive pods with the same requests (``NodeMemo``), recomputing only the nodes changed since. The remembered
answers must stay the per-node ones through every cache change, whether the changed nodes are worked out one by one
or in one batch call."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api.pod import Pod
from kubesched.framework import _columns as framework_columns
from kubesched.framework._columns import NodeBatch
from kubesched.framework._node_info import PodInfo
from kubesched.plugins.noderesources import node_memo
from kubesched.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.noderesources.node_memo import NodeMemo
from kubesched.runtime import Cache, NodeSnapshot
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.resources_batch import FOO, GPU, filter_codes, nodes, pods, score_values

MOST_ALLOCATED: dict[str, Any] = {"scoring-strategy": {"type": "MostAllocated", "resources": [
    {"name": "cpu"}, {"name": "memory", "weight": 2}, {"name": FOO, "weight": 3}, {"name": GPU}]}}


def _batches(snapshot: NodeSnapshot) -> list[NodeBatch]:
    """Every node (Filter's batch), and every other node in reverse order (a Score batch's shape)."""
    infos = snapshot.node_info_list
    return [NodeBatch.of(infos, snapshot.columns), NodeBatch.of(infos[::-2], snapshot.columns)]


@pytest.mark.slow
@pytest.mark.parametrize(("one_by_one", "listed"), [
    pytest.param(16, 64, id="changed nodes one by one"),
    pytest.param(0, 64, id="changed nodes in a batch call"),
    pytest.param(16, 1, id="more nodes forgotten than the rows list")])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_remembered_answers_follow_cache_updates(one_by_one: int, listed: int, data: st.DataObject) -> None:
    """The same plugins asked about pods of one template after every cache change (each pod asked twice, so the
    memo is read) answer as their per-node forms."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(node_memo, "_ONE_BY_ONE", one_by_one)
        patch.setattr(framework_columns, "FORGOTTEN_LISTED", listed)
        plugins: list[Any] = [plugin_instance(NodeResourcesFit, {}), plugin_instance(NodeResourcesFit, MOST_ALLOCATED),
                              plugin_instance(NodeResourcesBalancedAllocation, {})]
        cache = Cache()
        names = [f"n{i}" for i in range(data.draw(st.integers(1, 6)))]
        for name in names:
            cache.add_node(data.draw(nodes(name)))
        snapshot = NodeSnapshot()
        templates = [data.draw(pods(f"t{k}")) for k in range(data.draw(st.integers(1, 2)))]
        placed: list[tuple[Pod, bool]] = []
        for step in range(data.draw(st.integers(1, 12))):
            action = data.draw(st.sampled_from(["bind", "assume", "remove", "forget", "replace-node"]))
            if action in ("bind", "assume"):
                pod = data.draw(st.sampled_from(templates))
                pod = attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, name=f"q{step}", uid=f"q{step}"),
                                   spec=attrs.evolve(pod.spec, node_name=data.draw(st.sampled_from(names))))
                if action == "bind":
                    cache.add_pod(pod)
                else:
                    cache.assume_pod(PodInfo.of(pod))
                placed.append((pod, action == "assume"))
            elif action in ("remove", "forget") and placed:
                pod, assumed = placed.pop(data.draw(st.integers(0, len(placed) - 1)))
                if assumed:
                    cache.forget_pod(pod)
                else:
                    cache.remove_pod(pod)
            elif action == "replace-node":
                cache.update_node(data.draw(nodes(data.draw(st.sampled_from(names)))))
            cache.update_snapshot(snapshot)
            pod = data.draw(st.sampled_from(templates))
            for batch in _batches(snapshot):
                for _ in range(2):
                    for plugin in plugins:
                        if isinstance(plugin, NodeResourcesFit):
                            per_node, batch_codes = filter_codes(plugin, pod, batch)
                            assert batch_codes == per_node
                        per_node, batch_scores = score_values(plugin, pod, batch)
                        assert batch_scores == per_node


def _one_node_memo() -> tuple[Cache, NodeSnapshot, NodeMemo, list[int], Any]:
    """A two-node snapshot, a memo and a reader that notes each node it works out one by one."""
    cache, snapshot, memo = Cache(), NodeSnapshot(), NodeMemo()
    for name in ("n0", "n1"):
        cache.add_node(make_node(name).capacity(cpu="2", memory="1Gi").obj())
    cache.update_snapshot(snapshot)
    calls: list[int] = []

    def one(at: int) -> int:
        calls.append(at)
        return 7

    def read(key: str) -> list[int] | None:
        columns = snapshot.columns
        out = memo.read(columns, key, columns.all_positions(), lambda at: np.full(len(at), 7), one)
        return None if out is None else out.tolist()

    return cache, snapshot, memo, calls, read


def test_memo_reads_rows_only_for_a_repeated_key() -> None:
    """A key asked for the first time is computed by the caller (None); asked again in a row, its rows are read and
    worked out once."""
    _, _, _, calls, read = _one_node_memo()
    assert read("a") is None
    assert read("a") == [7, 7]
    assert read("a") == [7, 7]
    assert calls == [0, 1]
    assert read("b") is None


def test_memo_works_out_again_only_the_changed_node() -> None:
    """After a pod lands on n1, the next read works out n1 alone."""
    cache, snapshot, _, calls, read = _one_node_memo()
    read("a")
    read("a")
    cache.add_pod(make_pod("p").req(cpu="1").node("n1").obj())
    cache.update_snapshot(snapshot)
    assert read("a") == [7, 7]
    assert calls == [0, 1, 1]


def test_fit_answers_none_exactly_while_no_node_is_short() -> None:
    """Fit reading its rows over every node: None while every node has room, the codes once a node changed to short,
    None again once it has room again (the memo counts its non-zero answers as rows change)."""
    cache, snapshot = Cache(), NodeSnapshot()
    for name in ("n0", "n1"):
        cache.add_node(make_node(name).capacity(cpu="4", memory="8Gi", pods="10").obj())
    cache.update_snapshot(snapshot)
    fit: Any = plugin_instance(NodeResourcesFit, {})
    template = make_pod("t").req(cpu="2").obj()

    def ask() -> list[int]:
        batch = NodeBatch.of(snapshot.node_info_list, snapshot.columns)
        per_node, batch_codes = filter_codes(fit, template, batch)
        assert batch_codes == per_node
        return batch_codes

    assert ask() == ask() == [0, 0]
    big = make_pod("big").req(cpu="3").node("n0").obj()
    cache.add_pod(big)
    cache.update_snapshot(snapshot)
    assert ask()[0] != 0
    cache.remove_pod(big)
    cache.update_snapshot(snapshot)
    assert ask() == [0, 0]

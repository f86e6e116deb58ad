"""The one seam for speed: the runtime alone chooses, per cycle, between the per-node and the batch node search."""

from __future__ import annotations

import pytest

from kubesched.framework import CycleState, NodeInfo, Plugin, hookimpl
from kubesched.runtime import QUIET, NodeSearches, NodeSnapshot, Nominator, QuietObserver, new_diagnosis
from kubesched.testing import make_node, make_pod, make_snapshot, plugin_framework


class Recording(QuietObserver):
    """An observer asking for every per-node verdict, as explain's recorder does."""

    per_node = True


def snapshot(cpu: str = "4") -> NodeSnapshot:
    """A snapshot of two nodes with ``cpu`` each."""
    return make_snapshot([NodeInfo.of(make_node(n).capacity(cpu=cpu).obj()) for n in ("a", "b")])


@pytest.mark.parametrize(("batch", "observer", "cpu", "path"), [
    pytest.param(True, QUIET, "4", "batch", id="the fast path"),
    pytest.param(False, QUIET, "4", "per-node", id="the reference path (--reference)"),
    pytest.param(True, Recording(), "4", "per-node", id="an explained attempt"),
    pytest.param(True, QUIET, "9007199254740993m", "per-node", id="amounts too large for exact columns"),
])
def test_the_runtime_chooses_the_search_for_each_cycle(batch: bool, observer: object, cpu: str, path: str) -> None:
    """Batch unless switched off, an observer needs every per-node verdict, or the columns cannot be exact."""
    searches = NodeSearches(snapshot(cpu), Nominator(), batch=batch)
    assert searches.for_cycle(observer).path == path  # type: ignore[arg-type]


def test_both_searches_share_the_per_node_one() -> None:
    """The batch search steps aside to the very per-node search the scheduler uses (one reference)."""
    searches = NodeSearches(snapshot(), Nominator(), batch=True)
    assert searches.for_cycle(Recording()) is searches.per_node


class ScoresOnly(Plugin):
    """A plugin with no Filter hook: every node passes Filter."""

    name = "ScoresOnly"

    @hookimpl
    def score(self, state: CycleState, pod: object, node_info: NodeInfo) -> int:
        return 0


@pytest.mark.parametrize(("start", "to_find", "found"), [
    pytest.param(1, 2, ["n1", "n2"], id="from the start node"),
    pytest.param(3, 3, ["n3", "n4", "n0"], id="wrapping around"),
    pytest.param(2, 9, ["n2", "n3", "n4", "n0", "n1"], id="every node at most"),
])
def test_without_filter_plugins_the_nodes_from_the_start_are_feasible(start: int, to_find: int,
                                                                      found: list[str]) -> None:
    """No Filter plugin: the first ``to_find`` nodes from nextStartNodeIndex, wrapping, in that order."""
    fw = plugin_framework(ScoresOnly, nodes=[make_node(f"n{i}") for i in range(5)])
    search = NodeSearches(fw.handle.snapshot, fw.handle.nominator, batch=True).for_cycle(QUIET)
    feasible, _lazy = search.find_feasible(fw, CycleState(), make_pod("p").obj(), new_diagnosis(),
                                           fw.handle.snapshot.list(), start, to_find)
    assert [ni.name for ni in feasible] == found

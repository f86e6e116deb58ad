"""The one seam for speed: the runtime alone chooses, per cycle, between the per-node and the batch node search."""

from __future__ import annotations

import pytest

from kubesched.framework import NodeInfo
from kubesched.runtime import QUIET, NodeSearches, NodeSnapshot, Nominator, QuietObserver
from kubesched.testing import make_node, make_snapshot


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

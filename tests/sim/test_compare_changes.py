"""Specification of how compare names the difference for one pod across profiles."""

from __future__ import annotations

import pytest

from kubesched.sim.compare import Placement


@pytest.mark.parametrize(("phases", "nodes", "change"), [
    pytest.param(("Bound", "Bound"), ("n1", "n2"), "moved", id="bound-on-other-nodes"),
    pytest.param(("Bound", "Pending"), ("n1", None), "newlyPending", id="bound-then-pending"),
    pytest.param(("Pending", "Bound"), (None, "n1"), "newlyBound", id="pending-then-bound"),
    pytest.param(("Bound", "Preempted"), ("n1", None), "preempted", id="preempted-under-one"),
    pytest.param(("Evicted", "Bound"), (None, "n1"), "evicted", id="evicted-under-one"),
    pytest.param(("Pending", "Bound", "Pending"), (None, "n1", None), "newlyBound", id="bound-under-a-later-one"),
    pytest.param(("Bound", "Absent"), ("n1", None), "outcome", id="absent-under-one"),
])
def test_change(phases: tuple[str, ...], nodes: tuple[str | None, ...], change: str) -> None:
    """Preempted and evicted first, then moved, newly pending or bound against the first profile, else outcome."""
    assert Placement("default/p", ("",) * len(phases), phases, nodes).change == change

"""Specification of the filter-state-unchanged conformance check: Filter and filter_nodes only read the CycleState
PreFilter left, and Filter answers each node alike whatever the order of the nodes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import attrs
import numpy as np
import pytest

from kubesched.framework._cycle_state import CycleState, StateKey
from kubesched.testing import make_node, make_pod
from kubesched.testing.conformance import Outcome, PluginUnderTest, run_check
from kubesched.testing.conformance.changes import StateWatch
from kubesched.testing.conformance.checks import CHECKS_BY_ID
from tests.testing import batch_form_plugins as batch_forms
from tests.testing import broken_plugins as broken

CHECK = CHECKS_BY_ID["filter-state-unchanged"]


@pytest.mark.parametrize(("plugin", "detail"), [
    pytest.param(broken.PopsTolerations, "filter of plugin PopsTolerations changed the CycleState PreFilter left (pod "
                 "big on node node-c): PopsTolerations went from 1 item to 0; filter may only read the state, or the "
                 "nodes checked after this one see the change", id="filter-pops-a-list"),
    pytest.param(batch_forms.CountsBatchesInState, "filter_nodes of plugin CountsBatchesInState changed the "
                 "CycleState PreFilter left (pod web, batch of 3 nodes): CountsBatchesInState went from 0 items to 1; "
                 "filter_nodes may only read the state, or the Filter calls after it see the change",
                 id="filter-nodes-appends"),
    pytest.param(broken.RemembersFirstAnswer, "filter of plugin RemembersFirstAnswer answered Success with the nodes "
                 "in snapshot order but Unschedulable (node is cordoned) with them in reverse order (pod web on node "
                 "node-a): its answer must depend only on the state PreFilter left, the pod and the node",
                 id="answer-depends-on-order"),
])
def test_a_filter_that_changes_its_state_fails(plugin: type[Any], detail: str) -> None:
    """Each way of changing the state fails the check, naming the plugin, the hook, the pod, the node and what
    changed (or, when only the answers show it, the answers in both orders)."""
    result = run_check(CHECK, PluginUnderTest(plugin))
    assert (result.outcome, result.detail) == (Outcome.FAILED, detail)


def test_the_popping_filter_is_caught_where_it_changes_placements() -> None:
    """With two tainted nodes and a pod tolerating both taints, the first tainted node's Filter takes both
    tolerations (the second node would reject the pod): the check fails on that first node."""
    nodes = [make_node("tainted-1").capacity(cpu="4").taint("a", "1").obj(),
             make_node("tainted-2").capacity(cpu="4").taint("b", "1").obj()]
    pod = make_pod("tolerant").toleration("a", "1", "NoSchedule").toleration("b", "1", "NoSchedule").obj()
    result = run_check(CHECK, PluginUnderTest(broken.PopsTolerations, nodes=nodes, running=[], pods=[pod]))
    assert result.outcome is Outcome.FAILED
    assert result.detail.startswith("filter of plugin PopsTolerations changed the CycleState PreFilter left (pod "
                                    "tolerant on node tainted-1): PopsTolerations went from 2 items to 0;")


def test_a_plugin_without_filter_skips_the_check() -> None:
    """Only Filter and filter_nodes are judged."""
    result = run_check(CHECK, PluginUnderTest(broken.ScoresOutOfRange))
    assert (result.outcome, result.detail) == (Outcome.SKIPPED, "the plugin has no filter hook")


KEY = StateKey[Any]("Plugin")
OTHER = StateKey[int]("Other")


@attrs.define
class Counts:
    per_node: dict[str, int]
    #: Built when first read, from per_node.
    total: int | None = None


class Memo:
    """A memo cache that says so: it may fill itself."""

    shared_across_clones: ClassVar[bool] = True

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}


def _pop(state: CycleState) -> None:
    state.read(KEY).pop()


def _bump(state: CycleState) -> None:
    state.read(KEY).per_node["node-a"] += 1


def _zero(state: CycleState) -> None:
    state.read(KEY)[1] = 0


def _fill_in(state: CycleState) -> None:
    state.read(KEY).total = 3


CHANGES: list[tuple[str, Callable[[], Any], Callable[[CycleState], None], str | None]] = [
    ("pop from a list", lambda: [1, 2], _pop, "Plugin went from 2 items to 1"),
    ("entry of a dict in an object", lambda: Counts({"node-a": 1}), _bump,
     "Plugin.per_node['node-a'] went from 1 to 2"),
    ("entry added", lambda: {"node-a": 1}, lambda s: s.read(KEY).update({"node-b": 2}), "Plugin['node-b'] was added"),
    ("entry deleted", lambda: {"node-a": 1}, lambda s: s.read(KEY).clear(), "Plugin['node-a'] was deleted"),
    ("element of an array", lambda: np.array([1, 2, 3]), _zero, "Plugin[1] went from 2 to 0"),
    ("value replaced by another kind", lambda: [1, 2], lambda s: s.write(KEY, (1, 2)),
     "Plugin went from a list to a tuple"),
    ("pod replaced by another", lambda: make_pod("a").obj(), lambda s: s.write(KEY, make_pod("a").obj()),
     "Plugin now holds another Pod"),
    ("key written", lambda: 1, lambda s: s.write(OTHER, 2), "Other was written"),
    ("key deleted", lambda: 1, lambda s: s.delete(KEY), "Plugin was deleted"),
    ("skip set", lambda: 1, lambda s: s.skip_score_plugins.add("Plugin"),
     "skip_score_plugins went from [] to ['Plugin']"),
    ("a value left None filled in", lambda: Counts({"node-a": 1}), _fill_in, None),
    ("a memo filling itself", Memo, lambda s: s.read(KEY).seen.update({"node-a": 1}), None),
    ("nothing", lambda: [1, 2], lambda s: None, None),
]


@pytest.mark.parametrize(("value", "change", "expected"), [row[1:] for row in CHANGES], ids=[row[0] for row in CHANGES])
def test_the_state_watch_names_the_first_change(value: Callable[[], Any], change: Callable[[CycleState], None],
                                                expected: str | None) -> None:
    """The change is told by the path to it and how it changed; reads, fills of what was None and memos are none."""
    state = CycleState()
    state.write(KEY, value())
    watch = StateWatch(state)
    change(state)
    assert watch.change(state) == expected


def test_a_value_filled_in_is_watched_from_then_on() -> None:
    """Once a value PreFilter left None is filled in, changing it is a change."""
    state = CycleState()
    state.write(KEY, Counts({"node-a": 1}))
    watch = StateWatch(state)
    state.read(KEY).total = 1
    assert watch.change(state) is None
    state.read(KEY).total = 2
    assert watch.change(state) == "Plugin.total went from 1 to 2"

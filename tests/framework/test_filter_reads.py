"""The ``filter_reads`` declaration: what a Filter plugin says its verdict reads, and when the declaration holds.

The runtime's nominated overlay, its status groups and the preemption shortcut go by this declaration, not by
plugin names: the five built-ins declare it, a third-party plugin may, and a subclass redefining Filter loses it.
"""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._columns import NodeBatch
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import FilterReads, Plugin, declared_filter_reads, filter_reason_counts_of
from kubesched.framework._status import Status
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.plugins.node_name import NodeName
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.plugins.noderesources.fit import NodeResourcesFit
from kubesched.plugins.taint_toleration import TaintToleration


class Undeclared(Plugin):
    """A Filter plugin that says nothing about what it reads."""

    name = "Undeclared"


class FitWithOwnFilter(NodeResourcesFit):
    """A subclass redefining Filter: NodeResourcesFit's declaration no longer describes it."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class FitWithOwnScore(NodeResourcesFit):
    """A subclass changing only scoring keeps the declaration and the reason counts."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 0


class Redeclared(FitWithOwnFilter):
    """A subclass of a redefinition that declares again."""

    filter_reads = FilterReads.NODE


class CountsOnly:
    """Not a Plugin subclass: the declaration and the counts are read off any class."""

    filter_reads = FilterReads.NODE

    def filter_reason_counts(self, state: CycleState, pod: Pod, node_batch: NodeBatch) -> dict[str, int]:
        return {}


@pytest.mark.parametrize(("plugin", "reads"), [
    (NodeUnschedulable, FilterReads.NODE), (NodeName, FilterReads.NODE), (TaintToleration, FilterReads.NODE),
    (NodeAffinity, FilterReads.NODE), (NodeResourcesFit, FilterReads.RESOURCES), (Undeclared, None),
    (FitWithOwnFilter, None), (FitWithOwnScore, FilterReads.RESOURCES), (Redeclared, FilterReads.NODE),
    (CountsOnly, FilterReads.NODE), (object, None),
], ids=lambda value: getattr(value, "__name__", str(value)))
def test_declared_filter_reads(plugin: type, reads: FilterReads | None) -> None:
    """The built-ins declare; undeclared plugins and subclasses redefining Filter read anything."""
    assert declared_filter_reads(plugin) == reads


def test_reason_counts_are_dropped_with_a_redefined_filter() -> None:
    """A subclass redefining Filter below the class defining filter_reason_counts gets no counts from it."""
    assert filter_reason_counts_of(FitWithOwnFilter(None)) is None
    assert filter_reason_counts_of(FitWithOwnScore(None)) is not None
    assert filter_reason_counts_of(CountsOnly()) is not None
    assert filter_reason_counts_of(Undeclared(None, None)) is None  # type: ignore[arg-type]

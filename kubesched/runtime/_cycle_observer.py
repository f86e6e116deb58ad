"""What a scheduling cycle reports as it goes, to an observer the scheduler passes in: explain's recorder for the
pods it explains (:class:`~kubesched.runtime._explain.AttemptRecorder`), :data:`QUIET` for every other pod, which
costs a few no-op calls per cycle and no check in the loops."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from kubesched.framework._node_info import NodeInfo
from kubesched.framework._status import Status
from kubesched.framework._types import PostFilterResult, PreFilterResult
from kubesched.framework.preemption import CandidateChoice
from kubesched.runtime._failures import Hook

#: This cycle's Filter plugins as (plugin, hook) pairs.
Filters = list[tuple[str, Hook]]


class CycleObserver(Protocol):
    """Told each step of one scheduling attempt. ``per_node`` asks for the per-node path (explain records every
    plugin's verdict on every node it tries, which the batch path does not produce); only then is :meth:`filters`
    asked to wrap the cycle's Filter plugins."""

    per_node: bool

    def pre_filter(self, result: PreFilterResult | None, status: Status | None, narrowing: Collection[str],
                   skipped: Collection[str]) -> None:
        """PreFilter's outcome: a rejection, a narrowing of the nodes, and the Filter plugins it skipped."""

    def filters(self, filters: Filters) -> Filters:
        """This cycle's Filter plugins as they should run: wrapped to report each call, or as given."""

    def nominated_node_fits(self) -> None:
        """The pod's nominated node passed Filter, so no other node was tried."""

    def filtering_done(self, nodes: Sequence[NodeInfo]) -> None:
        """Filter is over (``nodes``: every node of the snapshot)."""

    def post_filter(self, result: PostFilterResult | None, status: Status) -> None:
        """PostFilter's outcome."""

    def preemption(self, choice: CandidateChoice) -> None:
        """The preemption Evaluator's candidates and choice."""

    def score_skipped(self, plugins: Collection[str]) -> None:
        """The Score plugins whose PreScore said Skip."""

    def scored(self, plugin: str, nodes: Sequence[str], raw: Sequence[int], normalized: Sequence[int],
               weighted: Sequence[int]) -> None:
        """``plugin``'s scores over ``nodes``: as returned, normalised, weighted."""


class QuietObserver:
    """The observer of every attempt nobody records: each report is a no-op (subclass it to record only some)."""

    per_node = False

    def pre_filter(self, result: PreFilterResult | None, status: Status | None, narrowing: Collection[str],
                   skipped: Collection[str]) -> None:
        """Nothing to record."""

    def filters(self, filters: Filters) -> Filters:
        """The Filter plugins as given."""
        return filters

    def nominated_node_fits(self) -> None:
        """Nothing to record."""

    def filtering_done(self, nodes: Sequence[NodeInfo]) -> None:
        """Nothing to record."""

    def post_filter(self, result: PostFilterResult | None, status: Status) -> None:
        """Nothing to record."""

    def preemption(self, choice: CandidateChoice) -> None:
        """Nothing to record."""

    def score_skipped(self, plugins: Collection[str]) -> None:
        """Nothing to record."""

    def scored(self, plugin: str, nodes: Sequence[str], raw: Sequence[int], normalized: Sequence[int],
               weighted: Sequence[int]) -> None:
        """Nothing to record."""


#: The observer of attempts nobody records.
QUIET: CycleObserver = QuietObserver()

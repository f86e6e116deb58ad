"""Scoring results as the runtime keeps them: one column of weighted scores per plugin over the scored nodes
(:class:`ScoreTable`), the per-node view built only when something asks for it, and the choice of the host."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs
import numpy as np
import numpy.typing as npt

from kubesched.framework._columns import IntArray


@attrs.frozen(slots=True)
class PluginScore:
    """One plugin's contribution to a node's total: the normalised score times the weight."""

    name: str
    score: int


@attrs.frozen(slots=True)
class NodePluginScores:
    """A node's per-plugin weighted scores and their total."""

    name: str
    scores: tuple[PluginScore, ...]
    total_score: int


@attrs.define(slots=True)
class ScoreTable:
    """The result of scoring: one column of weighted scores per plugin over the scored nodes, and totals.

    Kept column-wise so scoring allocates nothing per node; :meth:`node_scores` gives the per-node view.
    """

    #: The scored nodes' names in node order (a list, or a read-only view on the batch path).
    nodes: Sequence[str]
    plugins: list[str] = attrs.field(factory=list)
    #: Per plugin, the weighted scores in node order (lists, or int64 arrays on the batch path).
    columns: list[Sequence[int] | IntArray] = attrs.field(factory=list)
    totals: Sequence[int] | IntArray = attrs.field(factory=list)

    def node_scores(self) -> list[NodePluginScores]:
        """Each node's per-plugin weighted scores and total, in node order."""
        return [NodePluginScores(name, tuple(PluginScore(p, int(col[i])) for p, col in
                                             zip(self.plugins, self.columns, strict=True)),
                                 int(self.totals[i]))
                for i, name in enumerate(self.nodes)]

    def as_lists(self) -> None:
        """Turn array columns into plain lists of ints (for readers that keep the table past the cycle)."""
        self.nodes = list(self.nodes)
        self.columns = [list(map(int, column)) for column in self.columns]
        self.totals = list(map(int, self.totals))


def select_host(table: ScoreTable, rng: random.Random) -> str:
    """The highest-scoring node; ties are broken uniformly by reservoir sampling in node order: the ``count``-th
    tie replaces the choice when ``rng.random() * count < 1`` (one draw per tie after the first, a fixed number of
    words of the generator, so the batch path replays the same draws in one go)."""
    totals = table.totals
    if isinstance(totals, np.ndarray):
        return table.nodes[select_host_index(totals, rng)]
    best = max(totals)
    chosen = -1
    count = 0
    draw = rng.random
    for i, total in enumerate(totals):
        if total == best:
            count += 1
            if count == 1 or draw() * count < 1.0:
                chosen = i
    return table.nodes[chosen]


def select_host_index(totals: npt.NDArray[np.int64], rng: random.Random) -> int:
    """The index select_host picks from ``totals``: the highest, ties broken by the same reservoir draws, consumed
    in one call. ``rng.random()`` is two 32-bit words of the generator, ``X = (a >> 5) * 2**26 + (b >> 6)`` over
    2**53; ``getrandbits(64 * n)`` yields the same ``2 * n`` words in order (``a`` the low half of each 64-bit
    word), so the stream ends where n calls would. The float test ``X / 2**53 * count < 1.0`` is exact (a product
    below 1 is a multiple of 2**-53 below 1, so representable), so it equals ``X < ceil(2**53 / count)``."""
    best = totals.max()
    ties = np.flatnonzero(totals == best)
    draws = len(ties) - 1
    if draws == 0:
        return int(ties[0])
    words = np.frombuffer(rng.getrandbits(64 * draws).to_bytes(8 * draws, "little"), dtype="<u8")
    uniform = ((words & _LOW32) >> _FIVE) << _TWENTY_SIX | words >> _THIRTY_EIGHT
    replaced = np.flatnonzero(uniform < _thresholds(draws))
    return int(ties[replaced[-1] + 1]) if len(replaced) else int(ties[0])


_LOW32, _FIVE, _TWENTY_SIX, _THIRTY_EIGHT = (np.uint64(n) for n in (0xFFFFFFFF, 5, 26, 38))
# ceil(2**53 / count) for count = 2, 3, ...: the integer form of each reservoir draw's test (grown as needed).
_THRESHOLDS: list[npt.NDArray[np.uint64]] = [np.zeros(0, dtype=np.uint64)]


def _thresholds(draws: int) -> npt.NDArray[np.uint64]:
    """The thresholds of the first ``draws`` draws (counts 2 .. draws + 1), a read-only view."""
    known = _THRESHOLDS[0]
    if len(known) < draws:
        size = max(draws, 2 * len(known), 1024)
        known = np.array([-(-(2**53) // count) for count in range(2, size + 2)], dtype=np.uint64)
        known.flags.writeable = False
        _THRESHOLDS[0] = known
    return known[:draws]

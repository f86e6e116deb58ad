"""Per-node results remembered across consecutive pods that ask the same thing ("pods from one template").

A plugin whose batch answer for a node depends only on that node's columns row and a key of the pod (its requests)
can keep the answers in the columns' :class:`~kubesched.framework.NodeRows`, which forget a node as soon as its pods
or Node object change. The next pod with the same key then recomputes only the nodes changed since (usually the one
the previous pod went to) and reads the rest: the answers are those of the computation itself, so no decision moves.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np
import numpy.typing as npt

from kubesched.framework import NodeColumns

IntArray = npt.NDArray[np.int64]
#: Up to this many unknown nodes are worked out one by one (the per-node form), more in one batch call.
_ONE_BY_ONE = 16


class NodeMemo:
    """One plugin's remembered per-node answers, under a key of the pod. Rows are kept only once the same key comes
    twice in a row, so a stream of pods that all differ pays nothing for rows nobody reads again."""

    __slots__ = ("_last", "_token")

    def __init__(self) -> None:
        # The rows' key in the columns: unique to this memo (never equal to another plugin's or another instance's).
        self._token = object()
        self._last: Hashable = None

    def read(self, columns: NodeColumns, key: Hashable, positions: IntArray,
             batch: Callable[[IntArray], IntArray], one: Callable[[int], int]) -> IntArray | None:
        """The answers at ``positions`` (as given, or the columns' every position), in that order; unknown ones are
        computed by ``batch(positions)`` or, when few, ``one(position)``. None when ``key`` is not the previous
        call's: the caller then computes as without a memo."""
        if key != self._last:
            self._last = key
            return None
        rows = columns.node_rows((self._token, key), 1)
        known = rows.known
        values = rows.numbers.reshape(-1)  # a view: one number per node
        every = positions is columns.all_positions()
        if every:
            if known.all():
                return values.copy()
            missing = np.flatnonzero(~known)
        else:
            here = known[positions]
            if here.all():
                return values[positions]
            missing = positions[~here]
        if len(missing) <= _ONE_BY_ONE:
            for position in missing.tolist():
                values[position] = one(position)
        else:
            values[missing] = batch(missing)
        known[missing] = True
        return values.copy() if every else values[positions]

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

from kubesched.framework import NodeColumns, NodeRows

IntArray = npt.NDArray[np.int64]
#: Up to this many unknown nodes are worked out one by one (the per-node form), more in one batch call.
_ONE_BY_ONE = 16


class NodeMemo:
    """One plugin's remembered per-node answers, under a key of the pod. Rows are kept only once the same key comes
    twice in a row, so a stream of pods that all differ pays nothing for rows nobody reads again."""

    __slots__ = ("_last", "_nonzero", "_rows", "_token")

    def __init__(self) -> None:
        # The rows' key in the columns: unique to this memo (never equal to another plugin's or another instance's).
        self._token = object()
        self._last: Hashable = None
        # The rows last read over every node and how many of their known answers are non-zero.
        self._rows: NodeRows | None = None
        self._nonzero = 0

    @property
    def any_nonzero(self) -> bool:
        """Whether some answer of the last read over every node (that returned answers) is non-zero."""
        return self._nonzero > 0

    def read(self, columns: NodeColumns, key: Hashable, positions: IntArray,
             batch: Callable[[IntArray], IntArray], one: Callable[[int], int]) -> IntArray | None:
        """The answers at ``positions`` (as given, or the columns' every position: then a read-only view), in that
        order; unknown ones are computed by ``batch(positions)`` or, when few, ``one(position)``. None when ``key``
        is not the previous call's: the caller then computes as without a memo."""
        if key != self._last:
            self._last = key
            return None
        rows = columns.node_rows((self._token, key), 1)
        known = rows.known
        values = rows.numbers.reshape(-1)  # a view: one number per node
        every = positions is columns.all_positions()
        if every:
            # After a read over every node, every row is known and counted; a row forgotten since still holds the
            # answer it was counted with. Rows new to this count are counted afresh (their unknown ones as zero).
            counted = rows is self._rows
            forgotten, rows.forgotten = rows.forgotten, []
            if counted and forgotten is not None:  # the unknown rows are among those forgotten: no scan
                unknown = sorted({position for position in forgotten if not known[position]})
                if not unknown:
                    return _read_only(values)
                missing = np.array(unknown, dtype=np.int64)
                self._nonzero -= int(np.count_nonzero(values[missing]))
            else:
                if not counted:
                    self._rows, self._nonzero = rows, int(np.count_nonzero(values[known]))
                if known.all():
                    return _read_only(values)
                missing = np.flatnonzero(~known)
                if counted:
                    self._nonzero -= int(np.count_nonzero(values[missing]))
        else:
            if rows is self._rows:  # rows written here are not counted: count afresh at the next read of every node
                self._rows = None
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
        if not every:
            return values[positions]
        self._nonzero += int(np.count_nonzero(values[missing]))
        return _read_only(values)


def _read_only(values: IntArray) -> IntArray:
    """A view of ``values`` that cannot be written through (the rows stay the memo's)."""
    view = values.view()
    view.flags.writeable = False
    return view

"""The reason counts of a dry run by arithmetic without a status per node: a node it passed over (the pod does not
fit even without its lower-priority pods, or it has none) gets the status Filter gives on the node without those
pods, which for a NodeResourcesFit declaring it reads only resources (``FilterReads.RESOURCES``) depends only on
the amounts left; so one ``select_victims_on_node`` serves every passed-over node with the same amounts. The FitError
message of a preemption that found no candidate reads these (see docs/performance.md, SchedulingWithMixedChurn)."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework._columns import IntArray
from kubesched.framework._status import Status
from kubesched.runtime._columns import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, ColumnStore

#: A node's status as the Evaluator's ``select_victims_on_node`` gives it, by its index in the dry run's order.
StatusAt = Callable[[int], Status]


class PassedOver:
    """Per node of a dry run, in its order: whether it was passed over (no status built) and its key, the nodes of
    one key having equal statuses: 0 for a node without lower-priority pods (the Evaluator's own status), else its
    pod count, requested and allocatable amounts without those pods (the nominated pods counted)."""

    def __init__(self, columns: ColumnStore) -> None:
        self._columns = columns
        self._passed: list[npt.NDArray[np.bool_]] = []
        self._keys: list[IntArray] = []

    @staticmethod
    def of(columns: ColumnStore) -> PassedOver | None:
        """A recorder over ``columns``, or None when some node has an extended or scalar resource (the amounts
        compared here are the native ones)."""
        if columns.allocatable.keys() - {CPU, MEMORY, EPHEMERAL_STORAGE, PODS} or \
                columns.requested.keys() - {CPU, MEMORY, EPHEMERAL_STORAGE}:
            return None
        return PassedOver(columns)

    def add(self, passed: npt.NDArray[np.bool_], positions: IntArray, lower: Sequence[IntArray],
            extra: IntArray) -> None:
        """Record a chunk of nodes at column ``positions``: which were passed over, with the lower-priority pods'
        count and sums (``lower``) and the nominated pods' (``extra``) per column position."""
        columns = self._columns
        keys = np.zeros((len(positions), 9), dtype=np.int64)
        chosen = positions[passed]
        removable = lower[0][chosen]
        rows = keys[passed]
        rows[:, 0] = removable > 0
        rows[:, 1] = columns.pod_count[chosen] - removable + extra[0][chosen]
        rows[:, 2] = columns.allocatable[PODS][chosen]
        for k, name in enumerate((CPU, MEMORY, EPHEMERAL_STORAGE), start=1):
            rows[:, 1 + 2 * k] = columns.requested[name][chosen] - lower[k][chosen] + extra[k][chosen]
            rows[:, 2 + 2 * k] = columns.allocatable[name][chosen]
        rows[removable == 0] = 0
        keys[passed] = rows
        self._passed.append(passed)
        self._keys.append(keys)

    def tally(self, stop: int, candidates: Container[int], known: Mapping[int, Status],
              status_at: StatusAt) -> tuple[int, dict[str, int]]:
        """The number of nodes with a status among the first ``stop`` (the candidates have none) and how many
        times each reason occurs in their statuses: ``known`` where given, else one ``status_at`` per key of
        passed-over node, and one per other node."""
        counts: dict[str, int] = {}

        def add(status: Status, times: int) -> None:
            for reason in status.reasons:
                counts[reason] = counts.get(reason, 0) + times

        passed = np.concatenate(self._passed)[:stop] if self._passed else np.zeros(0, dtype=bool)
        indexes = np.flatnonzero(passed)
        if len(indexes):
            keys = np.concatenate(self._keys)[indexes]
            _unique, firsts, sizes = np.unique(keys, axis=0, return_index=True, return_counts=True)
            for first, times in zip(indexes[firsts].tolist(), sizes.tolist(), strict=True):
                add(status_at(first), times)
        count = len(indexes)
        for j in np.flatnonzero(~passed).tolist():
            if j in candidates:
                continue
            status = known.get(j)
            add(status if status is not None else status_at(j), 1)
            count += 1
        return count, counts

"""The reason counts of a dry run by arithmetic without a status per node: the nodes it passed over (the pod does
not fit even without their lower-priority pods, or they have none) share their status with every other such node
short of the same resources, so one ``select_victims_on_node`` per kind of shortfall serves them all. The FitError
message of a preemption that found no candidate reads these (see docs/performance.md, SchedulingWithMixedChurn)."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping

import numpy as np
import numpy.typing as npt

from kubesched.framework._status import Status

#: A node's status as the Evaluator's ``select_victims_on_node`` gives it, by its index in the dry run's order.
StatusAt = Callable[[int], Status]


class PassedOver:
    """Per node of a dry run, in its order: whether it was passed over (no status built) and its kind, the nodes
    of one kind having equal statuses (kind 0: no lower-priority pod; else one plus a bit per resource short)."""

    def __init__(self) -> None:
        self._passed: list[npt.NDArray[np.bool_]] = []
        self._kinds: list[npt.NDArray[np.int64]] = []

    def add(self, passed: npt.NDArray[np.bool_], short: npt.NDArray[np.int64],
            removable: npt.NDArray[np.int64]) -> None:
        """Record a chunk of nodes: which were passed over, their resource shortfall bits and lower-priority pod
        counts."""
        self._passed.append(passed)
        self._kinds.append(np.where(removable > 0, short + 1, 0))

    def tally(self, stop: int, candidates: Container[int], known: Mapping[int, Status],
              status_at: StatusAt) -> tuple[int, dict[str, int]]:
        """The number of nodes with a status among the first ``stop`` (the candidates have none) and how many
        times each reason occurs in their statuses: ``known`` where given, else one ``status_at`` per kind of
        passed-over node, and one per other node."""
        counts: dict[str, int] = {}

        def add(status: Status, times: int) -> None:
            for reason in status.reasons:
                counts[reason] = counts.get(reason, 0) + times

        passed = np.concatenate(self._passed)[:stop] if self._passed else np.zeros(0, dtype=bool)
        kinds = np.concatenate(self._kinds)[:stop] if self._kinds else np.zeros(0, dtype=np.int64)
        indexes = np.flatnonzero(passed)
        _unique, firsts, sizes = np.unique(kinds[indexes], return_index=True, return_counts=True)
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

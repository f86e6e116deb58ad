"""The cluster's room and load per node and resource, kept up to date change by change: the allocation ratios,
their spread over nodes and the fragmentation against a reference pod, at any instant of a run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sortedcontainers import SortedList

from kubesched.analysis.stats import Spread, nearest_rank
from kubesched.api.resources import PODS


def copies_that_fit(free: Mapping[str, int], reference: Mapping[str, int]) -> int:
    """How many copies of a pod requesting ``reference`` fit in ``free``: the fewest over the resources it
    requests of floor(free / request), a pod slot each (resources only: no taint, affinity or port is read)."""
    counts = [max(free.get(name, 0), 0) // amount for name, amount in reference.items() if amount > 0]
    counts.append(max(free.get(PODS, 0), 0))
    return min(counts)


#: Below this, a running variance (or mean) is rounding noise, not spread.
_NOISE = 1e-15


class _ResourceTally:
    """One resource over the nodes that offer it: sums of room and load, and the nodes' ratios (sorted, with
    their sum and sum of squares for the mean, CV and Jain's index)."""

    def __init__(self) -> None:
        self.allocatable = 0
        self.allocated = 0
        self.ratios: SortedList = SortedList()
        # Welford's running mean and sum of squared deviations, updated as ratios come and go: stable where
        # running sums of squares would lose the small variances to rounding.
        self.mean = 0.0
        self.deviations = 0.0

    def add(self, allocatable: int, allocated: int, sign: int) -> None:
        self.allocatable += sign * allocatable
        self.allocated += sign * allocated
        if allocatable > 0:
            ratio = allocated / allocatable
            if sign > 0:
                self.ratios.add(ratio)
            else:
                self.ratios.remove(ratio)
            n = len(self.ratios)
            if n == 0:
                self.mean = self.deviations = 0.0
                return
            delta = ratio - self.mean
            self.mean += sign * delta / n
            self.deviations = max(self.deviations + sign * delta * (ratio - self.mean), 0.0)

    def spread(self) -> Spread:
        n = len(self.ratios)
        if n == 0:
            return Spread(0, 0.0, 0.0, 0.0, 0.0, 0.0)
        mean = self.mean
        variance = self.deviations / n
        if variance < _NOISE:  # what is left of equal ratios after rounding
            variance = 0.0
        cv = variance ** 0.5 / mean if mean > _NOISE else 0.0
        squares = variance + mean * mean  # the mean of the squared ratios
        jain = min(mean * mean / squares, 1.0) if squares > _NOISE else 1.0
        return Spread(n, mean, self.ratios[-1], nearest_rank(self.ratios, 0.95), cv, jain)

    def ratio(self) -> float:
        return self.allocated / self.allocatable if self.allocatable > 0 else 0.0


class ClusterTally:
    """Per node its allocatable and the requests of its pods; per resource the tallies; and, for a reference pod,
    the copies that fit and the room stranded on nodes where none fits."""

    def __init__(self, resources: Iterable[str], reference: Mapping[str, int]) -> None:
        self.resources = list(resources)
        self.reference = dict(reference)
        self.room: dict[str, dict[str, int]] = {}
        self.load: dict[str, dict[str, int]] = {}
        self.tallies = {name: _ResourceTally() for name in self.resources}
        self.copies = 0
        self.nodes_without_room = 0
        self.stranded = dict.fromkeys(self.resources, 0)

    def _account(self, node: str, sign: int) -> None:
        room, load = self.room[node], self.load.get(node, {})
        for name, tally in self.tallies.items():
            tally.add(room.get(name, 0), load.get(name, 0), sign)
        free = {name: room.get(name, 0) - load.get(name, 0) for name in self.resources}
        copies = copies_that_fit(free, self.reference)
        self.copies += sign * copies
        if copies == 0:
            self.nodes_without_room += sign
            for name, amount in free.items():
                self.stranded[name] += sign * max(amount, 0)

    def set_node(self, node: str, allocatable: Mapping[str, int] | None) -> None:
        """A node appears, changes its room, or (None) goes away with whatever load it had."""
        if node in self.room:
            self._account(node, -1)
        if allocatable is None:  # its pods' load stays until they are deleted in turn
            self.room.pop(node, None)
            return
        self.room[node] = dict(allocatable)
        self._account(node, 1)

    def move(self, node: str, requests: Mapping[str, int], sign: int) -> None:
        """A pod is bound to ``node`` (+1) or leaves it (-1); the load of a node not (or no longer) in the cluster
        is kept but counts nowhere, as a NodeInfo without its node."""
        known = node in self.room
        if known:
            self._account(node, -1)
        load = self.load.setdefault(node, {})
        for name, amount in requests.items():
            load[name] = load.get(name, 0) + sign * amount
        if known:
            self._account(node, 1)

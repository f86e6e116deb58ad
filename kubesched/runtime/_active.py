"""activeQ and the pods in flight (kube-scheduler's activeQueue): the pods ready for an attempt in the QueueSort
plugin's order, and, for the pods popped and not done yet, the cluster events they have not seen."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sortedcontainers import SortedList

from kubesched.framework._events import ClusterEvent
from kubesched.framework._node_info import PodInfo
from kubesched.framework._types import QueuedPodInfo

Less = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


class _Ordered:
    """Wraps a QueuedPodInfo so SortedList orders it by the QueueSort plugin, then insertion."""

    __slots__ = ("info", "less")

    def __init__(self, info: QueuedPodInfo, less: Less) -> None:
        self.info = info
        self.less = less

    def __lt__(self, other: _Ordered) -> bool:
        if self.less(self.info, other.info):
            return True
        if self.less(other.info, self.info):
            return False
        return self.info.seq < other.info.seq


class ActiveQueue:
    """The pods ready for an attempt, each once, in the order they pop."""

    def __init__(self, less: Less) -> None:
        self._less = less
        self._sorted = SortedList()
        self._entries: dict[str, _Ordered] = {}

    def push(self, info: QueuedPodInfo) -> None:
        """Add the pod, replacing its entry if it has one (kube-scheduler's AddOrUpdate)."""
        entry = _Ordered(info, self._less)
        replaced = self._entries.get(info.pod.uid)
        if replaced is not None:
            self._sorted.remove(replaced)
        self._entries[info.pod.uid] = entry
        self._sorted.add(entry)

    def pop_first(self) -> QueuedPodInfo | None:
        """Take out the pod that pops first, or None."""
        if not self._sorted:
            return None
        entry: _Ordered = self._sorted.pop(0)
        del self._entries[entry.info.pod.uid]
        return entry.info

    def remove(self, uid: str) -> QueuedPodInfo | None:
        """Take the pod out (None when it is not here)."""
        entry = self._entries.pop(uid, None)
        if entry is None:
            return None
        self._sorted.remove(entry)
        return entry.info

    def update(self, uid: str, pod_info: PodInfo) -> bool:
        """Give the pod its new version and sort it again (it may order differently); False when it is not here."""
        entry = self._entries.get(uid)
        if entry is None:
            return False
        self._sorted.remove(entry)
        entry.info.pod_info = pod_info
        self._sorted.add(entry)
        return True

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The pod, or None."""
        entry = self._entries.get(uid)
        return entry.info if entry is not None else None

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """The pods, in the order they pop."""
        return (entry.info for entry in self._sorted)

    def __contains__(self, uid: object) -> bool:
        return uid in self._entries

    def __len__(self) -> int:
        return len(self._sorted)


class InFlight:
    """The pods being scheduled, and the events received since each was popped, kept until no pod needs them."""

    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        # Events received while pods were in flight: (event, old, new), numbered from _base; each pod's number of
        # the first event it has not seen.
        self._events: list[tuple[ClusterEvent, Any, Any]] = []
        self._base = 0
        self._from: dict[str, int] = {}

    def start(self, info: QueuedPodInfo) -> None:
        """The pod was popped: it sees the events from now on."""
        uid = info.pod.uid
        self._pods[uid] = info
        self._from[uid] = self._base + len(self._events)

    def done(self, uid: str) -> None:
        """The pod's attempt is over: forget it, and the events no pod in flight needs."""
        self._pods.pop(uid, None)
        if self._from.pop(uid, None) is None:
            return
        if not self._from:
            self._base += len(self._events)
            self._events.clear()
            return
        oldest = min(self._from.values())
        if oldest > self._base:
            del self._events[: oldest - self._base]
            self._base = oldest

    def record(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """Keep ``event`` for the pods now in flight; with none in flight nobody needs it."""
        if self._from:
            self._events.append((event, old, new))

    def missed(self, uid: str) -> list[tuple[ClusterEvent, Any, Any]] | None:
        """The events received since the pod was popped, or None when it is not in flight."""
        start = self._from.get(uid)
        return None if start is None else self._events[start - self._base:]

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The pod in flight, or None."""
        return self._pods.get(uid)

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """The pods in flight, in the order they were popped."""
        return iter(self._pods.values())

    def __contains__(self, uid: object) -> bool:
        return uid in self._pods

"""backoffQ: the pods waiting out their backoff, earliest expiry first (kube-scheduler's podBackoffQ)."""

from __future__ import annotations

from collections.abc import Iterator

from sortedcontainers import SortedList

from kubesched.framework._types import QueuedPodInfo


class BackoffQueue:
    """Pods by backoff expiry, ties in the order they were first queued; each pod once."""

    def __init__(self) -> None:
        # (expiry, seq) keys in a SortedList; the pods by seq, and each pod's key by uid.
        self._keys = SortedList()
        self._by_seq: dict[int, QueuedPodInfo] = {}
        self._key_of: dict[str, tuple[float, int]] = {}

    def push(self, info: QueuedPodInfo, expiry: float) -> None:
        """Add a pod the queue does not hold, to leave at ``expiry``."""
        key = (expiry, info.seq)
        self._key_of[info.pod.uid] = key
        self._by_seq[info.seq] = info
        self._keys.add(key)

    def pop(self, uid: str) -> QueuedPodInfo | None:
        """Take the pod out (None when it is not here)."""
        key = self._key_of.pop(uid, None)
        if key is None:
            return None
        self._keys.remove(key)
        info: QueuedPodInfo = self._by_seq.pop(key[1])
        return info

    def pop_expired(self, now: float) -> QueuedPodInfo | None:
        """Take out the pod whose backoff ended earliest, if it ended by ``now``."""
        if not self._keys or self._keys[0][0] > now:
            return None
        return self.pop(self._by_seq[self._keys[0][1]].pod.uid)

    def expired(self, now: float) -> list[QueuedPodInfo]:
        """The pods whose backoff ended by ``now``, earliest first (left in place)."""
        found = []
        for expiry, seq in self._keys:
            if expiry > now:
                break
            found.append(self._by_seq[seq])
        return found

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The pod, or None."""
        key = self._key_of.get(uid)
        return self._by_seq[key[1]] if key is not None else None

    def next_expiry(self) -> float | None:
        """When the earliest backoff ends, or None."""
        return self._keys[0][0] if self._keys else None

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """The pods, earliest expiry first."""
        return (self._by_seq[seq] for _expiry, seq in self._keys)

    def __contains__(self, uid: object) -> bool:
        return uid in self._key_of

    def __len__(self) -> int:
        return len(self._keys)

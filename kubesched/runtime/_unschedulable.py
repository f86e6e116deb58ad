"""The unschedulable pods: pods waiting for a cluster event, gated pods included (kube-scheduler's
unschedulablePods), indexed by the plugins that rejected or gate each so that an event none of them registered
can pass all of them by without a look."""

from __future__ import annotations

from collections.abc import Iterator

from kubesched.framework._types import QueuedPodInfo


class UnschedulablePods:
    """The pods by uid, in the order they came, and the index of their rejecting plugins."""

    def __init__(self) -> None:
        self._pods: dict[str, QueuedPodInfo] = {}
        #: The plugins that rejected or gate each pod, as indexed when it came in.
        self.rejectors_of: dict[str, frozenset[str]] = {}
        #: How many pods each plugin rejected or gates.
        self.rejector_counts: dict[str, int] = {}
        #: How many pods no plugin rejected or gates.
        self.unrejected = 0

    def put(self, info: QueuedPodInfo) -> None:
        """Add the pod, or refresh it, indexed by the plugins that rejected or gate it now."""
        uid = info.pod.uid
        self._unindex(uid)
        plugins = frozenset(info.unschedulable_plugins | info.pending_plugins)
        self.rejectors_of[uid] = plugins
        counts = self.rejector_counts
        for name in plugins:
            counts[name] = counts.get(name, 0) + 1
        self.unrejected += not plugins
        self._pods[uid] = info

    def pop(self, uid: str) -> QueuedPodInfo | None:
        """Take the pod out (None when it is not here: every new pod asks, so that answer comes first)."""
        info = self._pods.pop(uid, None)
        if info is not None:
            self._unindex(uid)
        return info

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The pod, or None."""
        return self._pods.get(uid)

    def none_rejected_by(self, plugins: frozenset[str]) -> bool:
        """Whether every pod here was rejected (or is gated) only by plugins outside ``plugins``."""
        return not self.unrejected and plugins.isdisjoint(self.rejector_counts)

    def _unindex(self, uid: str) -> None:
        plugins = self.rejectors_of.pop(uid, None)
        if plugins is None:
            return
        counts = self.rejector_counts
        for name in plugins:
            left = counts[name] - 1
            if left:
                counts[name] = left
            else:
                del counts[name]
        self.unrejected -= not plugins

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """The pods, in the order they came."""
        return iter(self._pods.values())

    def __contains__(self, uid: object) -> bool:
        return uid in self._pods

    def __len__(self) -> int:
        return len(self._pods)

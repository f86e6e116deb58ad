"""The simulator's settling policy: which queued pods could fare differently on another attempt.

kube-scheduler retries forever; a simulation must end. A pod is worth another attempt when the cluster
changed since its last one, when a binding failure dropped a reservation the pod was refused for (its
scheduling cycle found the room taken), or dropped one held while the pod's own binding cycle failed
(once between cluster changes: pods waiting on Permit could otherwise keep waking each other though
nothing changes), or when its last failure was an error (possibly transient) and it had fewer than
MAX_ERROR_RETRIES errors in a row (rejections while nothing changed do not break the row). A pod with that
many is given up on until the cluster changes: neither the periodic flushes nor a dropped reservation retry
it (pods sharing a claim nothing provisions would otherwise take turns timing out in PreBind for ever).
The scheduler itself knows none of this: the policy follows the cluster as a listener and the attempts
as the scheduler's attempt observer.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.framework._status import Status
from kubesched.framework._types import QueuedPodInfo

#: How often a pod that keeps failing with an Error is retried while nothing else changes.
MAX_ERROR_RETRIES = 5
# How many of the latest attempts are looked at to name the pods a run that cannot settle keeps retrying.
RECENT_ATTEMPTS = 200


class SettlingPolicy:
    """Counts cluster changes (epochs) and remembers, per pod, the epoch of its last attempt and its error streak."""

    def __init__(self) -> None:
        self.epoch = 0
        self._attempt_epoch: dict[str, int] = {}
        # Per pod: whether its last failure was an Error, and its run of Errors (the epoch it began in, how many): a
        # rejection ends the run only once the cluster has changed since it began.
        self._last_error: dict[str, bool] = {}
        self._errors: dict[str, tuple[int, int]] = {}
        # Pods whose last failure was in the binding cycle, and the epoch a dropped reservation last woke each.
        self._failed_binding: set[str] = set()
        self._woken_at: dict[str, int] = {}
        #: Attempts per pod uid over the whole run.
        self.attempts: Counter[str] = Counter()
        self._recent: deque[str] = deque(maxlen=RECENT_ATTEMPTS)

    def worth_retrying(self, info: QueuedPodInfo) -> bool:
        """Whether another attempt of ``info``'s pod could end differently than its last one."""
        uid = info.pod.uid
        if self._attempt_epoch.get(uid, -1) < self.epoch:
            return True
        return self._last_error.get(uid, False) and self._errors_now(uid) < MAX_ERROR_RETRIES

    def _errors_now(self, uid: str) -> int:
        """How many Errors the pod's current run of them holds."""
        return self._errors.get(uid, (-1, 0))[1]

    def _given_up(self, uid: str) -> bool:
        """Whether the pod's run of Errors reached MAX_ERROR_RETRIES and nothing changed since its last attempt."""
        return self._attempt_epoch.get(uid, -1) >= self.epoch and self._errors_now(uid) >= MAX_ERROR_RETRIES

    def still_trying(self, info: QueuedPodInfo) -> bool:
        """False for a pod given up on: its run of Errors reached MAX_ERROR_RETRIES and nothing changed since. The
        periodic flushes leave it where it is, so that the clock moving for another pod (one waiting in PreBind)
        cannot keep retrying it."""
        return not self._given_up(info.pod.uid)

    def recently_attempted(self) -> list[str]:
        """The uids attempted among the latest attempts, most attempted (over the run) first, then first seen."""
        order = list(dict.fromkeys(self._recent))
        return sorted(order, key=lambda uid: -self.attempts[uid])

    # -- the scheduler's attempt observer --------------------------------------------------------------
    def attempt_started(self, pod: Pod) -> None:
        """A pod was popped: it has now seen the cluster as of the current epoch."""
        self._attempt_epoch[pod.uid] = self.epoch
        self.attempts[pod.uid] += 1
        self._recent.append(pod.uid)

    def attempt_failed(self, pod: Pod, status: Status, *, binding_cycle: bool) -> None:
        """An Error lengthens the pod's run of Errors; a rejection ends it if the cluster changed since it began
        (rejections while nothing changes, between errors, do not restart the count)."""
        uid = pod.uid
        error = not status.is_rejected()
        self._last_error[uid] = error
        began, count = self._errors.get(uid, (self.epoch, 0))
        if error:
            self._errors[uid] = (began if count else self.epoch, count + 1)
        elif count and began != self.epoch:
            del self._errors[uid]
        if binding_cycle:
            self._failed_binding.add(pod.uid)
        else:
            self._failed_binding.discard(pod.uid)

    def assumed_pod_forgotten(self, pod: Pod, woken: Sequence[Pod]) -> None:
        """A failed binding is no cluster change: only the pods that failed while it held its room may fare
        better (those that failed in their own binding cycle once per epoch); the pod itself, having seen the
        cluster with its own reservation, waits for other changes."""
        self._attempt_epoch[pod.uid] = self.epoch
        for other in woken:
            if self._given_up(other.uid):
                continue  # pods waiting on each other's failing bindings would otherwise wake each other for ever
            if other.uid in self._failed_binding:
                if self._woken_at.get(other.uid) == self.epoch:
                    continue
                self._woken_at[other.uid] = self.epoch
            self._attempt_epoch[other.uid] = -1

    # -- the cluster's listener --------------------------------------------------------------------------
    def on_node_add(self, node: Node) -> None:
        """A node joined: a change."""
        self.epoch += 1

    def on_node_update(self, node: Node) -> None:
        """A node changed: a change."""
        self.epoch += 1

    def on_node_delete(self, name: str) -> None:
        """A node left: a change."""
        self.epoch += 1

    def on_pod_add(self, pod: Pod) -> None:
        """An assigned pod appeared: a change (pending pods change nothing for the others)."""
        if pod.spec.node_name:
            self.epoch += 1

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        """A pod was bound or an assigned pod changed: a change."""
        if new.spec.node_name:
            self.epoch += 1

    def on_pod_delete(self, pod: Pod) -> None:
        """An assigned pod is gone: a change."""
        if pod.spec.node_name:
            self.epoch += 1

    def on_storage_change(self, old: object, new: object) -> None:
        """A PersistentVolume, claim, StorageClass or CSI object changed (a claim bound, a volume provisioned): a
        change."""
        if old != new:
            self.epoch += 1

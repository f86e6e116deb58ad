"""Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.

A candidate tries every retry period to take the Lease when it is free or expired, and the leader renews it every
retry period. Expiry is judged on the local clock from when this process last saw the record change (never on
the holder's timestamps, so clock skew between machines does not matter). A leader that fails to renew for the
renew deadline steps down; on shutdown it releases the Lease (holder cleared, duration 1 s) so a standby takes
over at once.

A leader's Lease is *proven current* for the renew deadline after the start of its last successful renew: a
standby's expiry clock starts no earlier than that request reached the server, so it cannot take the Lease before
that start plus the lease duration, and the difference (5 s with the defaults) is the margin. Every request of a
renew attempt is bounded by the time left before the renew deadline (never a client's 30 s default), so the
leader steps down at the deadline, not half a minute later.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from urllib.parse import quote

import attrs

from kubesched.kube.rest import ApiError, KubeApi, Obj

log = logging.getLogger(__name__)


@attrs.frozen
class LeaderElectionSettings:
    """kube-scheduler's defaults: lease duration 15 s, renew deadline 10 s, retry period 2 s."""

    namespace: str = "kube-system"
    name: str = "kubesched"
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0


def _micro_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector(threading.Thread):
    """Acquires and renews the Lease; :attr:`leading` is set while this process holds it, :attr:`lost` once it
    stopped holding it after having led."""

    def __init__(self, api: KubeApi, identity: str, settings: LeaderElectionSettings,
                 stopping: threading.Event) -> None:
        super().__init__(name="leader-elector", daemon=True)
        self.api = api
        self.identity = identity
        self.settings = settings
        self.stopping = stopping
        self.leading = threading.Event()
        self.lost = threading.Event()
        self._observed: tuple[str, str] | None = None
        self._observed_at = 0.0
        self._last_renew = 0.0
        self._lease: Obj | None = None

    @property
    def path(self) -> str:
        """The Lease's path."""
        s = self.settings
        return f"/apis/coordination.k8s.io/v1/namespaces/{quote(s.namespace)}/leases/{quote(s.name)}"

    def renewal_overdue(self) -> bool:
        """Whether the leader has gone past its renew deadline without renewing (for /healthz)."""
        return self.leading.is_set() and self.lease_time_left() <= 0

    def lease_time_left(self) -> float:
        """Seconds this process's leadership stays proven current (the renew deadline after the start of its last
        successful renew); 0 when it does not lead."""
        if not self.leading.is_set():
            return 0.0
        return max(0.0, self._last_renew + self.settings.renew_deadline - time.monotonic())

    def lease_current(self) -> bool:
        """Whether this process leads and its last successful renew started less than the renew deadline ago: the
        scheduling loop and every write check it, so nothing is bound once a standby could hold the Lease."""
        return self.lease_time_left() > 0

    def try_acquire_or_renew(self, deadline: float | None = None) -> bool:
        """One attempt to take or renew the Lease, each request bounded by the time left before ``deadline``
        (monotonic; the renew deadline when None); True when this process holds it afterwards."""
        s = self.settings
        until = time.monotonic() + s.renew_deadline if deadline is None else deadline
        now = datetime.now(UTC)
        spec: Obj = {"holderIdentity": self.identity, "leaseDurationSeconds": round(s.lease_duration),
                     "renewTime": _micro_time(now)}

        def timeout() -> float:
            left = until - time.monotonic()
            if left <= 0:
                raise ApiError(0, "Timeout", f"renew deadline of {s.renew_deadline:g} s reached")
            return min(left, 30.0)

        try:
            lease = self.api.request("GET", self.path, timeout=timeout())
        except ApiError as error:
            if error.status != 404:
                log.warning("could not read lease %s/%s: %s", s.namespace, s.name, error)
                return False
            spec.update(acquireTime=_micro_time(now), leaseTransitions=0)
            body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": s.name, "namespace": s.namespace}, "spec": spec}
            try:
                self._lease = self.api.request("POST", self.path.rsplit("/", 1)[0], body=body, timeout=timeout())
            except ApiError as create_error:
                log.info("could not create lease %s/%s: %s", s.namespace, s.name, create_error)
                return False
            self._observe(self._lease)
            return True
        current = lease.get("spec") or {}
        self._observe(lease)
        holder = current.get("holderIdentity") or ""
        if holder and holder != self.identity and \
                time.monotonic() < self._observed_at + float(current.get("leaseDurationSeconds") or s.lease_duration):
            return False
        if holder == self.identity:
            spec["acquireTime"] = current.get("acquireTime") or _micro_time(now)
            spec["leaseTransitions"] = current.get("leaseTransitions") or 0
        else:
            spec["acquireTime"] = _micro_time(now)
            spec["leaseTransitions"] = int(current.get("leaseTransitions") or 0) + (1 if holder else 0)
        try:
            self._lease = self.api.request("PUT", self.path, body={**lease, "spec": spec}, timeout=timeout())
        except ApiError as error:
            log.info("could not update lease %s/%s: %s", s.namespace, s.name, error)
            return False
        self._observe(self._lease)
        return True

    def _observe(self, lease: Obj) -> None:
        spec = lease.get("spec") or {}
        record = (str(spec.get("holderIdentity") or ""), str(spec.get("renewTime") or ""))
        if record != self._observed:
            self._observed = record
            self._observed_at = time.monotonic()

    def run(self) -> None:
        """Acquire, then renew until renewal fails past the deadline or the process stops."""
        s = self.settings
        log.info("attempting to acquire leader lease %s/%s as %s", s.namespace, s.name, self.identity)
        while not self.stopping.is_set():
            started = time.monotonic()
            if self.try_acquire_or_renew():
                break
            self.stopping.wait(s.retry_period)
        else:
            return
        self._last_renew = started
        log.info("successfully acquired lease %s/%s", s.namespace, s.name)
        self.leading.set()
        while not self.stopping.wait(s.retry_period):
            # As client-go: retry every retry period until the renew deadline, each attempt bounded by it.
            deadline = self._last_renew + s.renew_deadline
            while not self.stopping.is_set():
                started = time.monotonic()
                if started < deadline and self.try_acquire_or_renew(deadline):
                    self._last_renew = started
                    break
                if time.monotonic() >= deadline:
                    log.error("failed to renew lease %s/%s within %g s: stepping down", s.namespace, s.name,
                              s.renew_deadline)
                    self.leading.clear()
                    self.lost.set()
                    return
                self.stopping.wait(min(s.retry_period, max(0.0, deadline - time.monotonic())))

    def release(self) -> None:
        """Give the Lease up (holder cleared, duration 1 s) if this process holds it."""
        if not self.leading.is_set() or self._lease is None:
            return
        self.leading.clear()
        now = _micro_time(datetime.now(UTC))
        spec = {**(self._lease.get("spec") or {}), "holderIdentity": None, "leaseDurationSeconds": 1,
                "renewTime": now, "acquireTime": now}
        try:
            self.api.request("PUT", self.path, body={**self._lease, "spec": spec}, timeout=5.0)
            log.info("released lease %s/%s", self.settings.namespace, self.settings.name)
        except ApiError as error:
            log.warning("could not release lease: %s", error)

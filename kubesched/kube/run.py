"""The ``kubesched run`` loop: informers in, scheduling cycles, binds out; leader election and graceful shutdown.

Reflector threads only enqueue; this loop alone applies their output to the stores and the scheduler, pops pods
and runs their cycles (binding inline, so a bind is never left half done), so the runtime needs no locks. Before
scheduling it waits for every informer's first list; with leader election only the Lease holder schedules, and
one that loses the Lease exits with status 1 (as kube-scheduler does) for its Deployment to restart it; it stops
scheduling and binding the moment its Lease can no longer be proven current (see leader.py), before it steps
down. SIGTERM stops taking pods, lets the current cycle finish (for at most the shutdown grace: a plugin that
never returns does not hold the process), flushes events and releases the Lease. /healthz and /readyz fail when
the loop has not come round for the stall timeout (a cycle stuck in a plugin), so a liveness probe restarts it.
"""

from __future__ import annotations

import logging
import os
import queue
import random
import signal
import socket
import threading
import time
import uuid
from types import FrameType

import attrs

from kubesched.kube.cluster import KubeCluster
from kubesched.kube.events import EventRecorder
from kubesched.kube.informer import RESOURCES, Delta, Reflector, Replace
from kubesched.kube.leader import LeaderElectionSettings, LeaderElector
from kubesched.kube.reach import wait_until_reachable
from kubesched.kube.rest import KubeApi
from kubesched.kube.server import HealthServer
from kubesched.metrics.prometheus import registry_for
from kubesched.profiles import SchedulerConfiguration
from kubesched.runtime import PluginRegistry, Scheduler

log = logging.getLogger("kubesched")

#: kube-scheduler flushes pods that sat unschedulable for over 5 minutes, every 30 seconds.
LEFTOVER_PERIOD = 30.0
#: A pod this process bound that the informer has not shown bound after this long is forgotten and requeued.
ASSUMED_POD_TTL = 30.0
IDLE_WAIT = 0.5
EXIT_LOST_LEASE = 1
#: How long kubesched run tries to reach the API server at start-up before it gives up (``--api-timeout``).
API_TIMEOUT = 30.0
#: How long the loop may go without coming round before /healthz and /readyz fail (``--stall-timeout``).
STALL_TIMEOUT = 60.0
#: How long after SIGTERM the current cycle may take before the process exits without it.
SHUTDOWN_GRACE = 10.0
EXIT_UNFINISHED = 1


@attrs.frozen
class RunOptions:
    """``kubesched run``'s flags."""

    kubeconfig: str | None = None
    leader_elect: bool = False
    lease: LeaderElectionSettings = attrs.field(factory=LeaderElectionSettings)
    metrics_bind_address: str = "127.0.0.1:10259"
    assumed_pod_ttl: float = ASSUMED_POD_TTL
    api_timeout: float = API_TIMEOUT
    keep_trying: bool = False
    stall_timeout: float = STALL_TIMEOUT
    shutdown_grace: float = SHUTDOWN_GRACE


class Runner:
    """One scheduler process against one API server."""

    def __init__(self, api: KubeApi, config: SchedulerConfiguration, registry: PluginRegistry,
                 options: RunOptions) -> None:
        self.api = api
        self.options = options
        self.identity = f"{socket.gethostname()}_{uuid.uuid4()}"
        self.stopping = threading.Event()
        self.inbox: queue.Queue[Replace | Delta] = queue.Queue()
        self.recorder = EventRecorder(api, self.identity)
        self.cluster = KubeCluster(api, self.recorder)
        self.scheduler = Scheduler(config.profiles, registry, client=self.cluster, clock=self.cluster,
                                   rng=random.Random(), settings=config.settings)
        self.cluster.listener = self.scheduler.events
        self.reflectors = [Reflector(api, r, self.inbox, self.stopping) for r in RESOURCES]
        self.elector = LeaderElector(api, self.identity, options.lease, self.stopping) if options.leader_elect \
            else None
        if self.elector is not None:
            self.cluster.guard.time_left = self.elector.lease_time_left
        self.synced = False
        #: When the loop last came round (monotonic); /healthz fails when it is older than the stall timeout.
        self.heartbeat = time.monotonic()
        self._signals = 0
        # The scheduler's own metrics (the ones `simulate` reports), served from a private registry.
        self.server = HealthServer(options.metrics_bind_address, registry_for(self.scheduler.metrics), self._health,
                                   self._ready)

    def _health(self) -> str:
        if self.elector is not None and self.elector.renewal_overdue():
            return "leaderElection failed: the lease was not renewed within the renew deadline"
        stalled = time.monotonic() - self.heartbeat
        if stalled > self.options.stall_timeout:
            return (f"scheduling loop stalled: no cycle finished for {stalled:.0f} s (more than the "
                    f"{self.options.stall_timeout:g} s stall timeout; a plugin call may never return)")
        return ""

    def _ready(self) -> str:
        return self._health() or ("" if self.synced else "informers not synced")

    # -- the loop ------------------------------------------------------------------------------------
    def run(self) -> int:
        """Run until SIGTERM/SIGINT (exit status 0) or a lost Lease (1)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        self.server.start()
        if not wait_until_reachable(self.api, self.options.api_timeout, self.options.keep_trying, self.stopping):
            self.server.stop()
            return 0
        self.heartbeat = time.monotonic()
        self.recorder.start()
        for reflector in self.reflectors:
            reflector.start()
        log.info("kubesched %s: serving /healthz, /readyz, /metrics on %s", self.identity,
                 self.options.metrics_bind_address)
        try:
            return self._run()
        finally:
            self._shutdown()

    def _beat(self) -> None:
        self.heartbeat = time.monotonic()

    def _run(self) -> int:
        while not self.stopping.is_set() and not all(r.synced.is_set() for r in self.reflectors):
            self._beat()
            self._drain(IDLE_WAIT)
        self._drain(0)
        self.synced = True
        log.info("caches synced: %d node(s), %d pod(s)", len(self.cluster.stores["Node"]),
                 len(self.cluster.stores["Pod"]))
        if self.elector is not None:
            self.elector.start()
        last_leftover = time.monotonic()
        scheduler = self.scheduler
        lapsed = False
        while not self.stopping.is_set():
            self._beat()
            if self.elector is not None and not self.elector.lease_current():
                if (self.elector.leading.is_set() or self.elector.lost.is_set()) and not lapsed:
                    lapsed = True  # the guard refuses every write from the lapse on; the elector steps down
                    log.error("leader lease not renewed within %g s: stopped scheduling and binding",
                              self.options.lease.renew_deadline)
                if self.elector.lost.is_set():
                    log.error("leader election lost: exiting")
                    return EXIT_LOST_LEASE
                self._drain(min(IDLE_WAIT, self.options.lease.retry_period / 4))
                continue
            self._drain(0)
            now = time.monotonic()
            scheduler.queue.flush_backoff_completed()
            if now - last_leftover >= LEFTOVER_PERIOD:
                scheduler.queue.flush_unschedulable_leftover()
                last_leftover = now
            scheduler.process_waiting_pods()
            self._expire_assumed(now)
            if scheduler.schedule_one():
                continue
            self._drain(self._idle_wait(now))
        return 0

    def _idle_wait(self, now: float) -> float:
        """How long to wait for news when nothing is active: until the next backoff expiry or Permit timeout."""
        times = [t for t in (self.scheduler.queue.next_backoff_expiry(), self.scheduler.next_wakeup())
                 if t is not None]
        return max(0.0, min([IDLE_WAIT, *(t - now for t in times)]))

    def _drain(self, wait: float) -> None:
        """Apply every queued informer item, waiting up to ``wait`` seconds for the first."""
        try:
            item = self.inbox.get(timeout=wait) if wait > 0 else self.inbox.get_nowait()
        except queue.Empty:
            return
        while True:
            self.cluster.apply(item)
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return

    def _expire_assumed(self, now: float) -> None:
        """Forget pods bound long ago that the informer never showed bound, and queue them again if still there."""
        for uid, (node, when) in list(self.cluster.bound.items()):
            if now - when < self.options.assumed_pod_ttl:
                continue
            del self.cluster.bound[uid]
            entry = self.cluster.stores["Pod"].get(uid)
            cached = self.scheduler.cache.get_pod(uid)
            if cached is not None and self.scheduler.cache.is_assumed_pod(cached):
                log.warning("pod %s bound to %s never showed up bound: forgetting it", cached.key, node)
                self.scheduler.cache.forget_pod(cached)
                if entry is not None and not entry[1].spec.node_name:
                    self.scheduler.events.on_pod_add(entry[1])

    # -- shutdown ------------------------------------------------------------------------------------
    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        self._signals += 1
        if self._signals > 1:
            log.warning("received %s again: exiting now", name)
            self._exit_now()
        log.info("received %s: finishing the current cycle and shutting down", name)
        self.stopping.set()
        threading.Thread(target=self._grace, name="shutdown-grace", daemon=True).start()

    def _grace(self) -> None:
        """Exit without the current cycle when it has not finished within the shutdown grace (a busy plugin)."""
        time.sleep(self.options.shutdown_grace)
        log.error("the current cycle did not finish within %g s of the signal: exiting without it",
                  self.options.shutdown_grace)
        self._exit_now()

    def _exit_now(self) -> None:
        """Release the Lease (bounded) and end the process at once, whatever the main thread is doing."""
        if self.elector is not None:
            self.elector.release()
        for handler in logging.getLogger().handlers:
            handler.flush()
        os._exit(EXIT_UNFINISHED)

    def _shutdown(self) -> None:
        self.stopping.set()
        deadline = time.monotonic() + 5.0
        while self.recorder.pending.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.elector is not None:
            self.elector.release()
        self.server.stop()
        log.info("stopped")

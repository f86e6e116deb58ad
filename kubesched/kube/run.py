"""The ``kubesched run`` loop: informers in, scheduling cycles, binds out; leader election and graceful shutdown.

Reflector threads only enqueue; this loop alone applies their output to the stores and the scheduler, pops pods
and runs their cycles (binding inline, so a bind is never left half done), so the runtime needs no locks. Before
scheduling it waits for every informer's first list; with leader election only the Lease holder schedules, and
one that loses the Lease exits with status 1 (as kube-scheduler does) for its Deployment to restart it. SIGTERM
stops taking pods, lets the current cycle finish, flushes events and releases the Lease.
"""

from __future__ import annotations

import logging
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


@attrs.frozen
class RunOptions:
    """``kubesched run``'s flags."""

    kubeconfig: str | None = None
    leader_elect: bool = False
    lease: LeaderElectionSettings = attrs.field(factory=LeaderElectionSettings)
    metrics_bind_address: str = "127.0.0.1:10259"
    assumed_pod_ttl: float = ASSUMED_POD_TTL


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
        self.synced = False
        # The scheduler's own metrics (the ones `simulate` reports), served from a private registry.
        self.server = HealthServer(options.metrics_bind_address, registry_for(self.scheduler.metrics), self._health,
                                   self._ready)

    def _health(self) -> str:
        if self.elector is not None and self.elector.renewal_overdue():
            return "leaderElection failed: the lease was not renewed within the renew deadline"
        return ""

    def _ready(self) -> str:
        return self._health() or ("" if self.synced else "informers not synced")

    # -- the loop ------------------------------------------------------------------------------------
    def run(self) -> int:
        """Run until SIGTERM/SIGINT (exit status 0) or a lost Lease (1)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        self.server.start()
        self.recorder.start()
        for reflector in self.reflectors:
            reflector.start()
        log.info("kubesched %s: serving /healthz, /readyz, /metrics on %s", self.identity,
                 self.options.metrics_bind_address)
        try:
            return self._run()
        finally:
            self._shutdown()

    def _run(self) -> int:
        while not self.stopping.is_set() and not all(r.synced.is_set() for r in self.reflectors):
            self._drain(IDLE_WAIT)
        self._drain(0)
        self.synced = True
        log.info("caches synced: %d node(s), %d pod(s)", len(self.cluster.stores["Node"]),
                 len(self.cluster.stores["Pod"]))
        if self.elector is not None:
            self.elector.start()
        last_leftover = time.monotonic()
        scheduler = self.scheduler
        while not self.stopping.is_set():
            if self.elector is not None and not self.elector.leading.is_set():
                if self.elector.lost.is_set():
                    log.error("leader election lost: exiting")
                    return EXIT_LOST_LEASE
                self._drain(IDLE_WAIT)
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
        log.info("received %s: finishing the current cycle and shutting down", signal.Signals(signum).name)
        self.stopping.set()

    def _shutdown(self) -> None:
        self.stopping.set()
        deadline = time.monotonic() + 5.0
        while self.recorder.pending.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.elector is not None:
            self.elector.release()
        self.server.stop()
        log.info("stopped")

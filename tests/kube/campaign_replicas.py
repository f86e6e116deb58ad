"""The fault campaign's scheduler replicas: `kubesched run --leader-elect` processes, each behind its own
:class:`~tests.kube.proxy.BlackholeProxy` (so one can be cut off), restarted as a new standby when one exits, as a
Deployment's ReplicaSet would restart it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import attrs

from kubesched.kube.rest import ApiError, KubeApi
from kubesched.testing.kube import ControlPlane, free_port
from tests.kube.helpers import REPO
from tests.kube.proxy import BlackholeProxy

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
_AS = "leader lease kube-system/kubesched as "


@attrs.frozen
class Timings:
    """The replicas' leader-election timings (short, so a campaign sees many takeovers quickly)."""

    lease_duration: float = 6.0
    renew_deadline: float = 4.0
    retry_period: float = 1.0

    def flags(self) -> tuple[str, ...]:
        """``kubesched run``'s flags for these timings."""
        return ("--leader-elect", "--leader-elect-lease-duration", f"{self.lease_duration:g}s",
                "--leader-elect-renew-deadline", f"{self.renew_deadline:g}s",
                "--leader-elect-retry-period", f"{self.retry_period:g}s")


@attrs.frozen
class Exit:
    """A replica process that ended: which, how, and whether the campaign killed it."""

    log: str
    status: int
    killed: bool
    lost_lease: bool


class Replica:
    """One slot of the Deployment: its current process, log, metrics port and proxy."""

    def __init__(self, plane: ControlPlane, folder: Path, slot: int, identity: str, timings: Timings) -> None:
        self.plane = plane
        self.folder = folder
        self.slot = slot
        self.identity = identity
        self.timings = timings
        self.generation = 0
        self.killed = False
        self.process: subprocess.Popen[bytes] | None = None
        self.proxy: BlackholeProxy | None = None
        self.log = folder / "unstarted.log"
        self.port = 0

    def start(self) -> None:
        """A new process (a new identity in the Lease) behind a new proxy."""
        self.generation += 1
        self.killed = False
        self.proxy = BlackholeProxy(self.plane.port)
        kubeconfig = self.proxy.kubeconfig(self.plane.kubeconfig(self.identity),
                                           self.folder / f"replica-{self.slot}.kubeconfig")
        self.port = free_port()
        self.log = self.folder / f"replica-{self.slot}-{self.generation}.log"
        paths = [str(REPO), os.environ.get("PYTHONPATH")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kubesched", "run", "--kubeconfig", str(kubeconfig),
                 "--metrics-bind-address", f"127.0.0.1:{self.port}", *self.timings.flags()],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=REPO)

    def text(self) -> str:
        """Everything the current process logged so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def lease_identity(self) -> str:
        """The identity the current process puts in the Lease ("" until it logged it)."""
        text = self.text()
        return text.split(_AS, 1)[1].split()[0] if _AS in text else ""

    def running(self) -> bool:
        """Whether the current process is alive."""
        return self.process is not None and self.process.poll() is None

    def healthy(self) -> bool:
        """Whether /healthz answers 200."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def kill(self) -> None:
        """SIGKILL the current process (the campaign's doing: its exit is expected)."""
        if self.process is not None and self.running():
            self.killed = True
            self.process.kill()
            self.process.wait(15)

    def pause(self, paused: bool) -> None:
        """SIGSTOP or SIGCONT the current process."""
        if self.process is not None and self.running():
            os.kill(self.process.pid, signal.SIGSTOP if paused else signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM (SIGKILL after 15 s) and close the proxy."""
        if self.process is not None and self.running():
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
        if self.proxy is not None:
            self.proxy.close()

    def ended(self) -> Exit | None:
        """The current process's exit, once it ended (None while it runs)."""
        if self.process is None or self.process.poll() is None:
            return None
        return Exit(self.log.name, self.process.returncode, self.killed, "leader election lost" in self.text())


class Deployment:
    """Two replicas; a supervisor thread restarts any that exits and remembers each exit."""

    def __init__(self, plane: ControlPlane, folder: Path, timings: Timings, admin: KubeApi) -> None:
        self.admin = admin
        self.timings = timings
        self.replicas = [Replica(plane, folder, slot, identity, timings)
                         for slot, identity in enumerate(("kubesched", "kubesched-2"))]
        self.exits: list[Exit] = []
        self.lock = threading.RLock()
        self._stopping = threading.Event()
        self._supervisor = threading.Thread(target=self._supervise, name="supervisor", daemon=True)

    def start(self) -> None:
        """Start both replicas and the supervisor."""
        for replica in self.replicas:
            replica.start()
        self._supervisor.start()

    def _supervise(self) -> None:
        while not self._stopping.wait(0.2):
            with self.lock:
                for replica in self.replicas:
                    ended = replica.ended()
                    if ended is not None and not self._stopping.is_set():
                        self.exits.append(ended)
                        if replica.proxy is not None:
                            replica.proxy.close()
                        replica.start()

    def holder(self) -> str:
        """The Lease's holder identity ("" when free, unreadable or missing)."""
        try:
            spec = self.admin.get(LEASE).get("spec") or {}
        except ApiError:
            return ""
        return str(spec.get("holderIdentity") or "")

    def leader(self) -> Replica | None:
        """The running replica that holds the Lease, if any."""
        holder = self.holder()
        with self.lock:
            return next((r for r in self.replicas if holder and r.running() and r.lease_identity() == holder), None)

    def wait_leader(self, timeout: float) -> Replica:
        """The leader, waiting up to ``timeout`` seconds for one to hold the Lease."""
        deadline = time.monotonic() + timeout
        while True:
            leader = self.leader()
            if leader is not None:
                return leader
            if time.monotonic() > deadline:
                raise TimeoutError(f"no running replica held the Lease within {timeout:g} s")
            time.sleep(0.2)

    def stop(self) -> None:
        """Stop the supervisor, then every replica (their proxies closed)."""
        self._stopping.set()
        self._supervisor.join(5)
        with self.lock:
            for replica in self.replicas:
                replica.stop()
                ended = replica.ended()
                if ended is not None and ended.status not in (0, -signal.SIGTERM):
                    self.exits.append(ended)

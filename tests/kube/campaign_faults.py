"""The faults the campaign injects into a running control plane and its two scheduler replicas, each bounded."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.testing.kube import ControlPlane
from tests.kube.campaign_pods import NAMESPACE, Creator
from tests.kube.campaign_replicas import Deployment
from tests.kube.helpers import compact_etcd

FAULTS = ("apiserver-restart", "etcd-restart", "relist-410", "leader-sigkill", "leader-cut")
#: How long a replica may take to start, sync and lead on a loaded machine, and the API server to come back.
BOUND = 90.0


def _until(what: str, probe: Callable[[], bool], timeout: float = BOUND) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not happen within {timeout:g} s")
        time.sleep(0.2)


def _answers(admin: KubeApi) -> bool:
    try:
        admin.get("/api/v1/nodes", limit=1)
        return True
    except ApiError:
        return False


class Injector:
    """Injects the named faults; each returns a one-line account of what it did."""

    def __init__(self, plane: ControlPlane, admin: KubeApi, deployment: Deployment, creator: Creator,
                 rng: random.Random) -> None:
        self.plane = plane
        self.admin = admin
        self.deployment = deployment
        self.creator = creator
        self.rng = rng
        #: Huge pods the campaign deleted while a replica was not watching (the relist must forget them).
        self.deleted: list[str] = []

    def inject(self, fault: str) -> str:
        """Inject ``fault`` (one of :data:`FAULTS`) and wait until the system is back to a leader."""
        account = getattr(self, "_" + fault.replace("-", "_"))()
        assert isinstance(account, str)
        self.deployment.wait_leader(BOUND)
        return account

    def _restart_apiserver(self, down: float) -> None:
        self.plane.stop_apiserver()
        time.sleep(down)
        self.plane.start_apiserver()

    def _apiserver_restart(self) -> str:
        down = round(self.rng.uniform(0.5, 3.0), 1)
        self._restart_apiserver(down)
        return f"kube-apiserver stopped, down {down:g} s, restarted"

    def _etcd_restart(self) -> str:
        down = round(self.rng.uniform(0.5, 3.0), 1)
        self.plane.stop_etcd()
        time.sleep(down)
        self.plane.start_etcd()
        _until("the API server answering again after etcd's restart", lambda: _answers(self.admin))
        return f"etcd stopped, down {down:g} s, restarted (data kept)"

    def _relist_410(self) -> str:
        leader = self.deployment.wait_leader(BOUND)
        behind = next(r for r in self.deployment.replicas if r is not leader)
        _until(f"{behind.log.name} to sync", lambda: "caches synced" in behind.text())
        with self.deployment.lock:
            behind.pause(True)
        try:  # its watches end; what changes meanwhile it can only learn by relisting after the compaction
            self._restart_apiserver(0.5)
            time.sleep(2.0)
            with self.creator.lock:
                huge = [n for n in self.creator.created if n in self.creator.workload.huge()]
            for name in self.rng.sample(huge, min(3, len(huge))):
                try:
                    self.admin.request("DELETE", pod_path(NAMESPACE, name), body={"gracePeriodSeconds": 0})
                    self.deleted.append(name)
                except ApiError as error:
                    if error.status != 404:
                        raise
            compact_etcd(self.plane)
            self._restart_apiserver(0.5)
        finally:
            with self.deployment.lock:
                behind.pause(False)
        _until(f"{behind.log.name} to relist after 410 Gone", lambda: "410 Gone" in behind.text())
        return (f"{behind.log.name} paused; kube-apiserver restarted, {len(self.deleted)} huge pod(s) deleted, "
                "etcd compacted, kube-apiserver restarted; it relisted after 410 Gone")

    def _leader_sigkill(self) -> str:
        leader = self.deployment.wait_leader(BOUND)
        name = leader.log.name
        with self.deployment.lock:
            leader.kill()
        self._until_new_leader(name)
        return f"leader {name} SIGKILLed (restarted as a standby)"

    def _leader_cut(self) -> str:
        leader = self.deployment.wait_leader(BOUND)
        name, process, proxy = leader.log.name, leader.process, leader.proxy
        assert process is not None
        assert proxy is not None
        proxy.cut()
        _until(f"the cut-off leader {name} to exit", lambda: process.poll() is not None,
               self.deployment.timings.renew_deadline + 30)
        status = process.returncode
        self._until_new_leader(name)
        return f"leader {name} cut off by its proxy, exited with status {status} (restarted as a standby)"

    def _until_new_leader(self, name: str) -> None:
        _until("another replica to take the Lease", lambda: (
            (leader := self.deployment.leader()) is not None and leader.log.name != name))

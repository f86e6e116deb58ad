"""A leader cut off from the API server (a proxy that stops forwarding) while a standby is connected directly:
the leader stops scheduling and binding before the standby can take the Lease, so two schedulers never lead at
once."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import pytest

from kubesched.kube.rest import ApiError, KubeApi
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import bound_to, create, grant_deploy_role, kubesched_run, node, pod, wait_for
from tests.kube.proxy import BlackholeProxy

pytestmark = [pytest.mark.kube, pytest.mark.slow]

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD = 6.0, 4.0, 1.0
TIMINGS = ("--leader-elect", "--leader-elect-lease-duration", f"{LEASE_DURATION:g}s",
           "--leader-elect-renew-deadline", f"{RENEW_DEADLINE:g}s", "--leader-elect-retry-period", f"{RETRY_PERIOD:g}s")
#: How much later than the renew deadline after the cut the leader may notice (one poll of the test, log writes).
MARGIN = 1.5
AFTER = [f"after-cut-{i}" for i in range(4)]


def _logged_at(text: str, needle: str) -> datetime:
    """The time of the first log line holding ``needle`` (the log's asctime is local time)."""
    line = next(line for line in text.splitlines() if needle in line)
    return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").astimezone()


def test_cut_off_leader_stops_binding_before_the_standby_takes_the_lease(kube_control_plane: ControlPlane,
                                                                          tmp_path: Path) -> None:
    """Cut: the leader stops scheduling and binding, and steps down, within the renew deadline of the cut, before
    the standby acquires the Lease; the pods created after the cut are bound by the standby alone, once each."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin, "kubesched")
    grant_deploy_role(admin, "kubesched-2")
    try:
        admin.request("DELETE", LEASE)
    except ApiError as error:
        if error.status != 404:
            raise
    create(admin, node("n1"))
    proxy = BlackholeProxy(kube_control_plane.port)
    via_proxy = proxy.kubeconfig(kube_control_plane.kubeconfig("kubesched"), tmp_path / "via-proxy.kubeconfig")
    try:
        with kubesched_run(kube_control_plane, tmp_path, *TIMINGS, kubeconfig=via_proxy, name="leader") as leader:
            wait_for("the first process to lead", lambda: "successfully acquired lease" in leader.log_text(),
                     log=leader.log)
            with kubesched_run(kube_control_plane, tmp_path, *TIMINGS, identity="kubesched-2",
                               name="standby") as standby:
                wait_for("the standby to try the Lease", lambda: "attempting to acquire" in standby.log_text(),
                         log=standby.log)
                create(admin, pod("before-cut"))
                wait_for("before-cut to be bound", bound_to(admin, "before-cut"), log=leader.log)
                proxy.cut()
                cut = time.monotonic()
                for name in AFTER:
                    create(admin, pod(name))
                wait_for("the leader to step down", lambda: "stepping down" in leader.log_text(),
                         timeout=RENEW_DEADLINE + 10, log=leader.log)
                stepped_down = time.monotonic() - cut
                assert wait_for("the leader to exit", leader.process.poll, log=leader.log) == 1
                for name in AFTER:
                    wait_for(f"{name} to be bound", bound_to(admin, name), timeout=LEASE_DURATION + 15,
                             log=standby.log)
                lease = admin.get(LEASE)["spec"]
                leader_log, standby_log = leader.log_text(), standby.log_text()
    finally:
        proxy.close()
    assert stepped_down <= RENEW_DEADLINE + MARGIN, leader_log
    acquired = datetime.fromisoformat(lease["acquireTime"].replace("Z", "+00:00"))
    standby_identity = standby_log.split("leader lease kube-system/kubesched as ", 1)[1].split()[0]
    assert lease["holderIdentity"] == standby_identity
    assert _logged_at(leader_log, "stopped scheduling and binding") < acquired
    assert _logged_at(leader_log, "stepping down") < acquired
    for name in AFTER:
        assert f"Scheduled default/{name}" not in leader_log
        assert standby_log.count(f"Scheduled default/{name}:") == 1

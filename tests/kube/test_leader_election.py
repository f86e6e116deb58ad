"""Leader election between two `kubesched run --leader-elect` processes on one Lease."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kubesched.kube.leader import LeaderElectionSettings
from kubesched.kube.rest import ApiError, KubeApi
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import bound_to, create, grant_deploy_role, kubesched_run, node, node_of, pod, wait_for

pytestmark = [pytest.mark.kube, pytest.mark.slow]

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
DEFAULTS = LeaderElectionSettings()


def test_only_the_leader_schedules_and_the_standby_takes_over_after_sigkill(kube_control_plane: ControlPlane,
                                                                            tmp_path: Path) -> None:
    """Of two processes only the Lease holder binds pods; after SIGKILL of the leader the standby takes the Lease
    within the lease duration (plus a retry period) and schedules; on SIGTERM it releases the Lease."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin, "kubesched")
    grant_deploy_role(admin, "kubesched-2")
    create(admin, node("n1"))
    with kubesched_run(kube_control_plane, tmp_path, "--leader-elect", name="first") as first:
        wait_for("the first process to lead", lambda: "successfully acquired lease" in first.log_text(),
                 log=first.log)
        with kubesched_run(kube_control_plane, tmp_path, "--leader-elect", identity="kubesched-2",
                           name="second") as second:
            wait_for("the second process to try the Lease", lambda: "attempting to acquire" in second.log_text(),
                     log=second.log)
            for name in ("a", "b", "c"):
                create(admin, pod(name))
            for name in ("a", "b", "c"):
                wait_for(f"{name} to be bound", bound_to(admin, name), log=first.log)
            assert (first.attempts(), second.attempts()) == (3, 0)
            assert "Scheduled" not in second.log_text()
            assert first.log_text().count("Scheduled default/") == 3
            first.process.kill()
            first.process.wait(10)
            create(admin, pod("after-failover"))
            wait_for("the standby to take over and bind", lambda: node_of(admin, "after-failover"),
                     timeout=DEFAULTS.lease_duration + 2 * DEFAULTS.retry_period + 5, log=second.log)
            assert "successfully acquired lease" in second.log_text()
            assert second.stop() == 0
            assert "released lease" in second.log_text()
        holder = admin.get(LEASE)["spec"].get("holderIdentity")
    assert not holder


def _take_over(admin: KubeApi) -> None:
    """Another holder takes the Lease for an hour."""
    lease = admin.get(LEASE)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    admin.request("PUT", LEASE, body={**lease, "spec": {**lease["spec"], "holderIdentity": "intruder",
                                                        "leaseDurationSeconds": 3600, "renewTime": now,
                                                        "acquireTime": now}})


def _revoke(admin: KubeApi) -> None:
    """The leader's identity loses its ClusterRoleBinding, so its renewals are forbidden."""
    admin.request("DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubesched-kubesched")


@pytest.mark.parametrize("lose", [_take_over, _revoke], ids=["lease-taken-over", "rbac-revoked"])
def test_leader_that_cannot_renew_stops_and_exits_1(kube_control_plane: ControlPlane, tmp_path: Path,
                                                    lose: Callable[[KubeApi], None]) -> None:
    """When the leader's renewals fail (another holder took the Lease, or its RBAC was revoked), past the renew
    deadline it steps down and exits with status 1, as kube-scheduler does; pods created then stay unbound."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin, "kubesched")
    try:
        admin.request("DELETE", LEASE)
    except ApiError as error:
        if error.status != 404:
            raise
    how = lose.__name__.strip("_").replace("_", "-")
    create(admin, node(f"node-{how}"))
    with kubesched_run(kube_control_plane, tmp_path, "--leader-elect", name="leader") as leader:
        wait_for("the process to lead", lambda: "successfully acquired lease" in leader.log_text(), log=leader.log)
        create(admin, pod(f"before-{how}"))
        wait_for("a pod to be bound", bound_to(admin, f"before-{how}"), log=leader.log)
        lose(admin)
        status = wait_for("the leader to exit", leader.process.poll,
                          timeout=DEFAULTS.renew_deadline + 2 * DEFAULTS.retry_period + 5, log=leader.log)
        assert status == 1
        assert "stepping down" in leader.log_text()
        create(admin, pod(f"after-{how}"))
        assert not node_of(admin, f"after-{how}")

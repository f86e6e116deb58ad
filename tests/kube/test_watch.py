"""Watches that break: an API server restart and a 410 Gone (compacted history) lose no pod."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from kubesched.kube.rest import KubeApi, pod_path
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import (
    compact_etcd,
    create,
    get_pod,
    grant_deploy_role,
    kubesched_run,
    node,
    node_of,
    pod,
    wait_for,
)

pytestmark = [pytest.mark.kube, pytest.mark.slow]


@pytest.fixture(scope="module")
def admin(kube_control_plane: ControlPlane) -> KubeApi:
    """An admin connection; one node, deploy/'s role bound to the user kubesched."""
    api = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(api)
    create(api, node("n1"))
    return api


def test_watch_dropped_by_api_server_restart_loses_no_pod(kube_control_plane: ControlPlane, admin: KubeApi,
                                                          tmp_path: Path) -> None:
    """After kube-apiserver restarts, the watches resume and a pod created right after is bound."""
    with kubesched_run(kube_control_plane, tmp_path) as process:
        create(admin, pod("before"))
        wait_for("before to be bound", lambda: node_of(admin, "before"), log=process.log)
        kube_control_plane.stop_apiserver()
        kube_control_plane.start_apiserver()
        create(admin, pod("after-restart"))
        wait_for("after-restart to be bound", lambda: node_of(admin, "after-restart"), log=process.log)
        assert "list/watch failed" in process.log_text() or "410 Gone" in process.log_text()


def test_410_gone_relists_and_loses_no_pod(kube_control_plane: ControlPlane, admin: KubeApi, tmp_path: Path) -> None:
    """A scheduler whose watches come back after the history was compacted (410 Gone) relists: it binds the pod
    created meanwhile and forgets the pod deleted meanwhile."""
    create(admin, pod("stays", scheduler="nobody"))
    with kubesched_run(kube_control_plane, tmp_path) as process:
        create(admin, pod("seen"))
        wait_for("seen to be bound", lambda: node_of(admin, "seen"), log=process.log)
        os.kill(process.process.pid, signal.SIGSTOP)
        try:  # its watches end before the changes, which it can then only learn by relisting
            kube_control_plane.stop_apiserver()
            kube_control_plane.start_apiserver()
            create(admin, pod("created-meanwhile"))
            admin.request("DELETE", pod_path("default", "seen"), body={"gracePeriodSeconds": 0})
            compact_etcd(kube_control_plane)
            kube_control_plane.stop_apiserver()
            kube_control_plane.start_apiserver()
        finally:
            os.kill(process.process.pid, signal.SIGCONT)
        wait_for("created-meanwhile to be bound", lambda: node_of(admin, "created-meanwhile"), log=process.log)
        assert get_pod(admin, "seen") is None
        assert "410 Gone" in process.log_text()

"""`kubesched run` against a real API server, as the user deploy/'s ClusterRole is bound to and nothing more."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import (
    Kubesched,
    create,
    deploy_objects,
    events,
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
    """An admin connection; the cluster has two 4-CPU nodes and deploy/'s role bound to the user kubesched."""
    api = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(api)
    for name in ("n1", "n2"):
        create(api, node(name))
    return api


@pytest.fixture(scope="module")
def scheduler(kube_control_plane: ControlPlane, admin: KubeApi,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubesched]:
    """One `kubesched run` (default profile) for the module, ready before the tests start."""
    with kubesched_run(kube_control_plane, tmp_path_factory.mktemp("run")) as process:
        wait_for("/readyz", lambda: _ok(f"http://127.0.0.1:{process.port}/readyz"), log=process.log)
        yield process


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def test_pod_created_after_start_is_bound(admin: KubeApi, scheduler: Kubesched) -> None:
    """A pod created while kubesched runs is bound to a node, with kube-scheduler's Scheduled event."""
    create(admin, pod("web"))
    bound = wait_for("web to be bound", lambda: node_of(admin, "web"), log=scheduler.log)
    assert bound in ("n1", "n2")
    scheduled = wait_for("the Scheduled event", lambda: events(admin, reason="Scheduled"))
    assert [(e["type"], e["note"], e["reportingController"], e["action"], e["regarding"]["name"])
            for e in scheduled] == [("Normal", f"Successfully assigned default/web to {bound}", "kubesched", "Binding",
                                     "web")]


def test_pod_for_another_scheduler_is_left_alone(admin: KubeApi, scheduler: Kubesched) -> None:
    """A pod whose schedulerName matches no profile stays unbound, untouched, while later pods are bound."""
    create(admin, pod("theirs", scheduler="someone-else"))
    create(admin, pod("ours-after"))
    wait_for("ours-after to be bound", lambda: node_of(admin, "ours-after"), log=scheduler.log)
    theirs = get_pod(admin, "theirs")
    assert theirs is not None
    assert not theirs["spec"].get("nodeName")
    assert not theirs["status"].get("conditions")
    assert not [e for e in events(admin) if e["regarding"]["name"] == "theirs"]


def test_unschedulable_pod_gets_condition_and_event(admin: KubeApi, scheduler: Kubesched) -> None:
    """A pod that fits nowhere gets PodScheduled=False (reason Unschedulable) and a FailedScheduling event."""
    create(admin, pod("huge", cpu="64"))

    def condition() -> dict[str, str] | None:
        found = get_pod(admin, "huge") or {}
        return next((c for c in found.get("status", {}).get("conditions") or [] if c["type"] == "PodScheduled"),
                    None)

    scheduled = wait_for("the PodScheduled condition", condition, log=scheduler.log)
    message = "0/2 nodes are available: 2 Insufficient cpu."
    assert (scheduled["status"], scheduled["reason"], scheduled["message"].split(" preemption:")[0]) == \
        ("False", "Unschedulable", message)
    failed = wait_for("the FailedScheduling event", lambda: events(admin, reason="FailedScheduling"))
    assert {(e["type"], e["note"].split(" preemption:")[0], e["regarding"]["name"]) for e in failed} == \
        {("Warning", message, "huge")}


def test_minimal_cluster_role_suffices(admin: KubeApi, scheduler: Kubesched) -> None:
    """Run as the user bound to deploy/'s ClusterRole alone, kubesched is never forbidden anything."""
    create(admin, pod("with-role"))
    wait_for("with-role to be bound", lambda: node_of(admin, "with-role"), log=scheduler.log)
    role = next(o for o in deploy_objects() if o["kind"] == "ClusterRole")
    assert role["metadata"]["name"] == "kubesched"
    text = scheduler.log_text()
    assert "forbidden" not in text.lower(), text


def test_bind_rejected_by_server_is_retried_without_double_bind(
        kube_control_plane: ControlPlane, admin: KubeApi, tmp_path: Path) -> None:
    """A bind the API server refuses (403) is retried after backoff and, once allowed, done exactly once."""
    role = next(o for o in deploy_objects() if o["kind"] == "ClusterRole")
    no_bind = {**role, "metadata": {"name": "kubesched-no-bind"},
               "rules": [r for r in role["rules"] if "pods/binding" not in r["resources"]]}
    create(admin, no_bind)
    binding: dict[str, Any] = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "kubesched-2"}]}
    create(admin, {**binding, "metadata": {"name": "kubesched-2-no-bind"},
                   "roleRef": {**binding["roleRef"], "name": "kubesched-no-bind"}})
    profile = tmp_path / "retry.toml"
    profile.write_text('[[profiles]]\nscheduler-name = "retry"\n')
    with kubesched_run(kube_control_plane, tmp_path, "--profile", str(profile), identity="kubesched-2") as process:
        create(admin, pod("retried", scheduler="retry"))
        wait_for("a refused bind", lambda: [e for e in events(admin, reason="FailedScheduling")
                                            if e["regarding"]["name"] == "retried"], log=process.log)
        assert not node_of(admin, "retried")
        create(admin, {**binding, "metadata": {"name": "kubesched-2-bind"},
                       "roleRef": {**binding["roleRef"], "name": "kubesched"}})
        wait_for("retried to be bound", lambda: node_of(admin, "retried"), log=process.log)
        wait_for("the Scheduled event", lambda: [e for e in events(admin, reason="Scheduled")
                                                 if e["regarding"]["name"] == "retried"])
        log = process.log_text()
    assert "forbidden" in log
    assert log.count("Scheduled default/retried") == 1
    assert "already assigned" not in log


def test_health_and_metrics_endpoints(admin: KubeApi, scheduler: Kubesched) -> None:
    """/healthz and /readyz answer ok; /metrics counts scheduled attempts under kube-scheduler's metric name."""
    create(admin, pod("counted"))
    wait_for("counted to be bound", lambda: node_of(admin, "counted"), log=scheduler.log)
    base = f"http://127.0.0.1:{scheduler.port}"
    for path in ("/healthz", "/readyz"):
        with urllib.request.urlopen(base + path, timeout=5) as response:
            assert (response.status, response.read()) == (200, b"ok")
    with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
        text = response.read().decode()
    line = next(line for line in text.splitlines()
                if line.startswith('scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}'))
    assert float(line.split()[-1]) >= 1
    assert 'scheduler_pending_pods{queue="active"}' in text

"""Preemption against a real API server: nomination, DisruptionTarget, graceful deletion, then the bind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import create, events, get_pod, grant_deploy_role, kubesched_run, node, node_of, pod, wait_for

pytestmark = [pytest.mark.kube, pytest.mark.slow]


def _priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value}


def _bound(name: str, cpu: str, priority_class: str) -> dict[str, Any]:
    obj = pod(name, cpu=cpu, priority_class=priority_class)
    obj["spec"]["nodeName"] = "n1"
    return obj


def _terminating(api: KubeApi, name: str) -> dict[str, Any] | None:
    found = get_pod(api, name)
    return found if found is not None and found["metadata"].get("deletionTimestamp") else None


def _terminating_probe(api: KubeApi, name: str) -> Callable[[], dict[str, Any] | None]:
    return lambda: _terminating(api, name)


def _two(items: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    return items if len(items) == 2 else None


def test_preemption_nominates_deletes_exactly_the_victims_and_binds(kube_control_plane: ControlPlane,
                                                                    tmp_path: Path) -> None:
    """A high-priority pod that fits nowhere is nominated to n1; the two low-priority pods kube-scheduler would pick
    get DisruptionTarget and a graceful delete, the medium one stays; the preemptor is bound once they are gone."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    for name, value in (("low", 100), ("medium", 500), ("high", 1000)):
        create(admin, _priority_class(name, value))
    create(admin, node("n1", cpu="1"))
    for name, cpu, priority in (("low-a", "400m", "low"), ("low-b", "400m", "low"), ("mid", "100m", "medium")):
        create(admin, _bound(name, cpu, priority))
    with kubesched_run(kube_control_plane, tmp_path) as process:
        create(admin, pod("preemptor", cpu="600m", priority_class="high"))
        victims = [wait_for(f"{name} to be terminating", _terminating_probe(admin, name), log=process.log)
                   for name in ("low-a", "low-b")]
        # The nomination is written after the victims' deletions, as kube-scheduler writes it: wait for it.
        assert wait_for("the preemptor to be nominated", lambda: _nominated(admin, "preemptor"),
                        log=process.log) == "n1"
        preemptor = get_pod(admin, "preemptor")
        assert preemptor is not None
        assert preemptor["spec"].get("nodeName") is None
        for victim in victims:
            conditions = {c["type"]: c for c in victim["status"]["conditions"]}
            target = conditions["DisruptionTarget"]
            assert (target["status"], target["reason"], target["message"]) == \
                ("True", "PreemptionByScheduler", "default-scheduler: preempting to accommodate a higher priority pod")
        preempted = wait_for("the Preempted events", lambda: _two(events(admin, reason="Preempted")))
        uid = preemptor["metadata"]["uid"]
        assert sorted((e["regarding"]["name"], e["note"]) for e in preempted) == \
            [(name, f"Preempted by pod {uid} on node n1") for name in ("low-a", "low-b")]
        assert not _terminating(admin, "mid")
        assert not node_of(admin, "preemptor")
        for name in ("low-a", "low-b"):  # the kubelet's part: the containers stopped
            admin.request("DELETE", pod_path("default", name), body={"gracePeriodSeconds": 0})
        assert wait_for("the preemptor to be bound", lambda: node_of(admin, "preemptor"), log=process.log) == "n1"
    assert get_pod(admin, "mid") is not None


def test_terminated_pods_hold_no_room(kube_control_plane: ControlPlane, tmp_path: Path) -> None:
    """A pod that finished (phase Succeeded) on a full node is ignored, as kube-scheduler's informer ignores it:
    a new pod that needs its room is bound there."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    create(admin, node("small", cpu="1", labels={"size": "small"}))
    finished = pod("finished", cpu="900m")
    finished["spec"]["nodeName"] = "small"
    create(admin, finished)
    admin.request("PATCH", pod_path("default", "finished", "status"), body={"status": {"phase": "Succeeded"}},
                  content_type="application/merge-patch+json")
    latecomer = pod("latecomer", cpu="500m")
    latecomer["spec"]["nodeSelector"] = {"size": "small"}
    with kubesched_run(kube_control_plane, tmp_path) as process:
        create(admin, latecomer)
        assert wait_for("latecomer to be bound", lambda: node_of(admin, "latecomer"), log=process.log) == "small"


def _nominated(api: KubeApi, name: str) -> str:
    """The pod's nominated node, or "" (also when the pod is gone)."""
    return str(((get_pod(api, name) or {}).get("status") or {}).get("nominatedNodeName") or "")


def test_preemptor_clears_lower_priority_nominations_on_its_node(kube_control_plane: ControlPlane,
                                                                 tmp_path: Path) -> None:
    """A medium pod nominated to n2 (its victim still terminating) loses its nomination on the server when a
    high-priority pod preempts on n2 and takes the room it was waiting for."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    for name, value in (("low", 100), ("medium", 500), ("high", 1000)):
        try:
            create(admin, _priority_class(name, value))
        except ApiError as error:
            if error.status != 409:  # created by an earlier test of the module
                raise
    create(admin, node("n2", cpu="1", labels={"only": "n2"}))
    blocker = pod("blocker", cpu="800m", priority_class="low", grace=3600)  # no kubelet: it stays terminating
    blocker["spec"]["nodeName"] = "n2"
    create(admin, blocker)
    waiting = pod("waiting", cpu="500m", priority_class="medium")
    preemptor = pod("taker", cpu="1", priority_class="high")
    for obj in (waiting, preemptor):
        obj["spec"]["nodeSelector"] = {"only": "n2"}
    with kubesched_run(kube_control_plane, tmp_path, name="nominations") as process:
        create(admin, waiting)
        assert wait_for("waiting to be nominated", lambda: _nominated(admin, "waiting"), log=process.log) == "n2"
        assert _terminating(admin, "blocker")
        create(admin, preemptor)
        assert wait_for("taker to be nominated", lambda: _nominated(admin, "taker"), log=process.log) == "n2"
        wait_for("waiting's nomination to be cleared", lambda: not _nominated(admin, "waiting"), log=process.log)
        assert not node_of(admin, "waiting")

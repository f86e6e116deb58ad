"""Preemption whose victim write the API server refuses (RBAC): an Error, no nomination, the victim kept.

kube-scheduler v1.32 under the same refusal (its ClusterRole edited the same way) left the preemptor pending
without nominatedNodeName, kept the victim (with DisruptionTarget when only the DELETE was refused) and wrote
FailedScheduling "0/1 nodes are available: 1 Insufficient cpu. preemption: pods "victim" is forbidden: ...".
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.testing.kube import ControlPlane
from tests.kube.helpers import create, deploy_objects, events, get_pod, kubesched_run, node, pod, wait_for

pytestmark = [pytest.mark.kube, pytest.mark.slow]

Rules = list[dict[str, Any]]


def _without_pod_delete(rules: Rules, preemptor: str) -> Rules:
    """deploy/'s rules without delete on pods."""
    for rule in rules:
        if rule["resources"] == ["pods"]:
            rule["verbs"] = [verb for verb in rule["verbs"] if verb != "delete"]
    return rules


def _status_patch_only_for(rules: Rules, preemptor: str) -> Rules:
    """deploy/'s rules with pods/status patchable for the preemptor only (its own failure write goes through)."""
    for rule in rules:
        if rule["resources"] == ["pods/status"]:
            rule["resourceNames"] = [preemptor]
    return rules


@attrs.frozen
class Refusal:
    """One refused write: the identity kubesched runs as, its rules, the names it schedules, what is refused."""

    identity: str
    rules: Callable[[Rules, str], Rules]
    node: str
    victim: str
    preemptor: str
    refused: str
    #: Whether the victim got DisruptionTarget (the patch goes first, and only the DELETE is refused).
    condition_written: bool


REFUSALS = [
    pytest.param(Refusal("kubesched", _without_pod_delete, "n1", "victim", "preemptor",
                         'cannot delete resource "pods"', True), id="delete forbidden"),
    pytest.param(Refusal("kubesched-2", _status_patch_only_for, "n2", "victim-2", "preemptor-2",
                         'cannot patch resource "pods/status"', False), id="status patch forbidden"),
]


def _grant(api: KubeApi, user: str, rules: Rules) -> None:
    """A ClusterRole holding ``rules``, bound to ``user``."""
    name = f"kubesched-refused-{user}"
    create(api, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
                 "rules": rules})
    create(api, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                 "metadata": {"name": name},
                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                 "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]})


def _priority_classes(api: KubeApi) -> None:
    for name, value in (("low", 100), ("high", 1000)):
        try:
            create(api, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                         "value": value})
        except ApiError as error:
            if error.status != 409:  # created by the other case
                raise


def _failure_message(api: KubeApi, name: str) -> str:
    """The message of the pod's PodScheduled=False condition, or ""."""
    conditions = ((get_pod(api, name) or {}).get("status") or {}).get("conditions") or []
    return next((str(c.get("message", "")) for c in conditions
                 if c["type"] == "PodScheduled" and c["status"] == "False"), "")


@pytest.mark.parametrize("refusal", REFUSALS)
def test_refused_victim_write_fails_preemption_without_nomination(kube_control_plane: ControlPlane, tmp_path: Path,
                                                                  refusal: Refusal) -> None:
    """A preemptor whose only victim the API server refuses to patch or delete (HTTP 403) stays pending without
    nominatedNodeName; the victim is still there, not terminating; the PodScheduled condition and a
    FailedScheduling event carry the server's message after "preemption: "."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    role = next(o for o in deploy_objects() if o["kind"] == "ClusterRole")
    _grant(admin, refusal.identity, refusal.rules(copy.deepcopy(role["rules"]), refusal.preemptor))
    _priority_classes(admin)
    create(admin, node(refusal.node, cpu="1", labels={"only": refusal.node}))
    victim = pod(refusal.victim, cpu="800m", priority_class="low")
    victim["spec"]["nodeName"] = refusal.node
    create(admin, victim)
    preemptor = pod(refusal.preemptor, cpu="500m", priority_class="high")
    preemptor["spec"]["nodeSelector"] = {"only": refusal.node}
    forbidden = (f'preemption: pods "{refusal.victim}" is forbidden: User "{refusal.identity}" {refusal.refused} '
                 'in API group "" in the namespace "default"')
    try:
        with kubesched_run(kube_control_plane, tmp_path, identity=refusal.identity,
                           name=refusal.identity) as process:
            create(admin, preemptor)
            message = wait_for("the preemptor's PodScheduled=False condition",
                               lambda: _failure_message(admin, refusal.preemptor), log=process.log)
            assert message.endswith(forbidden), message
            notes = wait_for("the FailedScheduling event", lambda: [
                e["note"] for e in events(admin, reason="FailedScheduling")
                if e["regarding"]["name"] == refusal.preemptor], log=process.log)
            assert message in notes
            found = get_pod(admin, refusal.preemptor)
            assert found is not None
            assert not found["status"].get("nominatedNodeName")
            assert not found["spec"].get("nodeName")
            kept = get_pod(admin, refusal.victim)
            assert kept is not None
            assert not kept["metadata"].get("deletionTimestamp")
            conditions = [c["type"] for c in kept["status"].get("conditions") or []]
            assert ("DisruptionTarget" in conditions) is refusal.condition_written
            assert [e for e in events(admin, reason="Preempted") if e["regarding"]["name"] == refusal.victim] == []
    finally:  # the other case's scheduler would try this preemptor too
        admin.request("DELETE", pod_path("default", refusal.preemptor), body={"gracePeriodSeconds": 0})

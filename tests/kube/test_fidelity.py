"""Fidelity against the real kube-scheduler: random small clusters, one pending pod at a time.

The real kube-scheduler (from KUBEBUILDER_ASSETS, ``-v=10``) schedules each pod on a real API server; then
``simulate`` gets the same objects (the nodes, the pods already bound, the pending pod) and must decide the same:
a node among those with the best final score in kube-scheduler's log (the same node when the best is unique), or,
for a pod that fits nowhere, the same message. The clusters vary resources, node selectors, taints and tolerations,
preferred node affinity, pod affinity and anti-affinity (required and preferred) and zone topology spread. A second
test fills nodes with low-priority pods, some guarded by a PodDisruptionBudget, and checks a high-priority pod's
nominated node and victims. ``KUBESCHED_FIDELITY_CLUSTERS`` sets how many clusters (default 50; half as many for
preemption); the tally (``-s`` shows it) counts the kinds of decisions checked.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.io.load import load
from kubesched.kube.rest import ApiError, KubeApi, pod_path
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing.kube import ControlPlane, free_port, log_tail
from tests.kube.helpers import WAIT, create, get_pod, node, pod

pytestmark = [pytest.mark.kube, pytest.mark.slow]

CLUSTERS = int(os.environ.get("KUBESCHED_FIDELITY_CLUSTERS", "50"))
PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
FINAL_SCORE = re.compile(r'"Calculated node\'s final score for pod" pod="default/(?P<pod>[^"]+)" '
                         r'node="(?P<node>[^"]+)" score=(?P<score>\d+)')


@pytest.fixture(scope="module")
def real_scheduler(kube_control_plane: ControlPlane) -> Iterator[Path]:
    """kube-scheduler from KUBEBUILDER_ASSETS at -v=10 against the module's control plane; yields its log."""
    plane = kube_control_plane
    binary = plane.assets / "kube-scheduler"
    if not binary.is_file():
        pytest.fail(f"KUBEBUILDER_ASSETS={plane.assets} has no kube-scheduler, the reference for fidelity checks",
                    pytrace=False)
    kubeconfig = plane.kubeconfig("scheduler")
    log = plane.folder / "kube-scheduler.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(binary), f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
             f"--authorization-kubeconfig={kubeconfig}", "--leader-elect=false", "--bind-address=127.0.0.1",
             f"--secure-port={free_port()}", f"--cert-dir={plane.folder / 'scheduler-certs'}", "-v=10"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield log
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _random_cluster(rng: random.Random, case: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                            list[dict[str, Any]]]:
    """Nodes, pods already bound to them, and pods to schedule one by one."""
    nodes = []
    for j in range(rng.randint(2, 4)):
        name = f"c{case}-n{j}"
        obj = node(name, cpu=rng.choice(["1", "2", "4"]), memory=rng.choice(["2Gi", "4Gi", "8Gi"]),
                   labels={"disk": rng.choice(["ssd", "hdd"]), "zone": rng.choice(["a", "b"]),
                           "kubernetes.io/hostname": name})
        if rng.random() < 0.3:
            obj["spec"] = {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]}
        nodes.append(obj)

    def some_pod(name: str) -> dict[str, Any]:
        obj = pod(name, cpu=rng.choice(["100m", "250m", "500m", "1", "2"]))
        obj["spec"]["containers"][0]["resources"]["requests"]["memory"] = rng.choice(["128Mi", "512Mi", "1Gi"])
        if rng.random() < 0.3:
            obj["spec"]["nodeSelector"] = {"disk": "ssd"}
        if rng.random() < 0.3:
            obj["spec"]["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch",
                                           "effect": "NoSchedule"}]
        app = rng.choice(["web", "db"])
        obj["metadata"]["labels"] = {"app": app}
        selector = {"matchLabels": {"app": app}}
        affinity: dict[str, Any] = {}
        if rng.random() < 0.25:
            affinity["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": rng.choice([1, 50, 100]), "preference": {"matchExpressions": [
                    {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}
        if rng.random() < 0.2:
            term = {"labelSelector": {"matchLabels": {"app": rng.choice(["web", "db"])}},
                    "topologyKey": rng.choice(["kubernetes.io/hostname", "zone"])}
            affinity["podAffinity"] = (
                {"requiredDuringSchedulingIgnoredDuringExecution": [term]} if rng.random() < 0.5 else
                {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": rng.choice([1, 50, 100]), "podAffinityTerm": term}]})
        if rng.random() < 0.25:
            term = {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}
            affinity["podAntiAffinity"] = (
                {"requiredDuringSchedulingIgnoredDuringExecution": [term]} if rng.random() < 0.5 else
                {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": term}]})
        if affinity:
            obj["spec"]["affinity"] = affinity
        if rng.random() < 0.25:
            obj["spec"]["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": "zone", "labelSelector": selector,
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"])}]
        return obj

    bound = []
    for j in range(rng.randint(0, 3)):
        obj = some_pod(f"c{case}-b{j}")
        obj["spec"]["nodeName"] = rng.choice(nodes)["metadata"]["name"]
        obj["spec"].pop("nodeSelector", None)
        obj["spec"].pop("affinity", None)
        obj["spec"].pop("topologySpreadConstraints", None)
        bound.append(obj)
    pending = [some_pod(f"c{case}-p{j}") for j in range(rng.randint(1, 3))]
    return nodes, bound, pending


def _outcome(api: KubeApi, name: str, nodes: int, found: dict[str, Any] | None = None) -> tuple[str, str] | None:
    """("bound", node) or ("unschedulable", message) once kube-scheduler decided about all ``nodes``; else None.
    ``found`` is the pod when the caller already read it (one read, so the answer is one state of the pod)."""
    found = found if found is not None else get_pod(api, name) or {}
    node_name = found.get("spec", {}).get("nodeName")
    if node_name:
        return "bound", str(node_name)
    for condition in found.get("status", {}).get("conditions") or []:
        if condition["type"] == "PodScheduled" and condition.get("reason") == "Unschedulable" and \
                condition.get("message", "").startswith(f"0/{nodes} nodes are available"):
            return "unschedulable", str(condition["message"])
    return None


def _final_scores(log: Path, name: str) -> dict[str, int]:
    """The last final score kube-scheduler logged per node for pod ``name`` (none when one node was feasible)."""
    scores: dict[str, int] = {}
    for match in FINAL_SCORE.finditer(log.read_text(errors="replace")):
        if match["pod"] == name:
            scores[match["node"]] = int(match["score"])
    return scores


def _simulated(tmp_path: Path, objects: list[dict[str, Any]], name: str) -> tuple[str, str]:
    """What `simulate` decides for pod ``name`` given ``objects``."""
    manifest = tmp_path / "cluster.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    registry = PluginRegistry.discover()
    result = simulate(load([manifest]), load_config("default", registry), registry)
    mine = next(p for p in result.pods if p.name == name)
    return ("bound", mine.node or "") if mine.phase == "Bound" else ("unschedulable", mine.message)


def _cleanup(api: KubeApi, names: list[str], nodes: list[str]) -> None:
    for name in names:
        try:
            api.request("DELETE", pod_path("default", name), body={"gracePeriodSeconds": 0})
        except ApiError as error:
            if error.status != 404:
                raise
    for name in nodes:
        api.request("DELETE", f"/api/v1/nodes/{name}")


def test_simulate_decides_as_the_real_kube_scheduler(kube_control_plane: ControlPlane, real_scheduler: Path,
                                                      tmp_path: Path) -> None:
    """For every pending pod of random small clusters, simulate picks a node kube-scheduler scored best (the same
    node when the best is unique) or, when the pod fits nowhere, writes kube-scheduler's message."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    rng = random.Random(20261124)
    disagreements = []
    tally = {"checked": 0, "unique best": 0, "tied best": 0, "unschedulable": 0}
    for case in range(CLUSTERS):
        nodes, bound, pending = _random_cluster(rng, case)
        for obj in [*nodes, *bound]:
            create(admin, obj)
        live: list[dict[str, Any]] = [*nodes, *bound]
        for obj in pending:
            name = obj["metadata"]["name"]
            create(admin, obj)
            deadline = time.monotonic() + WAIT
            real = None
            while real is None and time.monotonic() < deadline:
                real = _outcome(admin, name, len(nodes))
                time.sleep(0.05)
            assert real is not None, f"kube-scheduler decided nothing about {name}:\n{log_tail(real_scheduler)}"
            simulated = _simulated(tmp_path, [*live, obj], name)
            tally["checked"] += 1
            if real[0] == "bound":
                scores = _final_scores(real_scheduler, name)
                best = {n for n, s in scores.items() if s == max(scores.values())} if scores else {real[1]}
                tally["unique best" if len(best) == 1 else "tied best"] += 1
                if simulated[0] != "bound" or simulated[1] not in best:
                    disagreements.append(f"{name}: kube-scheduler bound it to {real[1]} (best: {sorted(best)}, "
                                         f"scores {scores}); simulate: {simulated}")
                live.append({**obj, "spec": {**obj["spec"], "nodeName": real[1]}})
            else:
                tally["unschedulable"] += 1
                if simulated != real:
                    disagreements.append(f"{name}: kube-scheduler: {real[1]!r}; simulate: {simulated}")
                admin.request("DELETE", pod_path("default", name), body={"gracePeriodSeconds": 0})
        _cleanup(admin, [o["metadata"]["name"] for o in live if o["kind"] == "Pod"],
                 [o["metadata"]["name"] for o in nodes])
    print(f"fidelity: {CLUSTERS} clusters: " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    assert not disagreements, f"{len(disagreements)} of {tally['checked']} decisions differ:\n" + \
        "\n".join(disagreements)


def _priority_classes() -> list[dict[str, Any]]:
    """low-1..low-12 (values 10..120, one per bound pod, so victims are never tied) and high (1000)."""
    classes = [("high", 1000), *((f"low-{i}", 10 * i) for i in range(1, 13))]
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
             "value": value} for name, value in classes]


def _pdb(case: int, allowed: int, guarded: int) -> dict[str, Any]:
    """A PodDisruptionBudget over the case's pods labelled ``guard``, with the status a disruption controller would
    have written (none runs here: kube-scheduler reads the status as it is)."""
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": f"p{case}-pdb", "namespace": "default"},
            "spec": {"maxUnavailable": allowed, "selector": {"matchLabels": {"guard": f"p{case}"}}},
            "status": {"disruptionsAllowed": allowed, "currentHealthy": guarded,
                       "desiredHealthy": guarded - allowed, "expectedPods": guarded}}


def _preemption_cluster(rng: random.Random, case: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                               list[dict[str, Any]], dict[str, Any]]:
    """Nodes mostly full of low-priority pods (distinct priorities), half the time some of them guarded by a PDB
    allowing 0 or 1 disruption, and a high-priority pod that fits nowhere as it is: usually it can preempt,
    sometimes it is too big for any node."""
    nodes, bound = [], []
    guard = rng.random() < 0.5
    classes = rng.sample(range(1, 13), 12)
    free = []
    for j in range(rng.randint(1, 3)):
        name = f"p{case}-n{j}"
        millis = rng.choice([1000, 2000])
        nodes.append(node(name, cpu=str(millis // 1000), labels={"kubernetes.io/hostname": name}))
        used = 0
        for k in range(4):
            cpu = rng.choice([200, 300, 400, 500])
            if used + cpu > millis or not classes or used >= 0.7 * millis:
                break
            obj = pod(f"p{case}-n{j}-v{k}", cpu=f"{cpu}m", priority_class=f"low-{classes.pop()}",
                      labels={"guard": f"p{case}"} if guard and rng.random() < 0.5 else None)
            obj["spec"]["nodeName"] = name
            bound.append(obj)
            used += cpu
        free.append(millis - used)
    biggest = max(int(n["status"]["capacity"]["cpu"]) * 1000 for n in nodes)
    wanted = rng.choice(list(range(max(free) + 100, biggest + 1, 100)) or [biggest + 500])
    if rng.random() < 0.1:
        wanted = biggest + 500
    guarded = sum(1 for obj in bound if obj["metadata"]["labels"])
    pdbs = [_pdb(case, rng.choice([0, 1]), guarded)] if guarded else []
    return nodes, bound, pdbs, pod(f"p{case}-high", cpu=f"{wanted}m", priority_class="high")


def _preemption_outcome(api: KubeApi, name: str, nodes: int) -> tuple[str, str] | None:
    """("nominated", node), ("bound", node) or ("unschedulable", message), once kube-scheduler decided."""
    found = get_pod(api, name) or {}
    if found.get("spec", {}).get("nodeName"):
        return "bound", str(found["spec"]["nodeName"])
    nominated = found.get("status", {}).get("nominatedNodeName")
    if nominated:
        return "nominated", str(nominated)
    return _outcome(api, name, nodes, found)


def test_preemption_decides_as_the_real_kube_scheduler(kube_control_plane: ControlPlane, real_scheduler: Path,
                                                       tmp_path: Path) -> None:
    """For random nodes full of low-priority pods, the high-priority pod gets the node kube-scheduler nominates and
    exactly its victims in simulate (or the same message when nothing can be preempted)."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    classes = _priority_classes()
    for obj in classes:
        create(admin, obj)
    rng = random.Random(1124)
    disagreements = []
    tally = {"checked": 0, "preempted": 0, "bound": 0, "unschedulable": 0, "with a PDB": 0}
    for case in range(max(CLUSTERS // 2, 1)):
        nodes, bound, pdbs, preemptor = _preemption_cluster(rng, case)
        for obj in [*nodes, *bound, *pdbs]:
            create(admin, obj)
        for obj in pdbs:
            admin.request("PATCH", f"{PDBS}/{obj['metadata']['name']}/status", body={"status": obj["status"]},
                          content_type="application/merge-patch+json")
        if pdbs:  # kube-scheduler's PDB and pod watches are separate streams: let the status arrive first
            time.sleep(0.5)
        tally["with a PDB"] += bool(pdbs)
        create(admin, preemptor)
        name = preemptor["metadata"]["name"]
        deadline = time.monotonic() + WAIT
        real = None
        while real is None and time.monotonic() < deadline:
            real = _preemption_outcome(admin, name, len(nodes))
            time.sleep(0.05)
        assert real is not None, f"kube-scheduler decided nothing about {name}:\n{log_tail(real_scheduler)}"
        victims = sorted(o["metadata"]["name"] for o in bound
                         if (get_pod(admin, o["metadata"]["name"]) or {}).get("metadata", {}).get("deletionTimestamp"))
        manifest = tmp_path / "cluster.json"
        manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                        "items": [*classes, *nodes, *bound, *pdbs, preemptor]}))
        registry = PluginRegistry.discover()
        result = simulate(load([manifest]), load_config("default", registry), registry)
        mine = next(p for p in result.pods if p.name == name)
        preemptions = [p for p in result.preemptions if p.preemptor == f"default/{name}"]
        tally["checked"] += 1
        tally[real[0] if real[0] != "nominated" else "preempted"] += 1
        if real[0] == "nominated":
            simulated: tuple[str, ...] = ("nominated", preemptions[0].node, *sorted(
                v.split("/")[1] for v in preemptions[0].victims)) if preemptions else ("none", mine.phase)
            if simulated != ("nominated", real[1], *victims):
                disagreements.append(f"{name}: kube-scheduler nominated {real[1]} evicting {victims}; "
                                     f"simulate: {simulated}")
        elif real[0] == "bound":
            if (mine.phase, mine.node, preemptions) != ("Bound", real[1], []):
                disagreements.append(f"{name}: kube-scheduler bound it to {real[1]}; simulate: {mine}")
        elif (mine.phase, mine.message) != ("Pending", real[1]):
            disagreements.append(f"{name}: kube-scheduler: {real[1]!r}; simulate: {mine.message!r}")
        _cleanup(admin, [o["metadata"]["name"] for o in [*bound, preemptor]], [o["metadata"]["name"] for o in nodes])
        for obj in pdbs:
            admin.request("DELETE", f"{PDBS}/{obj['metadata']['name']}")
    print(f"fidelity (preemption): {max(CLUSTERS // 2, 1)} clusters: " +
          ", ".join(f"{k} {v}" for k, v in tally.items()))
    assert not disagreements, f"{len(disagreements)} of {tally['checked']} decisions differ:\n" + \
        "\n".join(disagreements)

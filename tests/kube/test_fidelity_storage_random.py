"""Fidelity of scheduling with storage against the real kube-scheduler and kube-controller-manager v1.32: random
small clusters with PVs, PVCs, StorageClasses and CSINodes (tests/kube/storage_cluster.py), one pending pod at a
time.

One control plane for the module runs kube-controller-manager (its PV controller binds the claims) and the real
kube-scheduler at ``-v=10``; the test plays the CSI provisioner (tests/kube/storage_real.py). Each cluster's
objects are created and the PV controller left to settle them; then each pending pod is created and kube-scheduler
decides. ``simulate`` gets the state kube-scheduler decided on (the cluster's objects as the API server held them
just before the pod was created, and the pod) with the test's provisioner running, and must decide the same: a
node among those with the best final score in kube-scheduler's log (the same node when the best is unique) and the
same PV for each claim it binds (a static one by name; provisioned ones alike), or, for a pod that fits nowhere,
the same message; for a pod whose claims nothing binds, the same PreBind error on such a node. Both sides run with
VolumeBinding's ``bindTimeoutSeconds`` at 5 (the same KubeSchedulerConfiguration file) so that such a pod fails
in seconds rather than ten minutes. From scratch too: ``simulate`` of each cluster's objects as the test created
them must bind the claims as kube-controller-manager and the provisioner did, with the PV controller's first
event per claim alike, and decide the first pod alike. ``KUBESCHED_STORAGE_FIDELITY_CLUSTERS`` sets how many
clusters (default 30), ``KUBESCHED_STORAGE_FIDELITY_ONLY`` which of them run (``21,90``: to replay a difference);
the tally (``-s`` shows it) counts the decisions by kind.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
from collections import Counter
from pathlib import Path

import attrs
import pytest

from kubesched.io.load import load
from kubesched.kube.rest import KubeApi
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.simulate import Simulation
from kubesched.testing.kube import ControlPlane
from tests.kube.storage_cluster import PROVISIONER, ZONE, Obj, StorageCluster, random_storage_cluster
from tests.kube.storage_real import RealStorage, outcome, wait

pytestmark = [pytest.mark.kube, pytest.mark.slow]

CLUSTERS = int(os.environ.get("KUBESCHED_STORAGE_FIDELITY_CLUSTERS", "30"))
#: Only these clusters (their numbers, comma-separated), to replay a difference: the others are drawn, not run.
ONLY = {int(n) for n in os.environ.get("KUBESCHED_STORAGE_FIDELITY_ONLY", "").split(",") if n.strip()}
#: VolumeBinding's bind timeout on both sides: the test's provisioner and the PV controller answer within a second.
BIND_TIMEOUT = 5
FINAL_SCORE = re.compile(r'"Calculated node\'s final score for pod" pod="default/(?P<pod>[^"]+)" '
                         r'node="(?P<node>[^"]+)" score=(?P<score>\d+)')
REASONS = re.compile(r"0/\d+ nodes are available: (?P<reasons>.*?)\. preemption: ")
PREBIND = re.compile(r'"Trying to bind volumes for pod" logger="PreBind.VolumeBinding" node="(?P<node>[^"]+)" '
                     r'pod="default/(?P<pod>[^"]+)"')
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
#: The events of the provisioner (the test plays it, silently), not the PV controller's.
PROVISIONER_EVENTS = ("Provisioning", "ProvisioningSucceeded")
#: (kind, node or message): ("bound", node), ("unschedulable", message), ("error", message).
Decision = tuple[str, str]


def _config(folder: Path, kubeconfig: Path) -> Path:
    """The KubeSchedulerConfiguration both schedulers read: the default profile, VolumeBinding's bind timeout."""
    path = folder / "scheduler-config.yaml"
    path.write_text(json.dumps({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)}, "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
            {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": BIND_TIMEOUT}}]}]}, indent=1))
    return path


@pytest.fixture(scope="module")
def storage_cluster(kube_control_plane: ControlPlane) -> tuple[KubeApi, Path, Path]:
    """The module's control plane with kube-controller-manager and kube-scheduler (-v=10); the admin's client,
    kube-scheduler's log and its configuration file."""
    plane = kube_control_plane
    config = _config(plane.folder, plane.kubeconfig("scheduler"))
    plane.start_controller_manager()
    plane.start_scheduler(f"--config={config}", "-v=10")
    return KubeApi.connect(str(plane.kubeconfig("admin"))), plane.folder / "kube-scheduler.log", config


class SchedulerLog:
    """kube-scheduler's log, read from where :meth:`skip` left it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def skip(self) -> None:
        """Forget what is logged so far."""
        self.offset = self.path.stat().st_size

    def _text(self) -> str:
        with self.path.open("rb") as log:
            log.seek(self.offset)
            return log.read().decode(errors="replace")

    def best(self, name: str, chosen: str) -> set[str]:
        """The nodes with the best final score logged for pod ``name`` (its last attempt's), or ``{chosen}`` when
        there are none (a single feasible node is not scored)."""
        scores: dict[str, int] = {}
        for match in FINAL_SCORE.finditer(self._text()):
            if match["pod"] == name:
                scores[match["node"]] = int(match["score"])
        return {n for n, s in scores.items() if s == max(scores.values())} if scores else {chosen}

    def prebind_node(self, name: str) -> str | None:
        """The node of the first PreBind of VolumeBinding for pod ``name``, if one started."""
        return next((m["node"] for m in PREBIND.finditer(self._text()) if m["pod"] == name), None)


@attrs.frozen
class Simulated:
    """What ``simulate`` did: the pod's first decision (its first Scheduled or FailedScheduling event), the node of
    its first plugin error ("" without), and each claim's binding at the end (see :func:`binding`)."""

    decision: Decision
    error_node: str
    bindings: dict[str, str]
    #: The first event the PV controller recorded about each claim: claim -> (reason, message).
    claim_events: dict[str, tuple[str, str]]


def binding(volume_name: str, zone: str) -> str:
    """A claim's binding as compared: "" (unbound), a static PV's name, or ``provisioned in <zone>`` (provisioned
    PVs' names hold the claim's uid, which differs)."""
    return f"provisioned in {zone}" if volume_name.startswith("pvc-") else volume_name


def real_bindings(objects: list[Obj]) -> dict[str, str]:
    """Each claim's binding in a state read from the API server."""
    zones = {v["metadata"]["name"]: next((e["values"][0] for t in v["spec"].get("nodeAffinity", {}).get(
        "required", {}).get("nodeSelectorTerms", []) for e in t.get("matchExpressions", []) if e["key"] == ZONE), "")
        for v in objects if v["kind"] == "PersistentVolume"}
    return {c["metadata"]["name"]: binding(c["spec"].get("volumeName", ""), zones.get(c["spec"].get("volumeName"), ""))
            if (c.get("status") or {}).get("phase") == "Bound" else "" for c in objects
            if c["kind"] == "PersistentVolumeClaim"}


def simulated(tmp_path: Path, config: Path, objects: list[Obj], pod: Obj | None, *,
              settled: bool = False) -> Simulated:
    """``simulate`` of ``objects`` and ``pod`` with the test's provisioner running (taking a second); the pod's
    first decision or, with ``settled``, its first once its Immediate claims were bound (the first that is not
    "pod has unbound immediate PersistentVolumeClaims", if there is one)."""
    manifest = tmp_path / "cluster.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*objects, *filter(None, [pod])]}))
    registry = PluginRegistry.discover()
    simulation = Simulation(load([manifest]), load_config(str(config), registry), registry,
                            storage=StorageSettings(provisioning_delay=1.0, provisioners=(PROVISIONER,)))
    result = simulation.run()
    store = simulation.cluster.storage
    bindings = {}
    for claim in store.claims():
        volume = store.volume(claim.volume_name) if claim.phase == "Bound" else None
        zones = [r.values[0] for t in (volume.node_affinity.node_selector_terms if volume and volume.node_affinity
                                       else ()) for r in t.match_expressions if r.key == ZONE]
        bindings[claim.name] = binding(volume.name, zones[0] if zones else "") if volume is not None else ""
    claim_events: dict[str, tuple[str, str]] = {}
    for event in simulation.cluster.events:
        if event.kind == "PersistentVolumeClaim" and event.reason not in PROVISIONER_EVENTS and \
                "claim Selector is not supported" not in event.message:
            claim_events.setdefault(event.name, (event.reason, event.message))
    if pod is None:
        return Simulated(("", ""), "", bindings, claim_events)
    name = pod["metadata"]["name"]
    decisions = [e for e in result.events if e.object == f"default/{name}" and
                 e.reason in ("Scheduled", "FailedScheduling")]
    later = [e for e in decisions if UNBOUND_IMMEDIATE not in e.message] if settled else []
    decision = (later or decisions)[0]
    if decision.reason == "Scheduled":
        return Simulated(("bound", decision.message.rsplit(" to ", 1)[1]), "", bindings, claim_events)
    if decision.message.startswith("0/"):
        return Simulated(("unschedulable", decision.message), "", bindings, claim_events)
    errors = [f for f in result.plugin_errors if f.pod == f"default/{name}"]
    return Simulated(("error", decision.message), errors[0].node if errors else "", bindings, claim_events)


class Checker:
    """Compares kube-scheduler's decisions with simulate's, counting them by kind (and kube's reasons for pods
    that fit nowhere) and keeping the differences."""

    def __init__(self, log: SchedulerLog) -> None:
        self.log = log
        self.tally: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.differences: list[str] = []

    def check(self, pod: Obj, real: Decision, before: dict[str, str], after: dict[str, str], sim: Simulated,
              what: str = "") -> None:
        """One decision: the node among kube-scheduler's best and the claims it bound bound alike (``before`` and
        ``after`` it, in kube), or the same message (a PreBind error's on a node among the best)."""
        name = pod["metadata"]["name"]
        self.tally[f"{what}checked"] += 1
        prebind_node = self.log.prebind_node(name) if real[0] == "error" else None
        if real[0] != "bound" and not prebind_node:
            self.tally[f"{what}{real[0]}"] += 1
            reasons = REASONS.match(real[1]) if real[0] == "unschedulable" and not what else None
            if reasons is not None:
                self.reasons.update(re.sub(r'^\d+ |(?<=")[^"]+(?=")', "", r) for r in reasons["reasons"].split(", "))
            if sim.decision != real:
                self.differences.append(f"{what}{name}: kube-scheduler: {real}; simulate: {sim.decision}")
            return
        node = prebind_node or real[1]
        best = self.log.best(name, node)
        self.tally[what + ("bound" if real[0] == "bound" else "PreBind error") +
                   (", unique best" if len(best) == 1 else ", among ties")] += 1
        simulated_node = sim.decision[1] if sim.decision[0] == "bound" else sim.error_node
        if sim.decision[0] != real[0] or simulated_node not in best or (real[0] == "error" and sim.decision != real):
            self.differences.append(f"{what}{name}: kube-scheduler: {real} on {node} (best: {sorted(best)}); "
                                    f"simulate: {sim.decision} on {simulated_node}")
            return
        claims = [v["persistentVolumeClaim"]["claimName"] for v in pod["spec"].get("volumes", [])
                  if "persistentVolumeClaim" in v]
        if real[0] != "bound" or simulated_node != node:
            return
        for claim in claims:
            if after.get(claim) and not before.get(claim):
                kind = "a provisioned PV" if after[claim].startswith("provisioned") else "a static PV"
                self.tally[f"{what}claims bound to {kind} by the pod's binding"] += 1
        mine = {c: after.get(c, "") for c in claims}
        if mine != {c: sim.bindings.get(c, "") for c in claims}:
            self.differences.append(f"{what}{name}: kube bound its claims {mine}; simulate: "
                                    f"{ {c: sim.bindings.get(c, '') for c in claims} }")


def free_zones(cluster: StorageCluster, bindings: dict[str, str]) -> dict[str, str]:
    """``bindings`` without the zone of claims provisioned at once where their class leaves the zone free (the
    provisioner's choice: kube's test picks one, simulate another)."""
    free = {c["metadata"]["name"] for c in cluster.classes if c["provisioner"] == PROVISIONER and
            c["volumeBindingMode"] == "Immediate" and not c.get("allowedTopologies")}
    claims = {c["metadata"]["name"] for c in cluster.claims if c["spec"].get("storageClassName") in free}
    return {c: "provisioned" if c in claims and b.startswith("provisioned") else b for c, b in bindings.items()}


def from_scratch(checker: Checker, tmp_path: Path, config: Path, cluster: StorageCluster, pod: Obj, real: Decision,
                 events: dict[str, tuple[str, str]], before: dict[str, str], after: dict[str, str]) -> None:
    """``simulate`` of the cluster's objects as the test created them: its PV controller and provisioner must
    settle the claims as kube-controller-manager and the test's provisioner did (``before`` the first pending pod;
    the PV controller's first event per claim, ``events``, alike) and, where no provisioner chose another zone,
    decide the first pod as kube-scheduler did, once its Immediate claims were bound (simulate attempts it at
    time 0, before the provisioner made their volumes, where kube's pod was created once they were)."""
    created = [*cluster.nodes, *cluster.csi_nodes, *cluster.classes, *cluster.volumes, *cluster.claims,
               *cluster.bound]
    settled = simulated(tmp_path, config, created, None)
    checker.tally["from scratch: claims"] += len(before)
    checker.tally["from scratch: claims with a PV controller event"] += len(events)
    if settled.claim_events != events:
        checker.differences.append(f"from scratch, {cluster.prefix}: kube-controller-manager's first events "
                                   f"{events}; simulate's {settled.claim_events}")
    if free_zones(cluster, settled.bindings) != free_zones(cluster, before):
        checker.differences.append(f"from scratch, {cluster.prefix}: kube-controller-manager bound the claims "
                                   f"{before}; simulate: {settled.bindings}")
    elif settled.bindings != before:
        checker.tally["from scratch: provisioned in another zone"] += 1
    else:
        checker.check(pod, real, before, after, simulated(tmp_path, config, created, pod, settled=True),
                      "from scratch: ")


def test_simulate_decides_with_storage_as_the_real_cluster(storage_cluster: tuple[KubeApi, Path, Path],
                                                          tmp_path: Path) -> None:
    """For every pending pod of random clusters with storage, simulate (on the state kube-scheduler saw) picks a
    node kube-scheduler scored best and the same PVs, writes kube-scheduler's message, or fails PreBind as it did;
    from the objects as created, its PV controller and provisioner bind the claims as kube's did, and the first
    pod is decided the same."""
    api, log_path, config = storage_cluster
    log = SchedulerLog(log_path)
    rng = random.Random(20260222)
    checker = Checker(log)
    for case in range(max([CLUSTERS - 1, *ONLY]) + 1):
        cluster = random_storage_cluster(rng, case)
        if ONLY and case not in ONLY:
            continue
        checker.tally["clusters"] += 1
        real_storage = RealStorage(api, cluster, random.Random(case), log_path)
        real_storage.create()
        for index, obj in enumerate(cluster.pending):
            name = obj["metadata"]["name"]
            state = real_storage.state()
            events = real_storage.first_claim_events() if index == 0 else {}
            log.skip()
            api.request("POST", "/api/v1/namespaces/default/pods", body=obj)
            real: Decision = wait(f"kube-scheduler to decide about {name}",
                                  functools.partial(outcome, api, name, len(cluster.nodes)), log_path,
                                  real_storage.provision)
            if real[0] != "bound":
                real_storage.delete_pod(name)
            real_storage.settle()
            before, after = real_bindings(state), real_bindings(real_storage.state())
            checker.check(obj, real, before, after, simulated(tmp_path, config, state, obj))
            if index == 0:
                from_scratch(checker, tmp_path, config, cluster, obj, real, events, before, after)
        real_storage.cleanup()
    print("storage fidelity: " + ", ".join(f"{k} {v}" for k, v in sorted(checker.tally.items())))
    print("kube-scheduler's reasons for pods that fit nowhere: " +
          ", ".join(f"{k} {v}" for k, v in checker.reasons.most_common()))
    assert not checker.differences, f"{len(checker.differences)} of {checker.tally['checked']} decisions differ:\n" + \
        "\n".join(checker.differences)

"""The ReplicaSet controller: replicas from the template, kube's names, owner references, replacements."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers.replicaset import ReplicaSetController
from tests.sim.controllers.helpers import created, events, live, node, run

RS = """kind: ReplicaSet
metadata: {name: web, uid: rs-uid}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
"""


def test_creates_replicas_named_as_kube_does(tmp_path: Path, registry: PluginRegistry) -> None:
    """Three pods <rs>-<5 chars of bcdfghjklmnpqrstvwxz2456789>, owned by the ReplicaSet (controller: true)."""
    pods = live(run(tmp_path, node("n1") + RS, registry))
    assert len(pods) == 3
    for pod in pods:
        assert re.fullmatch(r"web-[bcdfghjklmnpqrstvwxz2456789]{5}", pod.name)
        (ref,) = pod.metadata.owner_references
        assert (ref.kind, ref.name, ref.uid, ref.controller, ref.api_version) == (
            "ReplicaSet", "web", "rs-uid", True, "apps/v1")
        assert pod.labels["app"] == "web"
        assert pod.spec.node_name == "n1"


def test_names_are_deterministic_with_the_seed(tmp_path: Path, registry: PluginRegistry) -> None:
    """The same seed gives the same names; another seed others."""
    names = [[p.name for p in live(run(tmp_path, node("n1") + RS, registry, seed=s))] for s in (1, 1, 2)]
    assert names[0] == names[1] != names[2]


def test_evicted_pod_is_replaced_after_the_controller_delay(tmp_path: Path, registry: PluginRegistry) -> None:
    """A deleted replica's replacement is created one second (the default delay) after it started terminating."""
    sim = run(tmp_path, node("n1") + RS, registry)
    victim = live(sim)[0]
    sim.cluster.delete_pod(victim)
    deleted_at = sim.clock.now()
    sim.settle()
    replacements = [(t, n) for t, n in created(sim) if t > 0]
    assert len(replacements) == 1
    assert replacements[0][0] == deleted_at + 1.0
    assert len(live(sim)) == 3
    assert victim.name not in {p.name for p in live(sim)}


def test_scaling_down_deletes_unscheduled_pods_first(tmp_path: Path, registry: PluginRegistry) -> None:
    """Scaled from 3 to 1 with one pod pending, the pending pod is among the deleted."""
    sim = run(tmp_path, node("n1", cpu="1") + RS, registry)  # room for 2 of the 3
    pending = [p for p in live(sim) if not p.spec.node_name]
    assert len(pending) == 1
    controller = sim.manager.get("ReplicaSet", "default", "web") if sim.manager else None
    assert isinstance(controller, ReplicaSetController)
    controller.scale(1)
    sim.settle()
    assert [p.spec.node_name for p in live(sim)] == ["n1"]
    assert pending[0].uid not in sim.cluster.pods


def test_long_names_are_cut_to_fit_63_characters(tmp_path: Path, registry: PluginRegistry) -> None:
    """A ReplicaSet named with 60 characters makes pods of its first 58 characters (its name plus the dash, cut)
    and 5 random ones, as the API server's generateName does."""
    long = "w" * 60
    pods = live(run(tmp_path, node("n1") + RS.replace("name: web,", f"name: {long},"), registry))
    assert len(pods) == 3
    assert all(re.fullmatch(rf"{'w' * 58}[bcdfghjklmnpqrstvwxz2456789]{{5}}", p.name) for p in pods)


@pytest.mark.slow
def test_a_sync_creates_at_most_500_pods(tmp_path: Path, registry: PluginRegistry) -> None:
    """1,200 replicas come 500, 500 and 200, one sync (a controller delay) apart, as kube's burstReplicas caps each
    sync; replicas: 2147483647 is then many cheap syncs, not a list of two billion pods."""
    text = RS.replace("replicas: 3", "replicas: 1200").replace("cpu: 500m", "cpu: 1m")
    sim = run(tmp_path, node("n1").replace("'110'", "'2000'") + text, registry)
    counts = Counter(e.time for e in events(sim, "SuccessfulCreate"))
    assert sorted(counts.values(), reverse=True) == [500, 500, 200]
    assert len(counts) == 3

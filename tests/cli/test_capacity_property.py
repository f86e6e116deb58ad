"""`kubesched capacity` against brute force: on random small clusters, its count is the number of copies bound when
`simulate` runs the input and, once it settled, count + 1 copies: count bound, where capacity put them, and the
last one pending with capacity's stop message. Without --preempt the brute force's copies may not preempt (their
PriorityClass has preemptionPolicy Never); with --preempt they may, lower-priority pods being present, and evict the
pods capacity lists as victims.

With --preempt the brute force creates one copy an hour, so each settles before the next. Meanwhile the input's
pending pods are retried (the five-minute flush of unschedulable pods), which capacity, adding its copies back to
back, does not do; each retry draws from the run's random numbers (kube's random start of the preemption candidate
search), so where two nodes tie, the two runs may then pick different victims. On clusters with pending pods the
count must still agree, and does; the victims and placements are compared on clusters without them.

``KUBESCHED_CAPACITY_CLUSTERS`` sets how many clusters (default 24); ``KUBESCHED_CAPACITY_ONLY`` replays one seed.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.capacity import CapacityOptions, CapacityResult, capacity, load_capacity_input
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import ScenarioRunner
from kubesched.sim.simulate import PHASE_BOUND, PHASE_PENDING, PodResult, SimulationResult

CLUSTERS = int(os.environ.get("KUBESCHED_CAPACITY_CLUSTERS", "24"))
ONLY = os.environ.get("KUBESCHED_CAPACITY_ONLY")
SEEDS = [int(ONLY)] if ONLY else list(range(CLUSTERS))
NEVER_SUFFIX = " preemption: not eligible due to preemptionPolicy=Never."
CLASSES = {"low": 10, "mid": 100, "high": 1000}

Obj = dict[str, Any]


def _pod(name: str, cpu: str, memory: str, priority: str, *, node: str | None = None, grace: int | None = None,
         selector: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"priorityClassName": priority,
                 "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
    if node is not None:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    if selector:
        spec["nodeSelector"] = selector
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def random_cluster(seed: int, *, pending: bool = True) -> tuple[list[Obj], Obj]:
    """Nodes of 1 to 4 CPUs, some tainted or labelled; pods running on them (within their room) at three
    priorities, some ending at once when preempted; with ``pending``, up to two pods pending; and the pod to
    copy."""
    rng = random.Random(seed)
    objects: list[Obj] = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": name}, "value": value} for name, value in CLASSES.items()]
    objects += [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"{name}-never"},
                 "value": value, "preemptionPolicy": "Never"} for name, value in CLASSES.items()]
    room: dict[str, list[int]] = {}
    for i in range(rng.randint(1, 4)):
        cpu, memory = rng.choice([1000, 2000, 4000]), rng.choice([2, 4, 8])
        node: Obj = {"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": f"n{i}", "labels": {"disk": rng.choice(["ssd", "hdd"])}},
                     "status": {"allocatable": {"cpu": f"{cpu}m", "memory": f"{memory}Gi",
                                                "pods": str(rng.choice([4, 8, 110]))}}}
        if rng.random() < 0.2:
            node["spec"] = {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}
        objects.append(node)
        room[f"n{i}"] = [cpu, memory * 1024]
    for i in range(rng.randint(0, 8)):
        name = rng.choice(sorted(room))
        cpu, memory = rng.choice([100, 250, 500, 1000]), rng.choice([128, 512, 1024])
        if room[name][0] < cpu or room[name][1] < memory:
            continue
        room[name][0] -= cpu
        room[name][1] -= memory
        objects.append(_pod(f"run-{i}", f"{cpu}m", f"{memory}Mi", rng.choice(list(CLASSES)), node=name,
                            grace=rng.choice([None, 0])))
    for i in range(rng.randint(0, 2)):
        waiting = _pod(f"wait-{i}", rng.choice(["2", "3", "500m"]), "256Mi", rng.choice(list(CLASSES)))
        if pending:
            objects.append(waiting)
    template = _pod("app", rng.choice(["100m", "250m", "500m", "1"]), rng.choice(["128Mi", "512Mi", "1Gi"]),
                    rng.choice(list(CLASSES)), selector={"disk": "ssd"} if rng.random() < 0.3 else None)
    return objects, template


def _dump(path: Path, objects: list[Obj]) -> str:
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    return str(path)


def run_capacity(tmp_path: Path, registry: PluginRegistry, objects: list[Obj], template: Obj,
                 preempt: bool) -> CapacityResult:
    """`kubesched capacity` on the cluster, through its Python face."""
    given = load_capacity_input(_dump(tmp_path / "pod.yaml", [template]), [_dump(tmp_path / "in.yaml", objects)],
                                None, ["default-scheduler"])
    return capacity(given, load_config("default", registry), registry, options=CapacityOptions(preempt=preempt))


def brute_force(tmp_path: Path, registry: PluginRegistry, objects: list[Obj], template: Obj, copies: int,
                preempt: bool) -> SimulationResult:
    """A scenario: the input, then at one hour ``copies`` copies (which may not preempt); with ``preempt``, one
    copy an hour instead, so each settles (its victims gone) before the next, as capacity adds them."""
    made = []
    for i in range(1, copies + 1):
        copy = yaml.safe_load(yaml.safe_dump(template))
        copy["metadata"]["name"] = f"brute-{i}"
        if not preempt:  # the same priority, from a class that never preempts
            copy["spec"]["priorityClassName"] += "-never"
        made.append(copy)
    steps: list[Obj] = [{"create": {"objects": objects}}]
    if preempt:
        steps += [{"at": f"{i}h", "create": {"objects": [copy]}} for i, copy in enumerate(made, start=1)]
    else:
        steps.append({"at": "1h", "create": {"objects": made}})
    scenario = {"apiVersion": "kubesched.io/v1alpha1", "kind": "Scenario", "metadata": {"name": "brute"},
                "spec": {"steps": steps}}
    path = tmp_path / "brute.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    return ScenarioRunner(load_scenario(path), load_config("default", registry), registry).run()


def _copies(brute: SimulationResult) -> list[PodResult]:
    return [p for p in brute.pods if p.name.startswith("brute-")]


def _victims(brute: SimulationResult, copies: list[PodResult]) -> list[str]:
    preemptors = {p.uid for p in copies}
    return [v for p in brute.preemptions if p.preemptor_uid in preemptors for v in p.victims]


@pytest.mark.parametrize("preempt", [pytest.param(False, id="free-room"), pytest.param(True, id="preempt")])
@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_is_what_a_brute_force_simulation_binds(tmp_path: Path, registry: PluginRegistry, seed: int,
                                                         preempt: bool) -> None:
    """count + 1 copies after the input settles: the first count bound on the nodes capacity names, the last
    pending with capacity's message; with --preempt, the copies' victims are the pods capacity lists."""
    objects, template = random_cluster(seed, pending=not preempt)
    result = run_capacity(tmp_path, registry, objects, template, preempt)
    brute = brute_force(tmp_path, registry, objects, template, result.copies + 1, preempt)
    copies = _copies(brute)
    assert [p.phase for p in copies] == [PHASE_BOUND] * result.copies + [PHASE_PENDING]
    assert sorted(Counter(p.node for p in copies if p.node).items()) == list(result.per_node)
    assert copies[-1].message == (result.stop.message if preempt else result.stop.message + NEVER_SUFFIX)
    assert _victims(brute, copies) == [f"{v.namespace}/{v.name}" for v in result.victims]
    assert preempt or not result.victims


@pytest.mark.parametrize("seed", SEEDS)
def test_copies_that_may_preempt_count_as_a_brute_force_with_pending_pods_binds(
        tmp_path: Path, registry: PluginRegistry, seed: int) -> None:
    """With pending pods in the input, --preempt's count is still the copies a brute force binds, count + 1 giving
    count bound and the last pending."""
    objects, template = random_cluster(seed)
    result = run_capacity(tmp_path, registry, objects, template, True)
    copies = _copies(brute_force(tmp_path, registry, objects, template, result.copies + 1, True))
    assert [p.phase for p in copies] == [PHASE_BOUND] * result.copies + [PHASE_PENDING]

"""Running workloads through a simulation, for the controller tests."""

from __future__ import annotations

import re
from pathlib import Path

from kubesched.api.pod import Pod
from kubesched.io.load import load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import Event
from kubesched.sim.controllers import ControllerSettings, StorageSettings
from kubesched.sim.simulate import Simulation


def node(name: str, cpu: str = "4", labels: str = "{}", taints: str = "[]") -> str:
    """A node manifest."""
    return (f"kind: Node\nmetadata: {{name: {name}, labels: {labels}}}\nspec: {{taints: {taints}}}\n"
            f"status: {{capacity: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n---\n")


def simulation(tmp_path: Path, text: str, registry: PluginRegistry, *, seed: int = 0,
               settings: ControllerSettings | None = None, storage: StorageSettings | None = None) -> Simulation:
    """A started simulation of the manifests in ``text`` (not yet settled)."""
    path = tmp_path / f"in-{seed}.yaml"
    path.write_text(text, encoding="utf-8")
    sim = Simulation(load([path]), load_config("default", registry), registry, seed=seed,
                     controllers=settings or ControllerSettings(), storage=storage)
    sim.start()
    return sim


def run(tmp_path: Path, text: str, registry: PluginRegistry, *, seed: int = 0, until: float | None = None,
        settings: ControllerSettings | None = None, storage: StorageSettings | None = None) -> Simulation:
    """A simulation of ``text`` run to quiescence (or to ``until``)."""
    sim = simulation(tmp_path, text, registry, seed=seed, settings=settings, storage=storage)
    sim.settle(until=until)
    return sim


def live(sim: Simulation) -> list[Pod]:
    """The live pods, by name."""
    return sorted(sim.cluster.pods.values(), key=lambda p: p.name)


def events(sim: Simulation, reason: str) -> list[Event]:
    """The events of one reason, in order."""
    return [e for e in sim.cluster.events if e.reason == reason]


#: A SuccessfulCreate message naming a pod: the ReplicaSet's wording (also the DaemonSet's and Job's) or the
#: StatefulSet's.
CREATED = re.compile(r"Created pod: (?P<name>\S+)|create Pod (?P<ordinal>\S+) in StatefulSet \S+ successful")


def created(sim: Simulation) -> list[tuple[float, str]]:
    """(time, pod name) of every pod a controller created, in order."""
    return [(e.time, match["name"] or match["ordinal"]) for e in events(sim, "SuccessfulCreate")
            if (match := CREATED.fullmatch(e.message))]


def scheduled(sim: Simulation) -> dict[str, tuple[float, str]]:
    """Pod name -> (time, node) of its last Scheduled event."""
    out = {}
    for e in events(sim, "Scheduled"):
        name = e.object.split("/", 1)[1]
        out[name] = (e.time, e.message.rsplit(" ", 1)[1])
    return out

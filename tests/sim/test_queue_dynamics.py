"""Queue dynamics in the simulation, pinned against the real kube-scheduler v1.32 (queueing hints on)."""

from __future__ import annotations

from pathlib import Path

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate
from kubesched.testing import make_node, make_pod
from tests.conftest import write

HOSTNAME = "kubernetes.io/hostname"


def test_preemptor_blocked_by_the_victims_own_anti_affinity_binds_at_the_flush(registry: PluginRegistry) -> None:
    """The victim's deletion is no event for the preemptor (InterPodAffinity's hint looks at the preemptor's own
    terms only), so it binds at the 5-minute flush: 330 s here; the real v1.32 bound it 329 s after its failure."""
    node = make_node("n1").label(**{HOSTNAME: "n1"}).capacity(cpu="4", memory="8Gi", pods="110").obj()
    victim = (make_pod("victim").label(app="v").req(cpu="100m").node("n1").grace_period(0)
              .pod_affinity(HOSTNAME, anti=True, app="p").obj())
    preemptor = make_pod("p").label(app="p").req(cpu="100m").priority(1000).obj()
    result = simulate(ClusterInput(nodes=(node,), pods=(victim, preemptor)), load_config("default", registry),
                      registry)
    timeline = [(e.time, e.object, e.reason) for e in result.events if e.reason != "PluginError"]
    assert timeline == [(0.0, "default/victim", "Preempted"), (0.0, "default/p", "FailedScheduling"),
                        (330.0, "default/p", "Scheduled")]


class HoldLabelled(Plugin):
    """Permit: pods labelled hold=yes wait 60 seconds, which no one ends early."""

    name = "HoldLabelled"

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return (Status.wait(), 60.0) if pod.labels.get("hold") == "yes" else (None, 0.0)


def test_a_waiting_pod_holds_its_room_until_its_permit_timeout(registry: PluginRegistry, tmp_path: Path) -> None:
    """A pod waiting on Permit keeps its reservation; its timeout (virtual time) frees the room, and that drop
    (an AssignedPodDelete event) lets the pod it kept out bind at that instant."""
    with_hold = registry.with_plugins(HoldLabelled)
    profile = write(tmp_path / "p.toml", '[[profiles]]\n[profiles.plugins.permit]\n'
                                          'enabled = [{ name = "HoldLabelled" }]\n')
    node = make_node("n1").capacity(cpu="1").obj()
    waiting = make_pod("w").label(hold="yes").req(cpu="1").obj()
    kept_out = make_pod("x").req(cpu="1").obj()
    result = simulate(ClusterInput(nodes=(node,), pods=(waiting, kept_out)),
                      load_config(str(profile), with_hold), with_hold)
    assert [(e.time, e.reason) for e in result.events if e.object == "default/x"] == [
        (0.0, "FailedScheduling"), (60.0, "Scheduled")]

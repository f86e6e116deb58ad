"""Specification of a PreBind plugin that answers Wait: the binding cycle pauses with the pod assumed, and the
plugin is polled every second of the scheduler's clock until it answers otherwise (kube-scheduler's PreBind blocks
while VolumeBinding polls its claims)."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.runtime._scheduler import Scheduler
from kubesched.runtime._waiting import MAX_PRE_BIND_WAIT, PRE_BIND_POLL_PERIOD
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.runtime.test_scheduler import run, scheduler_on

UID = "default/p-uid"


class Slow(Plugin):
    """Answers Wait to PreBind until the clock reaches ``ready_at``, then what ``outcome`` holds."""

    name = "Slow"
    ready_at = 3.0
    outcome: Status | None = None
    calls: list[float]

    def __init__(self, handle: object, args: object = None) -> None:
        super().__init__(handle, args)  # type: ignore[arg-type]
        self.calls = []

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return []

    @hookimpl
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        now = self.handle.clock.now()
        self.calls.append(now)
        if now < self.ready_at:
            return Status.wait("waiting for the disk")
        return self.outcome


def _setup(outcome: Status | None = None, ready_at: float = 3.0) -> tuple[InMemoryCluster, Scheduler, Slow]:
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Slow, points={"pre-bind": ["Slow"]})
    plugin = scheduler.frameworks["default-scheduler"].plugins["Slow"]
    assert isinstance(plugin, Slow)
    plugin.outcome, plugin.ready_at = outcome, ready_at
    cluster.add_node(make_node("n1").capacity(cpu="4").obj())
    cluster.add_pod(make_pod("p").req(cpu="1").obj())
    run(scheduler)
    return cluster, scheduler, plugin


def _tick(cluster: InMemoryCluster, scheduler: Scheduler) -> None:
    """Move the clock to the scheduler's next wake-up and let it poll."""
    wakeup = scheduler.next_wakeup()
    assert wakeup is not None
    cluster.clock.advance_to(wakeup)
    scheduler.process_waiting_pods()


def test_a_waiting_pre_bind_keeps_the_pod_assumed_and_unbound() -> None:
    """While PreBind waits, the pod holds its room on the node and is not bound."""
    cluster, scheduler, _plugin = _setup()
    assert cluster.pods[UID].spec.node_name == ""
    assert scheduler.cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]
    assert scheduler.pre_bind_wait(UID) == Status.wait("waiting for the disk").with_plugin("Slow")


def test_the_waiting_plugin_is_polled_every_second_until_it_succeeds() -> None:
    """The plugin is called again at each poll period; the pod binds at the first poll that succeeds."""
    cluster, scheduler, plugin = _setup()
    assert scheduler.next_wakeup() == PRE_BIND_POLL_PERIOD
    for _ in range(3):
        _tick(cluster, scheduler)
    assert plugin.calls == [0.0, 1.0, 2.0, 3.0]
    assert cluster.pods[UID].spec.node_name == "n1"
    assert scheduler.next_wakeup() is None
    assert cluster.events[-1].reason == "Scheduled"


@pytest.mark.parametrize(("outcome", "reason", "message"), [
    pytest.param(Status.as_error("binding volumes: context deadline exceeded"), "SchedulerError",
                 'running PreBind plugin "Slow": binding volumes: context deadline exceeded', id="error"),
    pytest.param(Status.unresolvable("volume gone"), "Unschedulable", "volume gone", id="rejection"),
])
def test_a_wait_that_ends_in_failure_unreserves_and_fails_the_pod(outcome: Status, reason: str,
                                                                    message: str) -> None:
    """The plugin's final failure aborts the binding: the room is freed and the pod fails with that status."""
    cluster, scheduler, _plugin = _setup(outcome)
    for _ in range(3):
        _tick(cluster, scheduler)
    pod = cluster.pods[UID]
    condition = next(c for c in pod.status.conditions if c.type == "PodScheduled")
    assert (pod.spec.node_name, condition.reason, condition.message) == ("", reason, message)
    assert scheduler.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert scheduler.pre_bind_wait(UID) is None


def test_a_wait_longer_than_the_safety_net_fails_as_an_error() -> None:
    """A plugin that never stops waiting fails the binding after MAX_PRE_BIND_WAIT."""
    cluster, scheduler, _plugin = _setup(ready_at=float("inf"))
    cluster.clock.advance_to(MAX_PRE_BIND_WAIT)
    scheduler.process_waiting_pods()
    condition = next(c for c in cluster.pods[UID].status.conditions if c.type == "PodScheduled")
    assert condition.message == 'PreBind plugin "Slow" waited longer than 24h0m0s'


def test_a_late_poll_comes_one_period_after_it() -> None:
    """Polled late (a real clock), the next poll is a period after the late one, as a ticker drops missed ticks."""
    cluster, scheduler, _plugin = _setup(ready_at=100.0)
    cluster.clock.advance_to(7.5)
    scheduler.process_waiting_pods()
    assert scheduler.next_wakeup() == 8.5

"""Scheduler.skip_post_filter: a pod it names fails its cycle as under a profile without PostFilter plugins (no
preemption, no PostFilter message); the other pods still run them. ``kubesched capacity`` counts free room so."""

from __future__ import annotations

from typing import ClassVar

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.framework._types import NodeToStatus, PostFilterResult
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod
from tests.runtime.test_scheduler import run, scheduler_on


class Nominating(Plugin):
    """A PostFilter plugin that nominates node ``n1`` for every pod it sees, and remembers them."""

    name = "Nominating"
    seen: ClassVar[list[str]] = []

    @hookimpl
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        Nominating.seen.append(pod.name)
        return PostFilterResult.nominate("n1"), Status.unschedulable("nominated n1")


@pytest.mark.parametrize(("skipped", "ran", "nominated", "message"), [
    pytest.param(set(), ["a", "b"], {"a": "n1", "b": "n1"},
                 "0/1 nodes are available: 1 Insufficient cpu. nominated n1", id="none-skipped"),
    pytest.param({"a"}, ["b"], {"a": "", "b": "n1"}, "0/1 nodes are available: 1 Insufficient cpu.", id="a-skipped"),
])
def test_pods_it_names_fail_without_post_filter(skipped: set[str], ran: list[str], nominated: dict[str, str],
                                                message: str) -> None:
    """PostFilter runs for the pods not named; a named pod is neither nominated nor given a PostFilter message."""
    Nominating.seen = []
    cluster = InMemoryCluster(VirtualClock())
    scheduler = scheduler_on(cluster, Nominating, points={"post-filter": ["Nominating"]})
    scheduler.skip_post_filter(lambda pod: pod.name in skipped)
    cluster.add_node(make_node("n1").capacity(cpu="1").obj())
    for name in ("a", "b"):
        cluster.add_pod(make_pod(name).req(cpu="2").obj())
    run(scheduler)
    pods = {p.name: p for p in cluster.pods.values()}
    assert Nominating.seen == ran
    assert {name: pod.status.nominated_node_name for name, pod in pods.items()} == nominated
    assert next(c.message for c in pods["a"].status.conditions if c.type == "PodScheduled") == message

"""Simulated time stays in range whatever the input: the wall-clock timestamps a run writes saturate at the
largest datetime (9999-12-31T23:59:59.999999Z) instead of overflowing, and never go backwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import attrs
import pytest

from kubesched.api.pod import Pod
from kubesched.io.load import ClusterInput
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import MAX_TIMESTAMP, InMemoryCluster, VirtualClock
from kubesched.sim.simulate import Simulation, SimulationResult, simulate
from kubesched.testing import make_node, make_pod

NEAR_THE_END = datetime(9999, 12, 31, 23, 59, 50, tzinfo=UTC)
T0 = datetime(2026, 11, 1, tzinfo=UTC)
INT64_GRACE = 10**15


def preempting_run(registry: PluginRegistry, *, victim_grace: int = 1, stamp: datetime = T0,
                   backoff: float | None = None) -> SimulationResult:
    """A high-priority pod preempts a running low one on the only node and binds once the victim is gone."""
    victim = (make_pod("victim").node("n1").priority(1).req(cpu="1").grace_period(victim_grace)
              .created(stamp).start_time(stamp).obj())
    preemptor = make_pod("preemptor").priority(1000).req(cpu="1").created(stamp).obj()
    config = load_config("default", registry)
    if backoff is not None:
        settings = attrs.evolve(config.settings, pod_initial_backoff_seconds=backoff, pod_max_backoff_seconds=backoff)
        config = attrs.evolve(config, settings=settings)
    cluster = ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(victim, preemptor))
    return simulate(cluster, config, registry)


def bound_at(result: SimulationResult, name: str) -> float:
    """The simulated time of the pod's Scheduled event."""
    return next(e.time for e in result.events if e.reason == "Scheduled" and e.object == f"default/{name}")


@pytest.mark.parametrize(("case", "kwargs", "when"), [
    ("input timestamps near year 9999", {"stamp": NEAR_THE_END, "victim_grace": 30}, 30.0),
    ("a grace period of 10^15 s", {"victim_grace": INT64_GRACE}, float(INT64_GRACE)),
    ("a backoff of 10^12 s", {"backoff": 1e12}, 1e12),
])
def test_a_bind_past_the_last_datetime_does_not_overflow(registry: PluginRegistry, case: str,
                                                         kwargs: dict[str, object], when: float) -> None:
    """The preemptor binds at a simulated time whose wall-clock instant is past year 9999, without an error."""
    result = preempting_run(registry, **kwargs)  # type: ignore[arg-type]
    phases = {p.name: p.phase for p in result.pods}
    assert phases == {"victim": "Evicted", "preemptor": "Bound"}
    assert bound_at(result, "preemptor") == when


def test_timestamps_saturate_at_the_last_datetime() -> None:
    """Past 9999-12-31T23:59:59.999999Z every timestamp is that instant."""
    clock = VirtualClock(NEAR_THE_END)
    clock.advance_to(9.0)
    assert clock.timestamp() == NEAR_THE_END + timedelta(seconds=9)
    clock.advance_to(11.0)
    assert clock.timestamp() == MAX_TIMESTAMP == datetime.max.replace(tzinfo=UTC)
    clock.advance_to(float(INT64_GRACE))
    assert clock.timestamp() == MAX_TIMESTAMP


def test_timestamps_never_go_backwards() -> None:
    """Across the saturation point the timestamps are non-decreasing as simulated time advances."""
    clock = VirtualClock(NEAR_THE_END)
    stamps = []
    for when in (0.0, 5.0, 9.999999, 10.0, 10.5, 1e6, 1e12, 1e15, 9.2e18):
        clock.advance_to(when)
        stamps.append(clock.timestamp())
    assert stamps == sorted(stamps)
    assert stamps[-1] == MAX_TIMESTAMP


def test_a_base_with_an_offset_past_the_last_utc_datetime_saturates() -> None:
    """A base whose UTC instant is past year 9999 (a negative offset on Dec 31) counts as the last datetime."""
    base = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
    clock = VirtualClock(base)
    assert clock.timestamp() == MAX_TIMESTAMP


def test_timestamps_are_utc() -> None:
    """A base given with an offset is held in UTC, so written timestamps compare and print uniformly."""
    clock = VirtualClock(datetime(2026, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=1))))
    assert clock.timestamp() == datetime(2026, 1, 1, tzinfo=UTC)
    assert clock.timestamp().tzinfo is UTC


def test_simulated_seconds_are_not_capped() -> None:
    """The simulated clock (event times) keeps counting past the datetime range: only timestamps saturate."""
    clock = VirtualClock(NEAR_THE_END)
    clock.advance_to(1e15)
    assert clock.now() == 1e15


def test_start_time_of_a_late_bind_is_the_cap(registry: PluginRegistry) -> None:
    """A pod bound after the cap gets startTime 9999-12-31T23:59:59.999999Z."""
    victim = make_pod("victim").node("n1").priority(1).req(cpu="1").grace_period(INT64_GRACE).obj()
    preemptor: Pod = make_pod("preemptor").priority(1000).req(cpu="1").obj()
    simulation = Simulation(ClusterInput(nodes=(make_node("n1").capacity(cpu="1").obj(),), pods=(victim, preemptor)),
                            load_config("default", registry), registry)
    simulation.run()
    assert simulation.cluster.pods[preemptor.uid].status.start_time == MAX_TIMESTAMP


@pytest.mark.parametrize(("grace", "expected"), [
    (30, T0 + timedelta(seconds=30)),
    (0, T0),
    (INT64_GRACE, MAX_TIMESTAMP),
])
def test_a_graceful_delete_stamps_when_the_grace_period_ends(grace: int, expected: datetime) -> None:
    """deletionTimestamp is the deletion time plus the grace period, as the API server sets it (saturating)."""
    cluster = InMemoryCluster(VirtualClock(T0))
    pod = make_pod("p").node("n1").grace_period(grace).obj()
    cluster.add_pod(pod)
    cluster.delete_pod(pod)
    assert cluster.pods[pod.uid].metadata.deletion_timestamp == expected

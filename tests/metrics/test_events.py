"""Specification of the events a simulation records: kube-scheduler's reasons, actions and messages, at simulated
times, and the simulation's own events about any object."""

from __future__ import annotations

import io

from kubesched.cli.render import console, print_simulation
from kubesched.runtime import PluginRegistry
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from tests.metrics.scenario import run_known


def test_scheduler_events_are_kube_schedulers(registry: PluginRegistry) -> None:
    """Preempted, FailedScheduling and Scheduled: type, reason, action and message as kube-scheduler v1.32 writes
    them, each at its simulated time."""
    events = [(e.time, e.type, e.reason, e.action, e.object, e.message) for e in run_known(registry).events]
    short = "0/1 nodes are available: 1 Insufficient cpu."
    unfit = ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
             "victims found for incoming pod.")
    assert events == [
        (0.0, "Normal", "Preempted", "Preempting", "default/low", "Preempted by pod default/hi-uid on node n1"),
        (0.0, "Warning", "FailedScheduling", "Scheduling", "default/hi", short),
        (0.0, "Warning", "FailedScheduling", "Scheduling", "default/small", unfit),
        (0.0, "Warning", "FailedScheduling", "Scheduling", "default/huge", unfit),
        (30.0, "Normal", "Scheduled", "Binding", "default/hi", "Successfully assigned default/hi to n1"),
        (30.0, "Normal", "Scheduled", "Binding", "default/small", "Successfully assigned default/small to n1"),
        (30.0, "Warning", "FailedScheduling", "Scheduling", "default/huge", unfit),
    ]


def test_event_json_keeps_its_keys_and_adds_action_and_regarding(registry: PluginRegistry) -> None:
    """The documented keys stay as they were; ``action`` and ``regarding`` (kind, namespace, name, uid) are
    added."""
    event = run_known(registry).events[0].to_json()
    assert event == {"time": 0.0, "type": "Normal", "reason": "Preempted", "object": "default/low",
                     "message": "Preempted by pod default/hi-uid on node n1", "action": "Preempting",
                     "regarding": {"kind": "Pod", "namespace": "default", "name": "low", "uid": "default/low-uid"}}


def test_simulation_events_name_any_object_at_the_current_time() -> None:
    """A cluster-scoped object's event has no namespace and its name as ``object``; ``regarding`` has its uid."""
    clock = VirtualClock()
    cluster = InMemoryCluster(clock)
    clock.advance_to(42.5)
    cluster.record_object_event("Node", "", "n3", "Normal", "NodeDeleted", "Node n3 deleted", action="Deleting",
                                uid="n3-uid")
    assert cluster.events[-1].to_json() == {
        "time": 42.5, "type": "Normal", "reason": "NodeDeleted", "object": "n3", "message": "Node n3 deleted",
        "action": "Deleting", "regarding": {"kind": "Node", "namespace": "", "name": "n3", "uid": "n3-uid"}}


def test_events_table_lists_each_event_with_its_time(registry: PluginRegistry) -> None:
    """With events on, the table output has an Events section: time, type, reason, kind and object, message."""
    out = io.StringIO()
    print_simulation(run_known(registry), console(out), events=True)
    text = out.getvalue()
    assert "Events" in text
    assert "30s" in text
    assert "Pod default/hi" in text
    assert "Successfully assigned default/hi to n1" in text


def test_events_table_is_off_by_default(registry: PluginRegistry) -> None:
    """Without events the table output is the pods and nodes only."""
    out = io.StringIO()
    print_simulation(run_known(registry), console(out))
    assert "Events" not in out.getvalue()

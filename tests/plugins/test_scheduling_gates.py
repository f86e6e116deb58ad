"""SchedulingGates: pods with scheduling gates wait outside the active queue."""

from __future__ import annotations

from kubesched.framework._status import Code
from kubesched.plugins.scheduling_gates import SchedulingGates
from kubesched.testing import make_pod, plugin_instance


def test_pod_without_gates_passes() -> None:
    """No gates, no objection."""
    assert plugin_instance(SchedulingGates).pre_enqueue(make_pod("p").obj()) is None


def test_gated_pod_waits_naming_its_gates() -> None:
    """A gated pod is UnschedulableAndUnresolvable with kube-scheduler's message listing every gate."""
    pod = make_pod("p").scheduling_gates("example.com/quota", "example.com/data").obj()
    status = plugin_instance(SchedulingGates).pre_enqueue(pod)
    assert status is not None
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "SchedulingGates")
    assert status.message() == "waiting for scheduling gates: [example.com/quota example.com/data]"

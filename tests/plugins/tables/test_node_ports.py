"""kube-scheduler v1.32's NodePorts tables (pkg/scheduler/framework/plugins/nodeports/node_ports_test.go:
TestNodePorts, TestPreFilterDisabled, Test_isSchedulableAfterPodDeleted), case by case with kube's names and
expected values, written with the public testing kit only; plus the cases later kube versions added to
TestNodePorts and TestFits, which v1.32 answers as the rows say (checked on the v1.32 binaries where they differ
from the later file).

Not expressible with the kit (not translated):
- TestGetContainerPorts: a private helper's return value (the container ports of two pods, in order).
- Test_isSchedulableAfterPodDeleted "backoff-wrong-old-object": it passes a string where Go's interface{} wants a
  *v1.Pod and expects the type assertion's error; the runtime hands kubesched's hints typed objects.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, QueueingHint, Status
from kubesched.testing import PATHS, hint, like, make_node, make_pod, plugin_framework, port

NAME = "NodePorts"
CONFLICT = like(Status.unschedulable("node(s) didn't have free ports for the requested pod ports"))
SKIP = like(Status.skip())
FITS = like(None)


def hook(framework: Any, name: str) -> Any:
    """NodePorts' implementation of hook ``name`` in the framework."""
    found = framework.hook(NAME, name)
    assert found is not None, f"{NAME} has no {name}"
    return found


def ports(*specs: str) -> list[Any]:
    """Host ports written as kube's newPod writes them: "PROTOCOL/hostIP/hostPort"."""
    return [port(int(p), protocol, ip) for protocol, ip, p in (spec.split("/") for spec in specs)]


def wants(*specs: str) -> Any:
    """The incoming pod, one container with these host ports (kube's newPod)."""
    return make_pod("pod").container_ports(*ports(*specs))


def used(*specs: str) -> list[Any]:
    """The node's one existing pod, bound there with these host ports."""
    return [make_pod("existing").node("node").container_ports(*ports(*specs))]


SIDECAR_8001 = make_pod("pod").init_container(sidecar=True, ports=[port(8001)])

# (pod, the node's existing pods, PreFilter's status, Filter's status)
CASES = [
    pytest.param(make_pod("pod").no_containers(), [], SKIP, None, id="skip filter"),
    pytest.param(wants("UDP/127.0.0.1/8080"), used("UDP/127.0.0.1/9090"), FITS, FITS, id="other port"),
    pytest.param(wants("UDP/127.0.0.1/8080"), used("UDP/127.0.0.1/8080"), FITS, CONFLICT, id="same udp port"),
    pytest.param(wants("TCP/127.0.0.1/8080"), used("TCP/127.0.0.1/8080"), FITS, CONFLICT, id="same tcp port"),
    pytest.param(wants("TCP/127.0.0.1/8080"), used("TCP/127.0.0.2/8080"), FITS, FITS, id="different host ip"),
    pytest.param(wants("UDP/127.0.0.1/8080"), used("TCP/127.0.0.1/8080"), FITS, FITS, id="different protocol"),
    pytest.param(wants("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), used("UDP/127.0.0.1/8080"), FITS, CONFLICT,
                 id="second udp port conflict"),
    pytest.param(wants("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), used("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
                 FITS, CONFLICT, id="first tcp port conflict"),
    pytest.param(wants("TCP/0.0.0.0/8001"), used("TCP/127.0.0.1/8001"), FITS, CONFLICT,
                 id="first tcp port conflict due to 0.0.0.0 hostIP"),
    pytest.param(wants("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), used("TCP/127.0.0.1/8001"), FITS, CONFLICT,
                 id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
    pytest.param(wants("TCP/127.0.0.1/8001"), used("TCP/0.0.0.0/8001"), FITS, CONFLICT,
                 id="second tcp port conflict to 0.0.0.0 hostIP"),
    pytest.param(wants("UDP/127.0.0.1/8001"), used("TCP/0.0.0.0/8001"), FITS, FITS, id="second different protocol"),
    pytest.param(wants("UDP/127.0.0.1/8001"), used("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), FITS, CONFLICT,
                 id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
    # Added to TestNodePorts after v1.32; v1.32 answers the first one alike.
    pytest.param(make_pod("pod").init_container(ports=[port(8001)]), used("TCP/0.0.0.0/8001"), SKIP, None,
                 id="non-sidecar initContainer using hostPort"),
    # Later kube-scheduler counts a sidecar's host ports (Filter: Unschedulable). v1.32 counts containers' ports
    # only, so PreFilter skips this pod: the v1.32 binaries bound such a pod to a node whose pod held 8001/TCP.
    pytest.param(SIDECAR_8001, used("TCP/0.0.0.0/8001"), SKIP, None,
                 id="TCP hostPort conflict from sidecar initContainer"),
]


def node_with(pods: list[Any], path: Any = "per-node") -> Any:
    """A framework of NodePorts over one node holding ``pods``."""
    return plugin_framework(NAME, path=path, nodes=[make_node("node").obj()], pods=pods)


@pytest.mark.parametrize(("pod", "existing", "pre_filter", "want"), CASES)
def test_pre_filter_then_filter(pod: Any, existing: list[Any], pre_filter: Any, want: Any) -> None:
    """PreFilter skips a pod asking for no host port; after it, Filter rejects a node where one is taken."""
    framework = node_with(existing)
    state = CycleState()
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "pre_filter")(state, pod.obj(), [node_info]) == pre_filter
    if pre_filter != SKIP:
        assert hook(framework, "filter")(state, pod.obj(), node_info) == want


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "existing", "pre_filter", "want"), CASES)
def test_node_search(path: Any, pod: Any, existing: list[Any], pre_filter: Any, want: Any) -> None:
    """The scheduler's search gives the node Filter's status (success when PreFilter skipped), on both paths."""
    assert node_with(existing, path).run_filter(pod) == {"node": FITS if pre_filter == SKIP else want}


def test_pre_filter_disabled() -> None:
    """TestPreFilterDisabled: Filter without PreFilter's state is kube's Error (the state was not found)."""
    framework = node_with([])
    (node_info,) = framework.handle.snapshot.list()
    assert hook(framework, "filter")(CycleState(), make_pod("pod").obj(), node_info) == like(
        Status.as_error('reading "PreFilterNodePorts" from cycleState: not found'))


# TestFits (after v1.32): whether the pod's ports fit the node's, the same rule in v1.32.
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "existing", "want"), [
    pytest.param(wants("TCP/127.0.0.1/80"), used("TCP/127.0.0.1/9090"), FITS, id="non-conflicting ports"),
    pytest.param(wants("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
                 used("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"), FITS,
                 id="multiple non-conflicting ports"),
    pytest.param(wants("TCP/127.0.0.1/80"), used("UDP/127.0.0.1/80"), FITS, id="same ports on different protocols"),
    pytest.param(wants("TCP/127.0.0.1/80"), used("TCP/127.0.0.1/80"), CONFLICT, id="conflicting ports"),
    pytest.param(wants("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
                 used("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"), CONFLICT,
                 id="multiple ports, some conflicting"),
])
def test_fits(path: Any, pod: Any, existing: list[Any], want: Any) -> None:
    """A pod fits when none of its host ports clashes with one the node's pods hold, on both paths."""
    assert node_with(existing, path).run_filter(pod) == {"node": want}


# Not kube unit cases: the API server gives a hostNetwork pod's ports hostPort = containerPort, so such a pod
# wants and holds them. The v1.32 binaries rejected both pods below with this message.
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("pod", "existing"), [
    pytest.param(make_pod("pod").host_network().container_ports(port(0, container_port=8002)), used("TCP//8002"),
                 id="hostNetwork pod wants its container port on the host"),
    pytest.param(make_pod("pod").container_ports(port(8003, container_port=80)),
                 [make_pod("existing").node("node").host_network().container_ports(port(0, container_port=8003))],
                 id="hostNetwork pod holds its container port on the host"),
])
def test_host_network_pods(path: Any, pod: Any, existing: list[Any]) -> None:
    """A hostNetwork pod's container ports count as host ports, wanted and held, on both paths."""
    assert node_with(existing, path).run_filter(pod) == {"node": CONFLICT}


def deleted(old: Any) -> ClusterEvent:
    """The delete event of pod ``old``: an assigned pod's when it was bound."""
    resource = EventResource.ASSIGNED_POD if old.spec.node_name else EventResource.UNSCHEDULED_POD
    return ClusterEvent(resource, ActionType.DELETE)


@pytest.mark.parametrize(("old", "want"), [
    pytest.param(make_pod("old"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled"),
    pytest.param(make_pod("old").node("fake-node"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-non-hostport"),
    pytest.param(make_pod("old").node("fake-node").host_port(8081), QueueingHint.QUEUE_SKIP,
                 id="skip-queue-on-unrelated-hostport"),
    pytest.param(make_pod("old").node("fake-node").host_port(8080), QueueingHint.QUEUE,
                 id="queue-on-released-hostport"),
])
def test_is_schedulable_after_pod_deleted(old: Any, want: QueueingHint) -> None:
    """A deleted pod requeues the pod only when it was bound and held a host port the pod wants."""
    deleted_pod = old.obj()
    assert hint(NAME, make_pod("pod").host_port(8080), deleted(deleted_pod), deleted_pod, None) is want

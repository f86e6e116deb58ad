"""NodePorts: a pod's host ports must be free on the node; 0.0.0.0 clashes with every host IP."""

from __future__ import annotations

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.framework._plugin import extension_points, marked_hooks
from kubesched.framework._status import Code, Status
from kubesched.plugins.node_ports import NodePorts
from kubesched.testing import plugin_instance
from kubesched.testing.builders import make_node, make_pod
from tests.plugins.helpers import SUCCESS, node_info, run_filter, verdict

CONFLICT = (Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))


def with_ports(name: str, *ports: str) -> Pod:
    """A pod with one container per ``"PROTOCOL/hostIP/port"`` host port (hostIP may be empty)."""
    builder = make_pod(name)
    for spec in ports:
        protocol, host_ip, port = spec.split("/")
        builder.host_port(int(port), protocol, host_ip)
    return builder.obj()


def node_using(*ports: str) -> NodeInfo:
    """A node running one pod that holds these ``"PROTOCOL/hostIP/port"`` host ports (none: an empty node)."""
    running = (with_ports("existing", *ports),) if ports else ()
    return node_info(make_node("n1").obj(), *running)


def plugin() -> NodePorts:
    """The plugin (it takes no args)."""
    return plugin_instance(NodePorts)


def pre_filtered(pod: Pod) -> CycleState:
    """A CycleState after a successful PreFilter for ``pod``."""
    state = CycleState()
    assert plugin().pre_filter(state, pod, []) is None
    return state


# -- Filter -----------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(with_ports("p"), node_using("TCP/127.0.0.1/8080"), SUCCESS, id="pod-without-ports"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8080"), node_using(), SUCCESS, id="nothing-running"),
    pytest.param(with_ports("p", "UDP/127.0.0.1/8080"), node_using("UDP/127.0.0.1/9090"), SUCCESS,
                 id="other-port"),
    pytest.param(with_ports("p", "UDP/127.0.0.1/8080"), node_using("UDP/127.0.0.1/8080"), CONFLICT,
                 id="same-udp-port"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8080"), node_using("TCP/127.0.0.1/8080"), CONFLICT,
                 id="same-tcp-port"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8080"), node_using("UDP/127.0.0.1/8080"), SUCCESS,
                 id="same-port-different-protocol"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8080"), node_using("TCP/127.0.0.2/8080"), SUCCESS,
                 id="same-port-different-host-ip"),
    pytest.param(with_ports("p", "TCP/0.0.0.0/8080"), node_using("TCP/127.0.0.1/8080"), CONFLICT,
                 id="wanted-wildcard-vs-used-specific-ip"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8080"), node_using("TCP/0.0.0.0/8080"), CONFLICT,
                 id="wanted-specific-ip-vs-used-wildcard"),
    pytest.param(with_ports("p", "TCP//8080"), node_using("TCP/10.0.0.1/8080"), CONFLICT,
                 id="empty-host-ip-means-wildcard"),
    pytest.param(with_ports("p", "UDP/0.0.0.0/8080"), node_using("TCP/127.0.0.1/8080"), SUCCESS,
                 id="wildcard-other-protocol"),
    pytest.param(with_ports("p", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
                 node_using("UDP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), CONFLICT, id="second-of-two-ports-conflicts"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8001", "TCP/127.0.0.1/8080"),
                 node_using("TCP/127.0.0.1/8001", "TCP/127.0.0.1/8082"), CONFLICT, id="first-of-two-ports-conflicts"),
    pytest.param(with_ports("p", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8002"),
                 node_using("TCP/127.0.0.1/8002"), CONFLICT, id="wildcard-second-port-conflicts"),
    pytest.param(with_ports("p", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8002"),
                 node_using("TCP/127.0.0.2/8001", "TCP/127.0.0.1/8002"), SUCCESS, id="several-ports-all-free"),
]


@pytest.mark.parametrize(("pod", "node", "expected"), FILTER_CASES)
def test_filter_rejects_a_taken_host_port(pod: Pod, node: NodeInfo, expected: tuple[Code, tuple[str, ...]]) -> None:
    """A wanted (IP, protocol, port) clashes when protocol and port match and the IPs match or either is 0.0.0.0."""
    assert verdict(run_filter(plugin(), pod, node)) == expected


def test_rejection_is_unschedulable_with_the_plugin_name() -> None:
    """The rejection is Unschedulable (preemption can free a port), with kube's reason, attributed to NodePorts."""
    pod = with_ports("p", "TCP/0.0.0.0/80")
    status = plugin().filter(pre_filtered(pod), pod, node_using("TCP/0.0.0.0/80"))
    assert status == Status(Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",),
                            "NodePorts")


# kube-scheduler v1.32 binds a pod wanting hostPort 8080 beside a sidecar holding 8080, and a pod whose sidecar
# wants 8080 beside a container holding it (read from the real binary).
INIT_CONTAINER_CASES = [
    pytest.param(make_pod("p").init_container(sidecar=True, host_ports=(8080,)).obj(), node_using("TCP//8080"),
                 SUCCESS, id="wanted-by-a-sidecar"),
    pytest.param(make_pod("p").init_container(host_ports=(8080,)).obj(), node_using("TCP//8080"), SUCCESS,
                 id="wanted-by-a-plain-init-container"),
    pytest.param(with_ports("p", "TCP//8080"),
                 node_info(make_node("n1").obj(), make_pod("e").init_container(sidecar=True, host_ports=(8080,)).obj()),
                 SUCCESS, id="used-by-a-sidecar"),
    pytest.param(with_ports("p", "TCP//8080"),
                 node_info(make_node("n1").obj(), make_pod("e").init_container(host_ports=(8080,)).obj()),
                 SUCCESS, id="used-by-a-plain-init-container"),
    pytest.param(make_pod("p").init_container(sidecar=True, host_ports=(8080,)).host_port(8080).obj(),
                 node_using("TCP//8080"), CONFLICT, id="the-pods-container-still-counts"),
]


@pytest.mark.parametrize(("pod", "node", "expected"), INIT_CONTAINER_CASES)
def test_init_container_ports_are_not_counted(pod: Pod, node: NodeInfo,
                                              expected: tuple[Code, tuple[str, ...]]) -> None:
    """kube-scheduler v1.32 counts the host ports of containers only, on both sides: no init container's, not even
    a sidecar's (restartPolicy Always)."""
    assert verdict(run_filter(plugin(), pod, node)) == expected


# -- PreFilter --------------------------------------------------------------------------------------

SKIP_CASES = [
    pytest.param(make_pod("p").obj(), id="no-ports"),
    pytest.param(make_pod("p").req(cpu="1").obj(), id="requests-only"),
    pytest.param(make_pod("p").container(host_ports=(0,)).obj(), id="host-port-zero"),
    pytest.param(make_pod("p").init_container(host_ports=(8080,)).obj(), id="only-a-plain-init-container-port"),
    pytest.param(make_pod("p").init_container(sidecar=True, host_ports=(8080,)).obj(), id="only-a-sidecar-port"),
]


@pytest.mark.parametrize("pod", SKIP_CASES)
def test_pre_filter_skips_pod_without_host_ports(pod: Pod) -> None:
    """Nothing to check: PreFilter returns Skip so Filter never runs."""
    outcome = plugin().pre_filter(CycleState(), pod, [])
    assert isinstance(outcome, Status)
    assert outcome.code is Code.SKIP


def test_pre_filter_succeeds_for_pod_with_host_ports() -> None:
    """A pod with a container's host port gets Success (not Skip), so Filter runs."""
    assert plugin().pre_filter(CycleState(), with_ports("p", "TCP//8080"), []) is None


def test_only_pre_filter_and_filter_no_extensions() -> None:
    """PreFilter and Filter only: no AddPod/RemovePod, since Filter reads NodeInfo.used_ports, which the framework
    keeps up to date when it adds or removes pods on a cloned NodeInfo."""
    assert [p.name for p in extension_points(NodePorts)] == ["PreFilter", "Filter"]
    assert not marked_hooks(NodePorts) & {"pre_filter_add_pod", "pre_filter_remove_pod"}


# -- Cloned NodeInfo (nominated pods, preemption dry run) -------------------------------------------

def test_filter_sees_a_pod_added_to_a_clone_and_the_original_is_unchanged() -> None:
    """Adding a port holder to a clone (as for a nominated pod) takes the port there and only there."""
    pod = with_ports("p", "TCP//8080")
    state = pre_filtered(pod)
    original = node_using()
    clone = original.clone()
    clone.add_pod(PodInfo.of(with_ports("nominated", "TCP/10.0.0.1/8080")))
    assert verdict(plugin().filter(state.clone(), pod, clone)) == CONFLICT
    assert verdict(plugin().filter(state, pod, original)) == SUCCESS
    assert len(original.used_ports) == 0


def test_filter_sees_a_pod_removed_from_a_clone_and_the_original_is_unchanged() -> None:
    """Removing the port holder from a clone (as a preemption dry run does) frees the port there and only there."""
    pod = with_ports("p", "TCP//8080")
    state = pre_filtered(pod)
    victim = with_ports("victim", "TCP//8080")
    original = node_info(make_node("n1").obj(), victim)
    clone = original.clone()
    assert clone.remove_pod(victim)
    assert verdict(plugin().filter(state.clone(), pod, clone)) == SUCCESS
    assert verdict(plugin().filter(state, pod, original)) == CONFLICT
    assert original.used_ports.conflicts("0.0.0.0", "TCP", 8080)


def test_removing_then_re_adding_on_a_clone_takes_the_port_again() -> None:
    """A dry run's reprieve (remove, then add back) leaves the port taken."""
    pod = with_ports("p", "TCP//8080")
    victim = with_ports("victim", "TCP//8080")
    clone = node_info(make_node("n1").obj(), victim).clone()
    clone.remove_pod(victim)
    clone.add_pod(PodInfo.of(victim))
    assert verdict(plugin().filter(pre_filtered(pod), pod, clone)) == CONFLICT


# -- Used ports are a set per node (kube-scheduler v1.32's HostPortInfo) ------------------------------

@pytest.mark.parametrize("leaving", ["first", "second"])
def test_a_port_held_by_two_pods_is_freed_when_either_leaves(leaving: str) -> None:
    """Two pods with one host port put it in the node's set once, so removing either frees it (as in v1.32)."""
    pod = with_ports("p", "TCP//8080")
    holders = {"first": with_ports("first", "TCP//8080"), "second": with_ports("second", "TCP/0.0.0.0/8080")}
    node = node_info(make_node("n1").obj(), *holders.values())
    assert node.remove_pod(holders[leaving])
    assert verdict(plugin().filter(pre_filtered(pod), pod, node)) == SUCCESS


def test_a_port_held_by_two_pods_stays_taken_on_the_node_other_ips_share() -> None:
    """Removing one holder frees only its own (IP, protocol, port): a holder on another IP keeps that one taken."""
    pod = with_ports("p", "TCP/10.0.0.2/8080")
    leaving = with_ports("leaving", "TCP/10.0.0.1/8080")
    node = node_info(make_node("n1").obj(), leaving, with_ports("staying", "TCP/10.0.0.2/8080"))
    assert node.remove_pod(leaving)
    assert verdict(plugin().filter(pre_filtered(pod), pod, node)) == CONFLICT

"""PodInfo.for_pod: a new version of a pod keeps its derived requests only while its containers are the same."""

from __future__ import annotations

from kubesched.framework._node_info import PodInfo
from kubesched.testing import make_pod


def test_a_bound_version_of_the_pod_shares_the_derived_requests() -> None:
    """Binding changes spec.nodeName only, so the requests computed once are reused, not recomputed."""
    info = PodInfo.of(make_pod("web").req(cpu="250m", memory="1Gi").host_port(8080).obj())
    bound = info.for_pod(info.pod.with_node_name("n1"))
    assert bound.pod.spec.node_name == "n1"
    assert bound.requests is info.requests
    assert bound.non_zero_requests is info.non_zero_requests
    assert bound.host_ports == info.host_ports


def test_a_pod_with_other_containers_gets_its_own_requests() -> None:
    """A different pod (other container objects) is derived afresh, so its own requests count."""
    info = PodInfo.of(make_pod("web").req(cpu="250m").obj())
    other = make_pod("web").req(cpu="2").obj()
    assert info.for_pod(other).requests.milli_cpu == 2000

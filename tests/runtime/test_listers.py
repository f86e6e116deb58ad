"""Specification of the Handle's listers: plugins read pods and namespaces from the cluster, through the
backend, inside and outside a scheduling cycle, as kube-scheduler plugins read the informers' listers."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.api.meta import ObjectMeta
from kubesched.api.pod import Pod
from kubesched.api.workload import Namespace
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._handle import Handle
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import make_node, make_pod, plugin_framework, run_plugin

NODES = [make_node("n1").obj(), make_node("n2").obj()]
PODS = [make_pod("a").node("n1").obj(), make_pod("b", "team").node("n1").obj(), make_pod("c", "team").node("n2").obj(),
        make_pod("pending").obj()]


def _names(pods: Any) -> list[str]:
    return sorted(p.key for p in pods)


def _handle() -> Handle:
    return plugin_framework(_Recorder, nodes=NODES, pods=PODS).handle


def test_the_pod_lister_lists_every_pod() -> None:
    """``list`` gives bound and pending pods alike."""
    assert _names(_handle().pod_lister.list()) == ["default/a", "default/pending", "team/b", "team/c"]


def test_the_pod_lister_lists_a_nodes_pods() -> None:
    """``on_node`` gives the pods bound to that node, nothing for an unknown node."""
    lister = _handle().pod_lister
    assert (_names(lister.on_node("n1")), _names(lister.on_node("nowhere"))) == (["default/a", "team/b"], [])


def test_the_pod_lister_lists_a_namespaces_pods() -> None:
    """``in_namespace`` gives the pods of that namespace, nothing for an unknown one."""
    lister = _handle().pod_lister
    assert (_names(lister.in_namespace("team")), _names(lister.in_namespace("none"))) == (["team/b", "team/c"], [])


def test_the_pod_lister_gets_one_pod() -> None:
    """``get`` gives a pod by namespace and name, None when absent."""
    lister = _handle().pod_lister
    assert lister.get("team", "c") == PODS[2]
    assert lister.get("team", "zz") is None


def test_the_pod_lister_follows_the_cluster() -> None:
    """After a bind and a deletion the lister answers from the cluster as it is now."""
    cluster = InMemoryCluster(VirtualClock())
    framework = plugin_framework(_Recorder, nodes=NODES, cluster=cluster)
    pending, doomed = make_pod("p").obj(), make_pod("d").node("n2").obj()
    cluster.add_pod(pending)
    cluster.add_pod(doomed)
    cluster.bind(pending, "n1")
    cluster.delete_pod(doomed)
    cluster.clock.advance_to(60)
    cluster.fire_due_timers()
    lister = framework.handle.pod_lister
    assert (_names(lister.on_node("n1")), _names(lister.on_node("n2")), _names(lister.list())) == \
        (["default/p"], [], ["default/p"])


def test_the_namespace_lister_lists_and_gets_namespaces() -> None:
    """``list`` and ``get`` give the Namespace objects the cluster holds."""
    team = Namespace(ObjectMeta(name="team", labels={"tier": "gold"}))
    lister = plugin_framework(_Recorder, namespaces=[team]).handle.namespace_lister
    assert (list(lister.list()), lister.get("team"), lister.get("other")) == ([team], team, None)


def test_a_namespace_with_pods_exists_without_its_namespace_object() -> None:
    """A dump seldom carries Namespace objects; the namespaces its pods are in exist all the same, labelled with
    their name as the API server labels every namespace, after the input's own Namespace objects."""
    team = Namespace(ObjectMeta(name="team", labels={"tier": "gold"}))
    lister = plugin_framework(_Recorder, nodes=NODES, pods=PODS, namespaces=[team]).handle.namespace_lister
    default = lister.get("default")
    assert [ns.name for ns in lister.list()] == ["team", "default"]
    assert (default is not None and default.metadata.labels) == {"kubernetes.io/metadata.name": "default"}
    assert lister.get("team") is team
    assert lister.get("empty") is None


class _Recorder(Plugin):
    """Records what the pod lister shows for the chosen node in Permit and in PostBind."""

    name = "Recorder"
    seen: ClassVar[dict[str, list[str]]] = {}

    @hookimpl
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        self.seen["permit"] = _names(self.handle.pod_lister.on_node(node_name))
        return None, 0.0

    @hookimpl
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.seen["post_bind"] = _names(self.handle.pod_lister.on_node(node_name))


def test_assumed_pods_are_not_on_their_node_in_the_pod_lister() -> None:
    """In Permit the pod is only assumed, so the lister (the cluster) does not show it on the node yet; after
    binding (PostBind) it does."""
    _Recorder.seen.clear()
    decisions = run_plugin(_Recorder, [make_node("n1")], [make_pod("p")])
    assert decisions["p"].bound
    assert _Recorder.seen == {"permit": [], "post_bind": ["default/p"]}

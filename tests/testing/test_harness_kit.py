"""The kit's handle over a given cluster: plugin_instance, NodeInfos, workload objects, a reused cluster, a
RecordingClient, and snapshots whose image states match the scheduler cache's."""

from __future__ import annotations

from kubesched.api.meta import ObjectMeta
from kubesched.api.workload import Service
from kubesched.backend import BindingError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo, PodInfo
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.image_locality import ImageLocality
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing import RecordingClient, make_node, make_pod, plugin_framework, plugin_instance

MB = 1024 * 1024


def test_plugin_instance_is_the_framework_built_plugin() -> None:
    """plugin_instance returns the plugin of that class, built with the framework as its handle."""
    plugin = plugin_instance(ImageLocality)
    assert type(plugin) is ImageLocality
    assert plugin.handle.profile_name == "default-scheduler"


def test_given_node_infos_are_the_snapshot_and_their_pods_are_in_the_cluster() -> None:
    """A NodeInfo is used in the snapshot as given; its pods are in the cluster, bound to its node."""
    info = NodeInfo.of(make_node("n1").obj(), [PodInfo.of(make_pod("p").obj())])
    framework = plugin_framework(ImageLocality, nodes=[info])
    assert framework.handle.snapshot.get("n1") is info
    assert [p.key for p in framework.handle.pod_lister.on_node("n1")] == ["default/p"]


def test_workload_objects_reach_the_client() -> None:
    """Services given to the kit are what the plugin's client lists."""
    web = Service(ObjectMeta(name="web", namespace="default"), {"app": "web"})
    assert plugin_framework(ImageLocality, services=[web]).handle.client.list_services("default") == [web]


def test_a_given_cluster_keeps_its_own_objects() -> None:
    """With ``cluster=``, nodes and pods it already holds are in the snapshot too."""
    cluster = InMemoryCluster(VirtualClock())
    cluster.add_node(make_node("old").obj())
    cluster.add_pod(make_pod("p").node("old").obj())
    framework = plugin_framework(ImageLocality, nodes=[make_node("new").obj()], cluster=cluster)
    assert [n.name for n in framework.handle.snapshot.list()] == ["new", "old"]
    old = framework.handle.snapshot.get("old")
    assert old is not None
    assert [p.pod.name for p in old.pods] == ["p"]


def test_the_recording_client_records_writes_and_applies_them() -> None:
    """Each write is recorded in order and reaches the cluster."""
    client = RecordingClient()
    pod = make_pod("p").obj()
    binder = plugin_instance(DefaultBinder, nodes=[make_node("n1").obj()], pods=[pod], client=client)
    binder.bind(CycleState(), pod, "n1")
    client.record_event(pod, "Normal", "Scheduled", "ok")
    assert client.calls == [("bind", "default/p", "n1"), ("record_event", "default/p", "Normal", "Scheduled", "ok")]
    bound = client.get_pod("default", "p")
    assert bound is not None
    assert bound.spec.node_name == "n1"


def test_the_recording_client_can_refuse_bindings() -> None:
    """``refuse_bindings`` is raised by bind, which is still recorded."""
    refusal = BindingError("no")
    client = RecordingClient(refuse_bindings=refusal)
    status = plugin_instance(DefaultBinder, client=client).bind(CycleState(), make_pod("p").obj(), "n1")
    assert status is not None
    assert "no" in status.message()
    assert client.calls == [("bind", "default/p", "n1")]


def test_the_kit_snapshot_shares_image_states_like_the_scheduler_cache() -> None:
    """A node's images count as spread over every node holding them, so ImageLocality scores as in a
    scheduler (1000 MiB on 2 of 4 nodes counts 500 MiB: score 48)."""
    nodes = [make_node("n1").image(1000 * MB, "app:1").obj(), make_node("n2").image(1000 * MB, "app:1").obj(),
             make_node("n3").obj(), make_node("n4").obj()]
    framework = plugin_framework(ImageLocality, nodes=nodes)
    info = framework.handle.snapshot.get("n1")
    assert info is not None
    pod = make_pod("p").container(image="app:1").obj()
    assert framework.plugins["ImageLocality"].score(CycleState(), pod, info) == 48

"""KubeCluster: informer output into stores and scheduler events; binds read as their own writes."""

from __future__ import annotations

from typing import Any, cast

import pytest

from kubesched.api.node import Node
from kubesched.api.pod import Pod, PodCondition
from kubesched.backend import BindingError, DeletionError
from kubesched.kube.cluster import KubeCluster
from kubesched.kube.informer import Delta, Replace
from kubesched.kube.rest import ApiError, KubeApi, pod_path
from tests.kube.fakes import FakeApi
from tests.kube.helpers import node, pod


def _obj(obj: dict[str, Any], uid: str, version: str = "1") -> dict[str, Any]:
    return {**obj, "metadata": {**obj["metadata"], "uid": uid, "resourceVersion": version}}


class Recorder:
    """A ClusterListener that writes down what it was told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    def on_node_add(self, node: Node) -> None:
        self.calls.append(("node_add", node.name, ""))

    def on_node_update(self, node: Node) -> None:
        self.calls.append(("node_update", node.name, ""))

    def on_node_delete(self, name: str) -> None:
        self.calls.append(("node_delete", name, ""))

    def on_pod_add(self, pod: Pod) -> None:
        self.calls.append(("pod_add", pod.name, pod.spec.node_name))

    def on_pod_update(self, old: Pod, new: Pod) -> None:
        self.calls.append(("pod_update", new.name, new.spec.node_name))

    def on_pod_delete(self, pod: Pod) -> None:
        self.calls.append(("pod_delete", pod.name, pod.spec.node_name))


@pytest.fixture
def api() -> FakeApi:
    """The fake API server."""
    return FakeApi()


@pytest.fixture
def cluster(api: FakeApi) -> tuple[KubeCluster, Recorder]:
    """A KubeCluster over the fake API, its listener recording."""
    backend = KubeCluster(cast("KubeApi", api), None)
    listener = Recorder()
    backend.listener = listener
    return backend, listener


def test_relist_turns_differences_into_adds_updates_and_deletes(cluster: tuple[KubeCluster, Recorder]) -> None:
    """A Replace after a relist adds new pods, updates those whose resourceVersion moved and deletes the rest."""
    backend, listener = cluster
    backend.apply(Replace("Pod", [_obj(pod("a"), "ua"), _obj(pod("b"), "ub")]))
    listener.calls.clear()
    backend.apply(Replace("Pod", [_obj(pod("a"), "ua"), _obj(pod("b"), "ub", "2"), _obj(pod("c"), "uc")]))
    assert listener.calls == [("pod_update", "b", ""), ("pod_add", "c", "")]
    listener.calls.clear()
    backend.apply(Replace("Pod", [_obj(pod("c"), "uc")]))
    assert sorted(listener.calls) == [("pod_delete", "a", ""), ("pod_delete", "b", "")]
    assert [p.name for p in backend.list_pods()] == ["c"]


def test_watch_events_reach_the_listener_and_the_indexes(cluster: tuple[KubeCluster, Recorder]) -> None:
    """ADDED/MODIFIED/DELETED update the store, the per-node index and the listener."""
    backend, listener = cluster
    backend.apply(Delta("Node", "ADDED", _obj(node("n1"), "n1")))
    bound = _obj(pod("a"), "ua")
    bound["spec"]["nodeName"] = "n1"
    backend.apply(Delta("Pod", "ADDED", bound))
    assert [p.name for p in backend.list_pods_on_node("n1")] == ["a"]
    backend.apply(Delta("Pod", "DELETED", bound))
    backend.apply(Delta("Node", "DELETED", _obj(node("n1"), "n1")))
    assert listener.calls == [("node_add", "n1", ""), ("pod_add", "a", "n1"), ("pod_delete", "a", "n1"),
                              ("node_delete", "n1", "")]
    assert list(backend.list_pods_on_node("n1")) == []


def test_accepted_bind_reads_as_bound_until_the_watch_shows_it(cluster: tuple[KubeCluster, Recorder]) -> None:
    """After the server accepted a bind, get_pod shows the node (the runtime checks it) while the lists still
    show the informer's pending pod."""
    backend, _ = cluster
    backend.apply(Delta("Pod", "ADDED", _obj(pod("a"), "ua")))
    pending = backend.get_pod("default", "a")
    assert pending is not None
    backend.bind(pending, "n1")
    seen = backend.get_pod("default", "a")
    assert seen is not None
    assert seen.spec.node_name == "n1"
    assert [p.spec.node_name for p in backend.list_pods()] == [""]


def test_bind_conflict_reads_the_pod_back(api: FakeApi, cluster: tuple[KubeCluster, Recorder]) -> None:
    """A 409 on bind raises BindingError and get_pod then returns the pod as the server has it (bound elsewhere),
    so the failure handling forgets it instead of requeueing it."""
    backend, _ = cluster
    backend.apply(Delta("Pod", "ADDED", _obj(pod("a"), "ua")))
    elsewhere = _obj(pod("a"), "ua", "7")
    elsewhere["spec"]["nodeName"] = "n2"
    api.objects[pod_path("default", "a")] = elsewhere
    api.fail = lambda method, path: ApiError(409, "Conflict", 'pod a is already assigned to node "n2"') \
        if path.endswith("/binding") else None
    pending = backend.get_pod("default", "a")
    assert pending is not None
    with pytest.raises(BindingError, match="already assigned"):
        backend.bind(pending, "n1")
    seen = backend.get_pod("default", "a")
    assert seen is not None
    assert seen.spec.node_name == "n2"


def test_pod_deleted_before_its_bind_was_seen_leaves_with_its_node(cluster: tuple[KubeCluster, Recorder]) -> None:
    """A pod this process bound and that is deleted before the watch showed the bind is deleted from its node (so
    the scheduler's cache drops the assumed pod)."""
    backend, listener = cluster
    obj = _obj(pod("a"), "ua")
    backend.apply(Delta("Pod", "ADDED", obj))
    pending = backend.get_pod("default", "a")
    assert pending is not None
    backend.bind(pending, "n1")
    backend.apply(Delta("Pod", "DELETED", obj))
    assert listener.calls[-1] == ("pod_delete", "a", "n1")


def test_namespaces_and_controllers_are_found_by_name_until_deleted(cluster: tuple[KubeCluster, Recorder]) -> None:
    """get_namespace(_labels) and get_controller answer from the informers' objects, and forget deleted ones."""
    backend, _ = cluster
    namespace = {"kind": "Namespace", "metadata": {"name": "ml", "uid": "ns", "resourceVersion": "1",
                                                   "labels": {"team": "ai"}}}
    replica_set = {"kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "ml", "uid": "rs",
                                                      "resourceVersion": "1"},
                   "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    backend.apply(Delta("Namespace", "ADDED", namespace))
    backend.apply(Delta("ReplicaSet", "ADDED", replica_set))
    assert backend.get_namespace_labels("ml") == {"team": "ai", "kubernetes.io/metadata.name": "ml"}
    found = backend.get_controller("ReplicaSet", "ml", "web")
    assert found is not None
    assert found.selector is not None
    assert found.selector.match_labels == {"app": "web"}
    assert backend.get_controller("StatefulSet", "ml", "web") is None
    backend.apply(Delta("ReplicaSet", "DELETED", replica_set))
    backend.apply(Delta("Namespace", "DELETED", namespace))
    assert (backend.get_controller("ReplicaSet", "ml", "web"), backend.get_namespace("ml")) == (None, None)
    assert backend.get_namespace_labels("ml") == {"kubernetes.io/metadata.name": "ml"}


def test_node_update_that_changes_nothing_read_is_not_passed_on(cluster: tuple[KubeCluster, Recorder]) -> None:
    """A node update that only moves the resourceVersion (a heartbeat) is not an event for the scheduler; a label
    change is."""
    backend, listener = cluster
    backend.apply(Delta("Node", "ADDED", _obj(node("n1"), "n1")))
    backend.apply(Delta("Node", "MODIFIED", _obj(node("n1"), "n1", "2")))
    backend.apply(Delta("Node", "MODIFIED", _obj(node("n1", labels={"disk": "ssd"}), "n1", "3")))
    assert listener.calls == [("node_add", "n1", ""), ("node_update", "n1", "")]


def test_status_writes_are_patches_of_the_status_subresource(api: FakeApi,
                                                              cluster: tuple[KubeCluster, Recorder]) -> None:
    """Nominating (and clearing with null), the PodScheduled condition and DisruptionTarget before a delete are
    patches of pods/status; the delete carries the uid as a precondition."""
    backend, _ = cluster
    backend.apply(Delta("Pod", "ADDED", _obj(pod("a"), "ua")))
    target = backend.get_pod("default", "a")
    assert target is not None
    backend.set_nominated_node_name(target, "n1")
    backend.set_nominated_node_name(target, "")
    backend.set_scheduling_failure(target, "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.")
    backend.delete_pod(target, condition=PodCondition("DisruptionTarget", "True", "PreemptionByScheduler", "why"))
    status = pod_path("default", "a", "status")
    merge, strategic = "application/merge-patch+json", "application/strategic-merge-patch+json"
    assert [(m, p, c) for m, p, c, _ in api.bodies] == [
        ("PATCH", status, merge), ("PATCH", status, merge), ("PATCH", status, strategic), ("PATCH", status, strategic),
        ("DELETE", pod_path("default", "a"), "application/json")]
    bodies = [b for *_, b in api.bodies]
    assert bodies[0] == {"status": {"nominatedNodeName": "n1"}}
    assert bodies[1] == {"status": {"nominatedNodeName": None}}
    condition = bodies[2]["status"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == \
        ("PodScheduled", "False", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.")
    assert bodies[3]["status"]["conditions"][0]["type"] == "DisruptionTarget"
    assert bodies[4]["preconditions"] == {"uid": "ua"}


def test_a_failure_with_a_nomination_is_one_status_patch(api: FakeApi, cluster: tuple[KubeCluster, Recorder]) -> None:
    """As kube-scheduler's updatePod: the PodScheduled condition and nominatedNodeName go in one strategic merge
    patch of pods/status (null clears the nomination)."""
    backend, _ = cluster
    backend.apply(Delta("Pod", "ADDED", _obj(pod("a"), "ua")))
    target = backend.get_pod("default", "a")
    assert target is not None
    backend.set_scheduling_failure(target, "Unschedulable", "preempting", "n1")
    backend.set_scheduling_failure(target, "Unschedulable", "no candidate", "")
    assert [(m, c) for m, _, c, _ in api.bodies] == [("PATCH", "application/strategic-merge-patch+json")] * 2
    first, second = (b["status"] for *_, b in api.bodies)
    assert (first["nominatedNodeName"], first["conditions"][0]["message"]) == ("n1", "preempting")
    assert (second["nominatedNodeName"], second["conditions"][0]["message"]) == (None, "no candidate")


DISRUPTION_TARGET = PodCondition("DisruptionTarget", "True", "PreemptionByScheduler", "why")


@pytest.mark.parametrize(("refused", "status", "raises", "requests"), [
    pytest.param("PATCH", 500, True, ["PATCH"], id="status patch refused: nothing deleted"),
    pytest.param("PATCH", 404, True, ["PATCH"], id="status patch of a gone pod: an error in v1.32"),
    pytest.param("DELETE", 403, True, ["PATCH", "DELETE"], id="delete forbidden"),
    pytest.param("DELETE", 500, True, ["PATCH", "DELETE"], id="delete failed"),
    pytest.param("DELETE", 0, True, ["PATCH", "DELETE"], id="connection failed"),
    pytest.param("DELETE", 404, False, ["PATCH", "DELETE"], id="already gone"),
    pytest.param("DELETE", 409, False, ["PATCH", "DELETE"], id="uid precondition: another pod of that name"),
])
def test_refused_preemption_writes_raise_deletion_error(api: FakeApi, cluster: tuple[KubeCluster, Recorder],
                                                        refused: str, status: int, raises: bool,
                                                        requests: list[str]) -> None:
    """delete_pod raises DeletionError with the server's message when the DisruptionTarget patch (then no DELETE
    is sent) or the DELETE is refused; a DELETE answered 404 or 409 means the pod is gone: done."""
    backend, _ = cluster
    backend.apply(Delta("Pod", "ADDED", _obj(pod("a"), "ua")))
    target = backend.get_pod("default", "a")
    assert target is not None
    api.fail = lambda method, path: ApiError(status, "InternalError", "etcd is down") if method == refused else None
    if raises:
        with pytest.raises(DeletionError) as error:
            backend.delete_pod(target, condition=DISRUPTION_TARGET)
        assert str(error.value) == "etcd is down"
    else:
        backend.delete_pod(target, condition=DISRUPTION_TARGET)
    assert [method for method, _ in api.requests] == requests

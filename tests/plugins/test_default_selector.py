"""default_selector: the workload selector that system default spreading uses (helper.DefaultSelector)."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.workload import NAMESPACE_NAME_LABEL, Namespace, Service, WorkloadController
from kubesched.framework._helpers import default_selector
from kubesched.sim.cluster import InMemoryCluster, VirtualClock
from kubesched.testing.builders import make_pod


def _cluster(services: Sequence[Service] = (), controllers: Sequence[WorkloadController] = ()) -> InMemoryCluster:
    cluster = InMemoryCluster(VirtualClock())
    cluster.add_workloads([], services, controllers)
    return cluster


def _service(name: str, selector: dict[str, str], namespace: str = "default") -> Service:
    return Service(ObjectMeta(name, namespace), selector)


def _controller(kind: str, name: str, selector: LabelSelector | None, namespace: str = "default") -> WorkloadController:
    return WorkloadController(kind, ObjectMeta(name, namespace), selector)


def test_pod_selected_by_nothing_has_no_default_selector() -> None:
    """No Service selects the pod and it has no controller: no default spreading."""
    assert default_selector(make_pod("p").label(app="web").obj(), _cluster()) is None


def test_services_selecting_the_pod_contribute_their_selectors() -> None:
    """Every Service in the pod's namespace whose selector matches the pod adds its labels."""
    cluster = _cluster([_service("web", {"app": "web"}), _service("tier", {"tier": "front"}),
                        _service("other", {"app": "db"})])
    pod = make_pod("p").label(app="web", tier="front").obj()
    assert default_selector(pod, cluster) == LabelSelector(match_labels={"app": "web", "tier": "front"})


def test_services_in_other_namespaces_or_with_empty_selectors_do_not_count() -> None:
    """A Service selects only pods of its namespace, and an empty selector selects nothing."""
    cluster = _cluster([_service("web", {"app": "web"}, namespace="prod"), _service("empty", {})])
    assert default_selector(make_pod("p").label(app="web").obj(), cluster) is None


def test_owning_replica_set_selector_is_anded_in() -> None:
    """The controlling ReplicaSet's labels and expressions join the selector."""
    expressions = (LabelSelectorRequirement("tier", "In", ("front",)),)
    cluster = _cluster([_service("web", {"app": "web"})],
                       [_controller("ReplicaSet", "web-1", LabelSelector({"rs": "1"}, expressions))])
    pod = make_pod("p").label(app="web", rs="1", tier="front").owner("ReplicaSet", "web-1").obj()
    assert default_selector(pod, cluster) == LabelSelector({"app": "web", "rs": "1"}, expressions)


def test_owning_stateful_set_and_replication_controller_count() -> None:
    """StatefulSets (apps/v1) and ReplicationControllers (v1) are looked up through the owner reference."""
    cluster = _cluster(controllers=[_controller("StatefulSet", "db", LabelSelector({"app": "db"})),
                                    _controller("ReplicationController", "rc", LabelSelector({"app": "rc"}))])
    stateful = make_pod("db-0").label(app="db").owner("StatefulSet", "db").obj()
    replicated = make_pod("rc-x").label(app="rc").owner("ReplicationController", "rc").obj()
    assert default_selector(stateful, cluster) == LabelSelector({"app": "db"})
    assert default_selector(replicated, cluster) == LabelSelector({"app": "rc"})


def test_owner_missing_from_the_input_adds_nothing() -> None:
    """An owner reference to a controller the input does not hold is ignored, as a failed lister Get is."""
    pod = make_pod("p").label(app="web").owner("ReplicaSet", "gone").obj()
    assert default_selector(pod, _cluster()) is None


def test_other_controller_kinds_are_ignored() -> None:
    """A Deployment or Job owner is not a spreading controller (pods are owned by ReplicaSets instead)."""
    cluster = _cluster(controllers=[_controller("Job", "j", LabelSelector({"job": "j"}))])
    pod = make_pod("p").label(job="j").owner("Job", "j").obj()
    assert default_selector(pod, cluster) is None


def test_namespace_labels_default_to_the_name_label() -> None:
    """A namespace absent from the input has only kubernetes.io/metadata.name; a given one keeps its labels."""
    cluster = InMemoryCluster(VirtualClock())
    cluster.add_workloads([Namespace(ObjectMeta("team-a", labels={"team": "a"}))], [], [])
    assert cluster.get_namespace_labels("other") == {NAMESPACE_NAME_LABEL: "other"}
    assert cluster.get_namespace_labels("team-a") == {"team": "a", NAMESPACE_NAME_LABEL: "team-a"}

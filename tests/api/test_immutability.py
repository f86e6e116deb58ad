"""API objects are immutable all the way down: every map is read-only and every list is a tuple, from the
moment the object is built (decoded, built by a builder, or evolved), so a plugin cannot change what it reads."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pytest

from kubesched.api.meta import EMPTY_MAP, FrozenMap, LabelSelector, LabelSelectorRequirement, ObjectMeta
from kubesched.api.node import ContainerImage, Node, NodeStatus
from kubesched.api.pod import (
    Container,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    PodSpec,
    PodStatus,
    TopologySpreadConstraint,
)
from kubesched.api.policy import PodDisruptionBudget, PodDisruptionBudgetStatus
from kubesched.api.quantity import Quantity
from kubesched.api.workload import Service
from kubesched.io import decode_pod
from kubesched.testing import make_node, make_pod

POD_MANIFEST: dict[str, Any] = {
    "metadata": {"name": "web", "labels": {"app": "web"}, "annotations": {"note": "x"}},
    "spec": {
        "nodeSelector": {"disk": "ssd"},
        "overhead": {"cpu": "10m"},
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}}],
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}}}]}},
    },
}


def decoded_pod() -> Pod:
    """The pod of POD_MANIFEST, decoded as the loader does."""
    return decode_pod.pod(copy.deepcopy(POD_MANIFEST))


def _anti_affinity_labels(pod: Pod) -> Mapping[str, str]:
    affinity = pod.spec.affinity
    assert affinity is not None
    assert affinity.pod_anti_affinity is not None
    selector = affinity.pod_anti_affinity.required[0].label_selector
    assert selector is not None
    return selector.match_labels


MAPS_OF_A_POD: list[tuple[str, Callable[[Pod], Mapping[str, Any]]]] = [
    ("metadata.labels", lambda p: p.metadata.labels),
    ("metadata.annotations", lambda p: p.metadata.annotations),
    ("spec.nodeSelector", lambda p: p.spec.node_selector),
    ("spec.overhead", lambda p: p.spec.overhead),
    ("spec.containers[0].resources.requests", lambda p: p.spec.containers[0].requests),
    ("spec.containers[0].resources.limits", lambda p: p.spec.containers[0].limits),
    ("podAntiAffinity...labelSelector.matchLabels", _anti_affinity_labels),
]


@pytest.mark.parametrize(("field", "read"), MAPS_OF_A_POD, ids=[f for f, _ in MAPS_OF_A_POD])
def test_item_assignment_into_a_decoded_pod_raises(field: str, read: Callable[[Pod], Mapping[str, Any]]) -> None:
    """Writing a key into any map of a decoded pod raises TypeError and leaves the pod unchanged."""
    pod = decoded_pod()
    with pytest.raises(TypeError):
        read(pod)["injected"] = "yes"  # type: ignore[index]
    assert "injected" not in read(pod)
    assert pod == decoded_pod()


@pytest.mark.parametrize("write", [
    pytest.param(lambda m: m.update(x="1"), id="update"),
    pytest.param(lambda m: m.setdefault("x", "1"), id="setdefault"),
    pytest.param(lambda m: m.pop("app"), id="pop"),
    pytest.param(lambda m: m.popitem(), id="popitem"),
    pytest.param(lambda m: m.clear(), id="clear"),
    pytest.param(lambda m: m.__delitem__("app"), id="del"),
    pytest.param(lambda m: m.__ior__({"x": "1"}), id="|="),
])
def test_every_mutating_method_of_a_label_map_raises(write: Callable[[Any], object]) -> None:
    """update, setdefault, pop, popitem, clear, del and |= all raise TypeError on pod labels."""
    pod = make_pod("p").label(app="web").obj()
    with pytest.raises(TypeError):
        write(pod.metadata.labels)
    assert pod.metadata.labels == {"app": "web"}


@pytest.mark.parametrize(("field", "read"), [
    ("node labels", lambda: make_node("n").label(zone="a").obj().metadata.labels),
    ("node capacity", lambda: make_node("n").capacity(cpu="2").obj().status.capacity),
    ("node allocatable", lambda: make_node("n").capacity(cpu="2").obj().status.allocatable),
    ("service selector", lambda: Service(ObjectMeta("s"), selector={"app": "web"}).selector),
    ("PDB disruptedPods", lambda: PodDisruptionBudget(
        ObjectMeta("b"), status=PodDisruptionBudgetStatus(disrupted_pods={"p": "t"})).status.disrupted_pods),
    ("PDB disruptedPods default", lambda: PodDisruptionBudgetStatus().disrupted_pods),
    ("label selector matchLabels", lambda: LabelSelector(match_labels={"a": "b"}).match_labels),
])
def test_maps_of_other_kinds_are_read_only(field: str, read: Callable[[], Mapping[str, Any]]) -> None:
    """Nodes, Services and PDBs hold read-only maps too, including defaults."""
    with pytest.raises(TypeError):
        read()["injected"] = "x"  # type: ignore[index]


LIST_FIELDS: list[tuple[str, Callable[[], object]]] = [
    ("LabelSelectorRequirement.values", lambda: LabelSelectorRequirement("k", "In", ["a"]).values),
    ("NodeSelectorRequirement.values", lambda: NodeSelectorRequirement("k", "In", ["a"]).values),
    ("NodeSelectorTerm.match_expressions",
     lambda: NodeSelectorTerm([NodeSelectorRequirement("k", "Exists")]).match_expressions),
    ("NodeSelector.node_selector_terms", lambda: NodeSelector([NodeSelectorTerm()]).node_selector_terms),
    ("PodAffinityTerm.namespaces", lambda: PodAffinityTerm("zone", namespaces=["a"]).namespaces),
    ("TopologySpreadConstraint.match_label_keys",
     lambda: TopologySpreadConstraint(1, "z", "DoNotSchedule", match_label_keys=["app"]).match_label_keys),
    ("PodSpec.containers", lambda: PodSpec(containers=[Container("c")]).containers),
    ("PodSpec.scheduling_gates", lambda: PodSpec(scheduling_gates=["g"]).scheduling_gates),
    ("PodStatus.conditions", lambda: PodStatus(conditions=[]).conditions),
    ("ObjectMeta.owner_references", lambda: ObjectMeta("m", owner_references=[]).owner_references),
    ("ContainerImage.names", lambda: ContainerImage(["img"]).names),
    ("NodeStatus.images", lambda: NodeStatus(images=[]).images),
]


@pytest.mark.parametrize(("field", "read"), LIST_FIELDS, ids=[f for f, _ in LIST_FIELDS])
def test_lists_given_to_constructors_are_stored_as_tuples(field: str, read: Callable[[], object]) -> None:
    """A list passed for a list field is stored as a tuple, so it cannot be appended to afterwards."""
    assert type(read()) is tuple


def test_a_string_for_a_list_of_strings_is_refused() -> None:
    """A lone string given for a list of strings raises TypeError instead of becoming its characters."""
    with pytest.raises(TypeError, match="expected a list of strings"):
        LabelSelectorRequirement("k", "In", "abc")


def test_the_caller_s_dict_is_copied_not_aliased() -> None:
    """Changing the dict a pod was built from afterwards does not change the pod."""
    labels = {"app": "web"}
    meta = ObjectMeta("p", labels=labels)
    labels["app"] = "db"
    assert meta.labels == {"app": "web"}


def test_evolve_freezes_the_new_maps() -> None:
    """attrs.evolve with a plain dict yields a read-only map, equal to that dict."""
    pod = make_pod("p").obj()
    evolved = attrs.evolve(pod.metadata, labels={"app": "web"})
    assert evolved.labels == {"app": "web"}
    with pytest.raises(TypeError):
        evolved.labels["app"] = "db"  # type: ignore[index]


def test_maps_are_frozen_once_and_shared_on_evolve() -> None:
    """A map that is already read-only is kept as is (no copy per evolve), and empty maps are EMPTY_MAP."""
    pod = make_pod("p").label(app="web").node_selector(disk="ssd").obj()
    bound = pod.with_node_name("n1")
    assert bound.metadata.labels is pod.metadata.labels
    assert bound.spec.node_selector is pod.spec.node_selector
    assert ObjectMeta("m", labels={}).labels is EMPTY_MAP


def test_read_only_pods_equal_pods_built_from_plain_dicts() -> None:
    """Equality is by content: a decoded pod equals the same pod built by the builders."""
    built = make_pod("web").label(app="web").obj()
    decoded = decode_pod.pod({"metadata": {"name": "web", "uid": "default/web-uid", "labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c"}]}})
    assert built.metadata == decoded.metadata
    assert decoded.metadata.labels == {"app": "web"}
    assert {"app": "web"} == decoded.metadata.labels  # noqa: SIM300 - dict.__eq__ first, then ours


def test_read_only_maps_are_unhashable_like_dicts() -> None:
    """Hashing is unchanged: a pod with a non-empty map cannot be hashed, an all-default selector can."""
    with pytest.raises(TypeError):
        hash(FrozenMap({"a": "b"}))
    with pytest.raises(TypeError):
        hash(make_pod("p").label(app="web").obj())
    assert hash(LabelSelector()) == hash(LabelSelector())


def test_read_only_maps_survive_copy_pickle_and_json() -> None:
    """deepcopy and pickle give an equal read-only pod; json sees the maps as plain objects."""
    pod = make_pod("p").label(app="web").req(cpu="1").obj()
    for clone in (copy.deepcopy(pod), copy.copy(pod), pickle.loads(pickle.dumps(pod))):
        assert clone == pod
        with pytest.raises(TypeError):
            clone.metadata.labels["app"] = "db"  # type: ignore[index]
    assert json.dumps(pod.metadata.labels) == '{"app": "web"}'
    assert repr(pod.metadata.labels) == "{'app': 'web'}"


def test_resource_maps_keep_quantities() -> None:
    """Requests stay a map of Quantity, read-only."""
    container = Container("c", requests={"cpu": Quantity.parse("1")})
    assert container.requests == {"cpu": Quantity.parse("1")}
    assert isinstance(container.requests, FrozenMap)


def test_node_capacity_and_allocatable_from_one_dict_are_independent() -> None:
    """The builder passes one dict for both; each field holds its own read-only map."""
    node: Node = make_node("n").capacity(cpu="2").obj()
    assert node.status.capacity == node.status.allocatable
    with pytest.raises(TypeError):
        node.status.allocatable["cpu"] = Quantity.parse("4")  # type: ignore[index]


@pytest.mark.parametrize("labels", [{}, {"app": "web"}], ids=["empty", "non-empty"])
def test_a_write_into_labels_says_how_to_change_a_copy(labels: dict[str, str]) -> None:
    """Empty and non-empty maps refuse a write alike, with the advice to use attrs.evolve."""
    pod = make_pod("p").label(**labels).obj()
    with pytest.raises(TypeError, match=r"API objects are immutable \(use attrs\.evolve to make a changed copy\)"):
        pod.metadata.labels["team"] = "a"  # type: ignore[index]

"""Property: no container anywhere inside a decoded pod or node can be written to."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.io import decode, decode_pod

names = st.text("abcxyz", min_size=1, max_size=4)
string_maps = st.dictionaries(names, names, max_size=3)
quantities = st.sampled_from(["1", "100m", "1Gi", "2"])
resource_lists = st.dictionaries(st.sampled_from(["cpu", "memory", "example.com/gpu"]), quantities, max_size=3)
label_selectors = st.fixed_dictionaries({}, optional={
    "matchLabels": string_maps,
    "matchExpressions": st.lists(st.fixed_dictionaries(
        {"key": names, "operator": st.just("In"), "values": st.lists(names, min_size=1, max_size=2)}), max_size=2),
})
node_terms = st.fixed_dictionaries({"matchExpressions": st.lists(st.fixed_dictionaries(
    {"key": names, "operator": st.just("In"), "values": st.lists(names, min_size=1, max_size=2)}),
    min_size=1, max_size=2)})
affinity_terms = st.fixed_dictionaries({"topologyKey": names}, optional={
    "labelSelector": label_selectors, "namespaces": st.lists(names, max_size=2),
    "namespaceSelector": label_selectors})



def field_of(name: str) -> Callable[[Any], str]:
    """What ``unique_by`` compares: an item's field ``name``."""
    return lambda item: str(item[name])


def containers_named(alphabet: str) -> st.SearchStrategy[Any]:
    """Containers with unique names from ``alphabet``, whose requests default to their limits (the API server
    wants container names unique in a pod and extended-resource requests whole and equal to their limits)."""
    return st.lists(st.fixed_dictionaries({"name": st.text(alphabet, min_size=1, max_size=4)}, optional={
        "resources": st.fixed_dictionaries({}, optional={"limits": st.fixed_dictionaries({}, optional={
            "cpu": quantities, "memory": quantities, "example.com/gpu": st.sampled_from(["1", "2"])})}),
        "ports": st.lists(st.fixed_dictionaries({"containerPort": st.integers(1, 65535)}), max_size=2),
    }), min_size=1, max_size=2, unique_by=field_of("name"))


containers = containers_named("abc")
pod_manifests = st.fixed_dictionaries({
    "metadata": st.fixed_dictionaries({"name": names}, optional={
        "labels": string_maps, "annotations": string_maps,
        "ownerReferences": st.lists(st.fixed_dictionaries(
            {"apiVersion": st.just("apps/v1"), "kind": st.just("ReplicaSet"), "name": names}), max_size=1)}),
    "spec": st.fixed_dictionaries({"containers": containers}, optional={
        "initContainers": containers_named("xyz"),
        "nodeSelector": string_maps,
        "overhead": resource_lists,
        "schedulingGates": st.lists(st.fixed_dictionaries({"name": names}), max_size=2, unique_by=field_of("name")),
        "tolerations": st.lists(st.fixed_dictionaries({"key": names, "operator": st.just("Exists")}), max_size=2),
        "topologySpreadConstraints": st.lists(st.fixed_dictionaries({
            "maxSkew": st.integers(1, 3), "topologyKey": names, "whenUnsatisfiable": st.just("DoNotSchedule"),
            "labelSelector": label_selectors,
            # Keys the selectors never use: the API server refuses a key in both.
            "matchLabelKeys": st.lists(st.text("pq", min_size=1, max_size=4), max_size=2)}),
            max_size=2, unique_by=field_of("topologyKey")),
        "affinity": st.fixed_dictionaries({}, optional={
            "nodeAffinity": st.fixed_dictionaries({}, optional={
                "requiredDuringSchedulingIgnoredDuringExecution": st.fixed_dictionaries(
                    {"nodeSelectorTerms": st.lists(node_terms, min_size=1, max_size=2)}),
                "preferredDuringSchedulingIgnoredDuringExecution": st.lists(st.fixed_dictionaries(
                    {"weight": st.integers(1, 100), "preference": node_terms}), max_size=2)}),
            "podAffinity": st.fixed_dictionaries({}, optional={
                "requiredDuringSchedulingIgnoredDuringExecution": st.lists(affinity_terms, max_size=2),
                "preferredDuringSchedulingIgnoredDuringExecution": st.lists(st.fixed_dictionaries(
                    {"weight": st.integers(1, 100), "podAffinityTerm": affinity_terms}), max_size=2)}),
        }),
    }),
    "status": st.fixed_dictionaries({}, optional={"conditions": st.lists(st.fixed_dictionaries(
        {"type": names, "status": st.sampled_from(["True", "False"])}), max_size=2)}),
})
node_manifests = st.fixed_dictionaries({
    "metadata": st.fixed_dictionaries({"name": names}, optional={"labels": string_maps}),
    "spec": st.fixed_dictionaries({}, optional={"taints": st.lists(st.fixed_dictionaries(
        {"key": names, "effect": st.just("NoSchedule")}), max_size=2)}),
    "status": st.fixed_dictionaries({}, optional={
        "capacity": resource_lists, "allocatable": resource_lists,
        "images": st.lists(st.fixed_dictionaries({"names": st.lists(names, min_size=1, max_size=2)}), max_size=2)}),
})

MAP_WRITES: list[Callable[[Any], object]] = [
    lambda m: m.__setitem__("injected", "x"),
    lambda m: m.__delitem__(next(iter(m), "absent")),
    lambda m: m.update({"injected": "x"}),
    lambda m: m.setdefault("injected", "x"),
    lambda m: m.pop(next(iter(m), "absent")),
    lambda m: m.popitem(),
    lambda m: m.clear(),
]


def containers_in(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every attrs object, map and sequence reachable from ``value``, with its path."""
    if attrs.has(type(value)):
        yield path, value
        for field in attrs.fields(type(value)):
            yield from containers_in(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, Mapping):
        yield path, value
        for key, item in value.items():
            yield from containers_in(item, f"{path}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        yield path, value
        for i, item in enumerate(value):
            yield from containers_in(item, f"{path}[{i}]")


def assert_nothing_writable(obj: object) -> None:
    """Maps refuse every write, sequences are tuples, attrs objects refuse attribute assignment."""
    for path, value in containers_in(obj):
        if isinstance(value, Mapping):
            before = dict(value)
            for write in MAP_WRITES:
                with pytest.raises((TypeError, AttributeError)):
                    write(value)
            assert dict(value) == before, path
        elif isinstance(value, (list, tuple)):
            assert type(value) is tuple, path
        else:
            field = attrs.fields(type(value))[0].name
            with pytest.raises(AttributeError):
                setattr(value, field, getattr(value, field))


@settings(max_examples=60, deadline=None)
@given(pod_manifests)
def test_no_container_inside_a_decoded_pod_can_be_written(manifest: dict[str, Any]) -> None:
    """Any write attempt on any nested map, list or object of a decoded pod raises."""
    pod: Pod = decode_pod.pod(manifest)
    assert_nothing_writable(pod)


@settings(max_examples=30, deadline=None)
@given(node_manifests)
def test_no_container_inside_a_decoded_node_can_be_written(manifest: dict[str, Any]) -> None:
    """Any write attempt on any nested map, list or object of a decoded node raises."""
    node: Node = decode.node(manifest)
    assert_nothing_writable(node)

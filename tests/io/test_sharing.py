"""Decoded objects share what they repeat (API objects are immutable): memory grows with the distinct objects of
a cluster, not with its pods, and sharing never changes a value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.api.pod import Pod, PodSpec
from kubesched.api.quantity import Quantity
from kubesched.io import decode_pod, fields
from kubesched.io.load import InputErrorList, load
from kubesched.validation import FloatText, HugeInteger

POD = """\
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: web, tier: front}}
  creationTimestamp: "2024-05-01T10:00:00Z"
  ownerReferences:
  - {{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: u-1, controller: true}}
spec:
  nodeName: {node}
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    ports: [{{containerPort: 80}}]
    resources:
      requests: {{cpu: 100m, memory: {memory}}}
  tolerations:
  - {{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}}
status:
  conditions:
  - {{type: PodScheduled, status: "True", lastTransitionTime: "2024-05-01T10:00:01Z"}}
"""
NODES = """\
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {capacity: {cpu: "4", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: a}}
status: {capacity: {cpu: "4", memory: 32Gi, pods: "110"}}
"""


def two_pods(tmp_path: Path, memory: tuple[str, str] = ("500Mi", "500Mi")) -> tuple[Pod, Pod]:
    """Two pods alike but for their names (and memory requests, when given), loaded from one file."""
    path = tmp_path / "pods.yaml"
    path.write_text(NODES + POD.format(name="a", node="n1", memory=memory[0])
                    + POD.format(name="b", node="n2", memory=memory[1]), encoding="utf-8")
    first, second = load([path]).pods
    return first, second


def test_equal_small_objects_of_two_pods_are_one_object(tmp_path: Path) -> None:
    """Labels, requests, owners, tolerations, ports, conditions and timestamps are shared between equal pods."""
    a, b = two_pods(tmp_path)
    assert a.metadata.labels is b.metadata.labels
    assert a.metadata.owner_references is b.metadata.owner_references
    assert a.metadata.creation_timestamp is b.metadata.creation_timestamp
    assert a.spec.containers[0].requests is b.spec.containers[0].requests
    assert a.spec.containers[0].ports is b.spec.containers[0].ports
    assert a.spec.tolerations is b.spec.tolerations
    assert a.status.conditions is b.status.conditions


def test_equal_nodes_share_their_resource_lists(tmp_path: Path) -> None:
    """Nodes of one shape hold one capacity map (and one allocatable, defaulted from it)."""
    two_pods(tmp_path)
    n1, n2 = load([tmp_path / "pods.yaml"]).nodes
    assert n1.status.capacity is n2.status.capacity
    assert n1.status.allocatable is n2.status.allocatable


def test_repeated_texts_are_one_string(tmp_path: Path) -> None:
    """A key or value repeated across objects is kept once."""
    a, b = two_pods(tmp_path)
    assert a.spec.containers[0].image == "registry.k8s.io/pause:3.10"
    assert a.spec.containers[0].image is b.spec.containers[0].image


def test_the_same_quantity_text_parses_to_one_object() -> None:
    """Quantities are immutable, so a text parsed before is the object parsed then."""
    assert Quantity.parse("250m") is Quantity.parse("250m")
    assert Quantity.parse(3) is Quantity.parse(3)


def test_sharing_keeps_each_quantity_as_written(tmp_path: Path) -> None:
    """Equal amounts written differently stay apart: a quantity's text is what messages show."""
    a, b = two_pods(tmp_path, memory=("1Gi", "1073741824"))
    assert a.spec.containers[0].requests["memory"].text == "1Gi"
    assert b.spec.containers[0].requests["memory"].text == "1073741824"


BAD_POD = """\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers:
  - {{name: c, resources: {{requests: {{cpu: -1}}}}}}
  - {{name: d, resources: {{requests: {{cpu: -1}}}}}}
"""


def test_a_problem_repeated_in_equal_objects_is_reported_for_each(tmp_path: Path) -> None:
    """Decoding an object once for all its equal copies still reports its problems at every copy's place."""
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_POD.format(name="a") + BAD_POD.format(name="b"), encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert [(e.obj, e.field) for e in caught.value.errors] == [
        ("pods/default/a", "spec.containers[0].resources.requests.cpu"),
        ("pods/default/a", "spec.containers[1].resources.requests.cpu"),
        ("pods/default/b", "spec.containers[0].resources.requests.cpu"),
        ("pods/default/b", "spec.containers[1].resources.requests.cpu"),
    ]


KEYED_POD = """\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers:
  - {{name: c, resources: {{requests: {{{key}: 1}}}}}}
"""


def test_objects_equal_in_python_but_not_in_yaml_are_decoded_apart(tmp_path: Path) -> None:
    """Keys 1 and true are equal Python values but different resource names: each is decoded, and reported, as
    written."""
    path = tmp_path / "keys.yaml"
    path.write_text(KEYED_POD.format(name="a", key="1") + KEYED_POD.format(name="b", key="true"), encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    fields = [e.field for e in caught.value.errors]
    assert "spec.containers[0].resources.requests.1" in fields
    assert "spec.containers[0].resources.requests.true" in fields


@pytest.mark.parametrize(("one", "other"), [
    (1, 1.0), (1, True), (0, None), ("1", 1), (float("inf"), FloatText("1e999")),
    (HugeInteger("1" * 1001), HugeInteger("2" * 1001)), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ([1], (1,)),
    (0.0, -0.0),
], ids=["int-float", "int-bool", "zero-null", "text-int", "float-its-text", "huge-integers", "key-order",
        "list-tuple", "signed-zeros"])
def test_values_a_decoder_could_tell_apart_are_remembered_apart(one: object, other: object) -> None:
    """A decoder reads each of these pairs apart (types, texts, key order), so neither takes the other's result."""
    assert fields._frozen({"v": one}) != fields._frozen({"v": other})


def test_equal_values_are_remembered_as_one() -> None:
    """Equal raw values, of the same types, are one decoding, whichever objects hold them."""
    assert fields._frozen({"a": [1, "web-1", None], "b": HugeInteger("9" * 1001)}) == fields._frozen(
        {"a": [1, "".join(["web", "-1"]), None], "b": HugeInteger("9" * 1001)})


def test_a_container_holding_itself_through_an_alias_loads(tmp_path: Path) -> None:
    """An alias may make a raw object contain itself; remembering its decoding does not recurse without end."""
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - &c\n"
                    "    name: a\n    env: [*c]\n", encoding="utf-8")
    assert [c.name for c in load([path]).pods[0].spec.containers] == ["a"]


def test_pods_alike_but_for_their_node_share_every_other_spec_field(tmp_path: Path) -> None:
    """A workload's pods repeat their spec apart from spec.nodeName: it is decoded once, each pod keeping its node."""
    a, b = two_pods(tmp_path)
    assert (a.spec.node_name, b.spec.node_name) == ("n1", "n2")
    assert a.spec.containers is b.spec.containers
    assert all(getattr(a.spec, field.name) is getattr(b.spec, field.name) for field in attrs.fields(PodSpec)
               if field.name != "node_name")


BAD_NODE_POD = """\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeName: {node}
  containers:
  - {{name: c, resources: {{requests: {{cpu: -1}}}}}}
  priority: x
"""


def test_a_bad_node_name_keeps_its_place_among_the_spec_problems(tmp_path: Path) -> None:
    """Pods alike but for spec.nodeName report the spec's problems at each, a bad node name in the spec's order."""
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_NODE_POD.format(name="a", node="n1") + BAD_NODE_POD.format(name="b", node="Bad_Node")
                    + NODES, encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert [(e.obj, e.field) for e in caught.value.errors] == [
        ("pods/default/a", "spec.containers[0].resources.requests.cpu"),
        ("pods/default/a", "spec.priority"),
        ("pods/default/b", "spec.containers[0].resources.requests.cpu"),
        ("pods/default/b", "spec.priority"),
        ("pods/default/b", "spec.nodeName"),
    ]


def test_pending_pods_of_one_spec_share_their_admitted_spec(tmp_path: Path) -> None:
    """Admission resolves the priority of a spec once: pending pods alike but for their names hold one spec."""
    path = tmp_path / "pods.yaml"
    pending = POD.replace("  nodeName: {node}\n", "")
    path.write_text(NODES + pending.format(name="a", memory="1Gi") + pending.format(name="b", memory="1Gi"),
                    encoding="utf-8")
    a, b = load([path]).pods
    assert (a.spec.priority, a.spec.preemption_policy) == (0, "PreemptLowerPriority")
    assert a.spec is b.spec


class _Recording(Mapping[str, Any]):
    """A raw object that records every field read from it."""

    def __init__(self, fields: dict[str, Any], read: set[str]) -> None:
        self._fields = fields
        self._read = read

    def __getitem__(self, key: str) -> Any:
        self._read.add(key)
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        self._read.update(self._fields)  # a decoder going through every field reads them all
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)


CONTAINER = {"name": "app", "image": "web:1", "ports": [{"containerPort": 80}], "restartPolicy": "Always",
             "resources": {"requests": {"cpu": "1"}}, "volumeMounts": [{"name": "v", "mountPath": "/v"}],
             "env": [{"name": "A", "value": "1"}], "command": ["run"], "livenessProbe": {"periodSeconds": 5},
             "imagePullPolicy": "Always", "securityContext": {}, "terminationMessagePath": "/dev/log"}


def test_a_container_is_decoded_from_the_fields_it_is_remembered_by() -> None:
    """Containers are remembered by the fields the decoder reads; it reads no other."""
    read: set[str] = set()
    with fields.collecting():
        decode_pod._decoded_container(_Recording(CONTAINER, read), "spec.containers[0]")
    assert read <= set(decode_pod.CONTAINER_READS)


def test_a_pod_spec_is_decoded_from_the_fields_it_is_remembered_by() -> None:
    """Pod specs are remembered by the fields the decoder reads; it reads no other."""
    read: set[str] = set()
    spec = {"containers": [CONTAINER], "initContainers": [CONTAINER], "nodeName": "n1", "volumes": [{"name": "v"}],
            "serviceAccountName": "default", "dnsPolicy": "ClusterFirst", "hostNetwork": False, "priority": 1,
            "restartPolicy": "Always", "securityContext": {}, "enableServiceLinks": True, "tolerations": [],
            "affinity": {}, "nodeSelector": {"a": "b"}, "overhead": {}, "schedulingGates": [],
            "topologySpreadConstraints": [], "terminationGracePeriodSeconds": 30, "schedulerName": "s",
            "priorityClassName": "", "preemptionPolicy": "Never"}
    with fields.collecting():
        decode_pod._pod_spec(_Recording(spec, read), "spec")
    assert read <= set(decode_pod.SPEC_READS)


def test_pods_whose_containers_differ_only_in_fields_not_read_share_them(tmp_path: Path) -> None:
    """A kubectl-printed pod mounts its own token volume; its containers are still one decoding per workload."""
    path = tmp_path / "pods.yaml"
    mounted = POD.replace("    ports:", "    volumeMounts: [{{name: token-{name}, mountPath: /t}}]\n    ports:")
    mounted = mounted.replace("  tolerations:", "  volumes: [{{name: token-{name}, projected: {{}}}}]\n  tolerations:")
    path.write_text(NODES + mounted.format(name="a", node="n1", memory="1Gi")
                    + mounted.format(name="b", node="n2", memory="1Gi"), encoding="utf-8")
    a, b = load([path]).pods
    assert a.spec.containers is b.spec.containers


OWNED_POD = """\
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: 5}}]
spec:
  containers: [{{name: c}}]
status:
  conditions: [{{type: Ready, status: 1}}]
"""


def test_a_problem_in_a_remembered_list_is_reported_for_each_pod(tmp_path: Path) -> None:
    """Owner references and conditions are decoded once per distinct list; each pod still reports their
    problems at its own place."""
    path = tmp_path / "owned.yaml"
    path.write_text(OWNED_POD.format(name="a") + OWNED_POD.format(name="b"), encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert [(e.obj, e.field) for e in caught.value.errors] == [
        ("pods/default/a", "metadata.ownerReferences[0].uid"),
        ("pods/default/a", "status.conditions[0].status"),
        ("pods/default/b", "metadata.ownerReferences[0].uid"),
        ("pods/default/b", "status.conditions[0].status"),
    ]


_SPEC: dict[str, Any] = {"containers": [dict(CONTAINER)], "nodeName": "n1", "priority": 1,
                         "tolerations": [{"operator": "Exists"}], "dnsPolicy": "ClusterFirst"}


def _spec_with(**changes: Any) -> dict[str, Any]:
    spec = {**_SPEC, "containers": [dict(CONTAINER)]}
    for key, value in changes.items():
        if key.startswith("container_"):
            spec["containers"][0][key.removeprefix("container_")] = value
        elif value is _MISSING:
            del spec[key]
        else:
            spec[key] = value
    return spec


_MISSING = object()


@pytest.mark.parametrize(("changes", "alike"), [
    pytest.param({"nodeName": "n2"}, True, id="another-node"),
    pytest.param({"dnsPolicy": "Default"}, True, id="a-field-not-read"),
    pytest.param({"container_volumeMounts": [{"name": "token-b", "mountPath": "/t"}]}, True,
                 id="a-container-field-not-read"),
    pytest.param({"priority": _MISSING}, False, id="priority-missing"),
    pytest.param({"priority": True}, False, id="priority-true-not-1"),
    pytest.param({"priority": 1.0}, False, id="priority-1-0-not-1"),
    pytest.param({"tolerations": [{"operator": "Equal"}]}, False, id="another-toleration"),
    pytest.param({"container_image": "web:2"}, False, id="another-image"),
    pytest.param({"container_resources": {"requests": {"cpu": "2"}}}, False, id="another-request"),
    pytest.param({"containers": ["app"]}, False, id="a-container-that-is-no-object"),
    pytest.param({"containers": {"name": "app"}}, False, id="containers-not-a-list"),
])
def test_a_pod_spec_is_remembered_apart_only_for_what_the_decoder_reads(changes: dict[str, Any],
                                                                         alike: bool) -> None:
    """Specs are one decoding when they differ only in their node or in fields no decoder reads."""
    same = fields._frozen(decode_pod._spec_key(_spec_with(**changes))) == fields._frozen(
        decode_pod._spec_key(_spec_with()))
    assert same == alike


def test_a_missing_field_and_a_null_one_are_remembered_alike() -> None:
    """The decoders read fields with get, so a missing field and a null one decode alike, and are one key."""
    assert decode_pod._spec_key({"containers": [], "priority": None}) == decode_pod._spec_key({"containers": []})
    assert decode_pod._container_key({"name": "a", "image": None}) == decode_pod._container_key({"name": "a"})

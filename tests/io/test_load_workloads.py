"""Loading the objects plugins look up: Namespaces, Services, ReplicaSets, StatefulSets, ReplicationControllers."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.meta import LabelSelector, LabelSelectorRequirement
from kubesched.io.load import InputErrorList, load

WORKLOADS = """\
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: team-a}
spec: {selector: {app: web}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-7f9, namespace: team-a}
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {selector: {matchLabels: {app: db}}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec: {selector: {app: legacy}}
"""


def test_workload_kinds_load_without_warnings(tmp_path: Path) -> None:
    """Namespaces, Services and the three controller kinds are read, not skipped."""
    path = tmp_path / "in.yaml"
    path.write_text(WORKLOADS, encoding="utf-8")
    cluster = load([path])
    assert cluster.warnings == ()
    assert [n.name for n in cluster.namespaces] == ["team-a"]
    assert [(s.metadata.namespace, s.metadata.name, dict(s.selector)) for s in cluster.services] == [
        ("team-a", "web", {"app": "web"})]
    assert [(c.kind, c.metadata.namespace, c.metadata.name) for c in cluster.controllers] == [
        ("ReplicaSet", "team-a", "web-7f9"), ("StatefulSet", "default", "db"),
        ("ReplicationController", "default", "legacy")]


def test_replica_set_selector_keeps_match_expressions(tmp_path: Path) -> None:
    """A ReplicaSet's metav1.LabelSelector is decoded in full."""
    path = tmp_path / "in.yaml"
    path.write_text(WORKLOADS, encoding="utf-8")
    replica_set = load([path]).controllers[0]
    assert replica_set.selector == LabelSelector(
        match_labels={"app": "web"}, match_expressions=(LabelSelectorRequirement("tier", "In", ("front",)),))


def test_replication_controller_map_selector_becomes_match_labels(tmp_path: Path) -> None:
    """A ReplicationController's plain map selector is held as matchLabels."""
    path = tmp_path / "in.yaml"
    path.write_text(WORKLOADS, encoding="utf-8")
    controller = load([path]).controllers[2]
    assert controller.selector == LabelSelector(match_labels={"app": "legacy"})


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("kind: Service\nmetadata: {name: s}\nspec: {selector: [a]}\n",
                 "services/default/s: spec.selector:", id="service-selector-not-a-map"),
    pytest.param("kind: ReplicaSet\nmetadata: {name: r}\nspec: {selector: {matchLabels: {a: 1}}}\n",
                 "replicasets/default/r: spec.selector.matchLabels.a:", id="replicaset-label-not-a-string"),
    pytest.param("kind: Namespace\nmetadata: {labels: {a: b}}\n",
                 "namespaces (document 1): metadata.name: Required value", id="namespace-without-name"),
])
def test_bad_workload_objects_name_the_object_and_field(tmp_path: Path, text: str, message: str) -> None:
    """Ill-typed workload objects are rejected with the object and field in the message."""
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputErrorList) as caught:
        load([path])
    assert message in str(caught.value)

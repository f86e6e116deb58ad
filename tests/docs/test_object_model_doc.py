"""docs/object-model.md lists every field of the classes it documents, with the field's type as declared.

Each class has a ``### `ClassName``` section whose table has a row ``| `field` | `type` | ... |`` per attrs field
(``|`` inside a type written ``\\|``, as Markdown tables need). The page's examples run in test_builders_doc.
"""

from __future__ import annotations

import importlib
import re

import attrs
import pytest

from kubesched.api import meta, node, pod, policy, quantity, storage, volume, workload
from kubesched.api.node_selector import RequiredNodeAffinity
from kubesched.framework import NodeInfo, PodInfo, Resource
from tests.conftest import REPO

DOC = (REPO / "docs" / "object-model.md").read_text(encoding="utf-8")
CLASSES: list[type] = [
    pod.Pod, meta.ObjectMeta, meta.OwnerReference, pod.PodSpec, pod.Container, pod.ContainerPort, pod.Affinity,
    pod.NodeAffinity, pod.NodeSelector, pod.NodeSelectorTerm, pod.NodeSelectorRequirement,
    pod.PreferredSchedulingTerm, pod.PodAffinity, pod.PodAffinityTerm, pod.WeightedPodAffinityTerm, pod.Toleration,
    pod.TopologySpreadConstraint, pod.PodStatus, pod.PodCondition, node.Node, node.NodeSpec, node.NodeStatus,
    node.Taint, node.ContainerImage, quantity.Quantity, meta.LabelSelector, meta.LabelSelectorRequirement,
    RequiredNodeAffinity, PodInfo, NodeInfo, Resource, policy.PodDisruptionBudget, policy.PriorityClass,
    workload.Namespace, volume.Volume, volume.ClaimTemplate, volume.VolumeClaimTemplate, storage.PersistentVolume,
    storage.ClaimRef, storage.PersistentVolumeClaim, storage.StorageClass, storage.TopologySelectorTerm,
    storage.TopologySelectorRequirement, storage.CSINode, storage.CSINodeDriver, storage.CSIDriver,
    storage.CSIStorageCapacity,
]


def class_section(name: str) -> str:
    """The text under ``### `name``` up to the next heading."""
    match = re.search(rf"^### `{re.escape(name)}`\n(.*?)(?=^#|\Z)", DOC, flags=re.S | re.M)
    assert match is not None, f"docs/object-model.md has no section for {name}"
    return match.group(1)


def rows(text: str) -> dict[str, str]:
    """Table rows as first cell (without backticks) to second cell (without backticks, ``\\|`` as ``|``)."""
    found = {}
    for first, second in re.findall(r"^\| `([^`]+)` \| `((?:[^`])+)` \|", text, flags=re.M):
        found[first] = second.replace("\\|", "|")
    return found


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_field_is_listed_with_its_type(cls: type) -> None:
    """Each attrs field of the class has a row with the type it is declared with."""
    documented = rows(class_section(cls.__name__))
    declared = {field.name: str(field.type) for field in attrs.fields(cls)}
    assert {name: documented.get(name) for name in declared} == declared


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_section_names_an_import_path_of_the_class(cls: type) -> None:
    """The section opens with the class's public path (``kubesched.api.Pod``, ``kubesched.framework.NodeInfo``),
    which imports this very class."""
    match = re.match(r"\n`(kubesched(?:\.\w+)+)\.(\w+)`", class_section(cls.__name__))
    assert match is not None, cls.__name__
    assert match.group(1) in ("kubesched.api", "kubesched.framework")
    assert match.group(2) == cls.__name__
    assert getattr(importlib.import_module(match.group(1)), cls.__name__) is cls


def test_a_changed_type_is_noticed() -> None:
    """A row whose type differs from the declaration makes the check fail."""
    documented = rows(class_section("Taint").replace("| `key` | `str` |", "| `key` | `int` |"))
    assert documented["key"] == "int"

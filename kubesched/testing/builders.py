"""Builders for test objects, in the spirit of kube-scheduler's MakePod()/MakeNode() wrappers.

A test case stays one line: ``make_pod("p").req(cpu="1", memory="1Gi").label(app="x").priority(100).obj()``.
Builders are mutable; ``obj()`` returns the immutable object. docs/builders.md lists every method.
"""

from __future__ import annotations

from kubesched.testing.builders_node import NodeBuilder
from kubesched.testing.builders_pod import PodBuilder
from kubesched.testing.builders_policy import NamespaceBuilder, PdbBuilder, PriorityClassBuilder
from kubesched.testing.builders_terms import (
    LabelSelectorBuilder,
    MetadataBuilder,
    NodeSelectorTermBuilder,
    PodAffinityTermBuilder,
    port,
)

__all__ = ["LabelSelectorBuilder", "MetadataBuilder", "NamespaceBuilder", "NodeBuilder", "NodeSelectorTermBuilder",
           "PdbBuilder", "PodAffinityTermBuilder", "PodBuilder", "PriorityClassBuilder", "make_affinity_term",
           "make_namespace", "make_node", "make_node_term", "make_pdb", "make_pod", "make_priority_class",
           "make_selector", "port"]


def make_pod(name: str, namespace: str = "default") -> PodBuilder:
    """Start building a pod."""
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    """Start building a node."""
    return NodeBuilder(name)


def make_pdb(name: str, namespace: str = "default") -> PdbBuilder:
    """Start building a PodDisruptionBudget."""
    return PdbBuilder(name, namespace)


def make_priority_class(name: str, value: int) -> PriorityClassBuilder:
    """Start building a PriorityClass with this value."""
    return PriorityClassBuilder(name, value)


def make_namespace(name: str) -> NamespaceBuilder:
    """Start building a Namespace."""
    return NamespaceBuilder(name)


def make_selector() -> LabelSelectorBuilder:
    """Start building a label selector (for spread constraints, affinity terms, namespaceSelector, PDBs)."""
    return LabelSelectorBuilder()


def make_node_term() -> NodeSelectorTermBuilder:
    """Start building a node selector term (for required or preferred node affinity)."""
    return NodeSelectorTermBuilder()


def make_affinity_term(topology_key: str) -> PodAffinityTermBuilder:
    """Start building a pod (anti-)affinity term over this topology key."""
    return PodAffinityTermBuilder(topology_key)

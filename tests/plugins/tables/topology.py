"""Shorthands for the InterPodAffinity and PodTopologySpread tables, on the public testing kit alone: pods and nodes
as kube-scheduler's tests write them (``st.MakePod().Name(..).Node(..).Label(..)``), label selector requirements,
affinity terms, and the event the scheduler sees for a pod change."""

from __future__ import annotations

from kubesched.api import Node, Pod
from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.testing import (
    LabelSelectorBuilder,
    NodeBuilder,
    PodAffinityTermBuilder,
    PodBuilder,
    make_affinity_term,
    make_node,
    make_pod,
    make_selector,
)

#: A label selector requirement: ``(key, operator, *values)``.
Requirement = tuple[str, ...]


def pod(name: str, node: str = "", ns: str = "default", **labels: str) -> PodBuilder:
    """A pod with these labels, bound to ``node`` when given (kube's pods live in namespace "", these in
    "default")."""
    built = make_pod(name, ns).label(**labels)
    return built.node(node) if node else built


def node(name: str, **labels: str) -> NodeBuilder:
    """A node with these labels (and the kit's ``kubernetes.io/hostname`` label)."""
    return make_node(name).label(**labels)


def built_pods(builders: list[PodBuilder]) -> list[Pod]:
    """The pods of these builders."""
    return [b.obj() for b in builders]


def built_nodes(builders: list[NodeBuilder]) -> list[Node]:
    """The nodes of these builders."""
    return [b.obj() for b in builders]


def IN(key: str, *values: str) -> Requirement:  # noqa: N802 - named as kube's LabelSelectorOpIn reads
    """A ``key In (values)`` requirement."""
    return (key, "In", *values)


def NOT_IN(key: str, *values: str) -> Requirement:  # noqa: N802
    """A ``key NotIn (values)`` requirement."""
    return (key, "NotIn", *values)


def EXISTS(key: str) -> Requirement:  # noqa: N802
    """A ``key Exists`` requirement."""
    return (key, "Exists")


def DOES_NOT_EXIST(key: str) -> Requirement:  # noqa: N802
    """A ``key DoesNotExist`` requirement."""
    return (key, "DoesNotExist")


def selector(*requirements: Requirement) -> LabelSelectorBuilder:
    """A label selector ANDing these requirements."""
    built = make_selector()
    for key, operator, *values in requirements:
        built.expression(key, operator, *values)
    return built


def term(topology: str, *requirements: Requirement) -> PodAffinityTermBuilder:
    """An affinity term over ``topology`` whose selector ANDs these requirements."""
    return make_affinity_term(topology).selector(selector(*requirements))


def pod_event(old: PodBuilder | None, new: PodBuilder | None) -> ClusterEvent:
    """The event the scheduler sees for this pod change: an add, a delete or a label update, of a bound pod or of a
    pod in the queue."""
    changed = new or old
    assert changed is not None
    resource = EventResource.ASSIGNED_POD if changed.obj().spec.node_name else EventResource.UNSCHEDULED_POD
    action = ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE_POD_LABEL
    return ClusterEvent(resource, action)

"""Both example plugins pass kubesched's conformance suite, with args and example clusters that reach their
interesting paths (required labels and preferences; gang members that wait on Permit)."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched import Node, Pod
from kubesched.testing import PluginConformance, make_node, make_pod

from kubesched_examples.coscheduling import Coscheduling
from kubesched_examples.node_label_placement import NodeLabelPlacement
from kubesched_examples.pod_group import MIN_AVAILABLE_LABEL, POD_GROUP_LABEL

ZONE = "topology.kubernetes.io/zone"
NODES = (make_node("ssd-1").capacity(cpu="4").zone("zone-1").label(disk="ssd").obj(),
         make_node("ssd-2").capacity(cpu="4").zone("zone-2").label(disk="ssd").obj(),
         make_node("hdd-1").capacity(cpu="4").zone("zone-1").label(disk="hdd").obj())


def member(name: str, group: str, min_available: str) -> Pod:
    """A pod of a gang."""
    return make_pod(name).req(cpu="1").label(**{POD_GROUP_LABEL: group, MIN_AVAILABLE_LABEL: min_available}).obj()


class TestNodeLabelPlacement(PluginConformance):
    """Required labels reject the hdd node; the zone preference scores the others."""

    plugin_class = NodeLabelPlacement
    plugin_args: ClassVar[Any] = {"required-labels": {"disk": "ssd"}, "preferred-label": ZONE,
                                  "preferred-values": ["zone-2", "zone-1"]}
    nodes: ClassVar[tuple[Node, ...]] = NODES
    running: ClassVar[tuple[Pod, ...]] = (make_pod("web-0").node("ssd-1").req(cpu="1").obj(),)
    pods: ClassVar[tuple[Pod, ...]] = (make_pod("web-1").req(cpu="1").obj(), make_pod("bare").obj())
    large_cluster = 500


class TestCoscheduling(PluginConformance):
    """Gang members wait on Permit; a pod without a group passes; a bad min-available is rejected."""

    plugin_class = Coscheduling
    nodes: ClassVar[tuple[Node, ...]] = NODES
    running: ClassVar[tuple[Pod, ...]] = (member("train-0", "train", "3").with_node_name("ssd-1"),)
    pods: ClassVar[tuple[Pod, ...]] = (member("train-1", "train", "3"), member("solo", "solo", "1"),
                                       member("broken", "broken", "many"), make_pod("plain").obj())
    large_cluster = 500

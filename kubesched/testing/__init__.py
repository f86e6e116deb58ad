"""Tools for testing plugins: object builders, a harness that runs a plugin or profile on a small cluster,
a scheduling queue to fill and read, what a plugin's hints answer, and the conformance suite."""

from kubesched.framework._args import structure
from kubesched.testing.builders import (
    LabelSelectorBuilder,
    NamespaceBuilder,
    NodeBuilder,
    NodeSelectorTermBuilder,
    PdbBuilder,
    PodAffinityTermBuilder,
    PodBuilder,
    PriorityClassBuilder,
    make_affinity_term,
    make_namespace,
    make_node,
    make_node_term,
    make_pdb,
    make_pod,
    make_priority_class,
    make_selector,
    port,
)
from kubesched.testing.cluster import RecordingClient, make_snapshot
from kubesched.testing.conformance import (
    ConformanceReport,
    ConformanceWarning,
    PluginConformance,
    PluginUnderTest,
    run_conformance,
)
from kubesched.testing.frameworks import PATHS, PluginFramework, StatusError, plugin_framework, plugin_instance
from kubesched.testing.harness import Decision, Decisions, run_plugin, run_profile
from kubesched.testing.hints import hint
from kubesched.testing.queue import QUEUES, contents, new_queue, place, queue_framework, where
from kubesched.testing.statuses import StatusMatcher, like

__all__ = [
    "PATHS",
    "QUEUES",
    "ConformanceReport",
    "ConformanceWarning",
    "Decision",
    "Decisions",
    "LabelSelectorBuilder",
    "NamespaceBuilder",
    "NodeBuilder",
    "NodeSelectorTermBuilder",
    "PdbBuilder",
    "PluginConformance",
    "PluginFramework",
    "PluginUnderTest",
    "PodAffinityTermBuilder",
    "PodBuilder",
    "PriorityClassBuilder",
    "RecordingClient",
    "StatusError",
    "StatusMatcher",
    "contents",
    "hint",
    "like",
    "make_affinity_term",
    "make_namespace",
    "make_node",
    "make_node_term",
    "make_pdb",
    "make_pod",
    "make_priority_class",
    "make_selector",
    "make_snapshot",
    "new_queue",
    "place",
    "plugin_framework",
    "plugin_instance",
    "port",
    "queue_framework",
    "run_conformance",
    "run_plugin",
    "run_profile",
    "structure",
    "where",
]

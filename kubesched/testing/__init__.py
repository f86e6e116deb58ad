"""Tools for testing plugins: object builders, a harness that runs a plugin or profile on a small cluster,
and the conformance suite."""

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
from kubesched.testing.conformance import (
    ConformanceReport,
    ConformanceWarning,
    PluginConformance,
    PluginUnderTest,
    run_conformance,
)
from kubesched.testing.harness import (
    Decision,
    Decisions,
    RecordingClient,
    plugin_framework,
    plugin_instance,
    run_plugin,
    run_profile,
)

__all__ = ["ConformanceReport", "ConformanceWarning", "Decision", "Decisions", "LabelSelectorBuilder",
           "NamespaceBuilder", "NodeBuilder", "NodeSelectorTermBuilder", "PdbBuilder", "PluginConformance",
           "PluginUnderTest", "PodAffinityTermBuilder", "PodBuilder", "PriorityClassBuilder", "RecordingClient",
           "make_affinity_term", "make_namespace", "make_node", "make_node_term", "make_pdb", "make_pod",
           "make_priority_class", "make_selector", "plugin_framework", "plugin_instance", "port",
           "run_conformance", "run_plugin", "run_profile", "structure"]

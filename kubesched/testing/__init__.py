"""Tools for testing plugins: object builders, a harness that runs a plugin or profile on a small cluster,
and the conformance suite."""

from kubesched.framework._args import structure
from kubesched.testing.builders import NodeBuilder, PodBuilder, make_node, make_pod
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

__all__ = ["ConformanceReport", "ConformanceWarning", "Decision", "Decisions", "NodeBuilder", "PluginConformance",
           "PluginUnderTest", "PodBuilder", "RecordingClient", "make_node", "make_pod", "plugin_framework",
           "plugin_instance", "run_conformance", "run_plugin", "run_profile", "structure"]

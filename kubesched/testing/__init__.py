"""Tools for testing plugins: object builders, a harness that runs a plugin or profile on a small cluster,
a scheduling queue to fill and read, what a plugin's hints answer, and the conformance suite."""

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
from kubesched.testing.hints import hint
from kubesched.testing.queue import QUEUES, contents, new_queue, place, queue_framework, where

__all__ = ["QUEUES", "ConformanceReport", "ConformanceWarning", "Decision", "Decisions", "NodeBuilder",
           "PluginConformance", "PluginUnderTest", "PodBuilder", "RecordingClient", "contents", "hint", "make_node",
           "make_pod", "new_queue", "place", "plugin_framework", "plugin_instance", "queue_framework",
           "run_conformance", "run_plugin", "run_profile", "where"]

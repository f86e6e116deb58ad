"""Tools for testing plugins: object builders (and, later, the conformance suite)."""

from kubesched.testing.builders import NodeBuilder, PodBuilder, make_node, make_pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod"]

"""kubesched.testing is layered: the examples, the recorder and the plugin under test at the bottom, the driver
above them, the checks, the report and the suite at the top; no module imports one that imports it back."""

from __future__ import annotations

from tests.import_graph import circles, kubesched_graph

TESTING = "kubesched.testing"


def test_no_module_of_kubesched_testing_imports_one_that_imports_it_back() -> None:
    """Every import of kubesched/testing runs downwards, even inside functions and under TYPE_CHECKING."""
    assert circles(kubesched_graph(), TESTING) == []


def test_the_plugin_under_test_does_not_know_the_driver() -> None:
    """The driver is built over a PluginUnderTest; the plugin under test never imports the driver."""
    graph = kubesched_graph()
    assert f"{TESTING}.conformance.subject" in graph[f"{TESTING}.conformance.driver"]
    assert f"{TESTING}.conformance.driver" not in graph[f"{TESTING}.conformance.subject"]

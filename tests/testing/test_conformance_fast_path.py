"""The conformance report says what keeps the plugin off the fast path: informational, never a failure."""

from __future__ import annotations

from kubesched.plugins.default_preemption import RESOURCE_SHORTCUT
from kubesched.plugins.node_name import NodeName
from kubesched.runtime import fast_path
from kubesched.testing.conformance import ConformanceReport, PluginUnderTest, run_conformance
from kubesched.testing.conformance.checks import CHECKS_BY_ID
from tests.testing import broken_plugins as broken

BUILDS = [CHECKS_BY_ID["builds"]]
SILENT_NOTES = [
    "no filter_nodes: Filter runs node by node",
    "no filter_reads declaration: nodes with nominated pods take the per-node two-pass filter, and preemption's dry "
    "run runs Filter on node copies while this plugin filters",
]


def test_the_report_carries_the_plugins_fast_path() -> None:
    """run_conformance works the notes out from the plugin class, as kubesched plugins does."""
    report = run_conformance(PluginUnderTest(broken.SilentRejection), BUILDS)
    assert report.fast_path == fast_path(broken.SilentRejection, resource_shortcut=RESOURCE_SHORTCUT)
    assert report.fast_path is not None
    assert report.fast_path.sentences == SILENT_NOTES


def test_text_lists_the_notes_between_the_checks_and_the_summary() -> None:
    """A section headed as informational, one sentence a line; the summary stays the last line."""
    lines = run_conformance(PluginUnderTest(broken.SilentRejection), BUILDS).lines()
    assert lines[2:] == ["fast path (informational): what keeps the plugin off it",
                         *(f"  {note}" for note in SILENT_NOTES),
                         "1 passed, 0 warned, 0 skipped, 0 failed"]


def test_text_of_a_plugin_fully_on_the_fast_path() -> None:
    """One line saying nothing keeps it off."""
    lines = run_conformance(PluginUnderTest(NodeName), BUILDS).lines()
    assert lines[2:] == ["fast path (informational): nothing keeps the plugin off it",
                         "1 passed, 0 warned, 0 skipped, 0 failed"]


def test_json_has_a_fast_path_object() -> None:
    """``fastPath`` beside the existing keys, in the shape kubesched plugins gives."""
    document = run_conformance(PluginUnderTest(broken.SilentRejection), BUILDS).to_json()
    assert list(document) == ["plugin", "ok", "checks", "fastPath"]
    assert document["fastPath"] == {"batchForms": [], "filterReads": None, "offTheFastPath": SILENT_NOTES}


def test_notes_never_fail_the_report() -> None:
    """A plugin off the fast path whose checks pass is ok."""
    report = run_conformance(PluginUnderTest(broken.SilentRejection), BUILDS)
    assert report.fast_path is not None
    assert report.fast_path.notes
    assert report.ok


def test_a_report_built_without_a_fast_path_keeps_its_former_shape() -> None:
    """ConformanceReport(plugin, results) still works: no section, no fastPath key."""
    results = run_conformance(PluginUnderTest(NodeName), BUILDS).results
    report = ConformanceReport("NodeName", results)
    assert report.lines()[-2].startswith("  PASS  builds")
    assert list(report.to_json()) == ["plugin", "ok", "checks"]

"""The pytest plugin (``pytest11`` entry point) and the base test class, as a plugin author's pytest runs them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.testing.fake_dist import fake_distribution

pytest_plugins = ["pytester"]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed distribution holding the broken test plugins, on PYTHONPATH for pytester's subprocess."""
    root = fake_distribution(tmp_path / "site", "SilentRejection", "ScoresOutOfRange", "GpuOnlySilentRejection")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    return root


def test_option_adds_one_test_per_check(pytester: pytest.Pytester) -> None:
    """``--kubesched-conformance NAME`` runs the suite on the installed plugin, one test per check."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "NodeResourcesFit", "-v")
    result.assert_outcomes(passed=14, skipped=4)
    result.stdout.fnmatch_lines(["*conformance?NodeResourcesFit?::hooks-match-hookspecs PASSED*"])


def test_failed_check_is_reported_with_its_detail(pytester: pytest.Pytester, site: Path) -> None:
    """A broken installed plugin fails exactly its check, with the detail and without a traceback."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "ScoresOutOfRange")
    result.assert_outcomes(passed=6, skipped=11, failed=1)
    result.stdout.fnmatch_lines(["*score-in-range (scores end in [[]0, 100]): score 150 from score*"])


GPU_CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: gpu-node, labels: {example.com/gpu: "true"}}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, labels: {example.com/gpu: "true"}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
"""


def test_a_plugin_the_default_examples_never_reach_fails_with_advice(pytester: pytest.Pytester, site: Path) -> None:
    """A plugin gated by a label fails the checks about its hooks on the default examples, advising a cluster."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "GpuOnlySilentRejection")
    result.assert_outcomes(passed=5, skipped=8, failed=5)
    result.stdout.fnmatch_lines(["*filter-status-valid (*): filter never ran in this check*the default example "
                                 "cluster never reaches it; pass a cluster the plugin acts on*"])


def test_a_cluster_file_after_at_is_the_example_cluster(pytester: pytest.Pytester, site: Path) -> None:
    """``NAME@CLUSTER.yaml`` runs the suite on that cluster: the gated plugin's defect is found."""
    pytester.makefile(".yaml", cluster=GPU_CLUSTER)
    result = pytester.runpytest_subprocess("--kubesched-conformance", "GpuOnlySilentRejection@cluster.yaml")
    result.assert_outcomes(passed=9, skipped=8, failed=1)
    result.stdout.fnmatch_lines(["*filter rejected with Unschedulable but no reason (pod trainer on node "
                                 "gpu-node)*"])


def test_a_cluster_attribute_of_the_base_class_is_the_example_cluster(pytester: pytest.Pytester,
                                                                      site: Path) -> None:
    """``cluster = "cluster.yaml"`` on a PluginConformance subclass reads the file next to the test module."""
    pytester.makefile(".yaml", cluster=GPU_CLUSTER)
    pytester.makepyfile(test_gpu="""
        from kubesched_broken import GpuOnlySilentRejection
        from kubesched.testing import PluginConformance

        class TestGpu(PluginConformance):
            plugin_class = GpuOnlySilentRejection
            cluster = "cluster.yaml"
            large_cluster = 50
    """)
    result = pytester.runpytest_subprocess("-v", "--rootdir", str(pytester.path), "test_gpu.py")
    result.assert_outcomes(passed=9, skipped=8, failed=1)
    result.stdout.fnmatch_lines(["*TestGpu::test_filter_status_valid FAILED*"])


def test_unknown_plugin_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """A name no plugin is installed under stops the run with a clear message."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "NoSuchPlugin")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--kubesched-conformance NoSuchPlugin: plugin 'NoSuchPlugin': no installed*"])


def test_subclass_of_the_base_class_runs_every_check(pytester: pytest.Pytester, site: Path) -> None:
    """An author's ``PluginConformance`` subclass gets a test per check; the broken rule fails."""
    pytester.makepyfile(test_mine="""
        from kubesched_broken import SilentRejection
        from kubesched.testing import PluginConformance

        class TestSilentRejection(PluginConformance):
            plugin_class = SilentRejection
            large_cluster = 100
    """)
    result = pytester.runpytest_subprocess("-v")
    result.assert_outcomes(passed=8, skipped=9, failed=1)
    result.stdout.fnmatch_lines(["*TestSilentRejection::test_filter_status_valid FAILED*",
                                 "*filter-status-valid: filter rejected with Unschedulable but no reason*"])


def test_time_budget_warning_is_a_summary_note_even_under_w_error(pytester: pytest.Pytester, site: Path) -> None:
    """A slow plugin warns in the summary and does not fail, even when warnings are errors."""
    pytester.makepyfile(test_slow="""
        from kubesched_broken import Slow
        from kubesched.testing import PluginConformance

        class TestSlow(PluginConformance):
            plugin_class = Slow
            large_cluster = 20
    """)
    result = pytester.runpytest_subprocess("-W", "error")
    result.assert_outcomes(passed=9, skipped=9)
    result.stdout.fnmatch_lines(["*kubesched conformance warnings*",
                                 "TestSlow (Slow): time-budget: filter took * µs per call over * calls; the budget "
                                 "is 500 µs"])


def test_without_the_pytest_plugin_the_warning_is_a_python_warning(pytester: pytest.Pytester, site: Path) -> None:
    """With kubesched's pytest plugin disabled, a slow plugin's warning still shows, as a ConformanceWarning."""
    pytester.makepyfile(test_slow="""
        from kubesched_broken import Slow
        from kubesched.testing import PluginConformance

        class TestSlow(PluginConformance):
            plugin_class = Slow
            large_cluster = 20
    """)
    result = pytester.runpytest_subprocess("-p", "no:kubesched")
    result.assert_outcomes(passed=9, skipped=9, warnings=1)
    result.stdout.fnmatch_lines(["*ConformanceWarning: TestSlow (Slow): time-budget: filter took*"])


def test_the_summary_lists_what_keeps_each_plugin_off_the_fast_path(pytester: pytest.Pytester) -> None:
    """An informational section names the plugins off the fast path in part, with the sentences; a plugin fully on
    it is not listed, and nothing fails."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "NodePorts", "--kubesched-conformance",
                                           "NodeName")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*kubesched fast path (informational)*",
                                 "conformance[[]NodePorts[]]: off the fast path in part",
                                 "  no filter_reads declaration: nodes with nominated pods take the per-node "
                                 "two-pass filter, and preemption's dry run runs Filter on node copies while this "
                                 "plugin filters"])
    result.stdout.no_fnmatch_line("*NodeName*off the fast path*")


def test_a_subclass_of_the_base_class_gets_its_fast_path_in_the_summary(pytester: pytest.Pytester) -> None:
    """``PluginConformance`` subclasses are listed by class and plugin name."""
    pytester.makepyfile(test_mine="""
        from kubesched.framework import FilterReads, Plugin, hookimpl
        from kubesched.testing import PluginConformance

        class PerNode(Plugin):
            name = "PerNode"
            filter_reads = FilterReads.NODE

            @hookimpl
            def filter(self):
                return None

        class TestPerNode(PluginConformance):
            plugin_class = PerNode
            large_cluster = 20
    """)
    result = pytester.runpytest_subprocess("-k", "builds or hooks_match")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*kubesched fast path (informational)*",
                                 "TestPerNode (PerNode): off the fast path in part",
                                 "  no filter_nodes: Filter runs node by node"])


@pytest.mark.parametrize("budget", ["0", "-2", "nan"])
def test_time_budget_option_must_be_positive(pytester: pytest.Pytester, budget: str) -> None:
    """A zero, negative or NaN budget stops the run with a usage error."""
    result = pytester.runpytest_subprocess("--kubesched-conformance", "NodePorts", "--kubesched-time-budget-ms",
                                           budget)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--kubesched-time-budget-ms: * is not a positive number of milliseconds*"])

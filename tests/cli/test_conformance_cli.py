"""``kubesched conformance PLUGIN [--args FILE]``: the suite on an installed plugin, one line per check."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import RunCli, write
from tests.testing.fake_dist import fake_distribution


def test_builtin_plugin_passes_with_a_line_per_check(run_cli: RunCli) -> None:
    """Every check is listed with its outcome; skips say why; the summary ends the report; exit 0."""
    done = run_cli("conformance", "NodeResourcesFit")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "conformance of plugin NodeResourcesFit"
    assert lines[1].split() == ["PASS", "hooks-match-hookspecs", "hooks", "match", "the", "hookspecs"]
    assert "the plugin has no permit hook" in done.stdout
    # The time budget may warn on a slow machine; nothing else may differ.
    assert lines[-1] in ("14 passed, 0 warned, 4 skipped, 0 failed", "13 passed, 1 warned, 4 skipped, 0 failed")


def test_the_report_says_what_keeps_the_plugin_off_the_fast_path(run_cli: RunCli) -> None:
    """Before the summary, informational: NodePorts reads the node's pods and declares nothing."""
    done = run_cli("conformance", "NodePorts", "--check", "builds")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[2:] == [
        "fast path (informational): what keeps the plugin off it",
        "  no filter_reads declaration: nodes with nominated pods take the per-node two-pass filter, and preemption's "
        "dry run runs Filter on node copies while this plugin filters",
        "1 passed, 0 warned, 0 skipped, 0 failed"]


def test_json_report_has_the_fast_path(run_cli: RunCli) -> None:
    """``fastPath`` beside plugin, ok and checks; nothing for a plugin fully on the fast path."""
    done = run_cli("conformance", "NodeResourcesFit", "--check", "builds", "--output", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert list(report) == ["plugin", "ok", "checks", "fastPath"]
    assert report["fastPath"] == {"batchForms": ["filter_nodes", "score_nodes"], "filterReads": "RESOURCES",
                                  "offTheFastPath": []}


def test_args_file_is_validated_first(run_cli: RunCli, tmp_path: Path) -> None:
    """A bad args file is an error naming the file and the key; nothing runs."""
    args = write(tmp_path / "args.toml", 'scoring-strategy = { type = "Most" }\n')
    done = run_cli("conformance", "NodeResourcesFit", "--args", str(args))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == (f"error: {args}: scoring-strategy.type: Unsupported value: \"Most\": supported "
                                   'values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"')


def test_args_file_is_used(run_cli: RunCli, tmp_path: Path) -> None:
    """Valid args reach the plugin: the suite runs with them and passes."""
    args = write(tmp_path / "args.toml", 'scoring-strategy = { type = "MostAllocated" }\n')
    done = run_cli("conformance", "NodeResourcesFit", "--args", str(args), "--check", "score-in-range")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "1 passed, 0 warned, 0 skipped, 0 failed"


def test_unknown_plugin_suggests_a_name(run_cli: RunCli) -> None:
    """A misspelt plugin name is an error with a did-you-mean hint."""
    done = run_cli("conformance", "NodeResourceFit")
    assert done.returncode == 1
    assert "no installed plugin has this name (did you mean 'NodeResourcesFit'?)" in done.stderr


def test_failing_plugin_exits_1_with_the_failure(run_cli: RunCli, tmp_path: Path) -> None:
    """An installed plugin that breaks a rule: the failed check and its detail are printed, and the exit is 1."""
    site = fake_distribution(tmp_path / "site", "SilentRejection")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("conformance", "SilentRejection", "--output", "json", env=env)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["plugin"] == "SilentRejection"
    assert report["ok"] is False
    failed = [c for c in report["checks"] if c["outcome"] == "fail"]
    assert [c["id"] for c in failed] == ["filter-status-valid"]
    assert "rejected with Unschedulable but no reason" in failed[0]["detail"]


def test_plugin_whose_hooks_do_not_match_is_reported_not_crashed(run_cli: RunCli, tmp_path: Path) -> None:
    """A plugin the registry would refuse still gets a report: the hookspec check fails, the rest are skipped."""
    site = fake_distribution(tmp_path / "site", "WrongHookArguments")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("conformance", "WrongHookArguments", env=env)
    assert done.returncode == 1
    assert "FAIL  hooks-match-hookspecs" in done.stdout
    assert done.stdout.splitlines()[-1] == "0 passed, 0 warned, 17 skipped, 1 failed"


def test_cluster_option_replaces_the_example_cluster(run_cli: RunCli, tmp_path: Path) -> None:
    """With --cluster the checks run on the given manifests; the plugin's rejections there must have reasons."""
    site = fake_distribution(tmp_path / "site", "SilentRejection")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    cluster = write(tmp_path / "cluster.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: only}\n---\n"
                                               "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                               "spec: {containers: [{name: c}]}\n")
    done = run_cli("conformance", "SilentRejection", "--cluster", str(cluster), "--check", "filter-status-valid",
                   env=env)
    assert done.returncode == 1
    assert "(pod p on node only)" in done.stdout


def test_a_plugin_the_default_examples_never_reach_fails_with_advice(run_cli: RunCli, tmp_path: Path) -> None:
    """A plugin gated by a label: the checks about its hooks fail on the default examples, advising --cluster."""
    site = fake_distribution(tmp_path / "site", "GpuOnlySilentRejection")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("conformance", "GpuOnlySilentRejection", "--check", "filter-status-valid", env=env)
    assert done.returncode == 1
    assert "FAIL  filter-status-valid" in done.stdout
    assert "kubesched conformance NAME --cluster cluster.yaml" in done.stdout


def test_cluster_without_a_pod_to_schedule_is_an_error(run_cli: RunCli, tmp_path: Path) -> None:
    """A cluster file with nothing to schedule cannot exercise the plugin: a clear error, exit 1."""
    cluster = write(tmp_path / "nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: only}\n")
    done = run_cli("conformance", "NodeResourcesFit", "--cluster", str(cluster))
    assert done.returncode == 1
    assert done.stderr.strip() == (f"error: {cluster}: the cluster needs at least one node and one pod without "
                                   "spec.nodeName to schedule")


def test_entry_point_name_must_match_the_class_name(run_cli: RunCli, tmp_path: Path) -> None:
    """A plugin installed under another name than its class says fails the hookspec check, as the registry
    would refuse it; the report is headed with the installed name."""
    site = fake_distribution(tmp_path / "site", aliases={"Alias": "ScoresOutOfRange"})
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_cli("conformance", "Alias", "--check", "hooks-match-hookspecs", env=env)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "conformance of plugin Alias"
    assert "the entry point is named 'Alias' but the class says name = 'ScoresOutOfRange'" in done.stdout


def test_args_class_that_breaks_is_an_error_not_a_traceback(run_cli: RunCli, tmp_path: Path) -> None:
    """An Args validator that raises something unexpected is reported on one line naming the file."""
    site = fake_distribution(tmp_path / "site", "BrokenValidator")
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    args = write(tmp_path / "args.toml", "limit = 3\n")
    done = run_cli("conformance", "BrokenValidator", "--args", str(args), env=env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"error: {args}: the plugin's Args class failed on these args: KeyError: "
                                   "'limits'")


@pytest.mark.parametrize("budget", ["0", "-1", "nan"])
def test_time_budget_must_be_positive(run_cli: RunCli, budget: str) -> None:
    """A zero, negative or NaN budget is a usage error."""
    done = run_cli("conformance", "NodeResourcesFit", "--time-budget-ms", budget)
    assert done.returncode == 2
    assert "is not a positive number of milliseconds" in done.stderr

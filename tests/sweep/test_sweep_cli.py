"""Specification of the ``kubesched sweep`` command in this process: the file it writes, the summary it prints,
and its flags' problems reported with the Sweep file's, all at once."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from rich.console import Console

from kubesched.cli.main import main
from kubesched.cli.sweep import SweepBar
from kubesched.sweep import executors
from kubesched.sweep.cell import CellOutcome
from kubesched.sweep.matrix import Cell
from kubesched.sweep.store import read_rows
from tests.sweep.helpers import HEADER, TINY, sweep_folder


def invoke(folder: Path, *arguments: str, monkeypatch: pytest.MonkeyPatch) -> Result:
    monkeypatch.chdir(folder)
    return CliRunner().invoke(main, ["sweep", *arguments])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    sweep_folder(tmp_path, TINY)
    return tmp_path


def test_a_sweep_writes_a_row_per_cell_beside_and_prints_the_summary_by_profile(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = invoke(folder, "sweep.yaml", "-j", "1", monkeypatch=monkeypatch)
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stderr == "sweep small: 12 cell(s), 12 run, 0 reused: sweep.parquet\n"
    assert len(read_rows(folder / "sweep.parquet")) == 12
    lines = outcome.stdout.splitlines()
    assert lines[0].split() == ["profile", "cells", "pods.bound", "pods.pending", "preemptions.count",
                                "resources.cpu.ratio", "resources.cpu.nodes.cv", "fragmentation.copies",
                                "pendingTime.p95"]
    assert [line.split()[:2] for line in lines[1:]] == [
        ["default", "4"], ["fit[NodeResourcesFit.scoringStrategy.type=LeastAllocated]", "4"],
        ["fit[NodeResourcesFit.scoringStrategy.type=MostAllocated]", "4"]]


@pytest.mark.parametrize("form", [pytest.param("json", id="json"), pytest.param("yaml", id="yaml")])
def test_the_summary_as_a_document(folder: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    outcome = invoke(folder, "sweep.yaml", "-j", "1", "--by", "input", "--metric", "pods.bound", "-o", form,
                     "--parquet", "out/results.parquet", monkeypatch=monkeypatch)
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout) if form == "json" else yaml.safe_load(outcome.stdout)
    assert [(g["values"], g["cells"], g["metrics"]["pods.bound"]["mean"]) for g in document["groups"]] == [
        ({"input": "two-nodes"}, 6, 2.0), ({"input": "basic"}, 6, 6.0)]
    assert (folder / "out" / "results.parquet").is_file()


def test_flag_and_file_problems_are_reported_together(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / "bad.yaml").write_text(HEADER + "spec: {inputs: [cluster.yaml], seeds: [x]}")
    outcome = invoke(folder, "bad.yaml", "--send-inputs", "--by", "profil", monkeypatch=monkeypatch)
    assert outcome.exit_code == 1
    assert outcome.stderr.splitlines() == [
        "error: --send-inputs: only with --dask (local processes read the inputs where they are)",
        'error: bad.yaml: spec.seeds[0]: Invalid value: "x": must be an integer']
    outcome = invoke(folder, "sweep.yaml", "--by", "profil", "--dask", "tcp://127.0.0.1:1", "-j", "2",
                     monkeypatch=monkeypatch)
    assert outcome.stderr.splitlines() == [
        "error: --jobs: not with --dask (the Dask cluster's workers run the cells)",
        "error: --by: unknown parameter 'profil' (did you mean 'profile'?); parameters: input, inputKind, "
        "inputDigest, profile, profileDigest, args.NodeResourcesFit.scoringStrategy.type, seed, repetition, runSeed"]
    assert not (folder / "sweep.parquet").exists()


def test_an_unknown_metric_is_an_error_after_the_summary(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = invoke(folder, "sweep.yaml", "-j", "1", "--metric", "pods.bund", "--metric", "pods.bound",
                     monkeypatch=monkeypatch)
    assert outcome.exit_code == 1
    assert outcome.stdout.splitlines()[0].split() == ["profile", "cells", "pods.bound"]
    assert outcome.stderr.splitlines()[-1] == "error: --metric: no cell has a metric 'pods.bund' (did you mean " \
                                              "'pods.bound'?)"


def test_failed_cells_keep_their_rows_and_fail_the_command(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(cell: Cell, files: Any = ()) -> CellOutcome:
        return CellOutcome({**cell.parameters(), "error": "the simulation did not settle"})

    monkeypatch.setattr(executors, "run_cell", failing)
    outcome = invoke(folder, "sweep.yaml", "-j", "1", monkeypatch=monkeypatch)
    assert outcome.exit_code == 1
    assert outcome.stderr.splitlines()[-1] == (
        "error: 12 of 12 cell(s) failed (their rows' error column says why); first: cell 0 (input 'two-nodes', "
        "profile 'default', seed 0, repetition 0): the simulation did not settle")
    assert [r["error"] for r in read_rows(folder / "sweep.parquet")] == ["the simulation did not settle"] * 12
    assert outcome.stdout.splitlines()[1].split()[:4] == ["default", "4", "(4", "failed)"]


def test_resume_reuses_the_finished_file(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke(folder, "sweep.yaml", "-j", "1", monkeypatch=monkeypatch).exit_code == 0
    again = invoke(folder, "sweep.yaml", "--resume", monkeypatch=monkeypatch)
    assert again.stderr == "sweep small: 12 cell(s), 0 run, 12 reused: sweep.parquet\n"


def test_warnings_of_an_input_are_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What kubesched does not model is said per input, not per cell."""
    sweep_folder(tmp_path, TINY)
    with (tmp_path / "cluster.yaml").open("a") as cluster:
        cluster.write("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    outcome = invoke(tmp_path, "sweep.yaml", "-j", "1", monkeypatch=monkeypatch)
    assert outcome.exit_code == 0, outcome.output
    assert [line for line in outcome.stderr.splitlines() if line.startswith("warning:")] == [
        "warning: input 'two-nodes': skipped 1 object(s) of kind ConfigMap: kubesched does not read this kind"]


def test_a_profiles_warnings_are_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A KubeSchedulerConfiguration's settings kubesched reads but does not honour, once for all its variants."""
    (tmp_path / "kube.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                        "profiles:\n- pluginConfig: [{name: DynamicResources, args: {}}]\n")
    sweep_folder(tmp_path, TINY.replace("  - default\n", "  - kube.yaml\n").replace(
        "  - name: fit\n", "  - name: fit\n    profile: kube.yaml\n"))
    outcome = invoke(tmp_path, "sweep.yaml", "-j", "1", monkeypatch=monkeypatch)
    assert outcome.exit_code == 0, outcome.output
    warnings = [line for line in outcome.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: kube.yaml: profiles[0]: ignoring DynamicResources")


def test_the_progress_bar_counts_the_cells_reused_and_finished() -> None:
    output = io.StringIO()
    with SweepBar(Console(file=output, force_terminal=True, width=60)) as bar:
        bar.started(5, 2)
        bar.advance()
        bar._progress.refresh()
    assert "3/5" in output.getvalue()

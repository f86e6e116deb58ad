"""Specification of a Sweep's matrix: its cells in order, their seeds and keys, and each input checked once with
the digest of what it reads."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from kubesched.io.errors import InputErrorList
from kubesched.runtime import PluginRegistry
from kubesched.sweep.inputs import materialise, sendable
from kubesched.sweep.matrix import plan, run_seed
from tests.conftest import EXAMPLES
from tests.sweep.helpers import HEADER, sweep_folder


def test_cells_vary_the_input_slowest_then_the_profile_the_seed_and_the_repetition(
        tmp_path: Path, registry: PluginRegistry) -> None:
    cells = plan(sweep_folder(tmp_path), registry).cells
    assert len(cells) == 24
    assert [c.index for c in cells] == list(range(24))
    shown = [(c.input.label, c.profile.label.removeprefix("fit[NodeResourcesFit.scoringStrategy.type="), c.seed,
              c.repetition) for c in cells[:7]]
    assert shown == [("two-nodes", "default", 0, 0), ("two-nodes", "default", 0, 1), ("two-nodes", "default", 7, 0),
                     ("two-nodes", "default", 7, 1), ("two-nodes", "LeastAllocated]", 0, 0),
                     ("two-nodes", "LeastAllocated]", 0, 1), ("two-nodes", "LeastAllocated]", 7, 0)]
    assert cells[12].input.label == "basic"


def test_repetition_0_runs_the_seed_itself_and_later_ones_a_seed_derived_from_both() -> None:
    assert run_seed(7, 0) == 7
    derived = {run_seed(seed, r) for seed in (0, 1, 2) for r in (1, 2, 3)}
    assert len(derived) == 9
    assert all(0 <= s < 2**63 for s in derived)
    assert run_seed(1, 1) == run_seed(1, 1) != run_seed(1, 2)


def test_every_cell_has_its_own_key_and_the_parameters_of_its_row(tmp_path: Path, registry: PluginRegistry) -> None:
    cells = plan(sweep_folder(tmp_path), registry).cells
    assert len({c.key for c in cells}) == 24
    parameters = cells[9].parameters()
    assert parameters == {
        "cell": 9, "input": "two-nodes", "inputKind": "manifests", "inputDigest": cells[0].input_digest,
        "profile": "fit[NodeResourcesFit.scoringStrategy.type=MostAllocated]",
        "profileDigest": cells[9].profile.digest, "args.NodeResourcesFit.scoringStrategy.type": "MostAllocated",
        "seed": 0, "repetition": 1, "runSeed": run_seed(0, 1), "kubeschedVersion": "0.1.0"}


def test_the_input_digest_follows_the_bytes_read(tmp_path: Path, registry: PluginRegistry) -> None:
    """The same bytes give the same digest wherever the files are; a changed byte, another."""
    first = plan(sweep_folder(tmp_path / "a"), registry).inputs[0].digest
    assert plan(sweep_folder(tmp_path / "b"), registry).inputs[0].digest == first
    changed = tmp_path / "c"
    sweep_folder(changed)
    cluster = changed / "cluster.yaml"
    cluster.write_text(cluster.read_text().replace('cpu: "1"', 'cpu: "2"'))
    assert plan(changed / "sweep.yaml", registry).inputs[0].digest != first


def test_a_scenario_input_digests_the_manifests_its_steps_read(tmp_path: Path, registry: PluginRegistry) -> None:
    folder = tmp_path / "s"
    shutil.copytree(EXAMPLES / "scenarios", folder)
    sweep = sweep_folder(folder, HEADER + "spec: {inputs: [day.yaml]}", name="sweep.yaml")
    (checked,) = plan(sweep, registry).inputs
    assert checked.cell_input.kind == "scenario"
    assert [p.name for p in checked.files] == ["day.yaml", "day-cluster.yaml"]
    before = checked.digest
    (folder / "day-cluster.yaml").write_text((folder / "day-cluster.yaml").read_text() + "\n# changed\n")
    assert plan(sweep, registry).inputs[0].digest != before


def test_sent_files_are_written_back_under_the_same_relative_paths(tmp_path: Path, registry: PluginRegistry,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What --send-inputs sends: the files relative to their common folder, and the paths the cell loads, written
    once per machine in the temporary folder."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    folder = tmp_path / "s"
    shutil.copytree(EXAMPLES / "scenarios", folder)
    sweep = sweep_folder(folder, HEADER + "spec: {inputs: [day.yaml]}")
    (checked,) = plan(sweep, registry).inputs
    cell_input, files = sendable(checked)
    assert (cell_input.paths, [name for name, _ in files]) == (("day.yaml",), ["day.yaml", "day-cluster.yaml"])
    assert cell_input.shown_root == str(folder.resolve())
    written = materialise(files, checked.digest)
    assert (written / "day-cluster.yaml").read_bytes() == (folder / "day-cluster.yaml").read_bytes()
    assert materialise(files, checked.digest) == written
    assert written == tmp_path / "tmp" / "kubesched-sweep-inputs" / checked.digest


def test_a_bench_input_reads_no_file_and_its_digest_is_of_its_workload(tmp_path: Path,
                                                                      registry: PluginRegistry) -> None:
    inputs = plan(sweep_folder(tmp_path), registry).inputs
    assert (inputs[1].files, inputs[1].cell_input.kind) == ((), "bench")
    other = plan(sweep_folder(tmp_path / "o", HEADER + "spec: {inputs: [{bench: {workload: SchedulingBasic, "
                                                       "nodes: 6, initPods: 4, measurePods: 21}}]}"), registry)
    assert other.inputs[0].digest != inputs[1].digest


def test_input_problems_come_with_the_sweep_files(tmp_path: Path, registry: PluginRegistry) -> None:
    """A manifest's own problems are reported as simulate reports them, with the Sweep file's and the profiles'."""
    sweep = sweep_folder(tmp_path, HEADER + "spec: {inputs: [bad.yaml], profiles: [nosuch], seeds: [x]}")
    (tmp_path / "bad.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                                       "[{name: c, resources: {requests: {cpu: 2x}}}]}\n")
    with pytest.raises(InputErrorList) as caught:
        plan(sweep, registry)
    lines = [str(e).replace(str(tmp_path) + "/", "") for e in caught.value.errors]
    assert lines[0] == 'sweep.yaml: spec.seeds[0]: Invalid value: "x": must be an integer'
    assert lines[1].startswith("sweep.yaml: spec.profiles[0].profile: no shipped profile named 'nosuch'")
    assert lines[2].startswith('bad.yaml: pods/default/p: spec.containers[0].resources.requests.cpu: ')
    assert len(lines) == 3

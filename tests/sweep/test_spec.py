"""Specification of the Sweep file (kind: Sweep): what it reads, its defaults, and every mistake reported at once,
each naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.errors import InputErrorList
from kubesched.sweep.spec import BenchInput, load_sweep
from tests.sweep.helpers import HEADER, SMALL, sweep_folder


def errors_of(tmp_path: Path, body: str) -> list[str]:
    """The error lines of a Sweep file (the header added unless the body has its own), without the file name."""
    path = sweep_folder(tmp_path, body if body.startswith(("apiVersion", "kind")) else HEADER + body)
    with pytest.raises(InputErrorList) as caught:
        load_sweep(path)
    return [str(e).removeprefix(f"{path}: ") for e in caught.value.errors]


def test_the_small_matrix_reads_as_written(tmp_path: Path) -> None:
    """Inputs with their labels, profiles with their grids, seeds and repetitions."""
    spec = load_sweep(sweep_folder(tmp_path))
    assert spec.name == "small"
    assert [(i.label, i.written, i.bench) for i in spec.inputs] == [
        ("two-nodes", ("cluster.yaml",), None), ("basic", (), BenchInput("SchedulingBasic", 6, 4, 20))]
    assert spec.inputs[0].paths == (tmp_path / "cluster.yaml",)
    assert [(p.name, p.profile, p.plugin_args) for p in spec.profiles] == [
        ("default", "default", ()),
        ("fit", "default", (("NodeResourcesFit", "scoringStrategy.type", ("LeastAllocated", "MostAllocated"), True),))]
    assert (spec.seeds, spec.repetitions) == ((0, 7), 2)


def test_defaults_the_default_profile_seed_0_one_repetition_and_the_file_name(tmp_path: Path) -> None:
    """Only inputs are required; a path or a profile may be given as a plain string."""
    spec = load_sweep(sweep_folder(tmp_path, HEADER + "spec: {inputs: [cluster.yaml]}", name="mine.yaml"))
    assert (spec.name, spec.seeds, spec.repetitions) == ("mine", (0,), 1)
    assert [(i.label, i.written) for i in spec.inputs] == [("cluster.yaml", ("cluster.yaml",))]
    assert [(p.name, p.location) for p in spec.profiles] == [("default", "default")]


def test_a_bench_input_takes_the_workload_defaults_and_its_label_names_the_sizes(tmp_path: Path) -> None:
    spec = load_sweep(sweep_folder(tmp_path, HEADER + "spec: {inputs: [{bench: {workload: Unschedulable}}]}"))
    assert spec.inputs[0].bench == BenchInput("Unschedulable", 5000, 200, 5000)
    assert spec.inputs[0].label == "Unschedulable 5000/200/5000"


def test_a_fixed_plugin_arg_is_not_varied(tmp_path: Path) -> None:
    """A value that is not a list is set in every variant; a list is the values to try (a list-valued arg is
    written as a list of one list)."""
    body = """spec:
  inputs: [cluster.yaml]
  profiles:
  - pluginArgs:
      NodeResourcesFit: {scoringStrategy.type: MostAllocated, scoringStrategy.resources: [[{name: cpu, weight: 1}]]}
"""
    (entry,) = load_sweep(sweep_folder(tmp_path, HEADER + body)).profiles
    assert entry.plugin_args == (("NodeResourcesFit", "scoringStrategy.type", ("MostAllocated",), False),
                                 ("NodeResourcesFit", "scoringStrategy.resources", ([{"name": "cpu", "weight": 1}],),
                                  True))


def test_a_profile_path_is_relative_to_the_sweep_file(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text('[[profiles]]\nscheduler-name = "default-scheduler"\n')
    spec = load_sweep(sweep_folder(tmp_path, HEADER + "spec: {inputs: [cluster.yaml], profiles: [p.toml]}"))
    assert spec.profiles[0].location == str(tmp_path / "p.toml")


@pytest.mark.parametrize(("body", "expected"), [
    pytest.param("kind: Sweep\nspec: {inputs: [cluster.yaml]}", ['apiVersion: Required value: supported values: '
                                                                 '"kubesched.io/v1alpha1"'], id="no-api-version"),
    pytest.param("spec: {}", ["spec.inputs: Required value: a sweep needs at least one entry in inputs"],
                 id="no-inputs"),
    pytest.param("spec: {inputs: cluster.yaml}", ['spec.inputs: Invalid value: "cluster.yaml": must be a list'],
                 id="inputs-not-a-list"),
    pytest.param("spec: {inputs: [missing.yaml]}",
                 ['spec.inputs[0].path: Invalid value: "missing.yaml": no such file or directory (paths are relative '
                  "to the sweep file)"], id="missing-path"),
    pytest.param("spec: {inputs: [{name: a}]}", ['spec.inputs[0]: Required value: exactly one of "path" and "bench"'],
                 id="neither-path-nor-bench"),
    pytest.param("spec: {inputs: [{path: cluster.yaml, bench: {workload: SchedulingBasic}}]}",
                 ['spec.inputs[0]: Required value: exactly one of "path" and "bench"'], id="both-path-and-bench"),
    pytest.param("spec: {inputs: [{bench: {workload: Basic, nodes: 0, initPods: -1, pods: 3}}]}",
                 ['spec.inputs[0].bench.pods: unknown field "pods" (known: "workload", "nodes", "initPods", '
                  '"measurePods")',
                  'spec.inputs[0].bench.workload: Unsupported value: "Basic": supported values: "SchedulingBasic", '
                  '"TopologySpreading", "SchedulingPodAntiAffinity", "SchedulingPodAffinity", '
                  '"SchedulingNodeAffinity", "PreemptionBasic", "Unschedulable", "SchedulingWithMixedChurn"',
                  "spec.inputs[0].bench.nodes: Invalid value: 0: must be 1 or more",
                  "spec.inputs[0].bench.initPods: Invalid value: -1: must be 0 or more"], id="bad-bench"),
    pytest.param("spec: {inputs: [cluster.yaml, {path: cluster.yaml}]}",
                 ['spec.inputs[1]: Duplicate value: input "cluster.yaml" (also spec.inputs[0]); give each a distinct '
                  "name"], id="duplicate-input-label"),
    pytest.param("spec: {inputs: [cluster.yaml], profiles: [default, {name: default, profile: spread}]}",
                 ['spec.profiles[1]: Duplicate value: profile "default" (also spec.profiles[0]); give each a distinct '
                  "name"], id="duplicate-profile-label"),
    pytest.param("spec: {inputs: [cluster.yaml], profiles: [{pluginArgs: {NodeResourcesFit: {a: []}}}]}",
                 ["spec.profiles[0].pluginArgs.NodeResourcesFit.a: Required value: at least one value to try"],
                 id="empty-grid"),
    pytest.param("spec: {inputs: [cluster.yaml], profiles: [{pluginArgs: {NodeResourcesFit: 3}}]}",
                 ["spec.profiles[0].pluginArgs.NodeResourcesFit: Invalid value: 3: must be an object of args keys"],
                 id="args-not-an-object"),
    pytest.param("spec: {inputs: [cluster.yaml], seeds: [1, -1, x, 1]}",
                 ["spec.seeds[1]: Invalid value: -1: must be from 0 to 9223372036854775807",
                  'spec.seeds[2]: Invalid value: "x": must be an integer', "spec.seeds[3]: Duplicate value: 1"],
                 id="bad-seeds"),
    pytest.param("spec: {inputs: [cluster.yaml], repetitions: 0, extra: 1}",
                 ['spec.extra: unknown field "extra" (known: "inputs", "profiles", "seeds", "repetitions")',
                  "spec.repetitions: Invalid value: 0: must be 1 or more"], id="bad-repetitions-and-unknown-field"),
])
def test_mistakes_are_reported_together_with_their_fields(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert errors_of(tmp_path, body) == expected


def test_a_file_that_is_not_one_sweep_object_says_so(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(SMALL + "---\n" + SMALL)
    with pytest.raises(InputErrorList, match="a sweep file holds exactly one document"):
        load_sweep(path)


@pytest.mark.parametrize(("name", "expected"), [
    pytest.param("missing.yaml", "cannot read: No such file or directory", id="missing"),
    pytest.param(".", "cannot read: a directory, not a file", id="directory"),
])
def test_a_sweep_file_that_cannot_be_read_says_why(tmp_path: Path, name: str, expected: str) -> None:
    """Read through kubesched's bounded reader, as every input file is."""
    with pytest.raises(InputErrorList) as caught:
        load_sweep(tmp_path / name)
    assert [e.message for e in caught.value.errors] == [expected]

"""Bad RESULT files: one error line per problem naming the file, the document's kind and the field, every problem
of every file in one run, exit 1, no report written and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kubesched.cli.main import main
from tests.report.conftest import write_sweep

READS = ("kubesched report reads SimulationResult and Comparison documents (simulate and compare -o json|yaml) and "
         "sweeps' .parquet files")


def report(tmp_path: Path, *names: str) -> Result:
    return CliRunner().invoke(main, ["report", *(str(tmp_path / n) for n in names), "-o", str(tmp_path / "r.html")])


@pytest.mark.parametrize(("name", "text", "errors"), [
    pytest.param("r.json", '{"kind": ', ["invalid JSON at line 1 column 10: Expecting value"], id="json-syntax"),
    pytest.param("r.yaml", "a: [\n",
                 ["invalid YAML at line 2 column 1: expected the node content, but found '<stream end>'"],
                 id="yaml-syntax"),
    pytest.param("r.yaml", "- 1\n", [f"expected a result document (an object with a kind), not a list; {READS}"],
                 id="not-an-object"),
    pytest.param("r.yaml", "seed: 0\n", [f"kind: missing; {READS}"], id="no-kind"),
    pytest.param("r.yaml", "kind: Pod\n", [f'kind: "Pod" is not a result kind; {READS}'], id="unknown-kind"),
    pytest.param("r.yaml", "kind: SimulationResult\n---\nkind: SimulationResult\n",
                 ["holds 2 YAML documents; a result file holds one"], id="two-documents"),
    pytest.param("r.json", '{"kind": "SimulationResult", "nodes": [{"name": "n1", "allocatable": {"cpu": "2x"}}]}',
                 ['SimulationResult: nodes[0].allocatable.cpu: "2x" is not a valid quantity'], id="quantity"),
    pytest.param("r.json", '{"kind": "SimulationResult", "analysis": {"series": {"time": [0, "x"], "values": '
                 '{"pods.pending": [1]}}}}',
                 ['SimulationResult: analysis.series.time[1]: "x" is not a number',
                  'SimulationResult: analysis.series.values["pods.pending"]: holds 1 value(s) for 2 sample time(s)'],
                 id="series"),
    pytest.param("r.json", '{"kind": "SimulationResult", "analysis": {"series": {"time": [2, 1], "values": {}}}}',
                 ["SimulationResult: analysis.series.time: the sample times must not decrease"], id="series-order"),
    pytest.param("r.json", '{"kind": "SimulationResult", "preemptions": [{"time": "soon", "preemptor": "a", '
                 '"node": "n", "victims": "b"}]}',
                 ['SimulationResult: preemptions[0].time: "soon" is not a number',
                  'SimulationResult: preemptions[0].victims: "b" is not a list'], id="preemption"),
    pytest.param("r.json", '{"kind": "SimulationResult", "explain": {"default/p": [{"filter": {"n1": '
                 '{"NodeName": 3}}}]}}',
                 ['SimulationResult: explain.default/p[0].filter.n1.NodeName: 3 is not a string'], id="explain"),
    pytest.param("r.json", '{"kind": "Comparison", "profiles": ["a", "b"], "metrics": {"pods.bound": [1]}, '
                 '"differences": {}, "runs": [{"analysis": null}]}',
                 ['Comparison: metrics["pods.bound"]: holds 1 value(s) for 2 profile(s)',
                  "Comparison: runs: holds 1 run(s) for 2 profile(s)"], id="comparison"),
])
def test_a_bad_file_is_reported_field_by_field(tmp_path: Path, name: str, text: str, errors: list[str]) -> None:
    """Each problem on its own line, after the file's name."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    outcome = report(tmp_path, name)
    assert outcome.exit_code == 1
    assert outcome.stderr.splitlines() == [f"error: {path}: {e}" for e in errors]
    assert not (tmp_path / "r.html").exists()


def test_a_parquet_file_that_does_not_read_is_an_error(tmp_path: Path) -> None:
    """pyarrow's reason follows."""
    (tmp_path / "s.parquet").write_text("hello\n", encoding="utf-8")
    outcome = report(tmp_path, "s.parquet")
    assert outcome.exit_code == 1
    assert outcome.stderr.startswith(f"error: {tmp_path / 's.parquet'}: not a Parquet file kubesched can read: ")
    assert len(outcome.stderr.splitlines()) == 1


def test_a_parquet_file_without_metric_columns_is_not_a_sweep(tmp_path: Path) -> None:
    path = write_sweep(tmp_path / "s.parquet", [{"input": "a", "seed": 0}])
    outcome = report(tmp_path, "s.parquet")
    assert outcome.exit_code == 1
    assert outcome.stderr == (f"error: {path}: no metric column (a dotted name holding numbers, such as "
                              "pods.bound): not the results of kubesched sweep\n")


def test_every_problem_of_every_file_is_reported_in_one_run(tmp_path: Path) -> None:
    """A missing file and a bad one: both said, in the order given; no traceback."""
    (tmp_path / "bad.yaml").write_text("kind: Pod\n", encoding="utf-8")
    outcome = report(tmp_path, "missing.json", "bad.yaml")
    assert outcome.exit_code == 1
    assert outcome.stderr.splitlines() == [f"error: {tmp_path / 'missing.json'}: no such file",
                                           f'error: {tmp_path / "bad.yaml"}: kind: "Pod" is not a result kind; '
                                           f"{READS}"]
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)


def test_a_folder_is_not_a_result(tmp_path: Path) -> None:
    outcome = report(tmp_path, ".")
    assert outcome.exit_code == 1
    assert outcome.stderr == f"error: {tmp_path / '.'}: not a file\n"


def test_a_report_that_cannot_be_written_is_an_error(tmp_path: Path, results: dict[str, Path]) -> None:
    """Writing into a folder that does not exist: one line, exit 1."""
    target = tmp_path / "no" / "r.md"
    outcome = CliRunner().invoke(main, ["report", str(results["preemption.json"]), "--format", "markdown",
                                        "-o", str(target)])
    assert outcome.exit_code == 1
    assert outcome.stderr == f"error: {target}: cannot write the report: No such file or directory\n"

"""``kubesched simulate`` explaining what real workloads create: pods named though a controller or a scenario step
creates them, ``--explain-selector``/``-l``, ``--explain-pending``, and the table's summary, in plain and scenario
mode alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import write
from tests.sim.test_explain_request import WORKLOADS

SCENARIO = """\
apiVersion: kubesched.io/v1alpha1
kind: Scenario
metadata: {name: workloads}
spec:
  steps:
  - create: {from: [workloads.yaml]}
"""
UNSCHEDULABLE = ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
                 "victims found for incoming pod.")
MODES = [pytest.param("workloads.yaml", id="plain"), pytest.param("scenario.yaml", id="scenario")]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A folder with the workloads (a StatefulSet of 3 pods, one fits; a lone pod) and a scenario creating them."""
    write(tmp_path / "workloads.yaml", WORKLOADS)
    write(tmp_path / "scenario.yaml", SCENARIO)
    return tmp_path


def simulate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["simulate", *args], catch_exceptions=False, env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def explained(*args: str) -> dict[str, list[dict[str, object]]]:
    """The JSON's explain key of a run that exits 0."""
    code, out, err = simulate(*args, "-o", "json")
    assert code == 0, err
    explain: dict[str, list[dict[str, object]]] = json.loads(out)["explain"]
    return explain


@pytest.mark.parametrize("path", MODES)
def test_pods_a_controller_creates_are_explained_by_name(inputs: Path, path: str) -> None:
    """A StatefulSet's pods have fixed names: --explain takes them like the input's pods, in the order given."""
    explain = explained(str(inputs / path), "--explain", "db-2", "--explain", "default/db-0")
    assert list(explain) == ["default/db-2", "default/db-0"]
    assert [a["fitError"] is None for key in explain for a in explain[key]] == [False, True]


@pytest.mark.parametrize("path", MODES)
def test_a_name_that_never_existed_is_an_error_and_nothing_is_shown(inputs: Path, path: str) -> None:
    """A name no pod of the run ever had: one error line per name, exit 1, nothing on stdout."""
    code, out, err = simulate(str(inputs / path), "--explain", "db-3", "--explain", "db-0", "--explain", "x/lone")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        'error: --explain "db-3": no pod "db-3" in namespace "default" existed during the run',
        'error: --explain "x/lone": no pod "lone" in namespace "x" existed during the run',
    ]


@pytest.mark.parametrize("path", MODES)
def test_selector_adds_the_pods_it_matches_after_the_names(inputs: Path, path: str) -> None:
    """-l selects by labels, across namespaces, in creation order, after the names and without repeating them."""
    assert list(explained(str(inputs / path), "--explain", "db-1", "-l", "app in (db),app!=lone")) == [
        "default/db-1", "default/db-0", "default/db-2"]
    assert list(explained(str(inputs / path), "--explain-selector", "!app")) == []


@pytest.mark.parametrize("path", MODES)
def test_explain_pending_explains_the_pods_pending_at_the_end(inputs: Path, path: str) -> None:
    """--explain-pending explains exactly the pods the result lists as Pending; everything else is as without."""
    code, out, _ = simulate(str(inputs / path), "-o", "json")
    plain = json.loads(out)
    code, out, _ = simulate(str(inputs / path), "-o", "json", "--explain-pending")
    document = json.loads(out)
    assert code == 0
    assert list(document.pop("explain")) == [f"default/{p['name']}" for p in plain["pods"] if p["phase"] == "Pending"]
    assert document == plain


def test_invalid_selector_is_an_error_with_the_input_problems(inputs: Path) -> None:
    """An invalid selector is refused in the API server's words, with the input's problems, before any run."""
    write(inputs / "bad.yaml", "kind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c, image: 7}]}\n")
    code, out, err = simulate(str(inputs / "bad.yaml"), "-l", "a in (b")
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == ('error: --explain-selector "a in (b": unable to parse requirement: found \'\', '
                                    "expected: ',' or ')'")
    assert len(err.splitlines()) == 2


def test_table_summary_groups_the_pods_by_their_last_outcome(inputs: Path) -> None:
    """Above the matrices, one line per outcome: how many pods, the outcome, which pods; the largest group first."""
    code, out, _ = simulate(str(inputs / "workloads.yaml"), "--explain", "lone",
                            "-l", "app=db,statefulset.kubernetes.io/pod-name!=db-0")
    lines = out.splitlines()
    start = lines.index("Explain summary, by each pod's last attempt:")
    assert code == 0
    assert lines[start + 1:start + 3] == [
        f"2 pod(s): {UNSCHEDULABLE} [default/db-1, default/db-2]",
        "1 pod(s): selected a node [default/lone]",
    ]
    assert lines[start + 3].startswith("Explain default/lone, attempt 1")

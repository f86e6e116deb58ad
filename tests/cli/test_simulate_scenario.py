"""`kubesched simulate` with a Scenario file, and with workloads in plain manifests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import EXAMPLES, RunCli

SCENARIO = """\
apiVersion: kubesched.io/v1alpha1
kind: Scenario
metadata: {name: tiny}
spec:
  steps:
  - create:
      objects:
      - {kind: Node, metadata: {name: n1}, status: {capacity: {cpu: '2', pods: '10'}}}
      - {kind: Pod, metadata: {name: p}, spec: {containers: [{name: c}]}}
  - {at: 1m, delete-node: {name: n1}}
"""
WORKLOADS = """\
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '2', pods: '10'}}
---
kind: ReplicaSet
apiVersion: apps/v1
metadata: {name: rs}
spec:
  replicas: 2
  selector: {matchLabels: {a: b}}
  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c}]}}
"""


def simulate(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["simulate", *args], catch_exceptions=False, env={"COLUMNS": "140"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def test_scenario_file_is_run_with_a_scenario_key(tmp_path: Path, scenario_file: Path) -> None:
    """A kind: Scenario input runs as a scenario: the JSON gains the scenario key, the pod ends Lost."""
    code, out, _ = simulate(tmp_path, str(scenario_file), "-o", "json")
    assert code == 0
    document = json.loads(out)
    assert document["scenario"]["name"] == "tiny"
    assert document["scenario"]["endTime"] == 60.0
    assert [(p["name"], p["phase"], p["node"]) for p in document["pods"]] == [("p", "Lost", "n1")]
    (deleted,) = [e for e in document["events"] if e["reason"] == "NodeDeleted"]
    assert deleted["regarding"].pop("uid")  # the node's, derived from its manifest
    assert deleted == {"time": 60.0, "type": "Normal", "reason": "NodeDeleted", "object": "n1",
                       "message": "node deleted; 1 pod(s) on it lost", "action": "",
                       "regarding": {"kind": "Node", "namespace": "", "name": "n1"}}


def test_scenario_table_shows_events_with_virtual_times(tmp_path: Path, scenario_file: Path) -> None:
    """The table output ends with the events, each at its virtual time, and where the scenario ended."""
    _, out, _ = simulate(tmp_path, str(scenario_file))
    assert "│ 00:01:00 │ Normal │ NodeDeleted" in out
    assert out.rstrip().endswith("scenario tiny: 2 step(s), ended at 00:01:00 (60s)")


def test_scenario_must_be_the_only_input(tmp_path: Path, scenario_file: Path) -> None:
    """A Scenario among other inputs is refused with one error line."""
    other = tmp_path / "m.yaml"
    other.write_text("kind: Node\nmetadata: {name: x}\n", encoding="utf-8")
    code, _, err = simulate(tmp_path, str(scenario_file), str(other))
    assert code == 1
    assert err == (f"error: {scenario_file}: a Scenario file must be the only input (its steps name the manifests "
                   "they create)\n")


def test_plain_manifests_run_their_workloads(tmp_path: Path) -> None:
    """A ReplicaSet in plain manifests gets its pods, with no "nothing to schedule" warning and no scenario key."""
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOADS, encoding="utf-8")
    code, out, err = simulate(tmp_path, str(path), "-o", "json")
    assert code == 0
    assert err == ""
    document = json.loads(out)
    assert "scenario" not in document
    assert [(p["name"][:3], p["phase"]) for p in document["pods"]] == [("rs-", "Bound"), ("rs-", "Bound")]


def test_scenario_explain_records_the_attempts_of_a_pod_its_steps_create(tmp_path: Path,
                                                                          scenario_file: Path) -> None:
    """--explain names a pod a scenario step creates; its attempt is in the JSON's explain key."""
    code, out, _ = simulate(tmp_path, str(scenario_file), "--explain", "default/p", "-o", "json")
    assert code == 0
    attempts = json.loads(out)["explain"]["default/p"]
    assert [a["selectedNode"] for a in attempts] == ["n1"]


def test_scenario_explain_of_a_malformed_name_is_an_error(tmp_path: Path, scenario_file: Path) -> None:
    """A scenario's --explain argument must still be NAMESPACE/NAME."""
    code, _, err = simulate(tmp_path, str(scenario_file), "--explain", "a/b/c")
    assert code == 1
    assert 'expected NAMESPACE/NAME' in err


def test_day_scenario_gives_identical_bytes_whatever_the_hash_seed(run_cli: RunCli) -> None:
    """The day scenario (controllers' generated names and uids, CronJob, drain, preemption) prints byte-identical
    JSON with the same --seed under different PYTHONHASHSEED values."""
    runs = [run_cli("simulate", str(EXAMPLES / "scenarios" / "day.yaml"), "--seed", "7", "-o", "json",
                    env={"PYTHONHASHSEED": seed}) for seed in ("1", "2", "987")]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout

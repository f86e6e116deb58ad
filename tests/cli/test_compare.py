"""Specification of ``kubesched compare PROFILE PROFILE... -- INPUT...``: one input, one seed, several profiles;
the metrics side by side and the pods each profile places differently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kubesched.cli import compare as compare_cli
from kubesched.cli.main import main

# Two equal nodes, n1 already half full. LeastAllocated (default) puts the new pod on the emptier n2;
# MostAllocated (bin-packing) on the fuller n1.
CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec: {nodeName: n1, containers: [{name: c, image: i, resources: {requests: {cpu: "2", memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
"""


def invoke(*arguments: str) -> Result:
    return CliRunner().invoke(main, ["compare", *arguments])


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    return path


def test_least_and_most_allocated_place_the_pod_differently(cluster: Path) -> None:
    """The pod is listed as moved, with its node under each profile."""
    outcome = invoke("default", "bin-packing", "-o", "json", "--", str(cluster))
    assert outcome.exit_code == 0, outcome.output
    placements = json.loads(outcome.output)["placements"]
    assert placements == [{"pod": "default/web", "change": "moved", "uids": placements[0]["uids"],
                           "phases": ["Bound", "Bound"], "nodes": ["n2", "n1"]}]


def test_metrics_are_side_by_side_with_differences_against_the_first(cluster: Path) -> None:
    """Each figure has one value per profile; the differences are against the first profile (0 for itself)."""
    document = json.loads(invoke("default", "bin-packing", "-o", "json", "--", str(cluster)).output)
    assert document["profiles"] == ["default", "bin-packing"]
    assert document["metrics"]["pods.bound"] == [2, 2]
    assert document["metrics"]["resources.cpu.nodes.max"] == [0.5, 0.75]
    assert document["differences"]["resources.cpu.nodes.max"] == [0.0, 0.25]
    assert [run["profile"] for run in document["runs"]] == ["default", "bin-packing"]


def test_the_table_shows_both_profiles_and_the_moved_pod(cluster: Path) -> None:
    """The table output names each profile, the difference column and the moved pod with its nodes."""
    outcome = invoke("default", "bin-packing", "--", str(cluster))
    assert outcome.exit_code == 0, outcome.output
    assert "Δ bin-packing" in outcome.output
    assert "default/web" in outcome.output
    assert "moved" in outcome.output


def test_the_same_profile_twice_differs_nowhere(cluster: Path) -> None:
    """Same input, same seed, same profile: same placements; the second is labelled default#2."""
    document = json.loads(invoke("default", "default", "-o", "json", "--", str(cluster)).output)
    assert document["profiles"] == ["default", "default#2"]
    assert document["placements"] == []
    assert all(values[0] == values[1] for values in document["metrics"].values())


def test_the_input_is_loaded_once_for_every_profile(cluster: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of the same input share its loading."""
    calls = []
    real = compare_cli.load  # type: ignore[attr-defined]

    def counting(paths: list[str]) -> object:
        calls.append(paths)
        return real(paths)

    monkeypatch.setattr(compare_cli, "load", counting)
    assert invoke("default", "bin-packing", "default", "-o", "json", "--", str(cluster)).exit_code == 0
    assert len(calls) == 1


@pytest.mark.parametrize(("arguments", "message"), [
    pytest.param(("default", "bin-packing", "cluster.yaml"), "separate the profiles from the inputs with --",
                 id="no-dashes"),
    pytest.param(("default", "--", "cluster.yaml"), "at least two profiles", id="one-profile"),
    pytest.param(("default", "bin-packing", "--"), "at least one input", id="no-input"),
])
def test_usage_errors(arguments: tuple[str, ...], message: str) -> None:
    """Misuse is a usage error (exit 2) saying what to do."""
    outcome = invoke(*arguments)
    assert outcome.exit_code == 2
    assert message in outcome.output


def test_an_unknown_profile_is_a_clean_error(cluster: Path) -> None:
    """A profile that does not exist: one error line, exit 1, no traceback."""
    outcome = invoke("default", "no-such-profile", "--", str(cluster))
    assert outcome.exit_code == 1
    assert "no-such-profile" in outcome.output
    assert "Traceback" not in outcome.output


def test_a_bad_input_is_reported_with_its_file(tmp_path: Path) -> None:
    """An input that does not load: its located errors, exit 1."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i, "
                   "resources: {requests: {cpu: 2x}}}]}\n")
    outcome = invoke("default", "bin-packing", "--", str(bad))
    assert outcome.exit_code == 1
    assert "bad.yaml" in outcome.output
    assert "2x" in outcome.output


def test_a_scenario_is_compared_run_for_run() -> None:
    """The day scenario under both profiles: each run has its series; the drain evicts other pods under each
    profile, which the placements say."""
    outcome = invoke("default", "bin-packing", "-o", "json", "--", "examples/scenarios/day.yaml")
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.output)
    assert all(len(run["analysis"]["series"]["time"]) > 1 for run in document["runs"])
    assert {p["change"] for p in document["placements"]} >= {"moved", "evicted"}


@pytest.mark.parametrize("arguments", [
    pytest.param(("--help",), id="alone"),
    pytest.param(("default", "bin-packing", "--help"), id="after-profiles"),
])
def test_help_needs_no_dashes(arguments: tuple[str, ...]) -> None:
    """--help shows the usage and options (--plugin-timeout-ms among them), not the missing -- error."""
    result = invoke(*arguments)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert "--plugin-timeout-ms MS" in result.output

"""Specification of ``--reference-pod NAME=QUANTITY,...``: the fragmentation figures' reference pod, for simulate
and compare."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main


def test_simulate_counts_copies_of_the_pod_given() -> None:
    """The reference is the requests given, in the scheduler's units."""
    outcome = CliRunner().invoke(main, ["simulate", "examples/compare/cluster.yaml", "--reference-pod",
                                        "cpu=1500m,memory=1Gi", "-o", "json"])
    assert outcome.exit_code == 0, outcome.output
    fragmentation = json.loads(outcome.output)["analysis"]["fragmentation"]
    assert fragmentation["reference"] == {"cpu": 1500, "memory": 2**30}


def test_compare_shows_what_bin_packing_leaves_room_for() -> None:
    """A 4-CPU pod fits nowhere under LeastAllocated's spread, once under bin-packing (its empty node)."""
    outcome = CliRunner().invoke(main, ["compare", "default", "bin-packing", "--reference-pod", "cpu=4", "-o", "json",
                                        "--", "examples/compare/cluster.yaml"])
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.output)["metrics"]["fragmentation.copies"] == [0, 1]


@pytest.mark.parametrize(("value", "message"), [
    pytest.param("cpu=2x", 'cpu: "2x" is not a valid quantity', id="bad-quantity"),
    pytest.param("cpu", '"cpu" is not NAME=QUANTITY', id="no-equals"),
    pytest.param("foo=1", '"foo" is not a resource a pod requests', id="unknown-resource"),
    pytest.param("pods=1", '"pods" is not a resource a pod requests', id="pods"),
    pytest.param("cpu=1,cpu=2", '"cpu" is given twice', id="twice"),
])
def test_a_bad_reference_is_a_usage_error(value: str, message: str) -> None:
    """Exit 2 and the reason, before anything runs."""
    outcome = CliRunner().invoke(main, ["simulate", "examples/quickstart.yaml", "--reference-pod", value])
    assert outcome.exit_code == 2
    assert message in outcome.output

"""``kubesched simulate --explain/--explain-all`` on the command line."""

from __future__ import annotations

import json

import yaml

from tests.conftest import RunCli


def test_unknown_pod_is_an_error_and_nothing_runs(run_cli: RunCli) -> None:
    """Each --explain naming no pod of the input is one error line; exit 1, no output."""
    done = run_cli("simulate", "examples/explain", "--explain", "default/nope", "--explain", "p",
                   "--explain", "x/y/z")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        'error: --explain "default/nope": no pod "nope" in namespace "default" existed during the run',
        'error: --explain "x/y/z": expected NAMESPACE/NAME (or NAME in namespace "default")',
    ]


def test_json_has_explain_only_when_asked(run_cli: RunCli) -> None:
    """Without the flags the JSON has no explain key; with --explain it holds the pods named, in that order."""
    plain = json.loads(run_cli("simulate", "examples/explain", "-o", "json", check=True).stdout)
    assert "explain" not in plain
    done = run_cli("simulate", "examples/explain", "-o", "json", "--explain", "big", "--explain", "default/p",
                   check=True)
    document = json.loads(done.stdout)
    assert list(document["explain"]) == ["default/big", "default/p"]
    assert {k: v for k, v in document.items() if k != "explain"} == plain


def test_explain_all_in_yaml(run_cli: RunCli) -> None:
    """--explain-all records every pod attempted; -o yaml carries the same explain document."""
    done = run_cli("simulate", "examples/explain", "-o", "yaml", "--explain-all", check=True)
    document = yaml.safe_load(done.stdout)
    assert list(document["explain"]) == ["default/p", "default/big"]
    assert document["explain"]["default/p"][0]["selectedNode"] == "n2"


def test_pod_already_on_a_node_is_a_warning(run_cli: RunCli) -> None:
    """--explain of a running pod warns that it is never scheduled; its entry is empty."""
    done = run_cli("simulate", "examples/explain", "-o", "json", "--explain", "cache", check=True)
    assert 'warning: --explain default/cache: the pod is already on node "n3": it is not scheduled' in done.stderr
    assert json.loads(done.stdout)["explain"] == {"default/cache": []}

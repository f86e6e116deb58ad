"""docs/running-in-a-cluster.md documents `kubesched run` as the CLI has it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main, run
from tests.kube.helpers import REPO

DOC = REPO / "docs" / "running-in-a-cluster.md"


def test_documented_flags_are_the_commands_flags() -> None:
    """The synopsis and the flag table name exactly `kubesched run`'s options."""
    text = DOC.read_text()
    synopsis = text.split("\nkubesched run ", 1)[1].split("```", 1)[0]
    table = set(re.findall(r"^\| `(--[a-z-]+)", text, re.MULTILINE))
    options = {opt for param in run.params for opt in param.opts if opt.startswith("--")}
    assert set(re.findall(r"\[(--[a-z-]+)", synopsis)) == options == table


def test_synopsis_defaults_are_the_commands_defaults() -> None:
    """Defaults shown in the synopsis (lease namespace and name, metrics address) are the CLI's."""
    defaults = {param.name: param.default for param in run.params}
    assert (defaults["lease_namespace"], defaults["lease_name"], defaults["metrics_bind_address"]) == \
        ("kube-system", "kubesched", "127.0.0.1:10259")
    assert "[--lease-namespace kube-system] \\\n              [--lease-name kubesched] [--metrics-bind-address " \
           "127.0.0.1:10259]" in DOC.read_text()


def test_run_help_lists_the_flags() -> None:
    """`kubesched run --help` works without a cluster and names every flag."""
    result = CliRunner().invoke(main, ["run", "--help"])
    assert result.exit_code == 0
    for flag in ("--kubeconfig", "--profile", "--leader-elect", "--lease-namespace", "--lease-name",
                 "--metrics-bind-address"):
        assert flag in result.output


@pytest.mark.slow
def test_bad_flags_are_reported_together(tmp_path: Path) -> None:
    """A missing kubeconfig, an unknown profile and a bad address: one error line each, exit 1, no traceback."""
    missing = tmp_path / "nope.kubeconfig"
    result = CliRunner().invoke(main, ["run", "--kubeconfig", str(missing), "--profile", "nope",
                                       "--metrics-bind-address", "localhost"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 3, result.output
    assert lines[0].startswith("error: no shipped profile named 'nope'")
    assert lines[1].startswith(f"error: kubeconfig '{missing}'")
    assert lines[2] == 'error: --metrics-bind-address: invalid value "localhost": want HOST:PORT'


@pytest.mark.slow
def test_malformed_kubeconfig_is_one_line_error(tmp_path: Path) -> None:
    """A kubeconfig that is not YAML is one error line naming the file, not a traceback."""
    bad = tmp_path / "bad.kubeconfig"
    bad.write_text("clusters: [\n")
    result = CliRunner().invoke(main, ["run", "--kubeconfig", str(bad)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1, result.output
    assert result.output.startswith(f"error: kubeconfig '{bad}': while parsing a flow node")

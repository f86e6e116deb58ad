"""`kubesched simulate` as kubectl users type it: -o, -f, `-` for standard input, and plain-text tables."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.cli.render import console, print_simulation
from kubesched.sim.simulate import PodResult, SimulationResult

NODE = "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"


def pod(name: str = "web", spec: str = "") -> str:
    """A one-container pod manifest with extra ``spec`` fields (YAML flow style)."""
    return f"---\nkind: Pod\nmetadata: {{name: {name}}}\nspec: {{containers: [{{name: a}}]{spec}}}\n"


def simulate(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run ``kubesched simulate ARGS`` in-process; return exit code, stdout and stderr."""
    result = CliRunner().invoke(main, ["simulate", *args], input=stdin, env={"COLUMNS": "200"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, name: str, text: str) -> str:
    """Write a manifest and return its path as a string."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("option", ["-o", "--output"])
def test_output_has_the_short_option_o(tmp_path: Path, option: str) -> None:
    """-o is --output, as in kubectl."""
    code, out, err = simulate(write(tmp_path, "in.yaml", NODE + pod()), option, "json")
    assert code == 0, err
    assert json.loads(out)["pods"][0]["node"] == "n1"


def test_output_yaml_is_the_json_document_as_yaml(tmp_path: Path) -> None:
    """-o yaml prints the same document as -o json, in YAML."""
    path = write(tmp_path, "in.yaml", NODE + pod())
    as_json = json.loads(simulate(path, "-o", "json")[1])
    code, out, err = simulate(path, "-o", "yaml")
    assert code == 0, err
    assert yaml.safe_load(out) == as_json


def test_filename_option_is_repeatable_and_joins_the_paths(tmp_path: Path) -> None:
    """-f/--filename may be given several times; its paths are read first, then the positional ones."""
    nodes, pods = write(tmp_path, "n.yaml", NODE), write(tmp_path, "p.yaml", pod("a"))
    more = write(tmp_path, "q.yaml", pod("b"))
    code, out, err = simulate("-f", nodes, "--filename", pods, more, "-o", "json")
    assert code == 0, err
    assert [p["name"] for p in json.loads(out)["pods"]] == ["a", "b"]


def test_no_path_at_all_is_a_usage_error() -> None:
    """Without paths or -f, simulate says what it needs."""
    code, _, err = simulate()
    assert code == 2
    assert "give at least one PATH" in err


def test_dash_reads_manifests_from_standard_input() -> None:
    """`-` reads YAML from standard input."""
    code, out, err = simulate("-", "-o", "json", stdin=NODE + pod())
    assert code == 0, err
    assert json.loads(out)["pods"][0]["node"] == "n1"


def test_dash_reads_json_from_standard_input() -> None:
    """Standard input that starts with a brace is read as JSON."""
    document = {"kind": "List", "items": [yaml.safe_load(NODE), yaml.safe_load(pod())]}
    code, out, err = simulate("-", "-o", "json", stdin=json.dumps(document))
    assert code == 0, err
    assert json.loads(out)["pods"][0]["node"] == "n1"


def test_errors_in_standard_input_are_located_at_stdin() -> None:
    """Errors in manifests read from standard input name `<stdin>` as their file."""
    code, _, err = simulate("-", stdin=pod(spec=", nodeName: ghost"))
    assert code == 1
    assert err == 'error: <stdin>: pods/default/web: spec.nodeName: node "ghost" is not in the input\n'


def test_standard_input_that_is_not_utf8_is_a_located_error() -> None:
    """Bytes that are not UTF-8 on standard input are reported like a file that is not UTF-8."""
    result = CliRunner().invoke(main, ["simulate", "-"], input=b"kind: Pod\nmetadata: {name: \xff}\n")
    assert (result.exit_code, result.stderr) == (1, "error: <stdin>: cannot read: not UTF-8 text (byte 27)\n")


@pytest.mark.parametrize(("text", "why"), [
    ("", "the input has no pods"),
    ("kind: StatefulSet\nmetadata: {name: db}\nspec: {selector: {matchLabels: {app: db}}}\n",
     "the input has no pods"),
    ("kind: ConfigMap\nmetadata: {name: c}\n", "the input has no pods"),
    (NODE, "the input has no pods"),
    (NODE + pod(spec=", nodeName: n1"), "every pod in the input is already on a node or has finished"),
])
def test_an_input_with_nothing_to_schedule_says_so(tmp_path: Path, text: str, why: str) -> None:
    """An empty file, a StatefulSet without pods, only skipped kinds, only bound pods: a note on stderr, exit 0."""
    code, _, err = simulate(write(tmp_path, "in.yaml", text))
    assert code == 0
    assert f"warning: nothing to schedule: {why}" in err


@pytest.mark.parametrize("gate", ["example.com/wait", "wait"])
def test_table_shows_scheduling_gates_as_written(tmp_path: Path, gate: str) -> None:
    """Gate names in a message are text, not rich markup, so `[example.com/wait]` is shown."""
    code, out, err = simulate(write(tmp_path, "in.yaml", NODE + pod(spec=f", schedulingGates: [{{name: {gate}}}]")))
    assert code == 0, err
    assert f"waiting for scheduling gates: [{gate}]" in out


def test_table_shows_text_that_looks_like_a_closing_tag(tmp_path: Path) -> None:
    """A message holding `[/x]` is shown instead of failing with a MarkupError."""
    pending = PodResult(namespace="default", name="web", phase="Pending", node=None, nominated_node=None, priority=0,
                        message="see [/x] and [b]")
    out = io.StringIO()
    print_simulation(SimulationResult(seed=0, pods=(pending,), preemptions=(), events=()), console(out))
    assert "see [/x] and [b]" in out.getvalue()

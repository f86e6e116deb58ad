"""Every user-controlled string that reaches a terminal is escaped and cut: an escape sequence in a Scenario's
name or a delete step's pod name is shown as ``\\x1b``, never sent; a megabyte of name is one short line, with
the object named in front of it (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kubesched.cli.main import main
from kubesched.validation import LINE_MAX, TERMINAL_MAX, terminal

MEGABYTE = 1_000_000
NODE = "{kind: Node, metadata: {name: n1}, status: {capacity: {cpu: '4', pods: '110'}}}"


def scenario(name: str, steps: str = "") -> str:
    """A Scenario (``name`` as a YAML double-quoted scalar body) creating one node, then ``steps``."""
    return (f'apiVersion: kubesched.io/v1alpha1\nkind: Scenario\nmetadata: {{name: "{name}"}}\nspec:\n  steps:\n'
            f"  - create: {{objects: [{NODE}]}}\n{steps}")


def simulate(tmp_path: Path, text: str) -> Result:
    path = tmp_path / "input.yaml"
    path.write_text(text, encoding="utf-8")
    return CliRunner().invoke(main, ["simulate", str(path)])


def raw_controls(text: str) -> list[str]:
    """The control characters in ``text`` other than newlines (which end lines)."""
    return sorted({c for c in text if not c.isprintable() and c != "\n"})


@pytest.mark.parametrize(("text", "shown"), [
    pytest.param("web-1", "web-1", id="plain"),
    pytest.param("a\x1b[2Jb", "a\\x1b[2Jb", id="escape-sequence"),
    pytest.param("bell\x07\ttab", "bell\\x07\\ttab", id="bell-and-tab"),
    pytest.param('say "hi" \\ there', 'say "hi" \\ there', id="printable-kept-as-is"),
    pytest.param("x" * 300, "x" * TERMINAL_MAX + "... (300 characters)", id="cut-after-256"),
    pytest.param("\x1b" * 100, "\\x1b" * 64 + "... (100 characters)", id="escapes-never-split"),
])
def test_terminal_escapes_and_cuts(text: str, shown: str) -> None:
    """Visible escapes for what is not printable; at most 256 characters of it, then how long the value was."""
    assert terminal(text) == shown


def test_a_scenario_name_with_an_escape_sequence_is_shown_escaped(tmp_path: Path) -> None:
    """The issue's ``\\x1b[2J`` (clear the screen) in metadata.name: the summary line and the event table show it
    escaped; nothing raw reaches the terminal."""
    result = simulate(tmp_path, scenario("x\\e[2Jy"))
    assert result.exit_code == 0, result.output
    assert raw_controls(result.output) == []
    assert "scenario x\\x1b[2Jy: 1 step(s), ended at 00:00:00 (0s)\n" in result.stdout


def test_a_scenario_name_that_looks_like_markup_is_printed_as_it_is(tmp_path: Path) -> None:
    """``[/x]`` is a closing tag to rich: the summary line is plain text, not markup (it raised MarkupError)."""
    result = simulate(tmp_path, scenario("[/x]"))
    assert result.exit_code == 0, result.output
    assert "scenario [/x]: 1 step(s)" in result.stdout


def test_a_delete_step_naming_a_missing_pod_warns_escaped_and_cut(tmp_path: Path) -> None:
    """A megabyte of pod name ending in an escape sequence: the warning is one line of a few hundred characters,
    its name cut with its length; the table's cells are bounded too."""
    name = "g" * MEGABYTE + "\\e[2J\\a"
    result = simulate(tmp_path, scenario("s", f'  - delete: [{{kind: Pod, name: "{name}"}}]\n'))
    assert result.exit_code == 0, result.output
    assert raw_controls(result.output) == []
    warning, = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warning == (f"warning: pod default/{'g' * TERMINAL_MAX}... ({MEGABYTE + 5} characters) to delete does not "
                       "exist (any more)")
    assert max(len(line) for line in result.stdout.splitlines()) < 2 * LINE_MAX
    assert len(result.stdout) < 4 * LINE_MAX


def test_a_megabyte_pod_name_gives_short_error_lines(tmp_path: Path) -> None:
    """Every error of the pod names it, cut; each line stays short and escaped, and every problem is reported."""
    text = f'kind: Pod\nmetadata: {{name: "{"a" * MEGABYTE}\\e[31m"}}\nspec: {{containers: [{{name: c, resources: ' \
           '{requests: {cpu: 2x}}}]}\n'
    result = simulate(tmp_path, text)
    assert result.exit_code == 1
    assert raw_controls(result.output) == []
    lines = result.stderr.splitlines()
    assert len(lines) == 3
    prefix = f'error: {tmp_path / "input.yaml"}: pods/default/"{"a" * 80}..." ({MEGABYTE + 5} characters): '
    assert [line.startswith(prefix) for line in lines] == [True, True, True], lines[0][:200]
    assert max(len(line) for line in lines) < 1000
    assert lines[-1].endswith('spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity')


def test_compare_shows_a_profile_path_that_looks_like_markup_as_it_is(tmp_path: Path) -> None:
    """A profile file named ``[red]p.toml`` heads its columns as written (rich read ``[red]`` as a style)."""
    profile = tmp_path / "[red]p.toml"
    profile.write_text((Path(__file__).parents[2] / "kubesched/profiles/bin-packing.toml").read_text())
    cluster = Path(__file__).parents[2] / "examples/compare/cluster.yaml"
    result = CliRunner().invoke(main, ["compare", "default", str(profile), "--", str(cluster)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert f"Δ {profile}" in result.stdout

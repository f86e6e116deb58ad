"""Specification of the YAML reader's bound on aliases: what aliases stand for, written out, is counted while the
text is composed, so a "billion laughs" text is a located error in a second, for every kind of file read."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.cli.main import main
from kubesched.io.yaml_reader import MAX_ALIAS_NODES, YamlError, YamlRules, documents

RULES = YamlRules(100, "nested deeper than {limit} levels")


def written_out(levels: int, width: int) -> int:
    """How many nodes the aliases of :func:`laughs` stand for: each alias of level i the whole list of level i-1."""
    size, total = 1 + width, 0
    for _ in range(1, levels):
        total += width * size
        size = 1 + width * size
    return total


def laughs(levels: int, width: int = 9) -> str:
    """Level 0 a list of ``width`` strings, each level above a list of ``width`` aliases of the one below."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_nine_levels_of_nine_aliases_are_refused_where_they_pass_the_bound() -> None:
    """387 million nodes written out: refused at the alias that passes the bound (on line 7, a6's), by line and
    column."""
    with pytest.raises(YamlError, match=rf"at line 7 column \d+: aliases expand to more than {MAX_ALIAS_NODES}"):
        list(documents(laughs(9), RULES))


def test_a_few_aliases_are_read_as_written() -> None:
    """Ordinary anchors and aliases (a merge of shared labels) still read, each alias its anchor's value."""
    [doc] = documents("base: &b {app: web}\ncopy: *b\n", RULES)
    assert doc == {"base": {"app": "web"}, "copy": {"app": "web"}}


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_reading_stays_bounded_whatever_the_shape(levels: int, width: int) -> None:
    """Any depth and width of aliases: either read (at most the bound, written out) or refused; never a long
    walk of the expansion."""
    if written_out(levels, width) > MAX_ALIAS_NODES:
        with pytest.raises(YamlError, match="aliases expand to more than"):
            list(documents(laughs(levels, width), RULES))
    else:
        assert len(list(documents(laughs(levels, width), RULES))) == 1


@pytest.mark.parametrize("command", [
    pytest.param(["profile", "check"], id="kube-scheduler-configuration"),
    pytest.param(["simulate"], id="manifest"),
])
def test_every_command_refuses_the_bomb_with_the_file_name(tmp_path: Path, command: list[str]) -> None:
    """A KubeSchedulerConfiguration file and a manifest alike: one error line naming the file, exit 1."""
    path = tmp_path / "bomb.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + laughs(9))
    outcome = CliRunner().invoke(main, [*command, str(path)])
    assert outcome.exit_code == 1
    assert f"{path}: invalid YAML at line 9" in outcome.output
    assert "aliases expand to more than" in outcome.output

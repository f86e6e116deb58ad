"""``kubesched report RESULT... [-o FILE] [--format html|markdown]`` and ``kubesched compare ... --report
FILE.html``: where the report goes and what the command says."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import EXAMPLES


@pytest.mark.parametrize(("arguments", "written", "said"), [
    pytest.param((), "report.html", "report.html: 2 section(s), 6 table(s), 4 plot(s)\n", id="html"),
    pytest.param(("--format", "markdown"), "report.md", "report.md: 2 section(s), 6 table(s)\n", id="markdown"),
    pytest.param(("-o", "out.htm"), "out.htm", "out.htm: 2 section(s), 6 table(s), 4 plot(s)\n", id="named"),
])
def test_the_report_is_written_to_its_file_and_summed_up_on_stderr(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, results: dict[str, Path], arguments: tuple[str, ...],
        written: str, said: str) -> None:
    """Without -o: report.html, or report.md for markdown, in the current folder."""
    monkeypatch.chdir(tmp_path)
    outcome = CliRunner().invoke(main, ["report", str(results["preemption.json"]), *arguments])
    assert outcome.exit_code == 0, outcome.output
    assert [p.name for p in tmp_path.iterdir()] == [written]
    assert outcome.stdout == ""
    assert outcome.stderr == said


def test_dash_writes_the_report_to_standard_output(results: dict[str, Path]) -> None:
    outcome = CliRunner().invoke(main, ["report", str(results["preemption.json"]), "--format", "markdown", "-o", "-"])
    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout.startswith("# kubesched report\n\n## Simulation\n")
    assert outcome.stderr == ""


def test_at_least_one_result_is_needed() -> None:
    outcome = CliRunner().invoke(main, ["report"])
    assert outcome.exit_code == 2
    assert "Missing argument 'RESULT...'" in outcome.output


@pytest.mark.slow
def test_compare_report_is_the_report_of_its_json(tmp_path: Path) -> None:
    """compare --report FILE.html writes, byte for byte, what kubesched report makes of compare -o json; the
    comparison is still printed."""
    page = tmp_path / "compare.html"
    outcome = CliRunner().invoke(main, ["compare", "default", "bin-packing", "-o", "json", "--report", str(page),
                                        "--", str(EXAMPLES / "preemption")])
    assert outcome.exit_code == 0, outcome.output
    (tmp_path / "comparison.json").write_text(outcome.stdout, encoding="utf-8")
    assert outcome.stderr == f"{page}: 1 section(s), 4 table(s), 5 plot(s)\n"
    again = CliRunner().invoke(main, ["report", str(tmp_path / "comparison.json"), "-o", str(tmp_path / "r.html")])
    assert again.exit_code == 0, again.output
    assert page.read_bytes() == (tmp_path / "r.html").read_bytes()

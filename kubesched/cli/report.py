"""``kubesched report RESULT...``: the results of simulate, compare and sweep as one self-contained HTML page of
plots and tables, or as markdown for a pull request."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from kubesched.cli.common import fail
from kubesched.errors import KubeschedError

FORMATS = ("html", "markdown")
#: Where the report goes without -o, per format.
DEFAULT_OUTPUT = {"html": "report.html", "markdown": "report.md"}


@click.command("report")
@click.argument("results", nargs=-1, required=True, metavar="RESULT...")
@click.option("-o", "--output", "output", default=None, metavar="FILE",
              help="Where to write the report; - for standard output. [default: report.html, or report.md with "
                   "--format markdown]")
@click.option("--format", "form", type=click.Choice(FORMATS), default="html", show_default=True,
              help="A self-contained HTML page with plots, or GitHub-flavoured markdown (tables only).")
def report_command(results: tuple[str, ...], output: str | None, form: str) -> None:
    """Write one report of every RESULT, in order: a SimulationResult or Comparison document (simulate or compare
    -o json|yaml) or a sweep's .parquet file. See docs/report.md."""
    from kubesched.report import build_report, read_results

    try:
        documents = read_results(results)
        write_report(build_report(documents), form, output or DEFAULT_OUTPUT[form])
    except KubeschedError as exc:
        fail(exc)


def write_report(report: Any, form: str, output: str) -> None:
    """Render ``report`` in ``form`` and write it to ``output`` (``-``: standard output); say where it went."""
    from kubesched.report import render_html, render_markdown

    text = render_html(report) if form == "html" else render_markdown(report)
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise KubeschedError(f"{output}: cannot write the report: {exc.strerror or exc}") from None
    plots = f", {len(report.plots())} plot(s)" if form == "html" else ""
    click.echo(f"{output}: {len(report.sections)} section(s), {len(report.tables())} table(s){plots}", err=True)


def comparison_report(document: Mapping[str, Any], output: str) -> None:
    """``compare --report FILE``: the HTML report ``kubesched report`` makes of the comparison's JSON document."""
    from kubesched.report import build_report
    from kubesched.report.checks import Checker
    from kubesched.report.documents import read_comparison

    check = Checker(output, "Comparison")
    comparison = read_comparison(document, "", check)
    if check.errors:  # the document compare itself made: a failure here is kubesched's own
        raise AssertionError("; ".join(str(e) for e in check.errors))
    write_report(build_report([comparison]), "html", output)

"""``kubesched report``: one page of plots and tables (self-contained HTML, or markdown for a pull request) from
the results of ``simulate``, ``compare`` and ``sweep`` (docs/report.md)."""

from kubesched.report.html import render_html
from kubesched.report.markdown import render_markdown
from kubesched.report.model import Plot, Report, Section, Table, Text
from kubesched.report.read import Document, read_result, read_results
from kubesched.report.sections import build_report

__all__ = [
    "Document",
    "Plot",
    "Report",
    "Section",
    "Table",
    "Text",
    "build_report",
    "read_result",
    "read_results",
    "render_html",
    "render_markdown",
]

"""The report as one self-contained HTML page: plotly.js inlined once in the head, the styles inlined, every plot
under a fixed id (``plot-1``, ``plot-2``... in page order), no timestamp, so the same report is the same bytes and
the page fetches nothing."""

from __future__ import annotations

import html
import json
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.report.model import Plot, Report, Section, Table, Text

#: Each plot's plotly options: no logo link, resized with the window.
PLOT_CONFIG = {"displaylogo": False, "responsive": True}

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2328; }
main { max-width: 1200px; margin: 0 auto; padding: 1rem 2rem 3rem; }
nav ul { columns: 2; padding-left: 1.2rem; }
section { border-top: 1px solid #d0d7de; margin-top: 1.5rem; }
h3 { margin-top: 1.5rem; }
div.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: 0.8rem 0; }
summary { cursor: pointer; font-weight: 600; }
figure.plot { margin: 1rem 0; }
p.note { margin: 0.6rem 0; }
""".strip()


def plotly_js() -> str:
    """plotly.js as it ships with the installed plotly, made safe to inline in a script element."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise KubeschedError("the HTML report draws its plots with plotly, which is not installed: pip install "
                             "'kubesched[report]' (or write --format markdown)") from None
    return str(get_plotlyjs()).replace("</script", "<\\/script")


def render_html(report: Report) -> str:
    """The whole page."""
    script = plotly_js()
    counter = iter(range(1, 1_000_000))
    body = [f"<h1>{_e(report.title)}</h1>", _contents(report)]
    for number, section in enumerate(report.sections, start=1):
        body.append(_section(section, f"section-{number}", counter))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{_e(report.title)}</title>",
        f"<style>\n{STYLE}\n</style>", f'<script type="text/javascript">{script}</script>', "</head>", "<body>",
        "<main>", *body, "</main>", "</body>", "</html>", ""])


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _contents(report: Report) -> str:
    """The list of sections, each a link to its place on the page."""
    items = [f'<li><a href="#section-{n}">{_e(s.title)}</a></li>'
             for n, s in enumerate(report.sections, start=1) if s.level == 2]
    return "<nav><ul>\n" + "\n".join(items) + "\n</ul></nav>" if len(items) > 1 else ""


def _section(section: Section, anchor: str, counter: Any) -> str:
    parts = [f'<section id="{anchor}">', f"<h{section.level}>{_e(section.title)}</h{section.level}>"]
    for block in section.blocks:
        if isinstance(block, Text):
            parts.append(f'<p class="note">{_e(block.text)}</p>')
        elif isinstance(block, Table):
            parts.append(_table(block))
        else:
            parts.append(_plot(block, f"plot-{next(counter)}"))
    parts.append("</section>")
    return "\n".join(parts)


def _table(table: Table) -> str:
    def cell(tag: str, index: int, text: str) -> str:
        kind = ' class="num"' if index in table.numeric else ""
        return f"<{tag}{kind}>{_e(text)}</{tag}>"

    head = "<tr>" + "".join(cell("th", i, h) for i, h in enumerate(table.header)) + "</tr>"
    rows = ["<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>" for row in table.rows]
    if table.folded:
        return "\n".join([f"<details><summary>{_e(table.title)} ({len(table.rows)})</summary>",
                          '<div class="table">', "<table>", f"<thead>{head}</thead>", "<tbody>", *rows, "</tbody>",
                          "</table>", "</div>", "</details>"])
    return "\n".join(['<div class="table">', "<table>", f"<caption>{_e(table.title)}</caption>",
                      f"<thead>{head}</thead>", "<tbody>", *rows, "</tbody>", "</table>", "</div>"])


def _plot(plot: Plot, div_id: str) -> str:
    """The figure's div and the script drawing it under ``div_id``: the figure as plotly's JSON (its standard-library
    engine, so the bytes do not depend on which JSON library is installed), drawn by Plotly.newPlot."""
    import plotly.io as pio

    figure = plot.build()
    height = figure.layout.height or 450
    spec = pio.to_json(figure, validate=True, pretty=False, engine="json").replace("</", "<\\/")
    config = json.dumps(PLOT_CONFIG)
    return "\n".join([
        f'<figure class="plot" aria-label="{_e(plot.title)}">',
        f'<div id="{div_id}" class="plotly-graph-div" style="height:{height}px; width:100%;"></div>',
        f'<script type="text/javascript">(function () {{ const figure = {spec}; '
        f'Plotly.newPlot("{div_id}", figure.data, figure.layout, {config}); }})();</script>',
        "</figure>"])

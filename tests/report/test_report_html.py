"""The HTML page: self-contained (plotly.js inlined once, nothing fetched, no network URL outside plotly.js's own
source), the same bytes for the same results, plots under ids numbered in page order, text escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.report import Report, Section, Table, Text, build_report, read_results, render_html
from kubesched.report.html import plotly_js


@pytest.fixture(scope="module")
def page(results: dict[str, Path]) -> str:
    """The page of the preemption example's result (four plots, the explain matrix)."""
    return render_html(build_report(read_results([str(results["preemption.json"])])))


class Attributes(HTMLParser):
    """Every tag's attributes, by tag name."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.extend((tag, name, value) for name, value in attrs)


def without_plotly_js(html: str) -> str:
    """The page less the inlined plotly.js (whose source names URLs it never fetches here)."""
    script = plotly_js()
    assert html.count(script) == 1
    return html.replace(script, "")


def test_plotly_js_is_inlined_once_in_the_head(page: str) -> None:
    head = page.split("</head>")[0]
    assert plotly_js() in head
    assert page.count("plotly.js v") == 1


def test_the_page_names_no_network_url_outside_plotly_js(page: str) -> None:
    assert not re.search(r"https?://|//cdn|\burl\(", without_plotly_js(page))


def test_the_page_loads_nothing_and_links_only_within_itself(page: str) -> None:
    """No src attribute anywhere (every script is inline), every href an anchor of the page."""
    parser = Attributes()
    parser.feed(without_plotly_js(page))
    assert [(tag, name) for tag, name, _ in parser.found if name == "src"] == []
    assert all(value is not None and value.startswith("#") for _, name, value in parser.found if name == "href")


def test_plots_have_ids_numbered_in_page_order(page: str) -> None:
    """plotly's random div ids are replaced: plot-1, plot-2... and each is drawn by its own script."""
    ids = re.findall(r'<div id="(plot-\d+)" class="plotly-graph-div"', page)
    assert ids == ["plot-1", "plot-2", "plot-3", "plot-4"]
    assert all(f'Plotly.newPlot("{i}", ' in page for i in ids)
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", without_plotly_js(page))


@pytest.mark.slow
def test_the_same_results_give_the_same_bytes(tmp_path: Path, results: dict[str, Path]) -> None:
    """Two runs of kubesched report on every kind of result write identical pages."""
    written = []
    for name in ("one.html", "two.html"):
        outcome = CliRunner().invoke(main, ["report", *(str(p) for p in results.values()), "-o",
                                            str(tmp_path / name)])
        assert outcome.exit_code == 0, outcome.output
        written.append((tmp_path / name).read_bytes())
    assert written[0] == written[1]


def test_text_and_cells_are_escaped() -> None:
    """A pod or plugin name with markup is shown, never interpreted."""
    report = Report("r", (Section("<s>", (Text("a <b> & c"), Table("t", ("<h>",), (("<td>",),)))),))
    html = render_html(report)
    assert "<h2>&lt;s&gt;</h2>" in html
    assert "a &lt;b&gt; &amp; c" in html
    assert "<th>&lt;h&gt;</th>" in html
    assert "<td>&lt;td&gt;</td>" in html


def test_a_folded_table_is_in_details(page: str) -> None:
    assert re.search(r"<details><summary>Every figure \(\d+\)</summary>\n<div class=\"table\">\n<table>", page)


def test_numbers_are_right_aligned(page: str) -> None:
    assert '<tr><td>pods.bound</td><td class="num">6</td></tr>' in page

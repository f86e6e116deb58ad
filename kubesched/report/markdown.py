"""The report as GitHub-flavoured markdown, for pasting in a pull request: its tables and notes, the long tables
folded in ``<details>``, and in place of the plots one line naming them (the HTML report draws them)."""

from __future__ import annotations

from kubesched.report.model import Block, Plot, Report, Table, Text


def render_markdown(report: Report) -> str:
    """The whole document."""
    lines = [f"# {report.title}", ""]
    for section in report.sections:
        lines += [f"{'#' * section.level} {_inline(section.title)}", ""]
        lines += _blocks(section.blocks)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def _blocks(blocks: tuple[Block, ...]) -> list[str]:
    lines: list[str] = []
    plots: list[str] = []
    for block in [*blocks, None]:
        if isinstance(block, Plot):
            plots.append(block.title)
            continue
        if plots:
            lines += [f"_Plots in the HTML report: {'; '.join(_inline(p) for p in plots)}._", ""]
            plots = []
        if isinstance(block, Text):
            lines += [_inline(block.text), ""]
        elif isinstance(block, Table):
            lines += _table(block)
    return lines


def _inline(text: str) -> str:
    """Text that markdown shows as it is: its markup characters escaped, on one line."""
    for char in "\\`*_[]<>|#":
        text = text.replace(char, f"\\{char}")
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _inline(text) if text else " "


def _table(table: Table) -> list[str]:
    header = "| " + " | ".join(_cell(h) for h in table.header) + " |"
    rule = "|" + "".join(" ---: |" if i in table.numeric else " --- |" for i in range(len(table.header)))
    rows = ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    if table.folded:
        return [f"<details><summary>{_inline(table.title)} ({len(table.rows)})</summary>", "", header, rule, *rows, "",
                "</details>", ""]
    return [f"**{_inline(table.title)}**", "", header, rule, *rows, ""]

"""docs/hooks.md's tables of status codes per hook and of parameters match kubesched.framework._hookspecs."""

from __future__ import annotations

from kubesched.framework import _hookspecs as hookspecs
from kubesched.framework._status import Code
from tests.conftest import REPO

HOOKS_DOC = (REPO / "docs" / "hooks.md").read_text(encoding="utf-8")


def table_rows(text: str, header: str) -> dict[str, str]:
    """The rows of the markdown table whose header line is ``header``: first cell (without backticks) to the
    second."""
    start = text.index(header + "\n")
    rows: dict[str, str] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1]
    return rows


def test_the_status_code_table_matches_hookspecs() -> None:
    """Each hook's row lists exactly the codes STATUS_CODES allows it, in code order."""
    expected = {hook: ", ".join(c.label for c in sorted(codes)) for hook, codes in hookspecs.STATUS_CODES.items()}
    assert table_rows(HOOKS_DOC, "| hook | codes |") == expected


def test_the_status_code_table_follows_framework_order() -> None:
    """The rows come in the order the framework meets the hooks."""
    order = [h for p in hookspecs.EXTENSION_POINTS for h in (p.hook, *p.companions) if h in hookspecs.STATUS_CODES]
    assert list(table_rows(HOOKS_DOC, "| hook | codes |")) == order


def test_the_parameter_table_matches_hookspecs() -> None:
    """Each parameter's row says what PARAMETERS says."""
    assert table_rows(HOOKS_DOC, "| parameter | holds |") == dict(hookspecs.PARAMETERS)


def test_the_table_reader_sees_a_changed_code() -> None:
    """Dropping a code from a row is noticed."""
    altered = HOOKS_DOC.replace("| `pre_score` | Success, Skip |", "| `pre_score` | Success |", 1)
    rows = table_rows(altered, "| hook | codes |")
    assert rows["pre_score"] != ", ".join(c.label for c in sorted(hookspecs.STATUS_CODES["pre_score"]))
    assert Code.SKIP in hookspecs.STATUS_CODES["pre_score"]

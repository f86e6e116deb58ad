"""docs/conformance.md lists every conformance check, with its id and title, in the order the suite runs them."""

from __future__ import annotations

from kubesched.testing.conformance.checks import CHECKS
from tests.conftest import REPO

DOC = REPO / "docs" / "conformance.md"


def documented_checks(text: str) -> list[tuple[str, str]]:
    """(id, title) of each row of the checks table."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith("`"):
            rows.append((cells[0].strip("`"), cells[1]))
    return rows


def test_every_check_is_documented_in_order_with_its_title() -> None:
    """The table equals the suite: same ids, same titles, same order."""
    assert documented_checks(DOC.read_text(encoding="utf-8")) == [(c.id, c.title) for c in CHECKS]


def test_a_missing_row_is_noticed() -> None:
    """The parser sees a dropped row, so the test above cannot pass on an empty table."""
    text = DOC.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("| `deterministic`")]
    assert [i for i, _ in documented_checks("\n".join(lines))] == [c.id for c in CHECKS if c.id != "deterministic"]

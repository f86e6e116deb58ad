"""docs/performance.md's "Which plugins are on it": the FAST PATH rows it shows are what ``kubesched plugins``
prints, and the built-ins it names as off the fast path are exactly those with notes."""

from __future__ import annotations

import itertools
import re

from kubesched.plugins.default_preemption import RESOURCE_SHORTCUT
from kubesched.runtime import PluginRegistry, fast_path
from tests.conftest import REPO, RunCli

DOC = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
SECTION = DOC[DOC.index("### Which plugins are on it"):DOC.index("### Before and after")]


def _rows(table: str) -> list[str]:
    """The table's body lines with runs of spaces collapsed (column widths depend on the other rows)."""
    return [" ".join(line.split()) for line in table.splitlines() if line.startswith("│")]


def _shown() -> str:
    match = re.search(r"^<!-- output-rows: kubesched plugins -->\n```text\n(.*?)^```", SECTION, flags=re.M | re.S)
    assert match is not None
    return match.group(1)


def test_the_rows_shown_are_what_kubesched_plugins_prints(run_cli: RunCli) -> None:
    """Every row of the block, wrapped lines included, is a row of the real table."""
    done = run_cli("plugins")
    assert done.returncode == 0, done.stderr
    shown = _rows(_shown())
    printed = _rows(done.stdout)
    for name in ("InterPodAffinity", "PodTopologySpread", "NodePorts", "NodeResourcesFit", "NodeVolumeLimits",
                 "VolumeRestrictions", "VolumeZone"):
        [first] = [i for i, row in enumerate(shown) if row.startswith(f"│ {name} ")]
        [at] = [i for i, row in enumerate(printed) if row.startswith(f"│ {name} ")]
        follow = len(list(itertools.takewhile(lambda row: row.startswith("│ │"), shown[first + 1:])))
        assert printed[at:at + 1 + follow] == shown[first:first + 1 + follow], name


def test_the_builtins_named_off_the_fast_path_are_exactly_those_with_notes() -> None:
    """The prose names InterPodAffinity, PodTopologySpread, NodePorts, VolumeRestrictions and NodeVolumeLimits; no
    other built-in has a note."""
    off = sorted(name for name, spec in PluginRegistry.discover().items() if spec.source == "builtin"
                 and fast_path(spec.cls, resource_shortcut=RESOURCE_SHORTCUT).notes)
    assert off == ["InterPodAffinity", "NodePorts", "NodeVolumeLimits", "PodTopologySpread", "VolumeRestrictions"]
    assert ("only InterPodAffinity, PodTopologySpread, NodePorts, VolumeRestrictions and NodeVolumeLimits are off "
            "part of it") in " ".join(SECTION.split())

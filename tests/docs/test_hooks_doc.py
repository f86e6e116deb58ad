"""docs/hooks.md documents every hookspec, in framework order, with the signature hookspecs.py declares."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from kubesched.framework import _hookspecs as hookspecs
from kubesched.framework._handle import Handle
from kubesched.framework._hookspecs import EXTENSION_POINTS
from tests.conftest import REPO

HOOKS_DOC = (REPO / "docs" / "hooks.md").read_text(encoding="utf-8")
SPEC_MARKER = f"{hookspecs.PROJECT_NAME}_spec"

# A hook heading is "### `name`"; its signature is the one line of the ```python block right under it.
_HOOK_HEADING = re.compile(r"^### `([^`\n]+)`[ \t]*$", flags=re.M)
_SIGNATURE_BLOCK = re.compile(r"\n(?:[ \t]*\n)?```python\n([^\n]*)\n```[ \t]*(?:\n|\Z)")


def find_hookspecs() -> dict[str, Callable[..., Any]]:
    """The hookspec functions of kubesched.framework._hookspecs, found by pluggy's marker attribute."""
    return {name: value for name, value in vars(hookspecs).items()
            if inspect.isfunction(value) and hasattr(value, SPEC_MARKER)}


HOOKSPECS = find_hookspecs()


def render_signature(name: str, function: Callable[..., Any]) -> str:
    """``def name(arg: Annotation, ...) -> Return`` from the function's (string) annotations."""
    signature = inspect.signature(function)
    params = ", ".join(f"{p.name}: {p.annotation}" for p in signature.parameters.values())
    return f"def {name}({params}) -> {signature.return_annotation}"


def documented_hooks(text: str) -> list[tuple[str, str | None]]:
    """Each hook heading of a hooks doc, in order, with the signature line under it (None if missing)."""
    found: list[tuple[str, str | None]] = []
    for heading in _HOOK_HEADING.finditer(text):
        block = _SIGNATURE_BLOCK.match(text, heading.end())
        found.append((heading.group(1), block.group(1) if block else None))
    return found


def mismatched_signatures(text: str) -> list[str]:
    """The documented hooks whose signature line differs from their hookspec's (or is missing)."""
    return [name for name, line in documented_hooks(text)
            if name in HOOKSPECS and line != render_signature(name, HOOKSPECS[name])]


def undocumented_hooks(text: str) -> set[str]:
    """Hookspecs with no heading in the doc."""
    return set(HOOKSPECS) - {name for name, _ in documented_hooks(text)}


def unknown_hooks(text: str) -> set[str]:
    """Headings in the doc that name no hookspec."""
    return {name for name, _ in documented_hooks(text)} - set(HOOKSPECS)


def framework_order() -> list[str]:
    """Every hook in the order the doc gives them: the queueing-hint hook, then in the order the framework meets
    them, each extension point's hook, then its companions."""
    return [hookspecs.EVENTS_HOOK, *(hook for point in EXTENSION_POINTS for hook in (point.hook, *point.companions))]


def handle_members() -> set[str]:
    """The public members of the Handle protocol."""
    return {name for name in vars(Handle) if not name.startswith("_")}


def handle_table_members(text: str) -> set[str]:
    """The member names in the first column of the table under ``## The Handle``."""
    section = re.search(r"^## The Handle\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert section, "docs/hooks.md has no '## The Handle' section"
    return set(re.findall(r"^\| `(\w+)", section.group(1), flags=re.M))


def alter_signature(text: str, hook: str, old: str, new: str) -> str:
    """The doc text with ``old`` replaced by ``new`` in one hook's signature line only."""
    line = dict(documented_hooks(text))[hook]
    assert line is not None
    assert old in line
    return text.replace(f"```python\n{line}\n```", f"```python\n{line.replace(old, new)}\n```", 1)


def test_hookspecs_are_found_by_their_pluggy_marker() -> None:
    """The marker finds exactly the hooks of the extension point table, so the doc checks are not empty."""
    assert set(HOOKSPECS) == set(framework_order())


def test_signatures_render_as_written_in_hookspecs() -> None:
    """Rendering keeps the string annotations as hookspecs.py spells them."""
    expected = "def filter(state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None"
    assert render_signature("filter", HOOKSPECS["filter"]) == expected


def test_every_hookspec_is_documented() -> None:
    """Each hookspec has a ``### `name``` heading in docs/hooks.md."""
    assert undocumented_hooks(HOOKS_DOC) == set()


def test_no_unknown_hook_is_documented() -> None:
    """Every hook heading in docs/hooks.md names an existing hookspec."""
    assert unknown_hooks(HOOKS_DOC) == set()


def test_each_hook_is_documented_once() -> None:
    """No hook has two headings."""
    names = [name for name, _ in documented_hooks(HOOKS_DOC)]
    assert sorted(names) == sorted(set(names))


def test_hooks_are_documented_in_framework_order() -> None:
    """The headings follow the extension points, each companion right after its main hook."""
    assert [name for name, _ in documented_hooks(HOOKS_DOC)] == framework_order()


def test_documented_signatures_match_the_hookspecs() -> None:
    """Each heading's one-line signature has the hookspec's parameters, annotations and return annotation."""
    assert mismatched_signatures(HOOKS_DOC) == []


def test_every_handle_member_is_in_the_handle_table() -> None:
    """The Handle table lists exactly the members of the Handle protocol."""
    assert handle_table_members(HOOKS_DOC) == handle_members()


def test_checker_reports_an_altered_annotation() -> None:
    """A changed parameter annotation is reported for that hook only."""
    altered = alter_signature(HOOKS_DOC, "filter", "node_info: NodeInfo", "node_info: NodeInfo | None")
    assert mismatched_signatures(altered) == ["filter"]


def test_checker_reports_an_altered_return_annotation() -> None:
    """A changed return annotation is reported for that hook only."""
    altered = alter_signature(HOOKS_DOC, "score", "-> int", "-> float")
    assert mismatched_signatures(altered) == ["score"]


def test_checker_reports_reordered_parameters() -> None:
    """Swapping two parameters is reported for that hook only."""
    altered = alter_signature(HOOKS_DOC, "queue_sort_less", "pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo",
                              "pod_info_b: QueuedPodInfo, pod_info_a: QueuedPodInfo")
    assert mismatched_signatures(altered) == ["queue_sort_less"]


def test_checker_reports_a_heading_without_a_signature_block() -> None:
    """A hook heading not followed by its python block counts as a mismatch."""
    altered = HOOKS_DOC.replace("### `permit`\n\n```python", "### `permit`\n\nSome prose first.\n\n```python", 1)
    assert mismatched_signatures(altered) == ["permit"]


def test_checker_reports_a_missing_hook() -> None:
    """Removing a hook's heading reports it as undocumented."""
    altered = HOOKS_DOC.replace("### `unreserve`\n", "### unreserve\n", 1)
    assert undocumented_hooks(altered) == {"unreserve"}


def test_checker_reports_an_unknown_hook() -> None:
    """A heading for a hook that does not exist is reported."""
    altered = HOOKS_DOC + "\n### `filtr`\n\n```python\ndef filtr(pod: Pod) -> None\n```\n"
    assert unknown_hooks(altered) == {"filtr"}

"""docs/builders.md and docs/object-model.md work as written, and builders.md documents every builder method.

Every ```python block of a page runs after the page's first block (its imports), in a fresh namespace. A builder
method's heading is ``### `.name(arguments)``` under its class's ``## `ClassName``` heading, with the arguments
as :func:`rendered` writes them from the signature; a ``make_*`` function's heading is ``### `name(arguments)```.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

from kubesched.testing import builders
from kubesched.testing.builders_terms import Unset
from tests.conftest import REPO

PAGES = {name: (REPO / "docs" / name).read_text(encoding="utf-8") for name in ("builders.md", "object-model.md")}
BUILDERS_DOC = PAGES["builders.md"]
BUILDER_CLASSES = [builders.MetadataBuilder, builders.PodBuilder, builders.NodeBuilder, builders.PdbBuilder,
                   builders.PriorityClassBuilder, builders.NamespaceBuilder, builders.LabelSelectorBuilder,
                   builders.NodeSelectorTermBuilder, builders.PodAffinityTermBuilder]
BUILDER_FUNCTIONS = [getattr(builders, name) for name in builders.__all__ if name.startswith("make_")] + [builders.port]


def python_blocks(page: str) -> list[str]:
    """The bodies of the page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```[ \t]*$", page, flags=re.S | re.M)


def block_params() -> list[Any]:
    """One case per block of each page: (page, index)."""
    return [pytest.param(name, i, id=f"{name}-block-{i}") for name, page in PAGES.items()
            for i in range(len(python_blocks(page)))]


@pytest.mark.parametrize(("page", "index"), block_params())
def test_the_python_block_runs(page: str, index: int) -> None:
    """The block runs without error (its asserts hold) after the page's first block."""
    blocks = python_blocks(PAGES[page])
    namespace: dict[str, Any] = {"__name__": f"docs_{index}"}
    exec(compile(blocks[0], f"docs/{page} block 0", "exec"), namespace)
    if index:
        exec(compile(blocks[index], f"docs/{page} block {index}", "exec"), namespace)


def _default(value: object) -> str:
    if isinstance(value, Unset):
        return "UNSET"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def rendered(function: Callable[..., Any], name: str) -> str:
    """``name(arguments)`` as the page writes it: defaults shown, ``*`` before keyword-only arguments."""
    parts: list[str] = []
    star = False
    for param in inspect.signature(function).parameters.values():
        if param.name == "self":
            continue
        if param.kind is param.VAR_POSITIONAL:
            parts.append(f"*{param.name}")
            star = True
        elif param.kind is param.VAR_KEYWORD:
            parts.append(f"**{param.name}")
        else:
            if param.kind is param.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            parts.append(param.name if param.default is param.empty else f"{param.name}={_default(param.default)}")
    return f"{name}({', '.join(parts)})"


def section(page: str, title: str) -> str:
    """The text under the ``## title`` heading, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", page, flags=re.S | re.M)
    assert match is not None, f"no section '## {title}'"
    return match.group(1)


def public_methods(cls: type) -> list[str]:
    """The public methods a class defines itself (inherited ones are documented under their own class)."""
    return [name for name, value in vars(cls).items() if not name.startswith("_") and callable(value)]


def method_headings(text: str) -> list[str]:
    """The ``### `.name(...)``` headings of a section, without the backticks and the dot."""
    return re.findall(r"^### `\.(.+)`$", text, flags=re.M)


@pytest.mark.parametrize("cls", BUILDER_CLASSES, ids=lambda cls: cls.__name__)
def test_every_method_of_the_builder_has_its_heading(cls: type) -> None:
    """Each public method has a heading with its exact arguments in the class's section, and no heading is stale."""
    text = section(BUILDERS_DOC, f"`{cls.__name__}`")
    expected = [rendered(getattr(cls, name), name) for name in public_methods(cls)]
    assert sorted(method_headings(text)) == sorted(expected)


@pytest.mark.parametrize("function", BUILDER_FUNCTIONS, ids=lambda function: function.__name__)
def test_every_builder_function_has_its_heading(function: Callable[..., Any]) -> None:
    """``make_*`` and ``port`` have a heading with their exact arguments under "Starting a builder"."""
    text = section(BUILDERS_DOC, "Starting a builder")
    assert f"### `{rendered(function, function.__name__)}`\n" in text


def test_every_heading_of_the_reference_has_one_example() -> None:
    """Between a method's or function's heading and the next heading there is exactly one python block."""
    reference = BUILDERS_DOC[BUILDERS_DOC.index("## Starting a builder"):BUILDERS_DOC.index("## What the builders")]
    for chunk in re.split(r"^(?=### )", reference, flags=re.M)[1:]:
        heading = chunk.splitlines()[0]
        body = re.split(r"^## ", chunk, flags=re.M)[0]
        assert len(python_blocks(body)) == 1, heading


def test_rendered_shows_defaults_and_the_keyword_only_marker() -> None:
    """The rendering the headings follow: positional, defaulted, ``*``, keyword-only and ``**`` arguments."""
    def sample(a: int, b: str = "x", *, c: int | None = None, **d: str) -> None:
        """A signature with every kind of argument."""

    assert rendered(sample, "sample") == 'sample(a, b="x", *, c=None, **d)'


def test_a_missing_method_heading_is_noticed() -> None:
    """Dropping a heading from the page makes its class's section differ from the class."""
    text = section(BUILDERS_DOC, "`PodBuilder`").replace("### `.host_network()`\n", "")
    expected = [rendered(getattr(builders.PodBuilder, n), n) for n in public_methods(builders.PodBuilder)]
    assert sorted(method_headings(text)) != sorted(expected)

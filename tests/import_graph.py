"""Import circles among a package's modules, read from the source with ast: every import counts, at any depth
(inside functions and under ``if TYPE_CHECKING:`` too), since either one hides a circle rather than closing it.

A package's ``__init__`` runs before any of its modules, but that is not counted as the module importing it:
a package that imports its own modules to re-export them is not a circle. Importing the package by name is.
"""

from __future__ import annotations

import ast
import collections
from functools import cache
from pathlib import Path

import kubesched

PACKAGE = Path(kubesched.__file__).resolve().parent


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module under ``root`` (the folder of ``package``) by dotted name; a package by its own name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` if it is one of ``modules``, else its nearest enclosing one (None outside them)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules among ``modules`` that ``module`` (at ``path``) imports anywhere in its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(target for alias in node.names if (target := _known(alias.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # ``from pkg import mod`` imports the module; ``from mod import name`` mod
                target = base + "." + alias.name if base + "." + alias.name in modules else _known(base, modules)
                if target:
                    found.add(target)
    found.discard(module)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of the package at ``root`` with the modules of the package it imports."""
    modules = module_files(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


@cache
def kubesched_graph() -> dict[str, set[str]]:
    """The import graph of the whole kubesched package (a circle may pass through any of its packages)."""
    return import_graph(PACKAGE, "kubesched")


def _path(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """The shortest chain of imports from ``start`` to ``goal`` (both included), or None."""
    came_from: dict[str, str | None] = {start: None}
    queue = collections.deque([start])
    while queue:
        current = queue.popleft()
        if current == goal:
            chain = [current]
            while (previous := came_from[chain[-1]]) is not None:
                chain.append(previous)
            return chain[::-1]
        for target in sorted(graph.get(current, ())):
            if target not in came_from:
                came_from[target] = current
                queue.append(target)
    return None


def circles(graph: dict[str, set[str]], within: str) -> list[str]:
    """For every module of ``within`` (a dotted package name) that imports a module which imports it back,
    directly or through others: ``a imports b, which imports it back: b -> c -> a``."""
    found = []
    for module in sorted(m for m in graph if m == within or m.startswith(within + ".")):
        for target in sorted(graph[module]):
            back = _path(graph, target, module)
            if back is not None:
                found.append(f"{module} imports {target}, which imports it back: {' -> '.join(back)}")
    return found

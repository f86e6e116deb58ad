"""kubesched.io is layered: the error list and the field readers at the bottom, the decoders above them, load at
the top; no module imports one that imports it back, not even inside a function or under TYPE_CHECKING."""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import circles, import_graph, kubesched_graph

IO = "kubesched.io"


def test_no_module_of_kubesched_io_imports_one_that_imports_it_back() -> None:
    """Every import of kubesched/io runs downwards: none leads back to the module that made it."""
    assert circles(kubesched_graph(), IO) == []


def test_load_is_the_top_and_the_field_readers_the_bottom() -> None:
    """Nothing in kubesched/io imports load; the field readers import only the error list of the package."""
    graph = kubesched_graph()
    assert [m for m, targets in graph.items() if f"{IO}.load" in targets and m.startswith(IO + ".")] == []
    assert sorted(t for t in graph[f"{IO}.fields"] if t.startswith(IO + ".")) == [f"{IO}.errors"]
    assert [t for t in graph[f"{IO}.errors"] if t.startswith(IO + ".")] == []


def _package(root: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` under ``root`` with these modules (name -> source)."""
    folder = root / "pkg"
    folder.mkdir()
    for name, source in {"__init__": "", **files}.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return folder


def test_an_import_back_inside_a_function_or_under_type_checking_is_a_circle(tmp_path: Path) -> None:
    """The check reads every import: one deferred into a function or kept for the type checker still closes a
    circle, and so does one that goes round through a third module."""
    folder = _package(tmp_path, {
        "low": "def late():\n    from pkg.high import VALUE\n    return VALUE\n",
        "high": "from pkg import low\nVALUE = 1\n",
        "typed": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .middle import Thing\n",
        "middle": "import pkg.base\nclass Thing: ...\n",
        "base": "from pkg.typed import TYPE_CHECKING\n",
        "alone": "import pkg.base\n",
    })
    assert circles(import_graph(folder, "pkg"), "pkg") == [
        "pkg.base imports pkg.typed, which imports it back: pkg.typed -> pkg.middle -> pkg.base",
        "pkg.high imports pkg.low, which imports it back: pkg.low -> pkg.high",
        "pkg.low imports pkg.high, which imports it back: pkg.high -> pkg.low",
        "pkg.middle imports pkg.base, which imports it back: pkg.base -> pkg.typed -> pkg.middle",
        "pkg.typed imports pkg.middle, which imports it back: pkg.middle -> pkg.base -> pkg.typed",
    ]


def test_a_package_importing_its_own_modules_is_not_a_circle(tmp_path: Path) -> None:
    """A package's ``__init__`` re-exporting its modules does not count as each module importing it back."""
    folder = _package(tmp_path, {"__init__": "from pkg.low import VALUE\n", "low": "VALUE = 1\n",
                                 "high": "from pkg.low import VALUE\n"})
    assert circles(import_graph(folder, "pkg"), "pkg") == []

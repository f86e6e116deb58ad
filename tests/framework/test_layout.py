"""The package layout as a contract: what plugins may import, and what importing the contract costs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import kubesched
import kubesched.api
import kubesched.framework
import kubesched.testing

PACKAGE = Path(kubesched.__file__).resolve().parent
# What a built-in plugin may import from kubesched: the package root, the contract and the object model (names in their
# ``__all__``), the testing kit, and the modules of its own plugin package.
PLUGIN_FACES = {"kubesched": kubesched.__all__, "kubesched.framework": kubesched.framework.__all__,
                "kubesched.api": kubesched.api.__all__, "kubesched.testing": kubesched.testing.__all__}
# The contract must not depend on the machinery or the application around it.
CONTRACT_FORBIDDEN = ("kubesched.runtime", "kubesched.io", "kubesched.sim", "kubesched.profiles",
                      "kubesched.cli", "kubesched.testing")


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at any depth (conditional and TYPE_CHECKING imports included)."""
    return {module for module, _names in imports(path)}


def imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, imported names) for every import of a source file, at any depth; ``import x`` gives no names."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, ()) for alias in node.names)
    return found


def kubesched_imports(folder: str) -> list[tuple[str, str]]:
    """(file, module) for every kubesched module imported under ``folder`` of the package."""
    return [(str(path.relative_to(PACKAGE)), module)
            for path in sorted((PACKAGE / folder).rglob("*.py"))
            for module in sorted(imported_modules(path)) if module.split(".")[0] == "kubesched"]


def plugin_import_problems(path: Path) -> list[str]:
    """Why the built-in plugin module at ``path`` imports something a third-party plugin could not."""
    relative = path.relative_to(PACKAGE)
    own = "kubesched." + ".".join(relative.parts[:2]) if len(relative.parts) > 2 else None
    problems = []
    for module, names in imports(path):
        if module.split(".")[0] != "kubesched" or (own is not None and (module == own or module.startswith(own + "."))):
            continue
        face = PLUGIN_FACES.get(module)
        if face is None:
            problems.append(f"{relative}: imports {module}")
        else:
            problems.extend(f"{relative}: {module}.{name} is not in its __all__" for name in names if name not in face)
    return problems


def test_builtin_plugins_import_only_the_public_contract() -> None:
    """Built-ins use exactly the API third parties get: kubesched, kubesched.framework, kubesched.api and
    kubesched.testing by their ``__all__``, and their own package; no runtime, loader, simulator or private module."""
    problems = [p for path in sorted((PACKAGE / "plugins").rglob("*.py")) for p in plugin_import_problems(path)]
    assert problems == []


def test_a_plugin_importing_a_private_framework_module_is_caught(tmp_path: Path) -> None:
    """The check above fails for a plugin module reaching past the contract's face."""
    module = PACKAGE / "plugins" / "_layout_probe.py"
    module.write_text("from kubesched.framework._columns import NodeColumns\n"
                      "from kubesched.framework import Plugin, NotAName\n", encoding="utf-8")
    try:
        problems = plugin_import_problems(module)
    finally:
        module.unlink()
    assert problems == ["plugins/_layout_probe.py: imports kubesched.framework._columns",
                        "plugins/_layout_probe.py: kubesched.framework.NotAName is not in its __all__"]


def test_the_contract_does_not_import_the_machinery() -> None:
    """kubesched.framework depends on the object model and the backend contract only."""
    bad = [(f, m) for f, m in kubesched_imports("framework") if m.startswith(CONTRACT_FORBIDDEN)]
    assert bad == []


def test_runtime_modules_are_private_and_the_package_exports_them() -> None:
    """The machinery's modules start with an underscore; what the application needs is in ``__all__``."""
    import kubesched.runtime as runtime

    modules = sorted(p.name for p in (PACKAGE / "runtime").glob("*.py") if p.name != "__init__.py")
    assert modules, "kubesched/runtime has no modules"
    assert [m for m in modules if not m.startswith("_")] == []
    assert all(hasattr(runtime, name) for name in runtime.__all__)


def test_outside_the_runtime_nothing_imports_its_private_modules() -> None:
    """Other packages go through ``kubesched.runtime``'s exports, never its private modules."""
    bad = [(f, m) for folder in ("api", "framework", "plugins", "io", "profiles", "sim", "cli", "testing")
           for f, m in kubesched_imports(folder) if m.startswith("kubesched.runtime._")]
    assert bad == []


@pytest.mark.parametrize("name", kubesched.framework.__all__)
def test_every_contract_name_is_importable(name: str) -> None:
    """``from kubesched.framework import NAME`` works for every name in ``__all__``."""
    assert getattr(kubesched.framework, name) is not None


@pytest.mark.parametrize("name", kubesched.__all__)
def test_every_root_name_resolves(name: str) -> None:
    """The package root's lazy re-exports resolve to real objects."""
    assert getattr(kubesched, name) is not None


def test_importing_the_contract_loads_neither_yaml_nor_the_simulator() -> None:
    """A plugin's ``import kubesched.framework`` stays light: no PyYAML, loader, simulator or CLI."""
    probe = ("import sys, kubesched.framework; "
             "print(' '.join(sorted(m for m in sys.modules if m == 'yaml' or m.startswith("
             "('kubesched.io', 'kubesched.sim', 'kubesched.cli', 'kubesched.profiles', 'rich', 'click')))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.split() == []


TESTS = PACKAGE.parent / "tests"


def test_builtin_plugin_tests_build_plugins_through_the_public_kit() -> None:
    """Built-in plugin tests get their plugins from kubesched.testing, as a third party would: no test there
    constructs a plugin class itself or implements its own Handle."""
    from kubesched.runtime import PluginRegistry

    builtins = {spec.cls.__name__ for spec in PluginRegistry.discover().values()
                if spec.cls.__module__.startswith("kubesched.")}
    assert "NodeResourcesFit" in builtins
    bad = []
    for path in sorted((TESTS / "plugins").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in builtins:
                bad.append(f"{path.name}:{node.lineno} calls {node.func.id}(...)")
            if isinstance(node, ast.ClassDef) and "Handle" in node.name:
                bad.append(f"{path.name}:{node.lineno} defines {node.name}")
    assert bad == []


# How a test would name the folder beside the repository (spelt in pieces so this file does not match itself).
OUTSIDE_MARKERS = tuple(f"{quote}{'sha' + 'red'}{end}" for quote, end in (("../", ""), ('"', '"'), ("'", "'")))


def test_no_test_reads_a_file_outside_the_repository() -> None:
    """The README's test command passes on a bare clone: no test names the ``shared`` folder beside it."""
    outside = [f"{path.relative_to(TESTS.parent)}:{number}"
               for path in sorted(TESTS.rglob("*.py"))
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if any(marker in line for marker in OUTSIDE_MARKERS)]
    assert outside == []

"""The kube-scheduler tables are written with the public kit alone: what a third-party plugin author has."""

from __future__ import annotations

from pathlib import Path

from tests.framework.test_layout import PLUGIN_FACES, imports

HERE = Path(__file__).resolve().parent


def kit_import_problems(path: Path) -> list[str]:
    """Why the table file at ``path`` imports something the public kit does not offer."""
    problems = []
    for module, names in imports(path):
        if module.split(".")[0] != "kubesched":
            continue
        face = PLUGIN_FACES.get(module)
        if face is None:
            problems.append(f"{path.name}: imports {module}")
        else:
            problems.extend(f"{path.name}: {module}.{name} is not in its __all__" for name in names if name not in face)
    return problems


def test_table_files_import_only_the_public_kit() -> None:
    """Each table file (and its helpers) imports kubesched, kubesched.api, kubesched.framework and kubesched.testing
    by their ``__all__``, and plugins by name through the kit."""
    problems = [p for path in sorted(HERE.glob("*.py")) for p in kit_import_problems(path)]
    assert problems == []


def test_a_table_file_reaching_into_a_plugin_module_is_caught(tmp_path: Path) -> None:
    """The check above fails for a file importing a plugin's own module or a private kit module."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("from kubesched.plugins.node_affinity import NodeAffinity\n"
                     "from kubesched.testing.frameworks import PATHS\n", encoding="utf-8")
    assert kit_import_problems(probe) == ["test_probe.py: imports kubesched.plugins.node_affinity",
                                          "test_probe.py: imports kubesched.testing.frameworks"]

"""A throwaway installed distribution: a folder for PYTHONPATH holding a module and a ``.dist-info`` whose
entry points register it in ``kubesched.plugins``, so the CLI and pytest plugin find it like a pip install."""

from __future__ import annotations

import inspect
from pathlib import Path

from tests.testing import broken_plugins


def fake_distribution(root: Path, *class_names: str, aliases: dict[str, str] | None = None) -> Path:
    """Install ``broken_plugins`` classes under their names (and ``aliases``: entry-point name -> class) into
    ``root`` (a sys.path entry); returns it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "kubesched_broken.py").write_text(inspect.getsource(broken_plugins), encoding="utf-8")
    info = root / "kubesched_broken-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kubesched-broken\nVersion: 0.1\n", encoding="utf-8")
    lines = [f"{name} = kubesched_broken:{name}" for name in class_names]
    lines += [f"{alias} = kubesched_broken:{name}" for alias, name in (aliases or {}).items()]
    (info / "entry_points.txt").write_text("[kubesched.plugins]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return root

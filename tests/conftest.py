"""Shared fixtures: paths, the installed CLI, and the plugin registry."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from kubesched.runtime import PluginRegistry

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# A kube-apiserver dump of our own (tests never read outside the repository).
REAL_DUMP = REPO / "tests" / "data" / "real-cluster-dump.yaml"

# The profile example from the foundation issue, which must work as written.
ISSUE_EXAMPLE_PROFILE = """
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugins.filter]
disabled = [{ name = "TaintToleration" }]
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "MostAllocated"
resources = [{ name = "cpu", weight = 1 }, { name = "memory", weight = 1 }]
"""


def kubesched_command() -> list[str]:
    """The installed ``kubesched`` console script (next to this interpreter), as a user runs it."""
    script = Path(sys.executable).with_name("kubesched")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kubesched"]


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli() -> RunCli:
    """Run the CLI in a subprocess; returns the completed process (text mode)."""
    def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            check: bool = False) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
        return subprocess.run([*kubesched_command(), *args], capture_output=True, text=True, env=full_env,
                              cwd=cwd or REPO, check=check, timeout=120)

    return run


# Fixtures that start a process, install a distribution or run pytest inside pytest: a test using any of them
# is slow and skipped by the fast inner loop (``pytest -m "not slow"``).
SLOW_FIXTURES = frozenset({"run_cli", "pytester", "acme_site", "project"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a process-starting fixture as ``slow``."""
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _collector_unfrozen() -> Iterator[None]:
    """What a test froze out of the cycle collector's reach (``kubesched simulate`` run in-process freezes its
    loaded input, as a process that ends with the run may) is handed back to the collector after the test."""
    yield
    gc.unfreeze()


@pytest.fixture(scope="session")
def registry() -> PluginRegistry:
    """Every installed plugin (the built-ins at least)."""
    return PluginRegistry.discover()


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (creating folders) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def lines(text: str) -> Sequence[str]:
    """Non-empty lines."""
    return [line for line in text.splitlines() if line.strip()]

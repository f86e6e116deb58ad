"""The shipped example stays true: cluster.yaml with profiles/gang.toml lands as the README says and shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from kubesched import load
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.simulate import simulate

from support import EXAMPLE_DIR

README = (EXAMPLE_DIR / "README.md").read_text(encoding="utf-8")
CLUSTER = EXAMPLE_DIR / "cluster.yaml"
PROFILE = EXAMPLE_DIR / "profiles" / "gang.toml"


def test_example_lands_as_the_readme_describes(registry: PluginRegistry) -> None:
    """report goes to zone-b, train binds whole (two members on batch-a), sweep stays Pending entirely."""
    result = simulate(load([CLUSTER]), load_config(str(PROFILE), registry), registry)
    placed = {p.name: (p.phase, p.node) for p in result.pods}
    assert placed == {
        "report": ("Bound", "batch-b"), "train-0": ("Bound", "batch-a"), "train-1": ("Bound", "batch-a"),
        "train-2": ("Bound", "batch-c"), "sweep-0": ("Pending", None), "sweep-1": ("Pending", None),
        "sweep-2": ("Pending", None), "sweep-3": ("Pending", None),
    }
    timeouts = [(e.time, e.object) for e in result.events if "rejected due to timeout" in e.message]
    assert timeouts == [(30.0, "default/sweep-0"), (30.0, "default/sweep-1")]


def test_readme_profile_is_the_shipped_profile() -> None:
    """The TOML shown in the README is profiles/gang.toml without its comments."""
    block = re.search(r"```toml\n(.*?)```", README, re.S)
    assert block is not None
    assert tomllib.loads(block.group(1)) == tomllib.loads(PROFILE.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_readme_output_is_current() -> None:
    """The README shows exactly what the simulate command in its marker prints (at 110 columns)."""
    block = re.search(r"<!-- example-output: COLUMNS=110 kubesched (.*?) -->\n```text\n(.*?)```", README, re.S)
    assert block is not None
    script = Path(sys.executable).with_name("kubesched")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "kubesched"]
    done = subprocess.run([*command, *block.group(1).split()], capture_output=True, text=True, check=True,
                          cwd=EXAMPLE_DIR.parent.parent, env={**os.environ, "COLUMNS": "110"}, timeout=120)
    assert done.stdout == block.group(2)

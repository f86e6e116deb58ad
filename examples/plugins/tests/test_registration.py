"""The distribution registers both plugins through the kubesched.plugins entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kubesched.runtime import PluginRegistry

SOURCE = "kubesched-example-plugins 0.1.0"


@pytest.mark.parametrize(("plugin", "points"), [
    pytest.param("NodeLabelPlacement", ["PreFilter", "Filter", "PreScore", "Score"], id="NodeLabelPlacement"),
    pytest.param("Coscheduling", ["PreFilter", "Reserve", "Permit"], id="Coscheduling"),
    pytest.param("NodeCost", ["PreFilter", "Filter", "Score"], id="NodeCost"),
])
def test_plugin_is_discovered_from_this_distribution(registry: PluginRegistry, plugin: str,
                                                     points: list[str]) -> None:
    """Discovery finds the plugin under its name, from this distribution, with its extension points."""
    spec = registry[plugin]
    assert spec.source == SOURCE
    assert [p.name for p in spec.points] == points


@pytest.mark.slow
def test_kubesched_plugins_lists_both() -> None:
    """`kubesched plugins --output json` shows both plugins with this distribution as their source."""
    script = Path(sys.executable).with_name("kubesched")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "kubesched"]
    done = subprocess.run([*command, "plugins", "--output", "json"], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "200"}, timeout=120)
    sources = {p["name"]: p["source"] for p in json.loads(done.stdout)["plugins"]}
    assert (sources["NodeLabelPlacement"], sources["Coscheduling"]) == (SOURCE, SOURCE)

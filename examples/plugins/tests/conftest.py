"""Fixtures: the installed plugins (the built-ins and this distribution's)."""

from __future__ import annotations

import pytest
from kubesched.runtime import PluginRegistry


@pytest.fixture(scope="session")
def registry() -> PluginRegistry:
    """Every installed plugin, found through the entry points: this distribution must be installed."""
    return PluginRegistry.discover()

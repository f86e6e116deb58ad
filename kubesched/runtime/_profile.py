"""A resolved profile: the effective plugin list per extension point, weights and args."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kubesched.framework._hookspecs import EXTENSION_POINTS


@attrs.frozen
class PluginEntry:
    """A plugin enabled at one extension point; ``weight`` only matters at Score."""

    name: str
    weight: int | None = None


@attrs.frozen
class Profile:
    """What a Framework runs: after merging with the defaults and expanding multi-point.

    ``plugins`` maps an extension point key (``"filter"``) to the plugins enabled there, in order.
    """

    scheduler_name: str
    plugins: Mapping[str, tuple[PluginEntry, ...]]
    plugin_args: Mapping[str, Any] = attrs.field(factory=dict)
    percentage_of_nodes_to_score: int | None = None

    def enabled(self, point_key: str) -> tuple[PluginEntry, ...]:
        """The plugins enabled at an extension point."""
        return self.plugins.get(point_key, ())

    def plugin_names(self) -> list[str]:
        """Every enabled plugin once, in extension-point order of first appearance."""
        names: dict[str, None] = {}
        for point in EXTENSION_POINTS:
            for entry in self.enabled(point.key):
                names.setdefault(entry.name)
        return list(names)

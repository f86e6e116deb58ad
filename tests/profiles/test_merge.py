"""A profile's plugin sets merge onto the default plugin set exactly as KubeSchedulerConfiguration's do.

Two steps, per extension point: ``merge_plugin_set`` (kube's mergePluginSet) merges the user's set onto the
default one, then multi-point plugins expand into every point they implement (kube's expandMultiPointPlugins)
and score weights are resolved (kube's getScoreWeights). The merge cases follow kube's TestMergePlugins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api.pod import Pod
from kubesched.errors import ProfileError
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.plugins.noderesources.fit import MOST_ALLOCATED, NodeResourcesFitArgs
from kubesched.plugins.noderesources.resource_allocation import ResourceSpec
from kubesched.profiles import load_config
from kubesched.profiles.config import PluginSet, SchedulerConfiguration
from kubesched.profiles.resolve import merge_plugin_set
from kubesched.runtime import PluginEntry, PluginRegistry, Profile
from tests.conftest import ISSUE_EXAMPLE_PROFILE
from tests.framework.fakes import FilterScore


class CustomFilter(Plugin):
    """A Filter-only plugin that is not in the default set."""

    name = "CustomFilter"

    @hookimpl
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class CustomScore(Plugin):
    """A Score-only plugin that is not in the default set."""

    name = "CustomScore"

    @hookimpl
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 0


# kube-scheduler's default lists at these points (VolumeBinding and DRA aside), in kube's order.
DEFAULT_FILTER = ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
                  "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
                  "InterPodAffinity"]
DEFAULT_PRE_SCORE = ["TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
                     "NodeResourcesBalancedAllocation"]
DEFAULT_SCORE = [("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1), ("PodTopologySpread", 2),
                 ("InterPodAffinity", 2), ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1)]


def without(names: list[str], *dropped: str) -> list[str]:
    """``names`` in order, minus ``dropped``."""
    return [n for n in names if n not in dropped]


def scores_without(*dropped: str) -> list[tuple[str, int]]:
    """The default score list minus ``dropped``."""
    return [(n, w) for n, w in DEFAULT_SCORE if n not in dropped]


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    """The installed plugins plus the test plugins above."""
    return PluginRegistry.discover().with_plugins(CustomFilter, CustomScore, FilterScore)


def load(tmp_path: Path, registry: PluginRegistry, text: str) -> SchedulerConfiguration:
    """Write ``text`` as a profile file and load it."""
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(str(path), registry)


def load_profile(tmp_path: Path, registry: PluginRegistry, plugins: str) -> Profile:
    """Load a single profile whose ``[profiles.plugins.*]`` tables are ``plugins``."""
    return load(tmp_path, registry, '[[profiles]]\nscheduler-name = "default-scheduler"\n' + plugins).profiles[0]


def names(profile: Profile, point: str) -> list[str]:
    """The plugin names enabled at ``point``, in order."""
    return [entry.name for entry in profile.enabled(point)]


def score_weights(profile: Profile) -> list[tuple[str, int | None]]:
    """The Score plugins in order, with their weights."""
    return [(entry.name, entry.weight) for entry in profile.enabled("score")]


def entries(*specs: str | tuple[str, int]) -> tuple[PluginEntry, ...]:
    """Plugin entries from names or (name, weight) pairs."""
    return tuple(PluginEntry(s) if isinstance(s, str) else PluginEntry(*s) for s in specs)


# -- merge_plugin_set: one extension point ---------------------------------------------------------
MERGE_CASES = [
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet(entries("Custom")),
                 PluginSet(entries("D1", "D2", "Custom")), id="new-plugin-appended-after-defaults"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet(entries("Custom", "D2"), ("D2",)),
                 PluginSet(entries("D1", "Custom", "D2"), ("D2",)), id="disabled-default-re-enabled-in-user-order"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet(entries("Custom", "D1", "D2"), ("*",)),
                 PluginSet(entries("Custom", "D1", "D2"), ("*",)), id="star-then-insert-before-all-defaults"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet(entries("D2", "D1"), ("*",)),
                 PluginSet(entries("D2", "D1"), ("*",)), id="star-then-reorder-defaults"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet(),
                 PluginSet(entries("D1", "D2")), id="empty-user-set-keeps-defaults"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet((), ("D1",)),
                 PluginSet(entries("D2"), ("D1",)), id="disabled-default-dropped"),
    pytest.param(PluginSet(entries("D1", "D2")), PluginSet((), ("*",)),
                 PluginSet((), ("*",)), id="star-drops-every-default"),
    pytest.param(PluginSet(entries("P1", "P2", "P3")), PluginSet(entries(("P1", 2), ("P3", 3))),
                 PluginSet(entries(("P1", 2), "P2", ("P3", 3))), id="re-enabled-defaults-replaced-in-place"),
    pytest.param(PluginSet(entries("P1", "P2", "P3")), PluginSet(entries(("P2", 2), ("P1", 1))),
                 PluginSet(entries(("P1", 1), ("P2", 2), "P3")), id="re-enabled-defaults-keep-default-order"),
    pytest.param(PluginSet(entries("P1", "P2", "P3")), PluginSet(entries("P1", ("P2", 2), "P3", ("P2", 4))),
                 PluginSet(entries("P1", ("P2", 4), "P3", ("P2", 2))),
                 id="repeated-plugin-last-replaces-default-earlier-appended"),
    pytest.param(PluginSet(entries("D1"), ("D2",)), PluginSet(entries("Custom")),
                 PluginSet(entries("D1", "Custom"), ("D2",)), id="default-disabled-list-kept"),
    pytest.param(PluginSet(entries("D1"), ("D2",)), PluginSet(entries("Custom"), ("D3",)),
                 PluginSet(entries("D1", "Custom"), ("D3", "D2")), id="user-disabled-listed-before-default-disabled"),
]


@pytest.mark.parametrize(("default", "custom", "expected"), MERGE_CASES)
def test_merge_plugin_set(default: PluginSet, custom: PluginSet, expected: PluginSet) -> None:
    """The user's set merges onto the default set as kube's mergePluginSet does."""
    assert merge_plugin_set(default, custom) == expected


# -- merged onto the default profile, then expanded ------------------------------------------------
def test_empty_profile_expands_the_default_multi_point_set(tmp_path: Path, registry: PluginRegistry) -> None:
    """A profile with no plugins section runs every default plugin at every point it implements."""
    profile = load_profile(tmp_path, registry, "")
    assert names(profile, "queue-sort") == ["PrioritySort"]
    assert names(profile, "filter") == DEFAULT_FILTER
    assert score_weights(profile) == DEFAULT_SCORE
    assert names(profile, "bind") == ["DefaultBinder"]


DISABLE_AT_ONE_POINT = """
[profiles.plugins.filter]
disabled = [{ name = "TaintToleration" }]
"""


@pytest.mark.parametrize(("point", "expected"), [
    pytest.param("filter", without(DEFAULT_FILTER, "TaintToleration"), id="filter"),
    pytest.param("pre-score", DEFAULT_PRE_SCORE, id="pre-score"),
    pytest.param("score", [name for name, _ in DEFAULT_SCORE], id="score"),
])
def test_disabling_a_default_at_one_point_keeps_it_elsewhere(tmp_path: Path, registry: PluginRegistry, point: str,
                                                             expected: list[str]) -> None:
    """A default disabled at filter is gone from filter only; the other points it implements keep it."""
    assert names(load_profile(tmp_path, registry, DISABLE_AT_ONE_POINT), point) == expected


def test_star_disables_every_default_at_that_point_only(tmp_path: Path, registry: PluginRegistry) -> None:
    """``"*"`` at filter leaves exactly the user's filter plugins there, and the other points untouched."""
    profile = load_profile(tmp_path, registry, """
[profiles.plugins.filter]
disabled = [{ name = "*" }]
enabled = [{ name = "CustomFilter" }, { name = "NodeName" }]
""")
    assert names(profile, "filter") == ["CustomFilter", "NodeName"]
    assert names(profile, "pre-score") == DEFAULT_PRE_SCORE
    assert score_weights(profile) == DEFAULT_SCORE


EXPANSION_CASES = [
    pytest.param("""
[profiles.plugins.filter]
enabled = [{ name = "CustomFilter" }]
""", "filter", [*DEFAULT_FILTER, "CustomFilter"], id="specific-point-plugin-after-multi-point"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore" }]
""", "filter", [*DEFAULT_FILTER, "FilterScore"], id="new-multi-point-plugin-appended-at-filter"),
    pytest.param("""
[profiles.plugins.filter]
enabled = [{ name = "CustomFilter" }, { name = "NodeAffinity" }]
""", "filter", ["NodeAffinity", *without(DEFAULT_FILTER, "NodeAffinity"), "CustomFilter"],
        id="override-first-then-multi-point-then-remaining"),
    pytest.param("""
[profiles.plugins.filter]
enabled = [{ name = "NodeResourcesFit" }, { name = "CustomFilter" }, { name = "NodeName" }]
""", "filter", ["NodeResourcesFit", "NodeName", *without(DEFAULT_FILTER, "NodeResourcesFit", "NodeName"),
                "CustomFilter"], id="overrides-keep-specific-point-order"),
    pytest.param("""
[profiles.plugins.filter]
disabled = [{ name = "TaintToleration" }]
enabled = [{ name = "TaintToleration" }]
""", "filter", [*without(DEFAULT_FILTER, "TaintToleration"), "TaintToleration"],
        id="disabled-and-re-enabled-moves-to-the-end"),
    pytest.param("""
[profiles.plugins.multi-point]
disabled = [{ name = "TaintToleration" }]
""", "filter", without(DEFAULT_FILTER, "TaintToleration"), id="multi-point-disabled-gone-from-filter"),
    pytest.param("""
[profiles.plugins.multi-point]
disabled = [{ name = "TaintToleration" }]
""", "pre-score", without(DEFAULT_PRE_SCORE, "TaintToleration"), id="multi-point-disabled-gone-from-pre-score"),
    pytest.param("""
[profiles.plugins.multi-point]
disabled = [{ name = "*" }]
enabled = [{ name = "PrioritySort" }, { name = "NodeName" }, { name = "DefaultBinder" }]
""", "filter", ["NodeName"], id="multi-point-star-drops-every-default"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore" }]
[profiles.plugins.filter]
disabled = [{ name = "FilterScore" }]
""", "filter", DEFAULT_FILTER, id="multi-point-plugin-disabled-at-one-point"),
]


@pytest.mark.parametrize(("plugins", "point", "expected"), EXPANSION_CASES)
def test_multi_point_expansion_order(tmp_path: Path, registry: PluginRegistry, plugins: str, point: str,
                                     expected: list[str]) -> None:
    """Per point: overrides in specific-point order, then multi-point plugins, then the other specific ones."""
    assert names(load_profile(tmp_path, registry, plugins), point) == expected


SCORE_CASES = [
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "NodeAffinity", weight = 9 }]
""", [(n, 9 if n == "NodeAffinity" else w) for n, w in DEFAULT_SCORE],
        id="multi-point-re-enabled-default-replaced-in-place-with-new-weight"),
    pytest.param("""
[profiles.plugins.score]
enabled = [{ name = "NodeResourcesFit", weight = 4 }]
""", [("NodeResourcesFit", 4), *scores_without("NodeResourcesFit")], id="score-override-moves-first-with-score-weight"),
    pytest.param("""
[profiles.plugins.score]
enabled = [{ name = "CustomScore" }, { name = "NodeResourcesFit", weight = 4 }]
""", [("NodeResourcesFit", 4), *scores_without("NodeResourcesFit"), ("CustomScore", 1)],
        id="override-then-multi-point-then-remaining"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore", weight = 7 }]
""", [*DEFAULT_SCORE, ("FilterScore", 7)], id="multi-point-weight-applies"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore", weight = 7 }]
[profiles.plugins.score]
enabled = [{ name = "FilterScore", weight = 4 }]
""", [("FilterScore", 4), *DEFAULT_SCORE], id="score-weight-wins-over-multi-point-weight"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore" }]
""", [*DEFAULT_SCORE, ("FilterScore", 1)], id="unset-multi-point-weight-is-1"),
    pytest.param("""
[profiles.plugins.score]
enabled = [{ name = "CustomScore" }]
""", [*DEFAULT_SCORE, ("CustomScore", 1)], id="unset-score-weight-is-1"),
    pytest.param("""
[profiles.plugins.score]
disabled = [{ name = "*" }]
enabled = [{ name = "NodeAffinity" }]
""", [("NodeAffinity", 1)], id="score-entry-without-weight-wins-over-multi-point-weight"),
    pytest.param("""
[profiles.plugins.multi-point]
disabled = [{ name = "TaintToleration" }]
[profiles.plugins.score]
enabled = [{ name = "TaintToleration", weight = 5 }]
""", [*scores_without("TaintToleration"), ("TaintToleration", 5)], id="multi-point-disabled-re-enabled-at-score"),
]


@pytest.mark.parametrize(("plugins", "expected"), SCORE_CASES)
def test_score_plugins_and_weights(tmp_path: Path, registry: PluginRegistry, plugins: str,
                                   expected: list[tuple[str, int]]) -> None:
    """Score order follows the expansion rules; a score-point weight wins over multi-point; unset means 1."""
    assert score_weights(load_profile(tmp_path, registry, plugins)) == expected


def test_multi_point_disabled_plugin_is_at_no_point(tmp_path: Path, registry: PluginRegistry) -> None:
    """A default disabled at multi-point runs nowhere."""
    profile = load_profile(tmp_path, registry, """
[profiles.plugins.multi-point]
disabled = [{ name = "TaintToleration" }]
""")
    assert "TaintToleration" not in profile.plugin_names()


@pytest.mark.parametrize(("plugins", "key", "message"), [
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "FilterScore" }, { name = "FilterScore" }]
""", "profiles[0].plugins.multi-point.enabled", "plugin 'FilterScore' already registered as Filter",
        id="new-plugin-twice-at-multi-point"),
    pytest.param("""
[profiles.plugins.multi-point]
enabled = [{ name = "NodeAffinity", weight = 4 }, { name = "NodeAffinity", weight = 5 }]
""", "profiles[0].plugins.multi-point.enabled", "plugin 'NodeAffinity' already registered as PreFilter",
        id="default-plugin-twice-at-multi-point"),
    pytest.param("""
[profiles.plugins.filter]
enabled = [{ name = "CustomFilter" }, { name = "CustomFilter" }]
""", "profiles[0].plugins.filter.enabled", "plugin 'CustomFilter' is enabled twice",
        id="plugin-twice-at-one-point"),
])
def test_plugin_enabled_twice_is_an_error(tmp_path: Path, registry: PluginRegistry, plugins: str, key: str,
                                          message: str) -> None:
    """A plugin listed twice in one enabled list is rejected, never silently collapsed into one entry."""
    path = tmp_path / "profile.toml"
    with pytest.raises(ProfileError) as caught:
        load_profile(tmp_path, registry, plugins)
    assert str(caught.value) == f"{path}: {key}: {message}"


# -- the example from the issue --------------------------------------------------------------------
def test_issue_profile_keeps_taint_toleration_scoring_with_weight_3(tmp_path: Path, registry: PluginRegistry) -> None:
    """Disabling TaintToleration at filter leaves it at score, still with its default weight 3."""
    profile = load(tmp_path, registry, ISSUE_EXAMPLE_PROFILE).profiles[0]
    assert "TaintToleration" not in names(profile, "filter")
    assert score_weights(profile) == DEFAULT_SCORE


def test_issue_profile_configures_most_allocated(tmp_path: Path, registry: PluginRegistry) -> None:
    """The NodeResourcesFit args of the issue's profile are MostAllocated over cpu and memory, weight 1 each."""
    args = load(tmp_path, registry, ISSUE_EXAMPLE_PROFILE).profiles[0].plugin_args["NodeResourcesFit"]
    assert isinstance(args, NodeResourcesFitArgs)
    assert args.scoring_strategy.type == MOST_ALLOCATED
    assert args.scoring_strategy.resources == (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

"""``render_config`` shows the effective configuration as a profile file that loads back to the same thing."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import attrs
import pytest

from kubesched.profiles import config_document, load_config, render_config
from kubesched.runtime import PluginRegistry
from tests.framework.fakes import FilterScore


@attrs.frozen
class SpreadArgs:
    """Args of Spread, covering every value type a profile can hold."""

    label: str = "zone"
    skew: int = 1
    ratio: float = 0.5
    strict: bool = False
    zones: tuple[str, ...] = ()
    note: str | None = None


class Spread(FilterScore):
    """A Filter and Score test plugin with args."""

    name = "Spread"
    Args = SpreadArgs


EMPTY_POINTS = ("permit", "post-bind")

CUSTOM_PROFILE = """
percentage-of-nodes-to-score = 40
pod-initial-backoff-seconds = 2
pod-max-backoff-seconds = 30

[[profiles]]
scheduler-name = "packing-scheduler"
percentage-of-nodes-to-score = 70

[profiles.plugins.multi-point]
enabled = [{ name = "Spread", weight = 6 }]
disabled = [{ name = "NodeResourcesBalancedAllocation" }]

[profiles.plugins.filter]
disabled = [{ name = "TaintToleration" }]

[profiles.plugins.score]
enabled = [{ name = "NodeAffinity", weight = 5 }]

[profiles.plugin-config.Spread]
label = "topology.kubernetes.io/zone"
skew = 3
ratio = 0.25
strict = true
zones = ["a \\"quoted\\" zone", "back\\\\slash", "tab\\there", "ünïcödé"]

[profiles.plugin-config.NodeResourcesFit]
ignored-resource-groups = ["example.com"]

[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "RequestedToCapacityRatio"
resources = [{ name = "cpu", weight = 2 }, { name = "example.com/gpu", weight = 5 }]
requested-to-capacity-ratio = { shape = [{ utilization = 0, score = 0 }, { utilization = 100, score = 10 }] }

[profiles.plugin-config.NodeAffinity.added-affinity.required-during-scheduling-ignored-during-execution]
node-selector-terms = [{ match-expressions = [{ key = "pool", operator = "In", values = ["batch"] }] }]

[[profiles]]
scheduler-name = "no-score-scheduler"

[profiles.plugins.score]
disabled = [{ name = "*" }]
"""


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    """The installed plugins plus a test plugin with args."""
    return PluginRegistry.discover().with_plugins(Spread)


@pytest.fixture(scope="module")
def default_document(registry: PluginRegistry) -> dict[str, Any]:
    """The rendered default profile, parsed back as TOML."""
    return tomllib.loads(render_config(load_config("default", registry)))


def point_names(document: dict[str, Any], point: str) -> list[str]:
    """The plugin names the rendered document enables at ``point``."""
    return [item["name"] for item in document["profiles"][0]["plugins"][point]["enabled"]]


@pytest.mark.parametrize(("point", "expected"), [
    pytest.param("pre-enqueue", ["SchedulingGates"], id="pre-enqueue"),
    pytest.param("queue-sort", ["PrioritySort"], id="queue-sort"),
    pytest.param("pre-filter", ["NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
                                "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
                                "InterPodAffinity"], id="pre-filter"),
    pytest.param("filter", ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                            "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
                            "PodTopologySpread", "InterPodAffinity"], id="filter"),
    pytest.param("pre-score", ["TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
                               "InterPodAffinity", "NodeResourcesBalancedAllocation"], id="pre-score"),
    pytest.param("post-filter", ["DefaultPreemption"], id="post-filter"),
    pytest.param("reserve", ["VolumeBinding"], id="reserve"),
    pytest.param("pre-bind", ["VolumeBinding"], id="pre-bind"),
    pytest.param("bind", ["DefaultBinder"], id="bind"),
    *(pytest.param(point, [], id=point) for point in EMPTY_POINTS),
])
def test_default_profile_lists_plugins_per_point_in_kube_order(default_document: dict[str, Any], point: str,
                                                                expected: list[str]) -> None:
    """Each extension point of the rendered default profile lists its plugins in kube-scheduler's order."""
    assert point_names(default_document, point) == expected


def test_default_profile_shows_score_weights(default_document: dict[str, Any]) -> None:
    """The rendered default profile gives every Score plugin its default weight."""
    assert default_document["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "TaintToleration", "weight": 3},
        {"name": "NodeAffinity", "weight": 2},
        {"name": "NodeResourcesFit", "weight": 1},
        {"name": "PodTopologySpread", "weight": 2},
        {"name": "InterPodAffinity", "weight": 2},
        {"name": "NodeResourcesBalancedAllocation", "weight": 1},
        {"name": "ImageLocality", "weight": 1},
    ]


def test_default_profile_shows_default_settings(default_document: dict[str, Any]) -> None:
    """The scheduler settings are shown with their defaults."""
    settings = {k: v for k, v in default_document.items() if k != "profiles"}
    assert settings == {"percentage-of-nodes-to-score": 0, "pod-initial-backoff-seconds": 1,
                        "pod-max-backoff-seconds": 10}


def test_default_profile_shows_default_args(default_document: dict[str, Any]) -> None:
    """The default args of the enabled plugins are shown, e.g. NodeResourcesFit's LeastAllocated strategy."""
    plugin_config = default_document["profiles"][0]["plugin-config"]
    assert sorted(plugin_config) == ["DefaultPreemption", "InterPodAffinity", "NodeAffinity",
                                     "NodeResourcesBalancedAllocation", "NodeResourcesFit", "PodTopologySpread",
                                     "VolumeBinding"]
    assert plugin_config["VolumeBinding"] == {"bind-timeout-seconds": 600}
    assert plugin_config["DefaultPreemption"] == {"min-candidate-nodes-percentage": 10,
                                                  "min-candidate-nodes-absolute": 100}
    assert plugin_config["PodTopologySpread"] == {"defaulting-type": "System", "default-constraints": []}
    assert plugin_config["InterPodAffinity"] == {"hard-pod-affinity-weight": 1,
                                                 "ignore-preferred-terms-of-existing-pods": False}
    assert plugin_config["NodeResourcesFit"]["scoring-strategy"] == {
        "type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}


def test_rendered_text_shows_score_weights_inline(registry: PluginRegistry) -> None:
    """The score list is written as one readable line of inline tables."""
    text = render_config(load_config("default", registry))
    assert ('enabled = [{ name = "TaintToleration", weight = 3 }, { name = "NodeAffinity", weight = 2 }, '
            '{ name = "NodeResourcesFit", weight = 1 }, { name = "PodTopologySpread", weight = 2 }, '
            '{ name = "InterPodAffinity", weight = 2 }, { name = "NodeResourcesBalancedAllocation", weight = 1 }, '
            '{ name = "ImageLocality", weight = 1 }]') in text.splitlines()


def test_rendered_text_names_its_source(registry: PluginRegistry) -> None:
    """The rendered text starts with a comment naming the profile it shows."""
    text = render_config(load_config("default", registry))
    assert text.splitlines()[0] == "# Effective configuration of default (shipped profile):"


def test_customised_profile_shows_its_merged_score_list(tmp_path: Path, registry: PluginRegistry) -> None:
    """A customised profile is shown after merging: overrides first, weights resolved, disabled plugins gone."""
    path = tmp_path / "custom.toml"
    path.write_text(CUSTOM_PROFILE, encoding="utf-8")
    document = tomllib.loads(render_config(load_config(str(path), registry)))
    assert document["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeAffinity", "weight": 5},
        {"name": "TaintToleration", "weight": 3},
        {"name": "NodeResourcesFit", "weight": 1},
        {"name": "PodTopologySpread", "weight": 2},
        {"name": "InterPodAffinity", "weight": 2},
        {"name": "ImageLocality", "weight": 1},
        {"name": "Spread", "weight": 6},
    ]


@pytest.mark.parametrize("profile_text", [
    pytest.param(None, id="default"),
    pytest.param(CUSTOM_PROFILE, id="customised"),
])
def test_rendered_configuration_loads_back_to_the_same_configuration(tmp_path: Path, registry: PluginRegistry,
                                                                     profile_text: str | None) -> None:
    """render_config's output, loaded as a profile file, gives the same effective configuration."""
    if profile_text is None:
        original = load_config("default", registry)
    else:
        source = tmp_path / "custom.toml"
        source.write_text(profile_text, encoding="utf-8")
        original = load_config(str(source), registry)
    rendered = tmp_path / "rendered.toml"
    rendered.write_text(render_config(original), encoding="utf-8")
    reloaded = load_config(str(rendered), registry)
    assert config_document(reloaded) == config_document(original)
    assert (reloaded.settings, reloaded.profiles) == (original.settings, original.profiles)

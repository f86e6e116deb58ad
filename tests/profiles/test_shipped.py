"""The shipped profiles: each loads, explains itself, and differs from the default exactly as documented."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from kubesched.plugins.noderesources.fit import MOST_ALLOCATED
from kubesched.plugins.pod_topology_spread import PodTopologySpreadArgs
from kubesched.profiles import load_config, render_config, render_kube_config, shipped_profiles
from kubesched.runtime import PluginRegistry


def test_shipped_profiles_are_default_bin_packing_and_spread() -> None:
    """Three profiles ship with kubesched."""
    assert shipped_profiles() == ["bin-packing", "default", "spread"]


@pytest.mark.parametrize("name", ["bin-packing", "default", "spread"])
def test_each_shipped_profile_starts_with_a_comment_on_when_to_use_it(name: str) -> None:
    """A shipped file opens with comments saying what it is for."""
    text = (resources.files("kubesched.profiles") / f"{name}.toml").read_text(encoding="utf-8")
    assert text.startswith("# ")


@pytest.mark.parametrize("name", ["bin-packing", "default", "spread"])
def test_each_shipped_profile_round_trips_through_show(name: str, registry: PluginRegistry, tmp_path: Path) -> None:
    """``profile show`` of a shipped profile loads back to the same configuration."""
    config = load_config(name, registry)
    path = tmp_path / "shown.toml"
    path.write_text(render_config(config), encoding="utf-8")
    assert load_config(str(path), registry).profiles == config.profiles


@pytest.mark.parametrize("name", ["bin-packing", "default", "spread"])
def test_each_shipped_profile_round_trips_through_a_kube_scheduler_config(name: str, registry: PluginRegistry,
                                                                          tmp_path: Path) -> None:
    """TOML -> KubeSchedulerConfiguration -> load gives the same effective configuration, and back to TOML too."""
    config = load_config(name, registry)
    kube_path = tmp_path / "sched.yaml"
    kube_path.write_text(render_kube_config(config), encoding="utf-8")
    from_kube = load_config(str(kube_path), registry)
    toml_path = tmp_path / "back.toml"
    toml_path.write_text(render_config(from_kube), encoding="utf-8")
    back = load_config(str(toml_path), registry)
    assert (from_kube.settings, from_kube.profiles, from_kube.warnings) == (config.settings, config.profiles, ())
    assert (back.settings, back.profiles) == (config.settings, config.profiles)


def test_bin_packing_scores_most_allocated(registry: PluginRegistry) -> None:
    """bin-packing changes only NodeResourcesFit's scoring strategy."""
    packing = load_config("bin-packing", registry).profiles[0]
    default = load_config("default", registry).profiles[0]
    assert packing.plugin_args["NodeResourcesFit"].scoring_strategy.type == MOST_ALLOCATED
    assert packing.plugins == default.plugins
    assert {k: v for k, v in packing.plugin_args.items() if k != "NodeResourcesFit"} == {
        k: v for k, v in default.plugin_args.items() if k != "NodeResourcesFit"}


def test_spread_uses_listed_skew_1_constraints_at_weight_4(registry: PluginRegistry) -> None:
    """spread replaces the system defaults by maxSkew 1 per zone and per node and weighs the plugin 4."""
    profile = load_config("spread", registry).profiles[0]
    args = profile.plugin_args["PodTopologySpread"]
    assert isinstance(args, PodTopologySpreadArgs)
    assert args.defaulting_type == "List"
    assert [(c.topology_key, c.max_skew, c.when_unsatisfiable) for c in args.default_constraints] == [
        ("topology.kubernetes.io/zone", 1, "ScheduleAnyway"), ("kubernetes.io/hostname", 1, "ScheduleAnyway")]
    assert ("PodTopologySpread", 4) in [(e.name, e.weight) for e in profile.enabled("score")]

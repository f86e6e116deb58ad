"""Specification of a Sweep's profiles: an entry's grid of plugin args expands into one profile per combination,
each a complete configuration with a readable label; a bad arg is reported at its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.profiles import parse_config
from kubesched.profiles.files import toml_document
from kubesched.runtime import PluginRegistry
from kubesched.sweep.profiles import resolve_all, variants
from kubesched.sweep.spec import ProfileEntry, load_sweep
from tests.sweep.helpers import HEADER, sweep_folder


def entries(tmp_path: Path, profiles: str) -> tuple[ProfileEntry, ...]:
    return load_sweep(sweep_folder(tmp_path, HEADER + f"spec:\n  inputs: [cluster.yaml]\n  profiles:\n{profiles}")
                      ).profiles


GRID = """\
  - name: fit
    pluginArgs:
      NodeResourcesFit: {scoringStrategy.type: [LeastAllocated, MostAllocated]}
      DefaultPreemption: {minCandidateNodesAbsolute: [10, 100, 1000], minCandidateNodesPercentage: 5}
"""


def test_a_grid_gives_one_profile_per_combination_the_first_key_varying_slowest(tmp_path: Path) -> None:
    """Labels name the varied args only (the fixed one is the entry's); so do the row columns."""
    (entry,) = entries(tmp_path, GRID)
    found = variants(entry)
    assert [v.label for v in found] == [
        f"fit[NodeResourcesFit.scoringStrategy.type={kind},DefaultPreemption.minCandidateNodesAbsolute={n}]"
        for kind in ("LeastAllocated", "MostAllocated") for n in (10, 100, 1000)]
    assert found[4].columns == (("args.NodeResourcesFit.scoringStrategy.type", "MostAllocated"),
                                ("args.DefaultPreemption.minCandidateNodesAbsolute", "100"))


def test_each_variant_is_its_base_profile_with_the_args_set(tmp_path: Path, registry: PluginRegistry) -> None:
    """The TOML a cell gets loads back to the configuration with the args in every profile."""
    (entry,) = entries(tmp_path, GRID)
    resolved, problems = resolve_all([entry], registry, "sweep.yaml")
    assert problems == []
    config = parse_config(toml_document(resolved[5].toml, "t"), registry)
    (profile,) = config.profiles
    assert profile.plugin_args["NodeResourcesFit"].scoring_strategy.type == "MostAllocated"
    assert profile.plugin_args["DefaultPreemption"].min_candidate_nodes_absolute == 1000
    assert profile.plugin_args["DefaultPreemption"].min_candidate_nodes_percentage == 5
    assert len({r.digest for r in resolved}) == 6


def test_the_same_configuration_has_the_same_digest_whatever_its_label(tmp_path: Path,
                                                                        registry: PluginRegistry) -> None:
    """The digest is of the effective configuration: default, and default with its default strategy, agree."""
    (a, b) = entries(tmp_path, "  - default\n  - {name: b, pluginArgs: {NodeResourcesFit: "
                               "{scoringStrategy.type: LeastAllocated}}}\n")
    resolved, _ = resolve_all([a, b], registry, "sweep.yaml")
    assert [r.label for r in resolved] == ["default", "b"]
    assert resolved[0].digest == resolved[1].digest


# The default profile without NodeResourcesBalancedAllocation.
UNBALANCED = """\
[[profiles]]
scheduler-name = "default-scheduler"
[profiles.plugins.pre-score]
disabled = [{ name = "NodeResourcesBalancedAllocation" }]
[profiles.plugins.score]
disabled = [{ name = "NodeResourcesBalancedAllocation" }]
"""


@pytest.mark.parametrize(("profiles", "expected"), [
    pytest.param("  - nosuch\n", ["spec.profiles[0].profile: no shipped profile named 'nosuch'; shipped profiles: "
                                  "bin-packing, default, spread (or give the path of a .toml profile or a "
                                  "KubeSchedulerConfiguration .yaml)"], id="unknown-profile"),
    pytest.param("  - pluginArgs: {Nope: {a: 1}}\n", ["spec.profiles[0].pluginArgs.Nope.a: unknown plugin 'Nope'"],
                 id="unknown-plugin"),
    pytest.param("  - pluginArgs: {NodeName: {a: 1}}\n",
                 ["spec.profiles[0].pluginArgs.NodeName.a: plugin 'NodeName' takes no args"], id="no-args"),
    pytest.param("  - profile: unbalanced.toml\n    pluginArgs: {NodeResourcesBalancedAllocation: {resources: [[]]}}\n",
                 ["spec.profiles[0].pluginArgs.NodeResourcesBalancedAllocation.resources[0]: plugin "
                  "'NodeResourcesBalancedAllocation' is not enabled in profile 'default-scheduler': its args would "
                  "change nothing"], id="plugin-not-enabled"),
    pytest.param("  - pluginArgs: {NodeResourcesFit: {scoringStrategy.type: [MostAllocated, Most]}}\n",
                 ['spec.profiles[0].pluginArgs.NodeResourcesFit.scoringStrategy.type[1]: Unsupported value: "Most": '
                  'supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'],
                 id="bad-value-in-a-grid"),
    pytest.param("  - pluginArgs: {NodeResourcesFit: {scoringStrategy.typ: x}}\n",
                 ["spec.profiles[0].pluginArgs.NodeResourcesFit.scoringStrategy.typ: unknown key (did you mean "
                  "'type'?)"], id="misspelt-key"),
    pytest.param("  - pluginArgs: {NodeResourcesFit: {ignoredResources.x: 1}}\n",
                 ["spec.profiles[0].pluginArgs.NodeResourcesFit.ignoredResources.x: ignoredResources: is an array, "
                  "not a table of args"], id="key-below-an-array"),
])
def test_bad_profiles_and_args_are_reported_at_their_fields(tmp_path: Path, registry: PluginRegistry, profiles: str,
                                                           expected: list[str]) -> None:
    (tmp_path / "unbalanced.toml").write_text(UNBALANCED)
    _, problems = resolve_all(entries(tmp_path, profiles), registry, "sweep.yaml")
    assert [str(p).removeprefix("sweep.yaml: ") for p in problems] == expected

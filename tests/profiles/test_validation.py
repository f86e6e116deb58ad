"""Every profile mistake is reported as one ProfileError: ``<file>: <key path>: <message>``."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from kubesched.errors import ProfileError
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._types import QueuedPodInfo
from kubesched.profiles import load_config, shipped_profiles
from kubesched.runtime import PluginRegistry


class FifoSort(Plugin):
    """A second QueueSort plugin: first in, first out."""

    name = "FifoSort"

    @hookimpl
    def queue_sort_less(self, pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
        return pod_info_a.timestamp < pod_info_b.timestamp


@attrs.frozen
class TunableSortArgs:
    """Args of TunableSort."""

    reverse: bool = False


class TunableSort(Plugin):
    """A QueueSort plugin with args."""

    name = "TunableSort"
    Args = TunableSortArgs

    @hookimpl
    def queue_sort_less(self, pod_info_a: QueuedPodInfo, pod_info_b: QueuedPodInfo) -> bool:
        return pod_info_a.timestamp < pod_info_b.timestamp


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    """The installed plugins plus two QueueSort test plugins."""
    return PluginRegistry.discover().with_plugins(FifoSort, TunableSort)


def load_error(tmp_path: Path, registry: PluginRegistry, text: str) -> tuple[Path, ProfileError]:
    """Write ``text`` as a profile file, load it, and return the file and the error it must raise."""
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_config(str(path), registry)
    return path, caught.value


PROFILE = '[[profiles]]\nscheduler-name = "default-scheduler"\n'

ERRORS = [
    # plugins
    pytest.param(PROFILE + """
[profiles.plugins.score]
enabled = [{ name = "NodeResourceFit" }]
""", "profiles[0].plugins.score.enabled[0].name",
        "unknown plugin 'NodeResourceFit' (did you mean 'NodeResourcesFit'?)", id="unknown-plugin-enabled"),
    pytest.param(PROFILE + """
[profiles.plugins.filter]
disabled = [{ name = "TaintTolerations" }]
""", "profiles[0].plugins.filter.disabled[0].name",
        "unknown plugin 'TaintTolerations' (did you mean 'TaintToleration'?)", id="unknown-plugin-disabled"),
    pytest.param(PROFILE + """
[profiles.plugins.score]
enabled = [{ name = "NodeName" }]
""", "profiles[0].plugins.score.enabled[0].name",
        "plugin 'NodeName' does not implement the Score extension point (it implements: Filter)",
        id="plugin-does-not-implement-point"),
    pytest.param(PROFILE + """
[profiles.plugins.multi-point]
enabled = [{ name = "NodeName", weight = 2 }]
""", "profiles[0].plugins.multi-point.enabled[0].weight",
        "a weight only applies to Score plugins; 'NodeName' is not a Score plugin", id="weight-on-non-score-plugin"),
    pytest.param(PROFILE + """
[profiles.plugins.filter]
enabled = [{ name = "TaintToleration", weight = 2 }]
""", "profiles[0].plugins.filter.enabled[0].weight",
        "a weight only applies at the score or multi-point extension point", id="weight-at-non-score-point"),
    pytest.param(PROFILE + """
[profiles.plugins.score]
enabled = [{ name = "TaintToleration", weight = 0 }]
""", "profiles[0].plugins.score.enabled[0].weight",
        "Invalid value: 0: a weight must be greater than 0", id="weight-0"),
    pytest.param(PROFILE + """
[profiles.plugins.multi-point]
enabled = [{ name = "TaintToleration", weight = 2147483648 }]
""", "profiles[0].plugins.multi-point.enabled[0].weight",
        "Invalid value: 2147483648: a weight must be at most 2147483647 (kube-scheduler's weights are int32)",
        id="weight-beyond-int32"),
    pytest.param(PROFILE + """
[profiles.plugins.filters]
enabled = [{ name = "NodeName" }]
""", "profiles[0].plugins.filters", "unknown key (did you mean 'filter'?)", id="unknown-extension-point"),
    # plugin-config
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeResourcesFit.scoring-stratgy]
type = "MostAllocated"
""", "profiles[0].plugin-config.NodeResourcesFit.scoring-stratgy",
        "unknown key (did you mean 'scoring-strategy'?)", id="unknown-args-key"),
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
resources = [{ name = "cpu", weight = 1 }, { name = "memory", weight = "2" }]
""", "profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.resources[1].weight",
        'Invalid value: "2": must be an integer', id="ill-typed-args"),
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "MostRequested"
""", "profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.type",
        'Unsupported value: "MostRequested": supported values: "LeastAllocated", "MostAllocated", '
        '"RequestedToCapacityRatio"', id="args-value-not-in-literal"),
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
resources = [{ name = "cpu", weight = 101 }]
""", "profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.resources[0].weight",
        "Invalid value: 101: resource weight of cpu not in valid range (0, 100]", id="args-validator"),
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeResourceFit]
ignored-resources = []
""", "profiles[0].plugin-config.NodeResourceFit",
        "unknown plugin 'NodeResourceFit' (did you mean 'NodeResourcesFit'?)", id="unknown-plugin-config-plugin"),
    pytest.param(PROFILE + """
[profiles.plugin-config.NodeName]
""", "profiles[0].plugin-config.NodeName", "plugin 'NodeName' takes no args", id="plugin-config-without-args"),
    # profiles
    pytest.param("""
[[profiles]]
scheduler-name = "a"
[[profiles]]
scheduler-name = "a"
""", "profiles[1].scheduler-name", 'Duplicate value: "a" (also used by profiles[0])',
        id="duplicate-scheduler-name"),
    pytest.param("""
[[profiles]]
scheduler-name = "a"
[[profiles]]
""", "profiles[1].scheduler-name", "Required value: every profile needs a scheduler-name",
        id="missing-scheduler-name-with-several-profiles"),
    pytest.param("""
[[profiles]]
scheduler-name = "a"
[[profiles]]
scheduler-name = "b"
[profiles.plugins.queue-sort]
disabled = [{ name = "*" }]
enabled = [{ name = "FifoSort" }]
""", "profiles[1].plugins.queue-sort", "must be the same for all profiles ('FifoSort' differs from 'PrioritySort')",
        id="queue-sort-differs-between-profiles"),
    pytest.param("""
[[profiles]]
scheduler-name = "a"
[profiles.plugins.queue-sort]
disabled = [{ name = "*" }]
enabled = [{ name = "TunableSort" }]
[[profiles]]
scheduler-name = "b"
[profiles.plugins.queue-sort]
disabled = [{ name = "*" }]
enabled = [{ name = "TunableSort" }]
[profiles.plugin-config.TunableSort]
reverse = true
""", "profiles[1].plugin-config.TunableSort", "queueSort must be the same for all profiles: its args differ",
        id="queue-sort-args-differ-between-profiles"),
    pytest.param(PROFILE + """
[profiles.plugins.queue-sort]
disabled = [{ name = "*" }]
""", "profiles[0].plugins.queue-sort",
        'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0',
        id="no-queue-sort-plugin"),
    pytest.param(PROFILE + """
[profiles.plugins.queue-sort]
enabled = [{ name = "FifoSort" }]
""", "profiles[0].plugins.queue-sort",
        'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 2',
        id="two-queue-sort-plugins"),
    pytest.param(PROFILE + """
[profiles.plugins.bind]
disabled = [{ name = "*" }]
""", "profiles[0].plugins.bind",
        'at least one bind plugin is needed for profile with scheduler name "default-scheduler"',
        id="no-bind-plugin"),
    pytest.param(PROFILE + """
schedulr-name = "x"
""", "profiles[0].schedulr-name", "unknown key (did you mean 'scheduler-name'?)", id="unknown-profile-key"),
    # scheduler settings
    pytest.param("percentage-of-nodes-to-score = 101\n", "percentage-of-nodes-to-score",
                 "Invalid value: 101: not in valid range [0-100]", id="percentage-101"),
    pytest.param(PROFILE + "percentage-of-nodes-to-score = -1\n", "profiles[0].percentage-of-nodes-to-score",
                 "Invalid value: -1: not in valid range [0-100]", id="profile-percentage-negative"),
    pytest.param("pod-initial-backoff-seconds = 0\n", "pod-initial-backoff-seconds",
                 "Invalid value: 0: must be greater than 0", id="initial-backoff-0"),
    pytest.param("pod-initial-backoff-seconds = 5\npod-max-backoff-seconds = 4\n", "pod-max-backoff-seconds",
                 "Invalid value: 4: must be greater than or equal to pod-initial-backoff-seconds",
                 id="max-backoff-below-initial"),
    pytest.param('pod-max-backoff-seconds = "10"\n', "pod-max-backoff-seconds",
                 'Invalid value: "10": must be an integer', id="setting-not-an-integer"),
    pytest.param("profile = []\n", "profile", "unknown key (did you mean 'profiles'?)",
                 id="unknown-top-level-key-close-match"),
    pytest.param("colour = 1\n", "colour",
                 "unknown key (expected one of: percentage-of-nodes-to-score, pod-initial-backoff-seconds, "
                 "pod-max-backoff-seconds, plugin-call-budget-ms, plugin-timeout-ms, profiles)",
                 id="unknown-top-level-key"),
]


@pytest.mark.parametrize(("text", "key", "message"), ERRORS)
def test_profile_error_names_file_key_path_and_problem(tmp_path: Path, registry: PluginRegistry, text: str,
                                                       key: str, message: str) -> None:
    """Each mistake raises one ProfileError whose text is ``<file>: <key path>: <message>``."""
    path, error = load_error(tmp_path, registry, text)
    assert (error.file, error.key, error.message) == (str(path), key, message)
    assert str(error) == f"{path}: {key}: {message}"


def test_invalid_toml_names_the_file_and_the_position(tmp_path: Path, registry: PluginRegistry) -> None:
    """A TOML syntax error is reported against the file, with tomllib's line and column."""
    path, error = load_error(tmp_path, registry, "[[profiles]]\nscheduler-name = default-scheduler\n")
    assert error.key is None
    assert str(error).startswith(f"{path}: invalid TOML: ")
    assert "line 2" in str(error)


def test_unknown_shipped_profile_suggests_a_name(registry: PluginRegistry) -> None:
    """An unknown shipped profile name lists the shipped profiles and suggests the closest one."""
    with pytest.raises(ProfileError) as caught:
        load_config("defualt", registry)
    assert str(caught.value) == (f"no shipped profile named 'defualt' (did you mean 'default'?); shipped profiles: "
                                 f"{', '.join(shipped_profiles())} (or give the path of a .toml profile or a "
                                 "KubeSchedulerConfiguration .yaml)")


def test_missing_profile_file_names_the_file(tmp_path: Path, registry: PluginRegistry) -> None:
    """A profile path that does not exist is reported against that path."""
    path = tmp_path / "missing.toml"
    with pytest.raises(ProfileError) as caught:
        load_config(str(path), registry)
    assert str(caught.value) == f"{path}: cannot read: No such file or directory"


def test_profile_that_is_not_utf8_names_the_file(tmp_path: Path, registry: PluginRegistry) -> None:
    """A file in another encoding is one clear error, not a decoding traceback."""
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"# caf\xe9\n[[profiles]]\n")
    with pytest.raises(ProfileError) as caught:
        load_config(str(path), registry)
    assert str(caught.value) == f"{path}: cannot read: not UTF-8 text (byte 5)"


def test_a_weight_above_100_is_accepted_as_by_kube_scheduler(tmp_path: Path, registry: PluginRegistry) -> None:
    """kube-scheduler v1.32 runs with a Score weight of 200, so kubesched accepts it too."""
    path = tmp_path / "profile.toml"
    path.write_text(PROFILE + '[profiles.plugins.score]\nenabled = [{ name = "TaintToleration", weight = 200 }]\n',
                    encoding="utf-8")
    profile = load_config(str(path), registry).profiles[0]
    assert ("TaintToleration", 200) in [(e.name, e.weight) for e in profile.enabled("score")]


def test_every_problem_in_a_file_is_reported_in_one_run(tmp_path: Path, registry: PluginRegistry) -> None:
    """Independent mistakes in settings, keys and several profiles are all reported, one line each."""
    path, error = load_error(tmp_path, registry, """
percentage-of-nodes-to-score = 101
pod-initial-backoff-seconds = 0
colour = 1

[[profiles]]
scheduler-name = "a"

[[profiles]]
scheduler-name = "b"
percentage-of-nodes-to-score = -1
""")
    assert str(error).replace(f"{path}: ", "").splitlines() == [
        "colour: unknown key (expected one of: percentage-of-nodes-to-score, pod-initial-backoff-seconds, "
        "pod-max-backoff-seconds, plugin-call-budget-ms, plugin-timeout-ms, profiles)",
        "percentage-of-nodes-to-score: Invalid value: 101: not in valid range [0-100]",
        "pod-initial-backoff-seconds: Invalid value: 0: must be greater than 0",
        "profiles[1].percentage-of-nodes-to-score: Invalid value: -1: not in valid range [0-100]",
    ]


def test_every_plugin_problem_in_a_profile_is_reported(tmp_path: Path, registry: PluginRegistry) -> None:
    """Unknown plugins, bad weights and every plugin's bad args in one profile are reported together."""
    path, error = load_error(tmp_path, registry, PROFILE + """
[profiles.plugins.score]
enabled = [{ name = "NodeResourceFit" }, { name = "ImageLocality", weight = 0 }]
""")
    assert str(error).replace(f"{path}: ", "").splitlines() == [
        "profiles[0].plugins.score.enabled[0].name: unknown plugin 'NodeResourceFit' (did you mean "
        "'NodeResourcesFit'?)",
        "profiles[0].plugins.score.enabled[1].weight: Invalid value: 0: a weight must be greater than 0",
    ]
    path, error = load_error(tmp_path, registry, PROFILE + """
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "Most"
[profiles.plugin-config.InterPodAffinity]
hard-pod-affinity-weight = 101
""")
    assert str(error).replace(f"{path}: ", "").splitlines() == [
        "profiles[0].plugin-config.InterPodAffinity.hard-pod-affinity-weight: Invalid value: 101: not in valid range "
        "[0, 100]",
        'profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.type: Unsupported value: "Most": supported '
        'values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    ]

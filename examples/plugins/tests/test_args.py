"""Plugin args: filled from kebab-case profile keys, validated with errors that name the key."""

from __future__ import annotations

from typing import Any

import pytest
from kubesched import ArgsError, ProfileError
from kubesched.runtime import PluginRegistry
from kubesched.testing import structure

from kubesched_examples.coscheduling import CoschedulingArgs
from kubesched_examples.node_label_placement import NodeLabelPlacementArgs

from support import load_profile


def test_coscheduling_defaults() -> None:
    """By default a member waits 60 s and a failed group backs off for 60 s."""
    assert structure(CoschedulingArgs, {}) == CoschedulingArgs(60.0, 60.0)


def test_args_are_read_from_kebab_case_profile_keys(registry: PluginRegistry) -> None:
    """A profile's plugin-config tables fill both plugins' args."""
    config = load_profile(registry, """
[profiles.plugin-config.Coscheduling]
permit-waiting-time-seconds = 900
pod-group-backoff-seconds = 0
[profiles.plugin-config.NodeLabelPlacement]
required-labels = { "example.com/pool" = "batch" }
preferred-label = "zone"
preferred-values = ["a", "b"]
""")
    args = config.profiles[0].plugin_args
    assert args["Coscheduling"] == CoschedulingArgs(900.0, 0.0)
    assert args["NodeLabelPlacement"] == NodeLabelPlacementArgs({"example.com/pool": "batch"}, "zone", ("a", "b"))


@pytest.mark.parametrize(("data", "message"), [
    pytest.param({"permit-waiting-time-seconds": 0}, "permit-waiting-time-seconds: Invalid value: 0: not in valid "
                 "range (0, 900]", id="no-wait"),
    pytest.param({"permit-waiting-time-seconds": 901}, "permit-waiting-time-seconds: Invalid value: 901: not in "
                 "valid range (0, 900]", id="above-max-permit-timeout"),
    pytest.param({"pod-group-backoff-seconds": -1}, "pod-group-backoff-seconds: Invalid value: -1: not in valid "
                 "range [0, inf)", id="negative-backoff"),
    pytest.param({"permit-waiting-time-seconds": "1m"}, "permit-waiting-time-seconds: Invalid value: \"1m\": "
                 "must be a number", id="not-a-number"),
])
def test_bad_coscheduling_args(data: dict[str, Any], message: str) -> None:
    """Timeouts outside (0, 900] and negative backoffs are rejected, naming the key."""
    with pytest.raises(ArgsError) as caught:
        structure(CoschedulingArgs, data)
    assert str(caught.value) == message


@pytest.mark.parametrize(("data", "message"), [
    pytest.param({"required-labels": {"": "batch"}}, 'required-labels: Invalid value: "": label key must be '
                 "non-empty", id="empty-key"),
    pytest.param({"required-labels": {"pool": 1}}, "required-labels.pool: Invalid value: 1: must be a string",
                 id="non-string-value"),
    pytest.param({"preferred-values": ["a"]}, "preferred-label: Required value: must be set when preferred-values "
                 "is given", id="values-without-label"),
    pytest.param({"preferred-label": "zone"}, "preferred-values: Required value: at least one value must be given "
                 "with preferred-label", id="label-without-values"),
    pytest.param({"preferred-label": "zone", "preferred-values": ["a", "b", "a"]}, 'preferred-values[2]: '
                 'Duplicate value: "a"', id="duplicate-value"),
    pytest.param({"preferred-label": "zone", "preferred-values": ["a", ""]}, 'preferred-values[1]: Invalid value: '
                 '"": must be non-empty', id="empty-value"),
])
def test_bad_placement_args(data: dict[str, Any], message: str) -> None:
    """Empty label keys, inconsistent preference settings and repeated values are rejected, naming the key."""
    with pytest.raises(ArgsError) as caught:
        structure(NodeLabelPlacementArgs, data)
    assert str(caught.value) == message


def test_bad_args_in_a_profile_name_the_profile_key(registry: PluginRegistry) -> None:
    """Through a profile, the error carries the full key path below the file."""
    with pytest.raises(ProfileError) as caught:
        load_profile(registry, "[profiles.plugin-config.Coscheduling]\npermit-waiting-time-seconds = 0\n")
    assert str(caught.value) == ("test profile: profiles[0].plugin-config.Coscheduling.permit-waiting-time-seconds: "
                                 "Invalid value: 0: not in valid range (0, 900]")


def test_misspelt_args_key_gets_a_suggestion(registry: PluginRegistry) -> None:
    """Keys are kebab-case; a snake_case key is unknown, with a did-you-mean."""
    with pytest.raises(ProfileError, match="unknown key \\(did you mean 'required-labels'\\?\\)"):
        load_profile(registry, "[profiles.plugin-config.NodeLabelPlacement]\nrequired_labels = {}\n")

"""Hostile profile files (deep nesting, huge numbers, odd values) are one clean located error, never a traceback."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.errors import ProfileError
from kubesched.framework._args import ArgsError, in_range, structure
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.validation import PROFILE

KUBE_HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
ARGS = "[[profiles]]\n[profiles.plugin-config.{plugin}]\n{line}\n"


def error_of(tmp_path: Path, registry: PluginRegistry, text: str, name: str = "profile.toml") -> str:
    """The error loading ``text`` as ``name`` raises, without the temporary folder."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_config(str(path), registry)
    return str(caught.value).replace(f"{tmp_path}/", "")


@pytest.mark.parametrize(("text", "message"), [
    pytest.param(ARGS.format(plugin="NodeResourcesFit", line="ignored-resources = " + "[" * 1000 + "]" * 1000),
                 "profile.toml: invalid TOML: nested more than 64 levels deep (at line 3, column 85)",
                 id="arrays-1000-deep"),
    pytest.param(ARGS.format(plugin="NodeResourcesFit", line="x = " + "{a=" * 1000 + "1" + "}" * 1000),
                 "profile.toml: invalid TOML: nested more than 64 levels deep (at line 3, column 197)",
                 id="inline-tables-1000-deep"),
    pytest.param(ARGS.format(plugin="NodeResourcesFit", line="x = " + "[" * 100 + "]" * 100),
                 "profile.toml: profiles[0].plugin-config.NodeResourcesFit.x" + "[0]" * 60
                 + ": nested more than 64 levels deep", id="arrays-100-deep"),
])
def test_deep_toml_nesting_is_a_clean_error(tmp_path: Path, registry: PluginRegistry, text: str,
                                            message: str) -> None:
    """Nesting too deep for the parser or for the profile reader is rejected, located where possible."""
    assert error_of(tmp_path, registry, text) == message


def test_deep_yaml_nesting_is_a_clean_error(tmp_path: Path, registry: PluginRegistry) -> None:
    """A KubeSchedulerConfiguration nested a thousand levels deep is one error naming the file."""
    text = KUBE_HEADER + "profiles: " + "[" * 1000 + "]" * 1000 + "\n"
    assert error_of(tmp_path, registry, text, "sched.yaml") == (
        "sched.yaml: invalid YAML at line 3 column 74: nested more than 64 levels deep")


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("pod-max-backoff-seconds = 1e309\n",
                 "profile.toml: pod-max-backoff-seconds: Invalid value: 1e309: must be an integer", id="setting-1e309"),
    pytest.param("pod-max-backoff-seconds = " + "9" * 5000 + "\n",
                 "profile.toml: invalid TOML: an integer has more than 4300 digits", id="setting-5000-digits"),
    pytest.param("pod-max-backoff-seconds = " + "9" * 4000 + "\n",
                 "profile.toml: pod-max-backoff-seconds: Invalid value: an integer of 4000 digits: must be at most "
                 "9223372036854775807", id="setting-4000-digits"),
    pytest.param("percentage-of-nodes-to-score = " + "9" * 4000 + "\n",
                 "profile.toml: percentage-of-nodes-to-score: Invalid value: an integer of 4000 digits: not in "
                 "valid range [0-100]", id="percentage-4000-digits"),
    pytest.param("plugin-call-budget-ms = " + "9" * 400 + "\n",
                 "profile.toml: plugin-call-budget-ms: Invalid value: an integer of 400 digits: must be a finite "
                 "number", id="call-budget-400-digits"),
    pytest.param("plugin-call-budget-ms = inf\n",
                 "profile.toml: plugin-call-budget-ms: Invalid value: +Inf: must be a finite number",
                 id="call-budget-infinite"),
    pytest.param(ARGS.format(plugin="InterPodAffinity", line="hard-pod-affinity-weight = " + "9" * 4000),
                 "profile.toml: profiles[0].plugin-config.InterPodAffinity.hard-pod-affinity-weight: Invalid value: "
                 "an integer of 4000 digits: not in valid range [0, 100]", id="args-4000-digits"),
    pytest.param(ARGS.format(plugin="InterPodAffinity", line="hard-pod-affinity-weight = 1e309"),
                 "profile.toml: profiles[0].plugin-config.InterPodAffinity.hard-pod-affinity-weight: Invalid "
                 "value: 1e309: must be an integer", id="args-1e309"),
])
def test_huge_numbers_are_a_clean_located_error(tmp_path: Path, registry: PluginRegistry, text: str,
                                                message: str) -> None:
    """Overflowing floats and integers too long to print are reported without printing them in full."""
    assert error_of(tmp_path, registry, text) == message


def test_huge_yaml_integer_is_a_clean_error(tmp_path: Path, registry: PluginRegistry) -> None:
    """An integer of 5000 digits in a KubeSchedulerConfiguration is one error naming the file."""
    text = KUBE_HEADER + "podMaxBackoffSeconds: " + "9" * 5000 + "\n"
    assert error_of(tmp_path, registry, text, "sched.yaml") == (
        "sched.yaml: invalid YAML at line 3 column 23: an integer has more than 4300 digits")


@pytest.mark.parametrize(("value", "message"), [
    pytest.param(10 ** 400, "Invalid value: an integer of 401 digits: must be a finite number", id="huge-integer"),
    pytest.param(float("inf"), "Invalid value: +Inf: must be a finite number", id="infinity"),
    pytest.param(float("nan"), "Invalid value: NaN: must be a finite number", id="nan"),
])
def test_float_args_must_be_finite(value: object, message: str) -> None:
    """A float field refuses infinities, NaN and integers beyond float range, in Kubernetes' words."""
    from tests.profiles.test_args import Shape

    with pytest.raises(ArgsError) as caught:
        structure(Shape, {"max-skew": value})
    assert (caught.value.key, caught.value.message) == ("max-skew", message)


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("pod-max-backoff-seconds = { a = 1 }\n",
                 "profile.toml: pod-max-backoff-seconds: Invalid value: a table: must be an integer",
                 id="table-for-integer"),
    pytest.param("[[profiles]]\nplugins = 3\n",
                 "profile.toml: profiles[0].plugins: Invalid value: 3: must be a table", id="integer-for-table"),
    pytest.param(ARGS.format(plugin="NodeResourcesFit.scoring-strategy", line="type = { a = 1 }"),
                 "profile.toml: profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.type: Unsupported value: "
                 'a table: supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
                 id="table-for-choice"),
    pytest.param(ARGS.format(plugin="NodeResourcesFit.scoring-strategy", line='type = "Most\\"\\n"'),
                 "profile.toml: profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.type: Unsupported value: "
                 '"Most\\"\\n": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
                 id="string-escaped"),
    pytest.param(ARGS.format(plugin="NodeResourcesFit.scoring-strategy", line='type = "Most\\u0001\\b"'),
                 "profile.toml: profiles[0].plugin-config.NodeResourcesFit.scoring-strategy.type: Unsupported value: "
                 '"Most\\x01\\x08": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
                 id="control-characters-escaped-as-go-does"),
    pytest.param('[[profiles]]\nscheduler-name = "a"\n[[profiles]]\nscheduler-name = "a"\n',
                 'profile.toml: profiles[1].scheduler-name: Duplicate value: "a" (also used by profiles[0])',
                 id="name-quoted"),
])
def test_values_in_messages_are_quoted_and_described_not_dumped(tmp_path: Path, registry: PluginRegistry, text: str,
                                                                 message: str) -> None:
    """Values appear JSON-quoted and escaped; tables and arrays are named by kind, never as Python reprs."""
    assert error_of(tmp_path, registry, text) == message


@pytest.mark.parametrize(("value", "shown"), [
    pytest.param("a\"b\\c\n\u2028", '"a\\"b\\\\c\\n\\u2028"', id="string-escaped"),
    pytest.param("x" * 100, '"' + "x" * 80 + '..."', id="long-string-abbreviated"),
    pytest.param(True, "true", id="boolean"),
    pytest.param(None, "null", id="null"),
    pytest.param(-(10 ** 50), "-an integer of 51 digits", id="huge-negative-integer"),
    pytest.param({"a": 1}, "a table", id="table"),
    pytest.param([1], "an array", id="array"),
    pytest.param({1, 2}, "an unsupported value", id="python-set"),
])
def test_show_renders_values_as_kubernetes_messages_do(value: object, shown: str) -> None:
    """``PROFILE.show`` quotes and escapes strings like JSON and names containers by kind."""
    assert PROFILE.show(value) == shown


@pytest.mark.parametrize(("value", "shown"), [
    pytest.param(901, "Invalid value: 901: not in valid range (0, 900]", id="formatted-as-the-template-asks"),
    pytest.param(10 ** 400, "Invalid value: an integer of 401 digits: not in valid range (0, 900]",
                 id="too-large-for-the-format"),
])
def test_in_range_message_templates_keep_their_format(value: int, shown: str) -> None:
    """A custom in_range message formats the value as its template says, or shows it when it cannot."""
    check = in_range(0, 900, low_open=True, message="Invalid value: {value:g}: not in valid range (0, 900]")
    with pytest.raises(ArgsError) as caught:
        check(None, attrs.fields(Budget).seconds, value)
    assert caught.value.message == shown


@attrs.frozen
class Budget:
    """A class whose field gives in_range its attribute."""

    seconds: int = 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10)


@given(JSON_VALUES | st.integers(min_value=10 ** 4000, max_value=10 ** 4100))
def test_show_is_always_one_short_printable_line(value: object) -> None:
    """Whatever a file holds, ``show`` renders it as one printable line of bounded length, without raising."""
    text = PROFILE.show(value)
    assert text.isprintable()
    assert len(text) <= 100

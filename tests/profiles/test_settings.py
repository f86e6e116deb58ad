"""The settings table (kubesched/profiles/settings.py): each setting's two keys, default and checks, as both profile
forms read and write them, and the table against the fields it sets."""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

import attrs
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kubesched.errors import ProfileError
from kubesched.framework._args import camel
from kubesched.profiles import load_config, render_config, render_kube_config
from kubesched.profiles.config import KUBE, TOML, Dialect, SchedulerConfiguration
from kubesched.profiles.parse import parse_settings
from kubesched.profiles.settings import PROFILE_SETTINGS, SETTINGS, Setting
from kubesched.runtime import PluginRegistry, Profile, SchedulerSettings
from tests.profiles.test_kube_config import REAL_DEFAULTED

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
#: SchedulerSettings fields that no profile sets: the fast path is switched by ``kubesched bench --reference``.
NOT_FROM_PROFILES = {"fast_path", "check_plugin_inputs"}  # set by command-line flags (--reference, --strict)


@attrs.frozen
class Case:
    """What a table entry must do: its default as a file writes it, valid values (the first other than the
    default, the others at its bounds), invalid values with their messages (``{initial}`` is the initial backoff's
    key in the file's own spelling), and whether a profile may set it for itself."""

    default: object
    valid: tuple[float, ...]
    invalid: Mapping[float, str]
    per_profile: bool = False


INT64_MAX = 2**63 - 1
#: One row per setting, by name. The first valid values are ones the real kube-scheduler v1.32 keeps as written
#: (--write-config-to); its messages are these words, but for the maximum backoff, where it names the initial one
#: by its Go field (``PodInitialBackoffSeconds``) and kubesched by the file's own key.
CASES = {
    "parallelism": Case(None, (8, 1), {0: "Invalid value: 0: should be an integer value greater than zero",
                                       -1: "Invalid value: -1: should be an integer value greater than zero"}),
    "percentage-of-nodes-to-score": Case(0, (30, 0, 100), {101: "Invalid value: 101: not in valid range [0-100]",
                                                           -1: "Invalid value: -1: not in valid range [0-100]"},
                                         per_profile=True),
    # Its upper bound alone is not valid: the maximum backoff's default (10) must be at least it.
    "pod-initial-backoff-seconds": Case(1, (3, 1, 10), {
        0: "Invalid value: 0: must be greater than 0",
        INT64_MAX + 1: f"Invalid value: {INT64_MAX + 1}: must be at most {INT64_MAX}"}),
    "pod-max-backoff-seconds": Case(10, (30, 1, INT64_MAX), {
        0: "Invalid value: 0: must be greater than or equal to {initial}",
        INT64_MAX + 1: f"Invalid value: {INT64_MAX + 1}: must be at most {INT64_MAX}"}),
    "plugin-call-budget-ms": Case(None, (250, 0.5, 1e300), {
        0: "Invalid value: 0: must be greater than 0", -1.5: "Invalid value: -1.5: must be greater than 0",
        math.inf: "Invalid value: +Inf: must be a finite number"}),
    "plugin-timeout-ms": Case(None, (250, 0.5, 1e300), {
        0: "Invalid value: 0: must be greater than 0", -1.5: "Invalid value: -1.5: must be greater than 0",
        math.inf: "Invalid value: +Inf: must be a finite number"}),
}


def spelled(setting: Setting, dialect: Dialect) -> list[Setting]:
    """``[setting]`` when ``dialect`` has a key for it, else ``[]`` (to parametrize over the settings it has)."""
    return [setting] if setting.key(dialect) is not None else []


TARGETED = [s for s in SETTINGS if s.target is not None]
#: Each setting with each dialect that has a key for it.
SPELLED = [(s, d) for s in SETTINGS for d in (TOML, KUBE) if s.key(d) is not None]
PER_PROFILE = [(s, d) for s in PROFILE_SETTINGS for d in (TOML, KUBE) if s.key(d) is not None]


def named(value: Setting | Dialect) -> str:
    """A setting's or a dialect's test id."""
    return value.name


def load(tmp_path: Path, registry: PluginRegistry, text: str, dialect: Dialect) -> SchedulerConfiguration:
    """Load ``text`` as a profile file of ``dialect`` (``profile.toml`` or ``sched.yaml``)."""
    path = tmp_path / ("profile.toml" if dialect is TOML else "sched.yaml")
    path.write_text(text if dialect is TOML else HEADER + text, encoding="utf-8")
    return load_config(str(path), registry)


def line(setting: Setting, dialect: Dialect, value: object, indent: str = "") -> str:
    """``setting = value`` in ``dialect``'s syntax."""
    return f"{indent}{setting.key(dialect)}{' =' if dialect is TOML else ':'} {value}\n"


def error(tmp_path: Path, registry: PluginRegistry, text: str, dialect: Dialect) -> str:
    """The error loading ``text`` raises, without the temporary folder."""
    with pytest.raises(ProfileError) as caught:
        load(tmp_path, registry, text, dialect)
    return str(caught.value).replace(f"{tmp_path}/", "")


def message(setting: Setting, invalid: float, dialect: Dialect) -> str:
    """The message for the setting's ``invalid`` value, in ``dialect``'s spelling."""
    initial = next(s for s in SETTINGS if s.name == "pod-initial-backoff-seconds")
    return CASES[setting.name].invalid[invalid].format(initial=initial.key(dialect))


def in_profile(setting: Setting, dialect: Dialect, value: object) -> str:
    """A file whose one profile sets ``setting`` to ``value``."""
    if dialect is TOML:
        return "[[profiles]]\n" + line(setting, dialect, value)
    return "profiles:\n- schedulerName: default-scheduler\n" + line(setting, dialect, value, "  ")


def shown(config: SchedulerConfiguration, dialect: Dialect) -> dict[str, object]:
    """``profile show``'s document in ``dialect``."""
    if dialect is TOML:
        return tomllib.loads(render_config(config))
    document: dict[str, object] = yaml.safe_load(render_kube_config(config))
    return document


# -- the table itself --------------------------------------------------------------------------------------------
def test_every_setting_has_a_case() -> None:
    """CASES covers exactly the table: a new setting needs its default, a valid and an invalid value here."""
    assert set(CASES) == {s.name for s in SETTINGS}


@pytest.mark.parametrize("setting", SETTINGS, ids=named)
def test_per_profile(setting: Setting) -> None:
    """Whether each profile may set the setting for itself."""
    assert setting.per_profile == CASES[setting.name].per_profile


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.toml and s.kube], ids=named)
def test_both_keys_are_one_name(setting: Setting) -> None:
    """A setting both forms have is kebab-case in TOML and the same words in camelCase in YAML."""
    assert setting.toml is not None
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", setting.toml)
    assert camel(setting.toml) == setting.kube


def test_every_field_a_profile_sets_is_a_setting_target() -> None:
    """Each SchedulerSettings field is some setting's target, but for those no profile sets."""
    targets = {s.target for s in TARGETED}
    assert targets == {f.name for f in attrs.fields(SchedulerSettings)} - NOT_FROM_PROFILES


@pytest.mark.parametrize("setting", PROFILE_SETTINGS, ids=named)
def test_per_profile_setting_targets_a_profile_field(setting: Setting) -> None:
    """A setting a profile may override has a Profile field of its target's name, unset by default."""
    assert setting.target in attrs.fields_dict(Profile)
    assert attrs.fields_dict(Profile)[setting.target].default is None


# -- defaults ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", SETTINGS, ids=named)
def test_default(setting: Setting) -> None:
    """The default a file gets when it leaves the setting out (None: unset)."""
    assert setting.default == CASES[setting.name].default


@pytest.mark.parametrize("setting", [s for s in TARGETED if s.kube], ids=named)
def test_default_is_kube_schedulers(setting: Setting) -> None:
    """kube-scheduler v1.32 writes the same default with --write-config-to."""
    assert yaml.safe_load(REAL_DEFAULTED)[setting.kube] == setting.default


@pytest.mark.parametrize("setting", TARGETED, ids=named)
def test_default_is_its_fields(setting: Setting) -> None:
    """A file without the setting sets its field to SchedulerSettings' default."""
    assert setting.target is not None
    config = load_config("default", PluginRegistry.discover())
    assert getattr(config.settings, setting.target) == getattr(SchedulerSettings(), setting.target)


@pytest.mark.parametrize("dialect", [TOML, KUBE], ids=["toml", "kube"])
def test_show_writes_each_default(tmp_path: Path, registry: PluginRegistry, dialect: Dialect) -> None:
    """``profile show`` of an empty file writes each setting it models with its default; unset ones not at all."""
    document = shown(load(tmp_path, registry, "", dialect), dialect)
    expected = {s.key(dialect): s.default for s in TARGETED if s.key(dialect) and s.default is not None}
    assert {k: v for k, v in document.items() if k not in ("apiVersion", "kind", "profiles")} == expected


# -- round trips -------------------------------------------------------------------------------------------------
def show_and_load(tmp_path: Path, registry: PluginRegistry, config: SchedulerConfiguration,
                  dialect: Dialect) -> SchedulerConfiguration:
    """``profile show``'s text in ``dialect``, loaded as a file of that form."""
    text = render_config(config) if dialect is TOML else render_kube_config(config)
    path = tmp_path / ("shown.toml" if dialect is TOML else "shown.yaml")
    path.write_text(text, encoding="utf-8")
    return load_config(str(path), registry)


@pytest.mark.parametrize(("setting", "dialect"), SPELLED, ids=named)
def test_value_round_trips(tmp_path: Path, registry: PluginRegistry, setting: Setting, dialect: Dialect) -> None:
    """A valid value sets the target field, ``profile show`` writes it back as written, and that loads to the same
    settings; an ignored setting changes nothing and is not shown."""
    valid = CASES[setting.name].valid[0]
    config = load(tmp_path, registry, line(setting, dialect, valid), dialect)
    document = shown(config, dialect)
    if setting.target is None:
        assert config.settings == SchedulerSettings()
        assert setting.key(dialect) not in document
        return
    assert getattr(config.settings, setting.target) == setting.kind.store(valid)
    assert document[str(setting.key(dialect))] == valid
    assert show_and_load(tmp_path, registry, config, dialect).settings == config.settings


@pytest.mark.parametrize(("setting", "dialect"), SPELLED, ids=named)
def test_values_at_the_bounds_are_valid(tmp_path: Path, registry: PluginRegistry, setting: Setting,
                                        dialect: Dialect) -> None:
    """Each valid value, those at the setting's bounds included, sets the target field."""
    for valid in CASES[setting.name].valid:
        config = load(tmp_path, registry, line(setting, dialect, valid), dialect)
        if setting.target is not None:
            assert getattr(config.settings, setting.target) == setting.kind.store(valid)


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.toml and s.kube], ids=named)
def test_both_forms_read_the_same_value(tmp_path: Path, registry: PluginRegistry, setting: Setting) -> None:
    """A value written under the TOML key and under the YAML key gives the same settings."""
    valid = CASES[setting.name].valid[0]
    from_toml = load(tmp_path, registry, line(setting, TOML, valid), TOML)
    from_kube = load(tmp_path, registry, line(setting, KUBE, valid), KUBE)
    assert from_toml.settings == from_kube.settings


@pytest.mark.parametrize("setting", [s for s in TARGETED if not s.kube], ids=named)
def test_kube_show_says_what_it_leaves_out(tmp_path: Path, registry: PluginRegistry, setting: Setting) -> None:
    """A kubesched-only setting that is set is named in the KubeSchedulerConfiguration's header, not written."""
    config = load(tmp_path, registry, line(setting, TOML, CASES[setting.name].valid[0]), TOML)
    text = render_kube_config(config)
    assert f"# Not shown: {setting.name}, kubesched's own setting, has no KubeSchedulerConfiguration field.\n" in text
    assert setting.name not in yaml.safe_load(text)


@pytest.mark.parametrize(("setting", "dialect"), PER_PROFILE, ids=named)
def test_per_profile_value_round_trips(tmp_path: Path, registry: PluginRegistry, setting: Setting,
                                       dialect: Dialect) -> None:
    """A profile's own value sets its Profile field (not the scheduler-wide one) and is written back in its
    profile."""
    assert setting.target is not None
    valid = CASES[setting.name].valid[0]
    config = load(tmp_path, registry, in_profile(setting, dialect, valid), dialect)
    assert getattr(config.profiles[0], setting.target) == setting.kind.store(valid)
    assert config.settings == SchedulerSettings()
    profiles = shown(config, dialect)["profiles"]
    assert isinstance(profiles, list)
    assert profiles[0][setting.key(dialect)] == valid
    assert show_and_load(tmp_path, registry, config, dialect).profiles == config.profiles


# -- checks ------------------------------------------------------------------------------------------------------
def file_name(dialect: Dialect) -> str:
    """The name :func:`load` gives a file of ``dialect``."""
    return "profile.toml" if dialect is TOML else "sched.yaml"


@pytest.mark.parametrize(("setting", "dialect"), SPELLED, ids=named)
def test_invalid_value_is_a_located_error(tmp_path: Path, registry: PluginRegistry, setting: Setting,
                                          dialect: Dialect) -> None:
    """An invalid value is one error naming the file, the key as the form spells it, and kube-scheduler's words."""
    for invalid in CASES[setting.name].invalid:
        expected = f"{file_name(dialect)}: {setting.key(dialect)}: {message(setting, invalid, dialect)}"
        assert error(tmp_path, registry, line(setting, dialect, invalid), dialect) == expected


@pytest.mark.parametrize(("setting", "dialect"), SPELLED, ids=named)
def test_value_of_the_wrong_type_is_a_located_error(tmp_path: Path, registry: PluginRegistry, setting: Setting,
                                                    dialect: Dialect) -> None:
    """A string or a boolean where the setting's type should be is named with the type expected."""
    for value, written in (('"1"', '"1"'), ("true", "true")):
        expected = f"{file_name(dialect)}: {setting.key(dialect)}: Invalid value: {written}: must be " \
                   f"{setting.kind.expected}"
        assert error(tmp_path, registry, line(setting, dialect, value), dialect) == expected


@pytest.mark.parametrize(("setting", "dialect"), PER_PROFILE, ids=named)
def test_invalid_per_profile_value_is_located_in_its_profile(tmp_path: Path, registry: PluginRegistry,
                                                             setting: Setting, dialect: Dialect) -> None:
    """A profile's own invalid value is reported at its key in that profile."""
    invalid = next(iter(CASES[setting.name].invalid))
    expected = f"{file_name(dialect)}: profiles[0].{setting.key(dialect)}: {message(setting, invalid, dialect)}"
    assert error(tmp_path, registry, in_profile(setting, dialect, invalid), dialect) == expected


@pytest.mark.parametrize(("setting", "dialect"), [(s, d) for s, d in SPELLED if not s.per_profile], ids=named)
def test_scheduler_wide_setting_is_unknown_in_a_profile(tmp_path: Path, registry: PluginRegistry, setting: Setting,
                                                       dialect: Dialect) -> None:
    """A setting only the scheduler has is an unknown key inside a profile."""
    text = in_profile(setting, dialect, CASES[setting.name].valid[0])
    assert f"profiles[0].{setting.key(dialect)}: unknown key" in error(tmp_path, registry, text, dialect)


def test_maximum_backoff_may_equal_the_initial_one(tmp_path: Path, registry: PluginRegistry) -> None:
    """pod-max-backoff-seconds is checked against the initial backoff written, and may equal it."""
    config = load(tmp_path, registry, "pod-initial-backoff-seconds = 30\npod-max-backoff-seconds = 30\n", TOML)
    assert config.settings.pod_max_backoff_seconds == config.settings.pod_initial_backoff_seconds == 30
    message = error(tmp_path, registry, "pod-initial-backoff-seconds = 30\npod-max-backoff-seconds = 29\n", TOML)
    assert message.endswith("pod-max-backoff-seconds: Invalid value: 29: must be greater than or equal to "
                            "pod-initial-backoff-seconds")


VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3) | \
    st.lists(st.integers(), max_size=2)
BOTH_FORMS = [s for s in SETTINGS if s.toml and s.kube]


@given(st.fixed_dictionaries({}, optional={s.name: VALUES for s in BOTH_FORMS}))
def test_both_forms_decide_alike(values: dict[str, object]) -> None:
    """Any values under the settings both forms have give the same settings, or the same messages with each
    form's keys."""
    results: list[object] = []
    for dialect in (TOML, KUBE):
        document = {str(s.key(dialect)): values[s.name] for s in BOTH_FORMS if s.name in values}
        try:
            results.append(parse_settings(document, dialect))
        except ProfileError as exc:
            text = str(exc)
            for setting in BOTH_FORMS if dialect is KUBE else ():
                text = re.sub(rf"\b{setting.kube}\b", str(setting.toml), text)
            results.append(text)
    assert results[0] == results[1]

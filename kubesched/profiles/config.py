"""The profile model: the settings and plugin sets a profile document holds, the two dialects it is written in,
the validated configuration it resolves to, and how its problems are collected.

parse reads documents onto this model, resolve merges it onto the defaults, files reads it from disk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesched.errors import ProfileError
from kubesched.framework._args import Naming, camel, kebab
from kubesched.framework._hookspecs import EXTENSION_POINTS
from kubesched.profiles.settings import PROFILE_SETTINGS, written
from kubesched.runtime import PluginEntry, Profile, SchedulerSettings
from kubesched.validation import INT32_MAX, PROFILE
from kubesched.validation import Problems as _Problems

MULTI_POINT = "multi-point"
POINT_KEYS = (MULTI_POINT, *(p.key for p in EXTENSION_POINTS))
#: The largest Score plugin weight: kube-scheduler's weights are int32 (it accepts any positive one).
MAX_WEIGHT = INT32_MAX
#: Documents nested deeper than this are rejected before anything walks them.
MAX_DEPTH = 64
#: How a profile nested too deep is reported (``limit`` is :data:`MAX_DEPTH`), in either form.
TOO_DEEP = "nested more than {limit} levels deep"


@attrs.frozen
class Dialect:
    """How a profile document spells its keys: kubesched's kebab-case TOML or a KubeSchedulerConfiguration."""

    #: ``toml`` or ``kube``: which of a setting's keys (:mod:`kubesched.profiles.settings`) it spells it with.
    name: str
    scheduler_name: str
    #: Extension point keys (``multi-point``, ``queue-sort``, ...) as written.
    points: Mapping[str, str]
    #: How plugin args keys are spelled.
    naming: Naming
    #: kube-scheduler cannot tell a weight of 0 from an unset one; kubesched's TOML rejects 0.
    zero_weight_is_unset: bool
    #: kube-scheduler ignores a weight on a non-Score plugin or point; kubesched's TOML rejects it.
    ignores_misplaced_weights: bool


TOML = Dialect("toml", "scheduler-name", {k: k for k in POINT_KEYS}, kebab, zero_weight_is_unset=False,
               ignores_misplaced_weights=False)
KUBE = Dialect("kube", "schedulerName", {k: camel(k) for k in POINT_KEYS}, camel, zero_weight_is_unset=True,
               ignores_misplaced_weights=True)


@attrs.frozen
class PluginSet:
    """``enabled`` and ``disabled`` at one extension point (disabled may hold ``"*"``)."""

    enabled: tuple[PluginEntry, ...] = ()
    disabled: tuple[str, ...] = ()


@attrs.frozen
class SchedulerConfiguration:
    """A validated profile file: scheduler settings, resolved profiles, and what was read but ignored."""

    settings: SchedulerSettings
    profiles: tuple[Profile, ...]
    source: str = ""
    #: One line each, located like errors: settings kubesched accepts but cannot honour.
    warnings: tuple[str, ...] = ()


class ProfileErrorList(ProfileError):  # noqa: N818 - a list of ProfileError
    """Several problems in one profile file, reported together: one line each (the first is this error's own)."""

    def __init__(self, errors: Sequence[ProfileError]) -> None:
        self.errors = tuple(errors)
        first = self.errors[0]
        super().__init__(first.message, file=first.file, key=first.key)

    def located(self, *, file: str | None = None, key_prefix: str | None = None) -> ProfileErrorList:
        """Every error located the same way."""
        return ProfileErrorList([e.located(file=file, key_prefix=key_prefix) for e in self.errors])

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class Problems(_Problems[ProfileError]):
    """Collects the problems of independent parts of a file, so that one run reports every one of them."""

    def __init__(self) -> None:
        super().__init__(ProfileError, ProfileErrorList)

    def add(self, error: ProfileError) -> None:
        """Record an error (each of several); one per key path, as one mistake can fail several checks there."""
        for each in error.errors if isinstance(error, ProfileErrorList) else (error,):
            if not any(e.key == each.key for e in self.errors):
                self.errors.append(each)


@attrs.frozen
class RawProfile:
    """One profile as written, before merging: its key path, name, plugin sets and args by plugin name."""

    key: str
    scheduler_name: str
    #: The per-profile settings it sets, by Profile field (:data:`~kubesched.profiles.settings.PROFILE_SETTINGS`).
    settings: Mapping[str, Any]
    plugins: Mapping[str, PluginSet]
    plugin_config: Mapping[str, Any]
    #: The key path of each plugin's args, and of the args of a plugin that has none written.
    args_keys: Mapping[str, str]
    args_key: str
    dialect: Dialect = TOML

    def point_key(self, point: str) -> str:
        """The key path of an extension point's plugin set."""
        return f"{self.key}.plugins.{self.dialect.points[point]}"


def fail(message: str, key: str) -> ProfileError:
    """A problem at ``key``."""
    return ProfileError(message, key=key)


def as_table(value: object, key: str) -> Mapping[str, Any]:
    """``value`` when it is a table; a ProfileError at ``key`` otherwise."""
    if not isinstance(value, Mapping):
        raise fail(PROFILE.wrong_type(value, "a table"), key)
    return value


def written_profile(profile: Profile, dialect: Dialect) -> dict[str, Any]:
    """A profile as ``dialect`` writes it, but for its plugin args (each form writes them its own way): every
    extension point disables ``"*"`` and enables its complete list in order (Score plugins with their
    weights), so the document loads back to exactly the same profile."""
    table: dict[str, Any] = {dialect.scheduler_name: profile.scheduler_name,
                             **written(PROFILE_SETTINGS, profile, dialect)}
    plugins: dict[str, Any] = {}
    for point in EXTENSION_POINTS:
        entries = [{"name": e.name, "weight": e.weight} if point.key == "score" else {"name": e.name}
                   for e in profile.enabled(point.key)]
        plugins[dialect.points[point.key]] = {"disabled": [{"name": "*"}], "enabled": entries}
    table["plugins"] = plugins
    return table

"""The settings table: every value a profile sets besides its plugins, one :class:`Setting` each, with its key in
each dialect, its type, its checks (in kube-scheduler's words), the field it sets and where it may be written.

Reading both dialects, the defaults, ``kubesched profile show`` and docs/profiles.md's settings list all follow
:data:`SETTINGS`: a new setting is one entry here plus its field on :class:`~kubesched.runtime.SchedulerSettings`
(and on :class:`~kubesched.runtime.Profile` when profiles may override it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from kubesched.errors import ProfileError
from kubesched.runtime import SchedulerSettings
from kubesched.validation import INT64_MAX, PROFILE, is_finite, is_integer, is_number

if TYPE_CHECKING:
    from kubesched.profiles.config import Dialect


def _same(value: Any) -> Any:
    return value


def _milliseconds_to_seconds(value: Any) -> Any:
    return float(value) / 1000


def _seconds_to_milliseconds(value: Any) -> Any:
    return value * 1000


@attrs.frozen
class Kind:
    """A setting's type: what a file may write (``expected`` names it in messages), and how the written value
    becomes its field's value (``store``) and is written back from it (``show``)."""

    expected: str
    accepts: Callable[[object], bool]
    store: Callable[[Any], Any] = _same
    show: Callable[[Any], Any] = _same


#: An integer, never a boolean, stored as written.
INTEGER = Kind("an integer", is_integer)
#: Whole seconds, as kube-scheduler's int64 fields; stored as float seconds.
SECONDS = Kind("an integer", is_integer, float, int)
#: A number of milliseconds (kubesched's own settings); stored as float seconds.
MILLISECONDS = Kind("a number of milliseconds", is_number, _milliseconds_to_seconds, _seconds_to_milliseconds)


class Bound(Protocol):
    """One check on a setting's value, worded as kube-scheduler words it."""

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        """Whether ``value`` fails the check; ``earlier`` holds the valid values of the settings checked before."""

    def says(self, dialect: Dialect) -> str:
        """What the value must be, after ``Invalid value: X:`` in the message."""

    def describe(self) -> str:
        """The valid values, for the docs' settings list."""


@attrs.frozen
class InRange:
    """From ``low`` to ``high``, both included."""

    low: int
    high: int

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        return not self.low <= value <= self.high

    def says(self, dialect: Dialect) -> str:
        return f"not in valid range [{self.low}-{self.high}]"

    def describe(self) -> str:
        return f"from {self.low} to {self.high}"


@attrs.frozen
class Above:
    """Greater than ``limit`` (NaN is not)."""

    limit: int
    message: str = "must be greater than {limit}"

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        return not value > self.limit

    def says(self, dialect: Dialect) -> str:
        return self.message.format(limit=self.limit)

    def describe(self) -> str:
        return f"above {self.limit}"


@attrs.frozen
class AtMost:
    """At most ``limit``."""

    limit: int

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        return not value <= self.limit

    def says(self, dialect: Dialect) -> str:
        return f"must be at most {self.limit}"

    def describe(self) -> str:
        return f"at most {self.limit}"


@attrs.frozen
class AtLeast:
    """At least another setting's value (checked before this one); at least 0 when that one is invalid."""

    other: Setting

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        return not value >= earlier.get(self.other, 0)

    def says(self, dialect: Dialect) -> str:
        return f"must be greater than or equal to {self.other.key(dialect) or self.other.name}"

    def describe(self) -> str:
        return f"at least `{self.other.name}`"


@attrs.frozen
class Finite:
    """A finite number: not infinite, not NaN, not an integer too large for a float64."""

    def excludes(self, value: Any, earlier: Mapping[Setting, Any]) -> bool:
        return not is_finite(value)

    def says(self, dialect: Dialect) -> str:
        return "must be a finite number"

    def describe(self) -> str:
        return "finite"


#: The scheduler-wide defaults: each setting's default is its field's.
_DEFAULTS = SchedulerSettings()


@attrs.frozen
class Setting:
    """One setting: its keys (None where a dialect has none), type, checks in order, and target."""

    #: The key in a kubesched TOML profile; None: only a KubeSchedulerConfiguration has it.
    toml: str | None
    #: The key in a KubeSchedulerConfiguration; None: kubesched's own setting.
    kube: str | None
    kind: Kind
    bounds: tuple[Bound, ...]
    #: The :class:`~kubesched.runtime.SchedulerSettings` field it sets; None: checked, then ignored.
    target: str | None
    #: Each profile may set it too, on the :class:`~kubesched.runtime.Profile` field of the same name, which then
    #: wins over the scheduler-wide value; unset in a profile, the scheduler-wide value applies.
    per_profile: bool = False
    #: What it does, for the docs' settings list.
    doc: str = ""

    @property
    def name(self) -> str:
        """The setting's name in docs and messages: its TOML key, or its KubeSchedulerConfiguration key."""
        name = self.toml or self.kube
        assert name is not None
        return name

    def key(self, dialect: Dialect) -> str | None:
        """The key ``dialect`` spells it with; None where that dialect has no such setting."""
        return self.toml if dialect.name == "toml" else self.kube

    @property
    def default(self) -> Any:
        """The value a file that leaves it out gets, as a file writes it (its target field's default); None when
        leaving it out leaves it unset."""
        return None if self.target is None else self.show(getattr(_DEFAULTS, self.target))

    def show(self, stored: Any) -> Any:
        """A field's value as a file writes it (None stays None: unset)."""
        return None if stored is None else self.kind.show(stored)

    def check(self, value: object, key: str, dialect: Dialect, earlier: Mapping[Setting, Any]) -> Any:
        """``value``, written at ``key``, when it is of this setting's type and within its bounds; a ProfileError
        at ``key`` naming the first check it fails otherwise."""
        if not self.kind.accepts(value):
            raise ProfileError(PROFILE.wrong_type(value, self.kind.expected), key=key)
        for bound in self.bounds:
            if bound.excludes(value, earlier):
                raise ProfileError(f"Invalid value: {PROFILE.show(value)}: {bound.says(dialect)}", key=key)
        return value

    def describe(self) -> str:
        """The valid values, for the docs' settings list (``an integer, from 0 to 100``)."""
        return ", ".join((self.kind.expected, *(b.describe() for b in self.bounds)))


# Backoffs go up to the largest int64, as kube-scheduler's.
_INITIAL_BACKOFF = Setting(
    "pod-initial-backoff-seconds", "podInitialBackoffSeconds", SECONDS, (Above(0), AtMost(INT64_MAX)),
    "pod_initial_backoff_seconds",
    doc="a pod's backoff after its first failed attempt; each further failure doubles it")

#: Every setting, in the order they are checked, listed in messages, and written by ``profile show``.
SETTINGS: tuple[Setting, ...] = (
    # First, as kube-scheduler's struct has it: its problem is reported before the others'.
    Setting(None, "parallelism", INTEGER, (Above(0, "should be an integer value greater than zero"),), None,
            doc="kube-scheduler's number of parallel workers: checked, then ignored (it cannot change where a pod "
                "goes)"),
    Setting("percentage-of-nodes-to-score", "percentageOfNodesToScore", INTEGER, (InRange(0, 100),),
            "percentage_of_nodes_to_score", per_profile=True,
            doc="how many feasible nodes to find before scoring, in percent of the nodes; 0: adaptive, as "
                "kube-scheduler (50% minus 1% per 125 nodes, at least 5%)"),
    _INITIAL_BACKOFF,
    Setting("pod-max-backoff-seconds", "podMaxBackoffSeconds", SECONDS, (AtLeast(_INITIAL_BACKOFF), AtMost(INT64_MAX)),
            "pod_max_backoff_seconds", doc="the longest backoff"),
    Setting("plugin-call-budget-ms", None, MILLISECONDS, (Above(0), Finite()), "plugin_call_budget_seconds",
            doc="kubesched's own: plugin calls slower than this are named in a warning (unset: calls are not timed)"),
    Setting("plugin-timeout-ms", None, MILLISECONDS, (Above(0), Finite()), "plugin_timeout_seconds",
            doc="kubesched's own: a plugin call running longer than this is interrupted and fails its pod as that "
                "plugin's error (unset: no limit)"),
)
#: The settings a profile may also set for itself.
PROFILE_SETTINGS = tuple(s for s in SETTINGS if s.per_profile)


def keys(settings: Iterable[Setting], dialect: Dialect) -> tuple[str, ...]:
    """The keys ``dialect`` spells ``settings`` with, in order (those it has)."""
    return tuple(k for k in (s.key(dialect) for s in settings) if k is not None)


def written(settings: Iterable[Setting], source: object, dialect: Dialect) -> dict[str, Any]:
    """The values ``source`` (SchedulerSettings or a Profile) holds for ``settings``, keyed and written as
    ``dialect`` writes them; unset ones (None) and those the dialect has no key for are left out."""
    table: dict[str, Any] = {}
    for setting in settings:
        key = setting.key(dialect)
        if key is not None and setting.target is not None and getattr(source, setting.target) is not None:
            table[key] = setting.show(getattr(source, setting.target))
    return table


def unwritable(settings: SchedulerSettings, dialect: Dialect) -> tuple[Setting, ...]:
    """The settings ``settings`` sets that ``dialect`` has no key for (``profile show`` says it leaves them out)."""
    return tuple(s for s in SETTINGS if s.key(dialect) is None and s.target is not None
                 and getattr(settings, s.target) is not None)

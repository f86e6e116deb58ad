"""Go durations (``90s``, ``1h30m``) and cron schedules (``0 2 * * *``) as Kubernetes reads them.

Durations follow Go's time.ParseDuration; schedules the standard five-field cron syntax of the CronJob
controller's parser (ranges, lists, steps, month and weekday names, ``?``, and the ``@hourly``-style descriptors).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

import attrs

_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
#: The longest duration Go's time.ParseDuration reads (2^63-1 nanoseconds): longer ones are invalid, as in Go.
MAX_DURATION = (2**63 - 1) / 1e9
MAX_DURATION_TEXT = "2562047h47m16.854775807s"
MAX_SECONDS_TEXT = "9223372036.854775807"
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class TimeSpecError(ValueError):
    """A duration or schedule that does not parse; the message says why."""


def parse_duration(text: str) -> float:
    """Seconds in a Go duration such as ``1h30m`` or ``1.5s`` (``0`` alone is allowed); negative ones are refused,
    and so are those past Go's longest (about 292 years), which Go cannot read either."""
    if text == "0":
        return 0.0
    if not text or text.startswith(("-", "+")):
        raise TimeSpecError("must be a non-negative duration such as \"90s\", \"5m\" or \"1h30m\"")
    total, position = 0.0, 0
    while position < len(text):
        match = _DURATION_PART.match(text, position)
        if match is None or match.group(1) in ("", "."):
            raise TimeSpecError("must be a duration such as \"90s\", \"5m\" or \"1h30m\" (units ns, us, ms, s, m, h)")
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    if total > MAX_DURATION:
        raise TimeSpecError(f"must be at most {MAX_DURATION_TEXT} (the longest Go duration, about 292 years)")
    return total


_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (field name, lowest, highest, names)
_FieldSpec = tuple[str, int, int, dict[str, int]]
_FIELDS: tuple[_FieldSpec, ...] = (
    ("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}), ("month", 1, 12, _MONTHS),
    ("day of week", 0, 6, _DAYS))


@attrs.frozen
class Schedule:
    """A parsed cron schedule: the allowed values of each field, and whether day-of-month and day-of-week were
    both restricted (then either matching is enough, as cron does)."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    either_day: bool

    def next_after(self, when: datetime, zone: tzinfo | None = None) -> datetime | None:
        """The first scheduled instant strictly after ``when`` (in ``zone``'s wall time, UTC when None), or None
        when none comes within five years (a schedule such as ``0 0 30 2 *``)."""
        local = when.astimezone(zone) if zone is not None and when.tzinfo is not None else when
        start_zone = local.tzinfo
        t = local.replace(second=0, microsecond=0, tzinfo=None) + timedelta(minutes=1)
        limit = t + timedelta(days=5 * 366)
        while t < limit:
            if t.month not in self.months:
                t = (t.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
                continue
            if not self._day_matches(t):
                t = t.replace(hour=0, minute=0) + timedelta(days=1)
                continue
            if t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
                continue
            if t.minute not in self.minutes:
                t += timedelta(minutes=1)
                continue
            return t.replace(tzinfo=start_zone)
        return None

    def _day_matches(self, t: datetime) -> bool:
        day = t.day in self.days
        weekday = (t.isoweekday() % 7) in self.weekdays
        return (day or weekday) if self.either_day else (day and weekday)


def parse_schedule(text: str) -> Schedule:
    """A five-field cron schedule or a descriptor; :class:`TimeSpecError` says which field is wrong."""
    spec = _DESCRIPTORS.get(text.strip().lower(), text)
    if spec.startswith("@"):
        raise TimeSpecError(f"unrecognized descriptor {text!r} (supported: {', '.join(_DESCRIPTORS)})")
    fields = spec.split()
    if len(fields) != 5:
        raise TimeSpecError(f"expected exactly 5 fields (minute hour day-of-month month day-of-week), found "
                            f"{len(fields)}")
    parsed: list[frozenset[int]] = []
    starred: list[bool] = []
    for field, (name, low, high, names) in zip(fields, _FIELDS, strict=True):
        values, star = _field(field, name, low, high, names)
        parsed.append(values)
        starred.append(star)
    weekdays = frozenset(v % 7 for v in parsed[4])
    return Schedule(parsed[0], parsed[1], parsed[2], parsed[3], weekdays,
                    either_day=not starred[2] and not starred[4])


def _field(text: str, name: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise TimeSpecError(f"{name}: bad step {step_text!r}")
            step = int(step_text)
        if body in ("*", "?"):
            first, last = low, high
            star = star or step == 1
        else:
            first_text, dash, last_text = body.partition("-")
            first = _value(first_text, name, low, high, names)
            last = _value(last_text, name, low, high, names) if dash else (high if step_text else first)
            if last < first:
                raise TimeSpecError(f"{name}: beginning of range ({first}) beyond end of range ({last})")
        values.update(range(first, last + 1, step))
    return frozenset(values), star


def _value(text: str, name: str, low: int, high: int, names: dict[str, int]) -> int:
    number = names.get(text.lower())
    if number is None:
        if not text.isascii() or not text.isdigit():
            raise TimeSpecError(f"{name}: {text!r} is not a number" + (f" or a name ({', '.join(names)})"
                                                                        if names else ""))
        number = int(text)
    # Day of week 7 is Sunday, as cron allows.
    top = 7 if name == "day of week" else high
    if not low <= number <= top:
        raise TimeSpecError(f"{name}: {number} is out of range {low}-{top}")
    return number
